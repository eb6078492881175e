"""``evalens.runView``: the rendered run of a unit (or a whole report) for an editor to show.

VS Code puts the HTML page in a webview beside the eval file; Neovim puts the Markdown in a read-only buffer.
Arguments (one dict): ``uri`` + ``name`` (a unit of an eval file: its newest report is found), or ``reportPath``
(+ ``name``); ``format`` is ``html`` (default) or ``markdown``; ``compare: true`` answers the unit's two most
recent runs side by side instead (``runner/run_compare.py``). The answer: ``{format, text, title,
reportPath, anchor}``, or None when the unit has no report yet. Reading and rendering run in a worker thread.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pygls.uris import from_fs_path

from evalens.core.index import find_package_root
from evalens.server import uris
from evalens.server.features.run_formats import ALL
from evalens.server.features.run_state import typed_command
from evalens.server.wire import COMMANDS, ListRunsArgs, RunEntry, RunViewAnswer, RunViewArgs

MAX_REPORTS = 50


def report_with_unit(start: Path, name: str | None) -> Path | None:
    """The newest report under the package holding ``start`` that has unit ``name`` (any report if None)."""
    # lazy: the report models (~0.1 s) load after the initialize answer (issue 43)
    from evalens.runner.report import load_report

    folder = start if start.is_dir() else start.parent
    for base in (folder, *folder.parents):
        reports = base / "evals" / "reports"
        if not reports.is_dir():
            continue
        files = sorted(
            (p for p in reports.glob("*.json") if p.is_file() and not p.name.startswith(".")),
            key=lambda p: (p.stat().st_mtime_ns, p.name),
            reverse=True,
        )[:MAX_REPORTS]
        for path in files:
            try:
                report = load_report(path)
            except Exception:  # noqa: BLE001 - a half-written or foreign file is passed over
                continue
            if name is None or any(c.name == name for c in report.cases):
                return path
        return None
    return None


def renamed_run(case_file: Path, name: str) -> tuple[Path, str] | None:
    """The report holding the last run of UAAPS case ``name`` renamed in place since (same file, same content)
    and the name it ran under: the run log's unit identity, as ``evalens show`` and ``--stale`` follow it. Without
    it Show run on a renamed case said "no run recorded yet" (issue 27 #7)."""
    # lazy: evalens.runner.unit_identity ~0.8 s to import; the server starts without it
    from evalens.runner.unit_identity import last_run

    root = find_package_root(case_file)
    return last_run(root, name) if root is not None else None


def anchor_for(view: Any, name: str | None) -> str | None:
    """Where the page should open: the unit's first failed check, else its first blocked or failed call."""
    # lazy: evalens.runner.report_html ~0.4 s to import; the server starts without it
    from evalens.runner.report_html import unit_anchor

    unit = next((u for u in view.units if u.name == name), None) if name else None
    if unit is None:
        return None
    base = unit_anchor(unit.name)
    for i, check in enumerate(unit.case.checks):
        if check.status == "FAIL":
            return f"{base}-check-{i}"
    for rec in unit.records:
        for turn in rec.turns:
            if any(c.blocked or c.is_error for c in turn.tool_calls):
                return f"{base}-r{rec.run_index}-t{turn.index}"
    return base


def view_answer(
    fmt: str, text: str, title: str, report_path: Path | str, anchor: str | None, *, live: bool = False
) -> RunViewAnswer:
    """A ``runView`` answer as declared on the wire (:class:`~evalens.server.wire.RunViewAnswer`): a run, a
    comparison or a live page."""
    answer = RunViewAnswer(
        format=fmt,  # type: ignore[arg-type]  # render() only asks for html or markdown
        text=text,
        title=title,
        report_path=str(report_path),
        anchor=anchor,
    )
    if live:
        answer.live = True
    return answer


def render_compare(args: RunViewArgs, name: str | None, fmt: str) -> RunViewAnswer | None:
    """``compare: true``: the unit's two most recent runs side by side (None: no run of it yet)."""
    # lazy: evalens.runner.run_compare ~0.4 s to import; the server starts without it
    from evalens.runner.run_compare import compare, render_compare_html, render_compare_markdown

    if name is None:
        return None
    path = uris.usable_path(args.uri) if args.uri else None
    start = Path(args.report_path) if args.report_path is not None else Path(path) if path else None
    if start is None:
        return None
    against = args.against_report_path
    if against is not None and args.report_path is not None:
        # lazy: evalens.runner.run_compare ~0.4 s to import; the server starts without it
        from evalens.runner.run_compare import compare_runs

        cmp = compare_runs(Path(args.report_path), Path(against), name, path)  # two runs the user picked
    else:
        cmp = compare(start, name, path)
    if cmp is None:
        return None
    text = render_compare_markdown(cmp) if fmt == "markdown" else render_compare_html(cmp)
    return view_answer(fmt, text, f"evalens: compare {name}", cmp.latest.report_path, None)


def render_live(path: str, name: str, fmt: str) -> RunViewAnswer | None:
    """The live page of unit ``name`` of the eval file ``path`` while it runs, from its batch's run log
    (``runner/live_run.py``: UAAPS cases and every other format alike); None when its newest batch has a report.
    The answer has ``live: true``: asked again, it follows the unit, and once the batch's report is written the
    answer is the finished run page."""
    # lazy: evalens.runner.live_run ~0.6 s to import; the server starts without it
    from evalens.runner.live_run import live_run, render_live_html, render_live_markdown

    live = live_run(Path(path), name)
    if live is None:
        return None
    text = render_live_markdown(live) if fmt == "markdown" else render_live_html(live)
    return view_answer(fmt, text, f"evalens: {name} (running)", live.report, "live", live=True)


def render(args: RunViewArgs, running: bool = False) -> RunViewAnswer | None:
    """The command's answer (blocking: call it in a worker thread); ``running``: the server runs the unit now,
    so its live page is answered while its batch has no report."""
    # lazy: evalens.runner.run_view ~0.3 s to import; the server starts without it, and without the report
    # models (~0.1 s, issue 43)
    from evalens.runner.report import NotAReport
    from evalens.runner.run_view import load_view

    name = args.name
    fmt = args.format or "html"
    if args.compare:
        return render_compare(args, name, fmt)
    live_path = uris.usable_path(args.uri) if args.uri else None
    if running and live_path and name is not None and args.report_path is None:
        page = render_live(live_path, name, fmt)
        if page is not None:
            return page
    recorded = name  # the unit's name in the report: its old one when it was renamed since
    if args.report_path is not None:
        report_path: Path | None = Path(args.report_path)
    else:
        path = live_path
        report_path = report_with_unit(Path(path), name) if path else None
        if report_path is None and path and name is not None:
            report_path, recorded = renamed_run(Path(path), name) or (None, name)
    if report_path is None or not report_path.is_file():
        return None
    try:
        view = load_view(report_path)
    except (NotAReport, LookupError):
        return None
    anchor = anchor_for(view, recorded)
    if fmt == "markdown":
        # lazy: evalens.runner.report_markdown ~0.3 s to import; the server starts without it
        from evalens.runner.report_markdown import render_markdown

        if recorded is not None and any(u.name == recorded for u in view.units):
            view.units = [u for u in view.units if u.name == recorded]
        text = render_markdown(view)
    else:
        # lazy: evalens.runner.report_html ~0.4 s to import; the server starts without it
        from evalens.runner.report_html import render_html

        text = render_html(view, anchor=anchor)
    title = f"evalens: {name}" if name else f"evalens: {report_path.name}"
    return view_answer(fmt, text, title, report_path, anchor)


def list_runs(a: ListRunsArgs, roots: list[Path]) -> list[RunEntry]:
    """``evalens.listRuns``: every run of the package holding ``uri`` (else of each of ``roots``), newest first,
    kept by the argument's verdicts, engine and date (blocking: call it in a worker thread)."""
    # lazy: evalens.runner.run_history ~0.7 s to import; the server starts without it
    from evalens.runner.run_history import RunFilter
    from evalens.runner.run_history import list_runs as history

    path = uris.usable_path(a.uri) if a.uri else None
    starts = [Path(path)] if path else roots
    keep = RunFilter(tuple(a.verdicts or ()), a.engine or None, a.since or None)
    entries = sorted(
        (e for start in starts for e in history(start, keep)), key=lambda e: e.timestamp, reverse=True
    )
    return [
        RunEntry(
            name=e.name,
            verdict=e.verdict,  # type: ignore[arg-type]  # a report's verdict is one of the four
            state=e.state,  # type: ignore[arg-type]
            timestamp=e.timestamp,
            engine=e.engine,
            model=e.model,
            uri=from_fs_path(e.case_file) if e.case_file else None,
            report_path=e.report_path,
            duration_seconds=e.duration_seconds,
            interrupted=e.interrupted or None,
            cancelled=e.cancelled or None,
        )
        for e in entries
    ]


def register(server: Any) -> None:
    typed_command(server, COMMANDS["listRuns"], ListRunsArgs, list_runs_command)
    typed_command(server, COMMANDS["runView"], RunViewArgs, run_view_command)


async def list_runs_command(ls: Any, arg: ListRunsArgs) -> list[RunEntry]:
    runs = getattr(ls, "runs", None)

    def work() -> list[RunEntry]:  # the workspace walk too, off the loop
        roots = list(runs.workspace_packages()) if runs is not None and not arg.uri else []
        return list_runs(arg, roots)

    return await asyncio.get_running_loop().run_in_executor(getattr(ls, "thread_pool", None), work)


async def run_view_command(ls: Any, arg: RunViewArgs) -> RunViewAnswer | None:
    running = is_running(getattr(ls, "runs", None), arg)
    return await asyncio.get_running_loop().run_in_executor(
        getattr(ls, "thread_pool", None), render, arg, running
    )


def is_running(runs: Any, arg: RunViewArgs) -> bool:
    """The server runs the unit ``arg`` names now: its own run, or a whole-file run of its file."""
    path = uris.usable_path(arg.uri) if arg.uri else None
    if runs is None or arg.name is None:
        return False
    return any(
        h.name in (arg.name, ALL) and (h.uri == arg.uri or str(h.case_file) == path)
        for h in list(getattr(runs, "active", {}).values())
    )
