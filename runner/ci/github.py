"""GitHub Actions faces of a report: the step summary (Markdown), annotations (``::error file=…,line=…::``)
and step outputs (``key=value`` lines for ``$GITHUB_OUTPUT``).

Formats: GitHub's workflow commands (every value escaped by :func:`evalens.core.workflow_commands.escape`) and
job summaries (GitHub-flavoured Markdown appended to the file ``$GITHUB_STEP_SUMMARY`` names).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from evalens.core.workflow_commands import escape
from evalens.core.workflow_commands import in_actions as in_actions
from evalens.runner.ci.units import ReportUnit, counts, locate, pass_rate, units_of
from evalens.runner.uplift_words import cost_text, rates_text, uplift_text

ICONS = {"PASS": "✅", "FAIL": "❌", "FLAKY": "⚠️", "ERROR": "💥", "SKIP": "⏭️"}
CELL_CHARS = 300
ROWS_LIMIT = 200  # a summary is capped at 1 MiB; keep the table far below it


def annotation_lines(report: Any, *, package_root: Path | None, base: Path | None = None) -> list[str]:
    """One workflow command per unit that did not pass (SKIP is not annotated): ``::error`` for FAIL and
    ERROR, ``::warning`` for FLAKY, at the unit's file and line relative to ``base`` (the workspace)."""
    base = base if base is not None else Path(os.environ.get("GITHUB_WORKSPACE") or Path.cwd())
    out = []
    for unit in units_of(report):
        if unit.passed or unit.verdict == "SKIP":
            continue
        level = "warning" if unit.verdict == "FLAKY" else "error"
        props = [f"title={escape(f'evalens {unit.verdict}: {unit.name}', prop=True)}"]
        path, line = locate(unit, package_root)
        if path is not None:
            try:
                shown = path.resolve().relative_to(base.resolve()).as_posix()
            except ValueError:
                shown = str(path)
            props.insert(0, f"file={escape(shown, prop=True)},line={line}")
        out.append(f"::{level} {','.join(props)}::{escape(unit.message())}")
    return out


def _cell(text: str | None) -> str:
    text = " ".join((text or "").split())
    if len(text) > CELL_CHARS:
        text = text[: CELL_CHARS - 1] + "…"
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;") or " "


def _sandboxed(report: Any) -> str:
    """``true`` / ``engine`` / ``false`` (``ReportSandbox.sandboxed``; '' when the report does not say)."""
    sandbox = getattr(report, "sandbox", None)
    return "" if sandbox is None else sandbox.sandboxed


def _code(text: str | None) -> str:
    """A Markdown code span that stays one span on one line, whatever the text holds."""
    return "`" + " ".join((text or "").split()).replace("`", "'") + "`"


def _row(unit: ReportUnit) -> str:
    duration = f"{unit.duration:.1f} s" if unit.duration is not None else ""
    why = "" if unit.passed else unit.message()
    return (
        f"| {ICONS.get(unit.verdict, '❔')} {_cell(unit.verdict)} | {_cell(unit.name)} | {_cell(unit.file)} "
        f"| {duration} | {_cell(why)} |"
    )


def step_summary(report: Any, *, report_path: Path | None = None, title: str | None = None) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: totals, the units that did not pass, then every unit folded."""
    units = units_of(report)
    n = counts(units)
    passed = n["PASS"]
    head = title or f"evalens: {report.package.name or 'eval run'}"
    if report.shard is not None:
        head += f" (shard {report.shard.index}/{report.shard.count})"
    lines = [
        f"## {_cell(head)}",
        "",
        f"**{passed}/{len(units)} passed ({pass_rate(units):.0%})** · engine {_code(report.config.engine)}"
        + (f" {_cell(report.config.engine_version)}" if report.config.engine_version else "")
        + (f" · judge {_code(report.config.judge)}" if report.config.judge else " · no judge")
        + (f" · {report.duration_seconds:.0f} s" if report.duration_seconds is not None else "")
        + (f" · sandboxed: {_sandboxed(report)}" if _sandboxed(report) else ""),
        "",
    ]
    if report.interrupted:
        lines += ["> [!WARNING]", "> The run was interrupted: this report is partial.", ""]
    lines += replay_lines(units)
    if report.shards:
        lines += [
            f"Merged from {len(report.shards)} report(s): "
            + ", ".join(
                f"shard {s.shard.index}/{s.shard.count}" if s.shard else _cell(s.id) for s in report.shards
            ),
            "",
        ]
    lines += ["| Verdict | Units |", "|---|---:|"]
    lines += [
        f"| {ICONS.get(v, '❔')} {_cell(v)} | {k} |" for v, k in n.items() if k
    ]  # every state, known or new
    lines += _uplift_lines(report)
    header = ["", "| Verdict | Unit | File | Time | Why |", "|---|---|---|---:|---|"]
    bad = [u for u in units if not u.passed]  # SKIP too: a unit that never ran did not pass
    if bad:
        lines += ["", "### Not passing", *header[1:], *(_row(u) for u in bad[:ROWS_LIMIT])]
        if len(bad) > ROWS_LIMIT:
            lines.append(f"\n… and {len(bad) - ROWS_LIMIT} more (see the JUnit file or the report)")
    lines += [
        "",
        f"<details><summary>All {len(units)} units</summary>",
        "",
        *header[1:],
        *(_row(u) for u in units[:ROWS_LIMIT]),
        "",
        "</details>",
    ]
    if report_path is not None:
        lines += ["", f"Report: {_code(str(report_path))}"]
    return "\n".join(lines) + "\n"


def replay_lines(units: list[ReportUnit]) -> list[str]:
    """--replay: how many verdicts came from cassettes, and which units needed a live call (docs/replay.md)."""
    taped = [u for u in units if u.replay is not None and u.replay.mode != "record"]
    if not taped:
        return []
    live = [u.name for u in taped if u.replay.live_requests or not u.replay.replayed]
    diverged = [u.name for u in taped if u.replay.diverged and u.replay.mode == "strict"]
    line = f"↺ {sum(bool(u.replay.replayed) for u in taped)} of {len(units)} units replayed from cassettes"
    line += f" ({taped[0].replay.mode})"
    if live:
        line += f" · needed a live call: {', '.join(_code(n) for n in live)}"
    if diverged:
        line += f" · requests changed (ERROR, record again): {', '.join(_code(n) for n in diverged)}"
    refused = [u.name for u in taped if u.replay.untrusted]
    if refused:  # edited since it was recorded, or by the change under review: it answered nothing
        line += f" · cassette not trusted, not replayed: {', '.join(_code(n) for n in refused)}"
    return [line, ""]


def _uplift_lines(report: Any) -> list[str]:
    """With ``--baseline``: each unit's pass rate with and without the skill (docs/baseline.md)."""
    base = getattr(report, "baseline", None)
    if base is None:
        return []
    rows = [
        f"| {_cell(c.name)} | {rates_text(c.uplift)} | {uplift_text(c.uplift)} | {cost_text(c.uplift)} |"
        for c in report.cases[:ROWS_LIMIT]
        if c.uplift is not None
    ]
    total = f" · all units: **{uplift_text(base.uplift)}**" if base.uplift is not None else ""
    return [
        "",
        f"### Does the skill help? (baseline: {_cell(base.label)}){total}",
        "",
        "| Unit | Passed | Uplift | Cost |",
        "|---|---|---|---|",
        *rows,
    ]


def outputs(
    report: Any, *, report_path: Path | None = None, junit_path: Path | None = None
) -> dict[str, str]:
    """Step outputs: pass rate, verdict counts, overall verdict and paths."""
    units = units_of(report)
    n = counts(units)
    out = {
        "pass-rate": f"{pass_rate(units):.4f}",
        "total": str(len(units)),
        "passed": str(n["PASS"]),
        "failed": str(n["FAIL"]),
        "flaky": str(n["FLAKY"]),
        "errored": str(n["ERROR"]),
        "skipped": str(n["SKIP"]),
        "verdict": "pass"
        if all(u.passed or u.verdict == "SKIP" for u in units) and not report.interrupted
        else "fail",
    }
    if _sandboxed(report):
        out["sandboxed"] = _sandboxed(report)
    if report_path is not None:
        out["report-path"] = str(report_path)
    if junit_path is not None:
        out["junit-path"] = str(junit_path)
    return out


def output_lines(values: dict[str, str]) -> str:
    """``$GITHUB_OUTPUT`` text for ``values``: ``key=value``, or the ``key<<DELIMITER`` form with a random
    delimiter when a value spans lines, so no value (a path, a name) can end early and set another output."""
    out = []
    for key, value in values.items():
        if "\n" in value or "\r" in value:
            delimiter = f"EVALENS_{secrets.token_hex(16)}"
            out.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            out.append(f"{key}={value}\n")
    return "".join(out)


def append(path_env: str, text: str, env: dict[str, str] | None = None) -> Path | None:
    """Append ``text`` to the file named by ``$path_env``; None when the variable is unset."""
    target = (env if env is not None else os.environ).get(path_env)
    if not target:
        return None
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(text if text.endswith("\n") else text + "\n")
    return Path(target)
