"""A report and its run records as Markdown: Neovim's ``:EvalensShow`` buffer and ``evalens show --markdown``.

Headings carry the structure editors fold on: ``##`` a unit, ``###`` a part (checks, judge, a run), ``####`` a
turn or a file. Code fences hold everything the agent wrote, so nothing it printed can become Markdown.
"""

from __future__ import annotations

import json

from evalens.core.models.run_record import RunRecord
from evalens.runner.check_words import check_key, yaml_value
from evalens.runner.matrix import batch_matrix
from evalens.runner.run_view import RunView, UnitView, call_summary, cost, record_facts, tokens
from evalens.runner.uplift_words import describe


def _fence(text: str, lang: str = "text") -> str:
    """A fence longer than any run of backticks inside ``text``."""
    ticks, run = 3, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        ticks = max(ticks, run + 1)
    fence = "`" * ticks
    return f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}"


def _one_line(text: str) -> str:
    return " ".join((text or "").split()).replace("`", "'")


def _record(rec: RunRecord, runs: int) -> list[str]:
    head = f"### Run {rec.run_index}: {rec.verdict or ''}" if runs > 1 else "### What the agent did"
    out = [head, "", record_facts(rec), ""]
    if rec.error:
        out += [f"**Agent error:** {_one_line(rec.error)}", ""]
    out += [f"> bounded: {_one_line(note)}" for note in rec.bounds]
    if rec.skills_activated:
        out += [f"Skills activated: {', '.join(rec.skills_activated)}", ""]
    for turn in rec.turns:
        labels = "; ".join(f"{c.name} {call_summary(c.name, c.input)}".strip() for c in turn.tool_calls)
        blocked = " — BLOCKED" if any(c.blocked for c in turn.tool_calls) else ""
        out += [
            f"#### Turn {turn.index + 1}: {_one_line(labels or turn.text[:80]) or '(no text)'}{blocked}",
            "",
        ]
        if turn.text:
            out += [_fence(turn.text), ""]
        for call in turn.tool_calls:
            tags = [
                t
                for t in (
                    "BLOCKED" if call.blocked else "",
                    "error" if call.is_error and not call.blocked else "",
                    f"skill {call.skill}" if call.skill else "",
                    f"{call.duration_ms} ms" if call.duration_ms is not None else "",
                )
                if t
            ]
            out += [
                f"- **{call.name}** {_one_line(call_summary(call.name, call.input))}"
                + (f" ({', '.join(tags)})" if tags else ""),
                "",
            ]
            value = (
                call.input
                if isinstance(call.input, str)
                else json.dumps(call.input, indent=2, ensure_ascii=False)
            )
            out += [_fence(value, "json" if not isinstance(call.input, str) else "text"), ""]
            if call.result is not None:
                out += [_fence(call.result), ""]
            for hook in call.hooks:
                if hook.blocked:
                    out += [f"  hook {hook.name or hook.event} denied it: {_one_line(hook.reason or '')}", ""]
    out += [f"#### Files ({len(rec.files)})", ""]
    for change in rec.files:
        out += [
            f"- {change.status} `{change.path}`" + (f" ({_one_line(change.note)})" if change.note else ""),
            "",
        ]
        if change.diff:
            out += [_fence(change.diff, "diff"), ""]
    return out


def _unit(unit: UnitView) -> list[str]:
    case = unit.case
    facts = [
        f"{case.duration_seconds:.1f} s" if case.duration_seconds is not None else "",
        tokens(case.usage),
        cost(case.usage),
    ]
    out = [f"## {unit.shown} {case.name}", "", " · ".join(f for f in facts if f), ""]
    if case.uplift is not None:
        out += [f"**Uplift:** {describe(case.uplift)}", ""]
    if unit.reason:
        out += [f"**Why:** {_one_line(unit.reason)}", ""]
    if case.checks:
        out += ["### Checks", ""]
        for check in sorted(case.checks, key=lambda c: c.status != "FAIL"):
            detail = f" — {_one_line(check.detail)}" if check.detail else ""
            out.append(
                f"- {check.status} `{check_key(check.kind)}` `{_one_line(yaml_value(check.value))}`{detail}"
            )
        out.append("")
    if case.judge_verdict is not None:
        judge = case.judge_verdict
        out += [f"### Judge: {judge.result} ({judge.model or '?'})", "", _fence(judge.reason), ""]
    out += [f"> {_one_line(p)}" for p in unit.problems]
    for rec in unit.records:
        out += _record(rec, len(unit.records))
    return out


def _matrix(view: RunView) -> list[str]:
    """A cell report of an ``--engine a,b`` / ``--model A,B`` run: every cell of its batch, one row per unit and
    one column per cell (state k/N, Wilson interval, cost) as the CLI's plain-text table, fenced."""
    found = batch_matrix(view.report_path, view.report)
    if found is None:
        return []
    grid = found.grid
    if found.here is not None:
        grid.columns = [c + (" (this report)" if i == found.here else "") for i, c in enumerate(grid.columns)]
    unread = [f"not read: {_one_line(u)}" for u in found.unread]
    return [
        f"## Matrix ({len(grid.columns)} cells)",
        "",
        "runs that passed of those that passed or failed · 95% Wilson interval · cost",
        "",
        _fence(grid.table()),
        *unread,
        "",
    ]


def render_markdown(view: RunView) -> str:
    report, s = view.report, view.report.summary
    facts = [report.timestamp, report.config.engine, report.agent.model or "", tokens(s.usage), cost(s.usage)]
    lines = [
        f"# evalens run: {report.package.name or report.id}",
        "",
        " · ".join(f for f in facts if f),
        "",
        f"{s.passed} passed, {s.failed} failed, {s.errored} errored, {s.skipped} skipped of {s.total}",
        f"Report: `{view.report_path}`",
        "",
    ]
    base = report.baseline
    if base is not None and base.uplift is not None:
        lines += [
            f"**Uplift (all units):** {describe(base.uplift)}; the baseline ({base.label}) never decides a "
            "verdict",
            "",
        ]
    lines += _matrix(view)
    for unit in view.units:
        lines += _unit(unit)
    for unit in view.baseline_units:
        unit_lines = _unit(unit)
        unit_lines[0] += f" (baseline: {base.label if base else ''})"
        lines += unit_lines
    return "\n".join(lines).rstrip() + "\n"
