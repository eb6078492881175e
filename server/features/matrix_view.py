"""The units × cells matrix of a package's newest matrix run (``evalens eval --engine a,b`` / ``--model A,B``;
runner/matrix.py builds it, one column per cell: k/N, Wilson interval, cost; with ``--arms`` one per engine ·
model · arm, and each engine's uplift per arm) for the editors: the eval case's hover, the Test Explorer's cell
items (``matrix`` of ``evalens.discoverCases``) and ``evalens.matrix`` (Neovim's ``:EvalensMatrix``). Reports are read in the server's worker threads (hover, discovery and the command all run
there), once per change of the reports folder: one ``stat`` tells, as for the arms lens."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalens.core.index import evals_parent
from evalens.server import uris
from evalens.server.wire import MatrixAnswer, MatrixCell, MatrixRow

log = logging.getLogger(__name__)
SEARCHED = 40  # newest reports looked through for a matrix run's cell report


@dataclass(frozen=True, slots=True)
class Column:
    label: str  # "claude-code · claude-sonnet-4-5" (" · no skill" with --arms), as the CLI's table heads it
    engine: str | None
    model: str | None
    arm: str | None = None  # the --arms arm as given: "no-skill", "without:references"


@dataclass(slots=True)
class MatrixBatch:
    """One matrix run: its cells (columns) and each unit's row, keyed by unit identity (case file, name)."""

    name: str  # the batch's time stamp, shared by its cell reports
    paths: list[Path]  # the cell reports read, in cell order
    columns: list[Column]
    grid: Any  # runner.matrix.Matrix
    unread: list[str]

    def row(self, name: str, case_file: str | None = None) -> list[Any] | None:
        """The cells of unit ``name`` (one per column, None where the cell did not run it); a name two files
        share is told apart by ``case_file`` (relative to the package, as reports write it)."""
        found = [i for i, (_file, unit) in enumerate(self.grid.keys) if unit == name]
        if len(found) > 1 and case_file is not None:
            found = [i for i in found if _same_file(self.grid.keys[i][0], case_file)] or found
        return self.grid.rows[found[0]][1] if found else None

    def uplift(self, cells: list[Any]) -> dict[str, str]:
        """The row's uplift per engine and arm (heading → text; {} without ``--arms``), for the row ``cells``
        that :meth:`row` gave."""
        i = next((i for i, (_label, row) in enumerate(self.grid.rows) if row is cells), None)
        return {} if i is None else {h: col[i] for h, col in self.grid.uplift.items()}


def _same_file(reported: str, case_file: str) -> bool:
    """Whether a report's case file is ``case_file`` (a leading ``./`` aside; ``.github/`` stays a folder)."""
    return _plain(reported) == _plain(case_file) or (
        Path(case_file).is_absolute() and Path(case_file).as_posix().endswith("/" + Path(reported).as_posix())
    )


def _plain(path: str) -> str:
    text = Path(path).as_posix()
    while text.startswith("./"):
        text = text[2:]
    return text


def newest_batch(root: Path) -> MatrixBatch | None:
    """The newest matrix run of the package at ``root`` (None: no cell report among its newest reports).
    Blocking: reads reports."""
    # lazy: evalens.runner.matrix ~0.3 s to import; the server starts without it, and without the report
    # models (~0.1 s, issue 43)
    from evalens.runner.matrix import CELL_REPORT, batch_reports
    from evalens.runner.report import reports_newest_first

    for path in reports_newest_first(root, SEARCHED):
        found = CELL_REPORT.fullmatch(path.name)
        if found is None:
            continue
        batch = batch_of(batch_reports(path), found["batch"])
        if batch is not None:
            return batch
    return None


def batch_of(paths: list[Path], name: str) -> MatrixBatch | None:
    """The matrix of the reports ``paths`` (in column order), named ``name``; None when fewer than two can be
    read (one cell: nothing to compare). Blocking: reads reports."""
    from evalens.runner.matrix import matrix  # lazy: ~0.3 s, as in newest_batch
    from evalens.runner.report import NotAReport, load_report  # lazy: the report models, as above

    reports, kept, unread = [], [], []
    for p in paths:
        try:
            reports.append(load_report(p))
            kept.append(p)
        except (NotAReport, OSError, ValueError) as exc:
            unread.append(f"{p.name}: {exc}")
    if len(reports) < 2:
        return None
    grid = matrix(reports)
    columns = [
        Column(label, r.config.engine, r.agent.model if r.agent else None, r.arm.name if r.arm else None)
        for label, r in zip(grid.columns, reports, strict=True)
    ]
    return MatrixBatch(name, kept, columns, grid, unread)


def cell_models(batch: MatrixBatch, cells: list[Any]) -> list[MatrixCell]:
    """A unit's row as ``MatrixCell`` models (server/wire.py); ``arm`` only for an ``--arms`` run's cells."""
    out = []
    for column, cell in zip(batch.columns, cells, strict=True):
        where: dict[str, Any] = {"column": column.label, "engine": column.engine, "model": column.model}
        if column.arm is not None:
            where["arm"] = column.arm
        if cell is None:
            out.append(MatrixCell(**where, text="—"))
            continue
        r = cell.repeats
        out.append(
            MatrixCell(
                **where,
                state=r.state,
                passed=r.passed,
                counted=r.counted,
                runs=r.runs,
                interval=None if r.interval is None else [round(x, 4) for x in r.interval],
                cost_usd=cell.cost_usd,
                text=cell.text(),
            )
        )
    return out


def hover_markdown(batch: MatrixBatch, cells: list[Any]) -> str:
    """The unit's row under a heading, as a Markdown table of two columns (so a hover never cuts it off,
    however many cells): one line per cell (k/N, interval, cost), then with ``--arms`` one per engine and arm
    with the reference arm's uplift over it."""
    values = [c.text() if c is not None else "—" for c in cells]
    pairs = [*zip((c.label for c in batch.columns), values, strict=True), *batch.uplift(cells).items()]

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    return "\n".join(
        [
            f"**Matrix** ({len(batch.columns)} cells, run {batch.name}): k/N · 95% interval · cost",
            "",
            "| cell | this case |",
            "|---|---|",
            *(f"| {esc(head)} | {esc(value)} |" for head, value in pairs),
        ]
    )


class MatrixRows:
    """The newest matrix run of each package, kept per version of its reports folder. Called from worker
    threads only (hover, discovery, ``evalens.matrix``): a changed folder is read once, under a lock."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[int, MatrixBatch | None]] = {}
        self._lock = threading.Lock()

    def batch(self, root: Path) -> MatrixBatch | None:
        try:
            stamp = (root / "evals" / "reports").stat().st_mtime_ns
        except OSError:
            return None
        with self._lock:
            known = self._known.get(root)
            if known is not None and known[0] == stamp:
                return known[1]
            try:
                batch = newest_batch(root)
            except OSError:
                log.debug("matrix: reading the reports of %s failed", root, exc_info=True)
                batch = None
            self._known[root] = (stamp, batch)
            if len(self._known) > 64:
                self._known.pop(next(iter(self._known)))
            return batch

    def row(
        self, root: Path, name: str, case_file: str | None = None
    ) -> tuple[MatrixBatch, list[Any]] | None:
        """The unit's cells in the package's newest matrix run (None: no such run, or the unit is not in it)."""
        batch = self.batch(root)
        cells = batch.row(name, case_file) if batch is not None else None
        return (batch, cells) if batch is not None and cells is not None else None

    def answer(self, root: Path, name: str | None) -> MatrixAnswer | None:
        """``evalens.matrix``: the whole matrix (or one unit's row) with its plain-text table."""
        batch = self.batch(root)
        return None if batch is None else answer_of(batch, name)


def answer_of(batch: MatrixBatch, name: str | None) -> MatrixAnswer | None:
    """A matrix (or unit ``name``'s row of it) as ``evalens.matrix`` and ``evalens.runComparison`` answer."""
    grid = batch.grid
    mine = [i for i, key in enumerate(grid.keys) if name is None or key[1] == name]
    if not mine:
        return None
    shown = grid.only(mine)
    return MatrixAnswer(
        batch=batch.name,
        columns=[c.label for c in batch.columns],
        rows=[
            MatrixRow(
                unit=label,
                name=key[1],
                cells=cell_models(batch, cells),
                uplift=batch.uplift(cells) or None,
            )
            for (label, cells), key in zip(shown.rows, shown.keys, strict=True)
        ],
        report_paths=[str(p) for p in batch.paths],
        table=shown.table(),
        pooled=grid.pooled or None,
        unread=batch.unread,
    )


def root_of(args: dict[str, Any]) -> Path | None:
    """The package of the command's ``uri`` (a file or folder in it)."""
    path = uris.usable_path(args.get("uri") or "") if args.get("uri") else None
    if not path:
        return None
    found = evals_parent(Path(path))
    if found is not None:
        return found
    start = Path(path)
    return next((f for f in (start, *start.parents) if (f / "evals" / "reports").is_dir()), None)
