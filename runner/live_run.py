"""A running unit's page, read from its batch's run log: the editors' Show Run while the unit runs.

Both commands append each unit-run's start and finish to the batch's run log as they happen
(:mod:`evalens.runner.run_log`), so one reader serves a UAAPS case and a unit of any other format alike: the
unit's newest batch that has no report yet, its runs finished so far (verdict, reason, checks) and the run in
progress. Once the batch writes its report, the report is the newest batch holding the unit and the editor shows
the finished run page instead (``server/features/run_view.py``).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from evalens.core.models.run_log import RunFinish
from evalens.runner.report import load_report
from evalens.runner.run_log import NotARunLog, RunLog, past_batches, read_log
from evalens.runner.suites import names_per_file
from evalens.runner.unit_identity import key, relative_file

MAX_BATCHES = 50  # batches looked at, newest first, for the unit's newest one


@dataclass
class LiveRun:
    """A unit of a batch still running: what its run log says so far."""

    name: str
    log: Path
    report: Path  # where the batch's report will be
    runs: int  # planned runs of the unit
    side: str | None = None
    finished: dict[int, RunFinish] = field(default_factory=dict)
    running: list[int] = field(default_factory=list)  # started, not finished

    @property
    def state(self) -> str:
        """One line: every run in progress (a UAAPS case's repeats run side by side) and how many finished;
        all finished: the page stays live until the batch writes its report (other units may still run)."""
        done = len(self.finished)
        if self.running:
            plural = "s" if len(self.running) > 1 else ""
            now = f"run{plural} {', '.join(map(str, self.running))} of {self.runs} running"
        elif done >= self.runs:
            now = "every run finished, the batch's report still to come"
        else:
            now = "waiting for its next run"
        return f"{now} · {done} of {self.runs} finished"


def live_run(start: Path, name: str) -> LiveRun | None:
    """Unit ``name`` of the eval file (or folder) ``start``, when its newest batch is a run log without a report
    or an end: the runs it logged so far; None when its newest batch has a report (or it has none). Blocking."""
    folder = start if start.is_dir() else start.parent
    for base in (folder, *folder.parents):
        reports = base / "evals" / "reports"
        if reports.is_dir():
            return _newest(reports, start, name)
    return None


def _newest(reports: Path, start: Path, name: str) -> LiveRun | None:
    for path in past_batches(reports)[:MAX_BATCHES]:
        if path.suffix == ".json":
            try:
                if any(c.name == name for c in load_report(path).cases):
                    return None  # a finished batch is the unit's newest
            except Exception:  # noqa: BLE001 - a half-written or foreign file is passed over
                pass
            continue
        try:
            log = read_log(path)
        except (NotARunLog, OSError):
            continue
        found = _unit_in(log, start, name)
        if found is not None:
            return found if log.end is None else None
    return None


def _unit_in(log: RunLog, start: Path, name: str) -> LiveRun | None:
    """The unit ``name`` (of file ``start`` when it is a file) as ``log`` has it so far, under its latest name."""
    file = relative_file(start, log.package_root) if start.is_file() else None
    wanted = [
        u.unit
        for u in log.start.units
        if u.unit.name == name and (file is None or not names_per_file(u.unit.format) or u.unit.file == file)
    ]
    if not wanted:
        return None
    unit_key = key(wanted[0])
    live = LiveRun(name=name, log=log.path, report=Path(log.start.report), runs=log.start.runs)
    started = {(s, r) for s, k, r in log.started if k == unit_key}
    for (side, k, run), done in log.finished.items():
        if k == unit_key and side is None:
            live.finished[run] = done
    live.running = sorted(r for s, r in started if s is None and r not in live.finished)
    return live


# --------------------------------------------------------------------------- the page


def _checks(done: RunFinish) -> list[str]:
    return [f"{c.status} {c.kind}" + (f": {c.detail}" if c.detail else "") for c in done.checks]


def render_live_html(live: LiveRun) -> str:
    """The live page (HTML, self-contained): the runs finished so far and the one running."""
    rows = []
    for run in range(1, live.runs + 1):
        done = live.finished.get(run)
        if done is not None:
            checks = "".join(f"<li>{html.escape(c)}</li>" for c in _checks(done))
            rows.append(
                f'<tr><td>{run}</td><td class="v-{html.escape(done.verdict)}">{html.escape(done.verdict)}</td>'
                f"<td>{html.escape(done.reason or '')}<ul>{checks}</ul></td></tr>"
            )
        else:
            state = "running" if run in live.running else "waiting"
            rows.append(f'<tr><td>{run}</td><td class="v-{state}">{state.upper()}</td><td></td></tr>')
    name = html.escape(live.name)
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>evalens: '
        f"{name} (running)</title><style>body{{font-family:sans-serif}}.badge{{background:#1565c0;color:#fff;"
        "padding:0 .4em;border-radius:3px}.v-PASS{color:#2e7d32}.v-FAIL,.v-ERROR{color:#c62828}"
        "td{vertical-align:top;padding:.2em .6em}</style></head>"
        f'<body data-anchor="live"><h1>{name} <span class="badge">RUNNING</span></h1>'
        f"<p>{html.escape(live.state)}</p><table><tr><th>run</th><th>verdict</th><th>why</th></tr>"
        f"{''.join(rows)}</table></body></html>"
    )


def render_live_markdown(live: LiveRun) -> str:
    """The live page as Markdown (Neovim's buffer)."""
    lines = [f"## RUNNING {live.name}", "", live.state, ""]
    for run in range(1, live.runs + 1):
        done = live.finished.get(run)
        if done is None:
            lines.append(f"- run {run}: {'running' if run in live.running else 'waiting'}")
            continue
        lines.append(f"- run {run}: {done.verdict}" + (f" — {done.reason}" if done.reason else ""))
        lines += [f"  - {c}" for c in _checks(done)]
    return "\n".join(lines) + "\n"
