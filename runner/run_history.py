"""Every run of a package, newest first, for the editor's Runs view (``evalens.listRuns``): one entry per unit
per batch, filtered by verdict, engine and date.

A batch is its report (``evals/reports/<timestamp>.json``); a batch killed before it wrote one is read from its
run log alone (``runner/run_log.py``: ``unit_results``), so it is listed too, marked interrupted and with no
report to open or compare. A unit cut short by a cancel (the editor's ■ Cancel, or Ctrl-C: the report's
``interrupted`` with the unit's "interrupted" ERROR) is listed as cancelled: it has no verdict, so the view says
so and the ERROR filter does not keep it. Reading never raises for a broken file: it is passed over.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalens.core.models.run_log import LOG_FILE
from evalens.runner.report import NotAReport, load_report
from evalens.runner.results import is_interrupted
from evalens.runner.run_compare import MAX_REPORTS, reports_folder
from evalens.runner.run_log import NotARunLog, past_batches, read_log, unit_results
from evalens.runner.run_view import CANCELLED


@dataclass(frozen=True)
class RunEntry:
    """One unit's run in one batch."""

    name: str
    verdict: str
    state: str | None
    timestamp: str  # the batch's start, UTC ISO 8601 (sorts as text)
    engine: str | None
    model: str | None
    case_file: str | None  # absolute when the package root is known
    report_path: str | None  # None: a killed batch known only from its run log
    duration_seconds: float | None = None
    interrupted: bool = False
    cancelled: bool = False  # cut short before it finished: ``verdict`` is the report's ERROR, not a result

    @property
    def shown(self) -> str:
        """What the view shows and the filter matches: CANCELLED for a unit cut short, else its state."""
        return CANCELLED if self.cancelled else self.state or self.verdict


@dataclass(frozen=True)
class RunFilter:
    """What the Runs view keeps: any of ``verdicts`` (empty: all; ``CANCELLED`` for the units cut short), one
    ``engine``, batches on or after ``since`` (a date or time in ISO 8601, compared as text: ``2026-02-22`` keeps
    that day and later)."""

    verdicts: tuple[str, ...] = ()
    engine: str | None = None
    since: str | None = None

    def keeps(self, entry: RunEntry) -> bool:
        faces = {entry.shown} if entry.cancelled else {entry.shown, entry.verdict}
        if self.verdicts and not faces & set(self.verdicts):
            return False
        if self.engine and entry.engine != self.engine:
            return False
        return not (self.since and entry.timestamp < self.since)


def _from_report(path: Path, package_root: Path) -> list[RunEntry]:
    try:
        report = load_report(path)
    except (NotAReport, OSError, ValueError):
        return []
    out = []
    for case in report.cases:
        cut = is_interrupted(case, report)
        case_file = case.case_file
        if case_file and not Path(case_file).is_absolute():
            case_file = str((package_root / case_file).resolve())
        out.append(
            RunEntry(
                name=case.name,
                verdict=case.verdict,
                state=case.state,
                timestamp=report.timestamp,
                engine=report.agent.runtime,
                model=report.agent.model,
                case_file=case_file,
                report_path=str(path),
                duration_seconds=case.duration_seconds,
                interrupted=cut,
                cancelled=cut,
            )
        )
    return out


def _from_log(log_file: Path) -> list[RunEntry]:
    """A batch with a run log and no report: killed before its end."""
    try:
        log = read_log(log_file)
    except (NotARunLog, OSError, ValueError):
        return []
    engine = log.start.inputs.get("engine")
    model = log.start.inputs.get("model")
    return [
        RunEntry(
            name=r.name,
            verdict=r.verdict,
            state=r.state,
            timestamp=log.start.time,
            engine=engine if isinstance(engine, str) else r.engine,
            model=model if isinstance(model, str) else r.agent_model,
            case_file=r.case_file,
            report_path=None,
            duration_seconds=r.duration_seconds,
            interrupted=True,
        )
        for r in unit_results(log)
    ]


def list_runs(start: Path, keep: RunFilter | None = None) -> list[RunEntry]:
    """Every unit run of the package holding ``start``, newest batch first (at most ``MAX_REPORTS`` batches),
    kept by ``keep``. Blocking (reads files): call it off the event loop."""
    folder = reports_folder(start)
    if folder is None:
        return []
    package_root = folder.parent.parent
    batches = past_batches(folder)[:MAX_REPORTS]
    entries = [
        e for p in batches for e in (_from_log(p) if p.name == LOG_FILE else _from_report(p, package_root))
    ]
    entries.sort(key=lambda e: e.timestamp, reverse=True)
    return [e for e in entries if keep is None or keep.keeps(e)]
