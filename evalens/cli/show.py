"""``evalens show [REPORT] [UNIT]``: what the agent did, in the terminal (rich) or as one HTML page (``--html``).

REPORT is a report file or a package folder (its newest report; default: the current folder's). A first argument
that is no path is taken as UNIT. Units come failures first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.markup import escape as markup_escape
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table

from evalens.core.models.cassette import replay_label
from evalens.core.terminal_text import for_terminal
from evalens.runner.matrix import batch_matrix
from evalens.runner.report import NotAReport
from evalens.runner.report_html import render_html
from evalens.runner.report_markdown import render_markdown
from evalens.runner.run_compare import compare, render_compare_html, render_compare_markdown, rows
from evalens.runner.run_view import call_summary, cost, find_report, load_view, tokens
from evalens.runner.trigger_report import query_label, trigger_report
from evalens.runner.uplift_words import arms_table, describe

VERDICT_STYLES = {"PASS": "bold green", "FAIL": "bold red", "ERROR": "bold magenta", "SKIP": "yellow"}


def escape(text: object) -> str:
    """Rich markup escaped, and every terminal control in untrusted text shown, never sent (issue 28 B6)."""
    return markup_escape(for_terminal(text))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalens show", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "report", nargs="?", help="report file or package folder (default: newest report here)"
    )
    parser.add_argument("unit", nargs="?", help="only this unit (case name, task id, ...)")
    parser.add_argument("--html", action="store_true", help="write one self-contained HTML page")
    parser.add_argument(
        "--markdown", action="store_true", help="print the run as Markdown (what Neovim shows)"
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="where --html writes (default: next to the report)"
    )
    parser.add_argument(
        "--full", action="store_true", help="print whole tool inputs and results, not excerpts"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="UNIT's two most recent runs side by side: verdict, checks, judge, cost, output diff",
    )
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)

    target, unit = args.report, args.unit
    if target is not None and unit is None and not Path(target).exists():
        target, unit = None, target  # `evalens show extract-text`
    if args.compare:
        return _compare(Path(target) if target else Path.cwd(), unit, args)
    report_path = find_report(Path(target) if target else None)
    if report_path is None:
        where = target or "this folder"
        print(
            f"evalens show: no report found for {where} (run `evalens run` first, or name a report file)",
            file=sys.stderr,
        )
        return 2
    if unit is not None and not (target and Path(target).is_file()):
        report_path, unit = _last_run(report_path, unit)
    try:
        view = load_view(report_path, unit)
    except (NotAReport, LookupError) as exc:
        print(f"evalens show: {for_terminal(exc.args[0] if exc.args else exc)}", file=sys.stderr)
        return 2
    if args.html:
        out = Path(args.output) if args.output else report_path.with_suffix(".html")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_html(view), encoding="utf-8")
        print(out)
        return 0
    if args.markdown:
        text = render_markdown(view)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
            print(args.output)
        else:
            sys.stdout.write(for_terminal(text))
        return 0
    render_terminal(view, full=args.full)
    return 0


def _last_run(newest: Path, unit: str) -> tuple[Path, str]:
    """UNIT's last run in its package's reports: the newest report holding it, under the name it had there when
    it was renamed since (:mod:`evalens.runner.unit_identity`); else the newest report, which then says what it
    holds."""
    # lazy: unit_identity reads eval files through every format (~0.3 s of imports); only a named UNIT needs it
    from evalens.runner.unit_identity import last_run

    found = last_run(newest.parent.parent.parent, unit) if newest.parent.name == "reports" else None
    if found is None:
        return newest, unit
    path, was = found
    if was != unit:
        print(
            for_terminal(f"evalens show: {unit} was named {was} in its last run ({path.name})"),
            file=sys.stderr,
        )
    return path, was


def _compare(start: Path, unit: str | None, args: Any) -> int:
    if not unit:
        print(
            "evalens show --compare: name the unit to compare (evalens show --compare UNIT)", file=sys.stderr
        )
        return 2
    cmp = compare(start, unit)
    if cmp is None:
        print(
            for_terminal(f"evalens show --compare: no run of {unit} in the reports of {start}"),
            file=sys.stderr,
        )
        return 2
    if args.html or args.markdown:
        text = render_compare_html(cmp) if args.html else render_compare_markdown(cmp)
        if args.output or args.html:
            out = (
                Path(args.output) if args.output else cmp.latest.report_path.with_name(f"compare-{unit}.html")
            )
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            print(out)
        else:
            sys.stdout.write(for_terminal(text))
        return 0
    render_compare_terminal(cmp)
    return 0


def render_compare_terminal(cmp: Any, console: Any = None) -> None:
    """The two runs as a three-column table (changed rows marked), then the diff of the final outputs."""
    console = console or Console(highlight=False)
    prev = cmp.previous
    table = Table(title=f"compare {escape(cmp.name)}", show_lines=True)
    table.add_column("")
    table.add_column(f"previous {escape(prev.timestamp)}" if prev else "previous", overflow="fold")
    table.add_column(f"latest {escape(cmp.latest.timestamp)}", overflow="fold")
    for label, before, now in rows(cmp):
        mark = prev is not None and before != now
        table.add_row(("[bold yellow]≠[/] " if mark else "") + escape(label), escape(before), escape(now))
    console.print(table)
    if prev is None:
        console.print("only one run of this unit so far: run it again to compare")
        console.print(escape(cmp.latest.output))
    elif diff := cmp.output_diff():
        console.print(Syntax(for_terminal(diff), "diff", theme="ansi_dark", background_color="default"))
    else:
        console.print("the final outputs are the same")


def _clip(text: str | None, full: bool, lines: int = 8, width: int = 600) -> str:
    text = text or ""
    if full:
        return text
    kept = text.splitlines()[:lines]
    short = "\n".join(kept)[:width]
    return short + ("\n…" if short != text.rstrip("\n") and short != text else "")


def render_terminal(view: Any, *, full: bool = False, console: Any = None) -> None:
    """Verdict, checks with reasons, judge reasoning, turns, files and diffs, tokens and cost; failures first."""
    console = console or Console(highlight=False)
    _print_head(console, view)
    base = view.report.baseline
    for unit, side in [
        *((u, None) for u in view.units),
        *((u, base.label if base else "") for u in view.baseline_units),
    ]:
        case = unit.case
        style = VERDICT_STYLES.get(case.verdict, "")
        facts = [
            f"{case.duration_seconds:.1f} s" if case.duration_seconds is not None else "",
            tokens(case.usage),
            cost(case.usage),
        ]
        body = _case_body(unit, style)
        for rec in unit.records:
            body.extend(_record_body(case, rec, len(unit.records) > 1, full))
        title = f"[{style}]{case.verdict}[/] {escape(case.name)}" + (
            f" [dim]baseline: {escape(side)}[/]" if side is not None else ""
        )
        console.print(
            Panel(
                Group(*body) if body else "",
                title=title,
                title_align="left",
                subtitle=" · ".join(f for f in facts if f) or None,
                subtitle_align="right",
            )
        )


def _print_head(console: Any, view: Any) -> None:
    """The report's path, engine, model, usage and counts, and the baseline's counts and uplift."""
    report = view.report
    s = report.summary
    head = [report.id, report.config.engine, report.agent.model or "", tokens(s.usage), cost(s.usage)]
    console.print(f"[bold]{escape(str(view.report_path))}[/]")
    console.print(" · ".join(escape(h) for h in head if h))
    console.print(
        f"{s.passed} passed, {s.failed} failed, {s.errored} errored, {s.skipped} skipped of {s.total}"
    )
    base = report.baseline
    if base is not None:
        b = base.summary
        counts = f": {b.passed} passed, {b.failed} failed, {b.errored} errored of {b.total}" if b else ""
        console.print(f"baseline ({escape(base.label)}){counts}; it never decides a verdict")
        if base.uplift is not None:
            console.print(f"uplift (all units): {escape(describe(base.uplift))}")
    _print_arms(console, report)
    _print_matrix(console, view)
    _print_triggers(console, report)


def _print_arms(console: Any, report: Any) -> None:
    """An ``--arms`` run's reference report: one row per unit, one column per arm (k/N, cost, the reference's
    uplift over it with its interval), then each arm's pooled uplift with the paired interval."""
    shaped = arms_table(report)
    if shaped is None:
        return

    head, rows, pooled = shaped
    table = Table(title=f"arms (reference: {escape(report.arms.reference.label)})")
    for heading in head:
        table.add_column(escape(heading))
    for row in rows:
        table.add_row(*map(escape, row))
    console.print(table)
    for line in pooled:
        console.print(escape(line))


def _print_matrix(console: Any, view: Any) -> None:
    """A cell report of an ``--engine a,b`` / ``--model A,B`` run: every cell of its batch, one row per unit and
    one column per cell (state k/N, Wilson interval, cost); a cell report that cannot be read is named."""
    found = batch_matrix(view.report_path, view.report)
    if found is None:
        return

    for unread in found.unread:
        console.print(f"[yellow]{escape(f'not read: {unread}')}[/]")
    grid = found.grid
    table = Table(title=f"matrix ({len(grid.columns)} cells)")
    table.add_column("unit")
    for i, heading in enumerate(grid.columns):
        table.add_column(escape(heading + (" (this report)" if i == found.here else "")))
    for heading in grid.uplift:  # --arms: each cell's uplift of the reference arm over the others
        table.add_column(escape(heading))
    for row, (name, cells) in enumerate(grid.rows):
        table.add_row(
            escape(name),
            *(escape(c.text() if c is not None else "—") for c in cells),
            *(escape(col[row]) for col in grid.uplift.values()),
        )
    console.print(table)
    for line in grid.pooled:
        console.print(escape(line))


def _print_triggers(console: Any, report: Any) -> None:
    """A trigger set's report (docs/triggers.md): rates, the confusion table query → skill that fired, thefts."""
    lab = trigger_report((c.name, c.details or {}) for c in report.cases)
    if lab is None:
        return
    for line in lab.summary_lines():
        console.print(escape(line))
    head, *rows = lab.confusion()
    table = Table(title="which skill fired (runs)", show_header=True, box=None, padding=(0, 1))
    for col in head:
        table.add_column(escape(col), overflow="fold")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    console.print(table)


def _case_body(unit: Any, style: str) -> list[Any]:
    """A unit's uplift, reason, checks (failures first), judge verdict and problems."""
    case = unit.case
    body: list[Any] = []
    if case.uplift is not None:
        body.append(f"[bold]uplift[/] {escape(describe(case.uplift))}")
    if unit.reason:
        body.append(f"[{style}]{escape(unit.reason)}[/]")

    fired = query_label(case.details or {}) if case.verdict != "ERROR" else None
    if fired:  # a trigger query: `✗ stolen by pdf-tools 2/3`
        body.append(f"[{style}]{escape(fired)}[/]")

    replayed = replay_label(case.replay)
    if replayed:  # never confused with a live run
        body.append(f"[cyan]{escape(replayed)}[/]")
    if case.checks:
        table = Table(show_header=True, box=None, padding=(0, 1))
        for col in ("", "check", "value", "reason"):
            table.add_column(col, overflow="fold")
        for check in sorted(case.checks, key=lambda c: c.status != "FAIL"):
            table.add_row(
                f"[{VERDICT_STYLES[check.status]}]{check.status}[/]",
                escape(check.kind),
                escape(str(check.value)),
                escape(check.detail or ""),
            )
        body.append(table)
    if case.judge_verdict is not None:
        j = case.judge_verdict
        body.append(
            f"[bold]judge[/] [{VERDICT_STYLES.get(j.result, '')}]{j.result}[/] "
            f"({escape(j.model or '?')}): {escape(j.reason)}"
        )
    body.extend(f"[yellow]{escape(p)}[/]" for p in unit.problems)
    return body


def _record_body(case: Any, rec: Any, many: bool, full: bool) -> list[Any]:
    """One run's record: its verdict (when the unit ran more than once), meta, bounds, turns and files."""
    body: list[Any] = []
    if many:  # the report's run verdicts (re-judged ones too), else the record's own
        said = (
            case.run_verdicts[rec.run_index - 1]
            if 0 < rec.run_index <= len(case.run_verdicts)
            else rec.verdict
        )
        body.append(f"[bold]run {rec.run_index}[/] [{VERDICT_STYLES.get(said or '', '')}]{said}[/]")
    meta = [
        rec.engine,
        rec.model or "",
        f"agent {rec.agent_seconds:.1f} s" if rec.agent_seconds else "",
        f"exit {rec.exit_code}" if rec.exit_code is not None else "",
        tokens(rec.usage),
        cost(rec.usage),
    ]
    body.append("[dim]" + escape(" · ".join(m for m in meta if m)) + "[/]")
    body.extend(f"[yellow]bounded: {escape(n)}[/]" for n in rec.bounds)
    for turn in rec.turns:
        body.append(
            f"[bold cyan]turn {turn.index + 1}[/]"
            + (f"  {escape(_clip(turn.text, full))}" if turn.text else "")
        )
        for call in turn.tool_calls:
            body.extend(_call_body(call, full))
    for change in rec.files:
        body.extend(_file_body(change, full))
    return body


def _call_body(call: Any, full: bool) -> list[Any]:
    """A tool call: name and summary, blocked or failed, its input (``--full``), result and denying hooks."""
    tag = " [bold red]BLOCKED[/]" if call.blocked else " [red]error[/]" if call.is_error else ""
    dur = f" [dim]{call.duration_ms} ms[/]" if call.duration_ms is not None else ""
    body: list[Any] = [
        f"  → [bold]{escape(call.name)}[/] {escape(call_summary(call.name, call.input))}{tag}{dur}"
    ]
    if full:
        body.append("    " + escape(json.dumps(call.input, ensure_ascii=False)))
    if call.result:
        body.append("    [dim]" + escape(_clip(call.result, full, 4, 300)).replace("\n", "\n    ") + "[/]")
    body.extend(
        f"    [red]hook {escape(hook.name or hook.event)} denied it: {escape(hook.reason or '')}[/]"
        for hook in call.hooks
        if hook.blocked
    )
    return body


def _file_body(change: Any, full: bool) -> list[Any]:
    """A changed file: status, path, note and (clipped unless ``--full``) its diff."""
    body: list[Any] = [
        f"[bold]{change.status}[/] {escape(change.path)}"
        + (f" [yellow]({escape(change.note)})[/]" if change.note else "")
    ]
    if change.diff:
        body.append(
            Syntax(
                for_terminal(_clip(change.diff, full, 40, 4000)),
                "diff",
                theme="ansi_dark",
                background_color="default",
            )
        )
    return body
