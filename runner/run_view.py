"""A report with its run records, ready to render (terminal, HTML page, editors): one loader, shared wording.

Reading never raises for a record that is missing or broken: the unit is still shown, with what the report says
and a sentence saying the record could not be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evalens.core.models.cassette import replay_label
from evalens.core.models.run_record import RunRecord, Usage
from evalens.core.models.uaaps import EvalReport, ReportCase
from evalens.runner.record import records_for
from evalens.runner.report import load_report, newest_report
from evalens.runner.results import is_interrupted

ORDER = {"FAIL": 0, "ERROR": 1, "SKIP": 2, "PASS": 3}  # failures first
#: What every face calls a unit cut short by a cancel (■ Cancel, Ctrl-C): the report keeps an "interrupted"
#: ERROR, which is no verdict on the unit; the run page, ``:EvalensShow``, the Runs view and Test Results say so.
CANCELLED = "CANCELLED"


@dataclass
class UnitView:
    case: ReportCase
    records: list[RunRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # records that could not be read
    cancelled: bool = False  # cut short by a cancel: ``verdict`` is the report's "interrupted" ERROR

    @property
    def name(self) -> str:
        return self.case.name

    @property
    def shown(self) -> str:
        """The verdict as the page shows it: CANCELLED for a unit cut short (as the Runs view says), else the
        report's verdict."""
        return CANCELLED if self.cancelled else self.case.verdict

    @property
    def verdict(self) -> str:
        return self.case.verdict

    @property
    def reason(self) -> str:
        judge = self.case.judge_verdict
        if self.case.error:
            return self.case.error
        return judge.reason if judge is not None else ""


@dataclass
class RunView:
    report_path: Path
    report: EvalReport
    units: list[UnitView]
    baseline_units: list[UnitView] = field(
        default_factory=list
    )  # with --baseline: the runs without the package


def load_view(report_path: Path, unit: str | None = None) -> RunView:
    """The report at ``report_path`` and the records of its units (only ``unit`` if given), failures first.
    Raises :class:`~evalens.runner.report.NotAReport` or :class:`LookupError` (unknown unit), one line each."""
    report = load_report(report_path)
    cases = list(report.cases)
    if unit is not None:
        cases = [c for c in cases if c.name == unit]
        if not cases:
            names = ", ".join(c.name for c in report.cases) or "none"
            raise LookupError(f"no unit named {unit!r} in {report_path} (units: {names})")
    shown = {c.name for c in cases}
    base = [c for c in report.baseline.cases if c.name in shown] if report.baseline is not None else []
    return RunView(
        report_path=report_path,
        report=report,
        units=_views(report_path, cases, report),
        baseline_units=_views(report_path, base, report),
    )


def _views(report_path: Path, cases: list[ReportCase], report: EvalReport) -> list[UnitView]:
    units = []
    for case in sorted(cases, key=lambda c: ORDER.get(c.verdict, 9)):
        view = UnitView(case=case, cancelled=is_interrupted(case, report))
        for path, record in records_for(report_path, case.artifacts):
            if record is None:
                view.problems.append(f"{path}: not a readable run record")
            else:
                view.records.append(record)
        units.append(view)
    return units


def find_report(target: Path | None) -> Path | None:
    """A report file as given, or the newest report of a package (the folder holding ``evals/``, or any folder
    below or above the current one)."""
    start = target or Path.cwd()
    if start.is_file() or (start.exists() and not start.is_dir()):  # a FIFO or device: refused when read
        return start
    for folder in (start, *start.resolve().parents):
        if (folder / "evals" / "reports").is_dir():
            return newest_report(folder)
        if folder.name == "reports" and folder.parent.name == "evals":
            return newest_report(folder.parent.parent)
    return None


def tokens(usage: Usage | None) -> str:
    """``1,204 in / 88 out`` or an empty string."""
    if usage is None or (usage.input_tokens is None and usage.output_tokens is None):
        return ""
    return f"{usage.input_tokens or 0:,} in / {usage.output_tokens or 0:,} out"


def cost(usage: Usage | None) -> str:
    """``$0.0123``, or an empty string when the CLI reported no cost (Codex)."""
    if usage is None or usage.cost_usd is None:
        return ""
    return f"${usage.cost_usd:.4f}" if usage.cost_usd < 1 else f"${usage.cost_usd:.2f}"


def record_facts(rec: RunRecord, *, version: bool = False) -> str:
    """A run record's facts on one line: engine (``version``: and its version), model, agent time, exit code,
    a timeout, tokens and cost, and a run answered from a cassette (``↺ replayed (3 of 3 requests)``)."""
    facts = [
        rec.engine + (f" {rec.engine_version}" if version and rec.engine_version else ""),
        rec.model or "",
        f"agent {rec.agent_seconds:.1f} s" if rec.agent_seconds is not None else "",
        f"exit {rec.exit_code}" if rec.exit_code is not None else "",
        "timed out" if rec.timed_out else "",
        tokens(rec.usage),
        cost(rec.usage),
        replay_label(rec.replay) or "",
    ]
    return " · ".join(f for f in facts if f)


def call_summary(name: str, value: object) -> str:
    """A one-line label of a tool call's input: the path written, the command run, the skill activated."""
    if isinstance(value, dict):
        for key in ("skill", "file_path", "path", "cmd", "command", "pattern", "url", "description"):
            if key in value:
                shown = value[key]
                if isinstance(shown, list):
                    shown = " ".join(str(v) for v in shown)
                return " ".join(str(shown).split())[:120]
        return ""
    return " ".join(str(value or "").split())[:120]
