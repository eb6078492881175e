"""Units × cells: the same suite run on several engines or models, one row per unit and one column per cell.

A cell is one report (one engine and one agent model, as the report's ``config.engine`` and ``agent.model`` say,
and with ``--arms`` one arm, as its ``arm`` says).
Units are matched across the reports by their identity (file and name), never by position; a unit a cell did not
run is an empty cell, not a failure. Each cell shows k/N (passes of the runs that passed or failed), the 95%
Wilson interval and the cost the agent CLI reported (``evalens report matrix``; issue #25). An arm's reference
report carries its comparison with the other arms (runner/arms.py): the matrix adds, per engine · model, one
column per other arm with each unit's uplift of the reference over it, and under the table the units pooled with
the paired interval, as the arms summary words them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.runner.report import NotAReport, load_report
from evalens.runner.stats import Repeats
from evalens.runner.uplift_words import arms_table, uplift_text


@dataclass(frozen=True, slots=True)
class Cell:
    repeats: Repeats
    cost_usd: float | None

    def text(self) -> str:
        """``FLAKY 2/3 [21%–94%] $0.0123`` (the interval only when a run counted; the cost when one was
        reported)."""
        return " ".join(
            p for p in (self.repeats.state, self.repeats.label(), self.interval_text(), self.cost_text()) if p
        )

    def interval_text(self) -> str:
        """``[21%–94%]``: the 95% Wilson interval of the pass rate; '' when no run passed or failed."""
        interval = self.repeats.interval
        return "" if interval is None else f"[{interval[0]:.0%}–{interval[1]:.0%}]"

    def cost_text(self) -> str:
        """``$0.0123``; '' when the agent CLI reported no cost."""
        return "" if self.cost_usd is None else f"${self.cost_usd:.4f}"

    def as_json(self) -> dict[str, Any]:
        interval = self.repeats.interval
        return {
            "state": self.repeats.state,
            "passed": self.repeats.passed,
            "counted": self.repeats.counted,
            "runs": self.repeats.runs,
            "interval": None if interval is None else [round(x, 4) for x in interval],
            "cost_usd": self.cost_usd,
        }


@dataclass(slots=True)
class Matrix:
    columns: list[str]  # one label per cell: "engine · model" (" · arm" with --arms)
    rows: list[tuple[str, list[Cell | None]]] = field(default_factory=list)  # unit, one entry per column
    keys: list[tuple[str, str]] = field(default_factory=list)  # each row's unit identity: (case file, name)
    # with --arms: "Δ vs no skill · claude-code · m" → each row's uplift of the reference arm over that arm
    uplift: dict[str, list[str]] = field(default_factory=dict)
    pooled: list[str] = field(default_factory=list)  # each cell's arms pooled, with the paired interval

    def table(self, extra: dict[str, list[str]] | None = None) -> str:
        """A plain-text table, one row per unit, then the pooled uplift lines; ``extra`` adds columns (heading
        → one text per row) after the uplift's."""
        more = {**self.uplift, **(extra or {})}
        head = ["unit", *self.columns, *more]
        body = [
            [name, *(c.text() if c is not None else "—" for c in cells), *(col[i] for col in more.values())]
            for i, (name, cells) in enumerate(self.rows)
        ]
        return "\n".join([text_table(head, body), *(["", *self.pooled] if self.pooled else [])])

    def only(self, indexes: list[int]) -> Matrix:
        """The matrix of these rows alone (the uplift columns cut to them; the pooled lines kept whole)."""
        return Matrix(
            self.columns,
            [self.rows[i] for i in indexes],
            [self.keys[i] for i in indexes],
            {h: [col[i] for i in indexes] for h, col in self.uplift.items()},
            self.pooled,
        )

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "columns": self.columns,
            "rows": [
                {
                    "unit": name,
                    "cells": [c.as_json() if c is not None else None for c in cells],
                    **({"uplift": {h: col[i] for h, col in self.uplift.items()}} if self.uplift else {}),
                }
                for i, (name, cells) in enumerate(self.rows)
            ],
        }
        if self.pooled:
            out["pooled"] = self.pooled
        return out


def text_table(head: list[str], body: list[list[str]]) -> str:
    """Columns padded to their widest value, a rule under the heading."""
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = [
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cell_label(report: Any) -> str:
    """``claude-code · claude-sonnet-4-5``: the cell's engine and the agent model its runs reported."""
    model = (report.agent.model if report.agent else None) or "default model"
    return f"{report.config.engine} · {model}"


def column_label(report: Any) -> str:
    """The cell's label, and the arm's (``claude-code · claude-sonnet-4-5 · no skill``) when it ran one."""
    arm = getattr(report, "arm", None)
    return cell_label(report) + (f" · {arm.label}" if arm is not None else "")


def arm_uplift(reports: list[Any], keys: list[tuple[str, str]]) -> tuple[dict[str, list[str]], list[str]]:
    """The uplift columns and pooled lines of the reference reports among ``reports`` (runner/arms.py's
    comparison, worded by runner/baseline.py): per reference, one column per compared arm with each unit's
    uplift (``keys``: the rows' units) and the arms summary's pooled lines. The cell (engine · model) is named
    only when the reports hold several."""
    several = len({cell_label(r) for r in reports}) > 1
    columns: dict[str, list[str]] = {}
    pooled: list[str] = []
    for ref in (r for r in reports if getattr(r, "arms", None) is not None):
        where = cell_label(ref) if several else ""
        for c in ref.arms.comparisons:
            columns[f"Δ vs {c.arm.label}" + (f" · {where}" if where else "")] = [
                uplift_text(c.units.get(name), against=False) or "—" for _file, name in keys
            ]
        shaped = arms_table(ref)
        pooled += [f"{where}: {line}" if where else line for line in (shaped[2] if shaped else [])]
    return columns, pooled


def matrix(reports: list[Any]) -> Matrix:
    """The units × cells matrix of ``reports`` (one report per cell, in the order given)."""
    labels = [column_label(r) for r in reports]
    seen: dict[str, int] = {}
    columns = []
    for label in labels:  # two cells of the same engine and model stay apart
        seen[label] = seen.get(label, 0) + 1
        columns.append(label if labels.count(label) == 1 else f"{label} #{seen[label]}")
    order: list[tuple[str, str]] = []
    cells: dict[tuple[str, str], list[Cell | None]] = {}
    for i, report in enumerate(reports):
        for case in report.cases:
            key = (case.case_file or "", case.name)
            if key not in cells:
                order.append(key)
                cells[key] = [None] * len(reports)
            verdicts = list(case.run_verdicts) if case.run_verdicts else [case.verdict]
            cost = case.usage.cost_usd if case.usage is not None else None
            cells[key][i] = Cell(Repeats.of(verdicts, case.budget_stopped or 0), cost)
    names = [name for _file, name in order]
    uplift, pooled = arm_uplift(reports, order)
    return Matrix(
        columns,
        [
            (name if names.count(name) == 1 else f"{name} ({file})", cells[(file, name)])
            for file, name in order
        ],
        order,
        uplift,
        pooled,
    )


CELL_REPORT = re.compile(r"(?P<batch>.+)-cell-(?P<index>[0-9]+)\.json")


def cell_report_name(batch: str, index: int) -> str:
    """The file name of a matrix run's ``index``-th cell report (from 1): the cells of one batch share
    ``batch``, which is how :func:`batch_reports` finds them again."""
    return f"{batch}-cell-{index}.json"


def batch_reports(path: Path) -> list[Path]:
    """The cell reports of the matrix batch ``path`` belongs to, in cell order ([] when ``path`` is not a cell
    report of a matrix run)."""
    found = CELL_REPORT.fullmatch(path.name)
    if found is None:
        return []
    mine = [
        (int(m["index"]), p)
        for p in path.parent.glob(f"{glob_escape(found['batch'])}-cell-*.json")
        if (m := CELL_REPORT.fullmatch(p.name)) is not None and m["batch"] == found["batch"] and p.is_file()
    ]
    return [p for _i, p in sorted(mine)]


def glob_escape(text: str) -> str:
    """``text`` matched literally by ``Path.glob``."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def cells(engines: str | None, models: str | None) -> list[tuple[str | None, str | None]]:
    """``--engine a,b`` × ``--model`` into (engine, model) cells, in order. A model written ``ENGINE=MODEL``
    belongs to that engine only; a bare model runs on every engine; an engine with no model runs its default
    (None). Raises ValueError for a model bound to an engine that is not asked for."""
    names: list[str | None] = [e.strip() for e in engines.split(",") if e.strip()] if engines else [None]
    bound: dict[str, list[str]] = {}
    bare: list[str] = []
    for item in (m.strip() for m in (models or "").split(",")):
        if not item:
            continue
        engine, sep, model = item.partition("=")
        if sep:
            if engine not in names:
                raise ValueError(f"--model {item}: {engine} is not one of --engine {engines or '(default)'}")
            bound.setdefault(engine, []).append(model)
        else:
            bare.append(item)
    out: list[tuple[str | None, str | None]] = []
    for name in names:
        mine = bound.get(name or "", []) + bare
        out += [(name, m) for m in mine] if mine else [(name, None)]
    return out


@dataclass(slots=True)
class BatchMatrix:
    """The matrix of the batch a shown cell report belongs to."""

    grid: Matrix
    here: int | None  # the column of the report shown
    unread: list[str]  # "<file>: <why>" for each cell report that could not be read


def batch_matrix(path: Path, report: Any) -> BatchMatrix | None:
    """The units × cells matrix of the matrix batch whose cell report ``report`` (read from ``path``) is, for
    ``evalens show`` and the HTML page; None when ``path`` is not a matrix run's cell report."""
    paths = batch_reports(path)
    if not paths:
        return None
    reports: list[Any] = []
    unread: list[str] = []
    here: int | None = None
    for p in paths:
        if p == path:
            here = len(reports)
            reports.append(report)
            continue
        try:
            reports.append(load_report(p))
        except (NotAReport, OSError, ValueError) as exc:
            unread.append(f"{p.name}: {exc}")
    return BatchMatrix(matrix(reports), here, unread)


def shard_pairs(
    cell_labels: list[str],
    units: list[str],
    count: int,
    durations: dict[tuple[int, str], float] | None = None,
) -> list[list[tuple[int, str]]]:
    """A matrix run split across ``count`` machines by cell × unit: every (cell index, unit) pair in exactly
    one shard, cut by :func:`evalens.runner.ci.shard.split` (the same on every machine; balanced by past
    durations of each pair when given, else by count), so one slow cell does not land on one machine whole."""
    pairs = {f"{i:04d} {label}\x1f{unit}": (i, unit) for i, label in enumerate(cell_labels) for unit in units}
    keys = {pair: key for key, pair in pairs.items()}
    known = {keys[p]: d for p, d in (durations or {}).items() if p in keys}
    # lazy: ci.shard reads the unit listings of every format (~0.25 s of model imports); `evalens show` and
    # `evalens report` read a matrix without ever sharding one
    from evalens.runner.ci.shard import split

    cut = split(list(pairs), count, known or None)
    return [[pairs[key] for key in shard] for shard in cut.shards]
