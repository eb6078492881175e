"""The pull-request comment: one comment per workflow (found again by its marker and updated, never piled up)
with the verdicts, what changed against the base report, the uplift and the cost.

Markdown for GitHub: every text a case, an agent or a judge can steer goes through the summary's cell escaping
(one line, no table break, no HTML), and the comment stays far below GitHub's 65,536-character limit.
"""

from __future__ import annotations

from typing import Any

from evalens.runner.ci.gate import gate
from evalens.runner.ci.github import ICONS, _cell, _code, _sandboxed, replay_lines
from evalens.runner.ci.paired import DEFAULT_MARGIN, changes, paired_gate
from evalens.runner.ci.units import counts, pass_rate, units_of
from evalens.runner.run_view import cost, tokens
from evalens.runner.uplift_words import describe
from evalens.runner.verdicts import passed

MARKER = "<!-- evalens:pr-comment{key} -->"
ROWS = 50
LIMIT = 60_000


def marker(key: str = "") -> str:
    """The first line of the comment; ``key`` tells apart the comments of several workflows or packages."""
    return MARKER.format(key=f":{_cell(key)}" if key else "")


def pr_comment(
    report: Any,
    *,
    base: Any = None,
    key: str = "",
    report_url: str | None = None,
    margin: float | None = None,
) -> str:
    """The comment's Markdown: ``report`` is this run (a merged report for a sharded run), ``base`` the base
    branch's report to compare with."""
    units = units_of(report)
    n = counts(units)
    lines = [
        marker(key),
        f"### evalens: {_cell(report.package.name or 'eval run')}",
        "",
        f"**{n['PASS']}/{len(units)} passed ({pass_rate(units):.0%})** · engine {_code(report.config.engine)}"
        + (f" · judge {_code(report.config.judge)}" if report.config.judge else " · no judge")
        + (f" · sandboxed: {_sandboxed(report)}" if _sandboxed(report) else ""),
        "",
    ]
    if report.interrupted:
        lines += ["> [!WARNING]", "> The run was interrupted: this report is partial.", ""]
    lines += [
        " · ".join(f"{ICONS.get(v, '❔')} {_cell(v)} {k}" for v, k in n.items() if k) or "no unit ran",
        "",
    ]
    lines += replay_lines(units)  # a replayed verdict says so, here as in the step summary
    lines += _changes(report, base, margin)
    bad = [u for u in units if not u.passed]
    if bad:
        lines += [
            "<details><summary>Not passing</summary>",
            "",
            "| Verdict | Unit | Why |",
            "|---|---|---|",
            *(
                f"| {ICONS.get(u.verdict, '❔')} {_cell(u.verdict)} | {_cell(u.name)} | {_cell(u.message())} |"
                for u in bad[:ROWS]
            ),
        ]
        if len(bad) > ROWS:
            lines.append(f"\n… and {len(bad) - ROWS} more")
        lines += ["", "</details>", ""]
    lines += _uplift(report) + _cost(report)
    if report_url:
        lines += ["", f"[Full report]({report_url})"]
    text = "\n".join(lines).rstrip() + "\n"
    return text if len(text) <= LIMIT else text[: LIMIT - 40] + "\n\n… (cut: see the full report)\n"


def _changes(report: Any, base: Any, margin: float | None = None) -> list[str]:
    if base is None:
        return ["No base report to compare with.", ""]
    result = gate(base, report)
    paired = changes(
        base, report
    )  # by identity, as the gate: a swapped pair of names is no fix and no regression
    before = {u.name: u.verdict for u in units_of(base)}
    now = {u.name: u.verdict for u in units_of(report)}
    fixed = [
        (c.name, c.before)
        for c in paired
        if c.before is not None and passed(c.after) and not passed(c.before)
    ]
    new = [(c.name, c.after) for c in paired if c.before is None]
    if all(
        c.before is None or c.after is None for c in paired
    ):  # two rates of different units are no comparison: "0% → 100%" misled
        head = f"**Against the base:** no unit in common ({len(now)} here, {len(before)} in the base): nothing to compare"
    else:
        head = f"**Against the base:** pass rate {result.rate_before:.0%} → {result.rate_after:.0%}" + (
            " · **regression**" if result.failed else " · no regression"
        )
    out = [head, "", *_paired(report, base, margin)]
    rows = [f"| ❌ regressed | {_cell(name)} | {b} → {a} |" for name, b, a in result.regressions]
    replayed = {u.name for u in units_of(report) if u.replay is not None and u.replay.replayed}
    rows += [
        f"| ✅ fixed{' (replayed)' if name.split(' (was ')[0] in replayed else ''} | {_cell(name)} | {was} → PASS |"
        for name, was in fixed
    ]
    rows += [f"| ➕ new | {_cell(name)} | {_cell(str(verdict))} |" for name, verdict in new]
    after = {c.name: c.after for c in paired}
    rows += [
        f"| ➖ gone | {_cell(name)} | PASS → {_cell(after.get(name) or 'absent')} |"
        for name in result.vanished
    ]
    if rows:
        out += ["| Change | Unit | Verdict |", "|---|---|---|", *rows[:ROWS], ""]
    return out


def _paired(report: Any, base: Any, margin: float | None) -> list[str]:
    """The paired gate's answer (``compare --test paired``, what the Action gates on), with the gate's own
    margin, so the comment and the gate give one answer: is the change noise?"""
    result = paired_gate(base, report, margin=DEFAULT_MARGIN if margin is None else margin)
    if result.difference is None or result.interval is None:
        return [f"**Paired test:** {result.answer}: {_cell(result.reason)}", ""]
    lo, hi = result.interval
    how = "exact McNemar" if result.method == "mcnemar" else "paired bootstrap"
    p = f", p = {result.p_value:.3g}" if result.p_value is not None else ""
    return [
        f"**Paired test:** {result.answer} · change {result.difference * 100:+.1f} pts, 95% interval "
        f"[{lo * 100:+.1f}, {hi * 100:+.1f}] over {result.compared} units ({how}{p}; margin "
        f"{result.margin * 100:.0f} pts)",
        "",
    ]


def _uplift(report: Any) -> list[str]:
    base = getattr(report, "baseline", None)
    if base is None or base.uplift is None:
        return []
    return [f"**Uplift** against {_cell(base.label)}: {_cell(describe(base.uplift))}", ""]


def _cost(report: Any) -> list[str]:
    usage = getattr(report.summary, "usage", None)
    if usage is None:
        return []
    shown = " · ".join(x for x in (tokens(usage) and f"{tokens(usage)} tokens", cost(usage)) if x)
    return [f"**Cost:** {shown}", ""] if shown else []
