"""Eval reports: naming, provenance, atomic writing, reading the newest one, and diffing two.

A report is never half-written: it goes to a temporary file in the same folder and is renamed into place.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from evalens import __version__
from evalens.core.models.baseline import ArmSource
from evalens.core.models.uaaps import (
    EvalReport,
    ReportAgent,
    ReportCase,
    ReportConfig,
    ReportEnvironment,
    ReportJudge,
    ReportPackage,
    ReportSandbox,
    ReportShard,
    ReportSummary,
)
from evalens.core.models.verdict import Verdict
from evalens.core.regular_files import LinkRefused, read_regular, refuse_links, write_json_atomic
from evalens.runner.replay import annotate
from evalens.runner.verdicts import combine_runs, count_passed

VERDICT_ORDER = ("PASS", "FAIL", "ERROR", "SKIP")
M = TypeVar("M", bound=BaseModel)


def utc_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def stamp(moment: datetime) -> str:
    """File-name-safe ISO timestamp, e.g. ``2026-02-22T14-30-00Z``."""
    return moment.strftime("%Y-%m-%dT%H-%M-%SZ")


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def batch_id(moment: datetime) -> str:
    """The id of the batch started at ``moment``, which its report and its run log carry."""
    return f"eval-run-{stamp(moment)}"


def reports_dir(package_root: Path) -> Path:
    return package_root / "evals" / "reports"


def allocate_report_path(package_root: Path, moment: datetime, output: Path | None = None) -> Path:
    """``evals/reports/<stamp>.json`` (``-2``, ``-3``… if taken), or ``output`` when given."""
    if output is not None:
        return output
    base = reports_dir(package_root)
    try:  # a committed `evals/reports -> ~/somewhere` would take every report and artifact there (#42)
        refuse_links(base, below=package_root)
        base.mkdir(parents=True, exist_ok=True)
    except LinkRefused as exc:
        from evalens.runner.api_types import RunError  # lazy: the run API imports this module

        raise RunError(f"cannot write the report: {exc.strerror}") from None
    name = stamp(moment)
    candidate = base / f"{name}.json"
    n = 2
    while candidate.exists() or candidate.with_suffix("").exists():
        candidate = base / f"{name}-{n}.json"
        n += 1
    # Reserve the name so a concurrent run in the same second picks another one.
    candidate.with_suffix("").mkdir(parents=True, exist_ok=True)
    return candidate


def rejudged_path(report_path: Path, moment: datetime) -> Path:
    """``<stamp>-rejudged.json`` beside the report (``-2``, ``-3``… if taken): a re-judged batch, of any format,
    never overwrites the report it came from."""
    output = report_path.parent / f"{stamp(moment)}-rejudged.json"
    n = 2
    while output.exists():
        output = report_path.parent / f"{stamp(moment)}-rejudged-{n}.json"
        n += 1
    return output


def artifacts_root(report_path: Path) -> Path:
    """Folder next to the report holding each case's transcript and captured files."""
    return report_path.with_suffix("")


@lru_cache(maxsize=1)
def _node_version() -> str | None:
    try:
        out = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def environment_info() -> ReportEnvironment:
    return ReportEnvironment(
        os=sys.platform,
        arch=platform.machine(),
        aam_version=__version__,
        node_version=_node_version(),
        python_version=platform.python_version(),
    )


def summarize(cases: Sequence[ReportCase], usage: Any = None) -> ReportSummary:
    """A report's counts from its cases, the one place they are counted (a run, a re-judged or merged report,
    the baseline's section)."""
    total = len(cases)
    passed = count_passed(c.verdict for c in cases)
    return ReportSummary(
        total=total,
        passed=passed,
        failed=sum(c.verdict == "FAIL" for c in cases),
        skipped=sum(c.verdict == "SKIP" for c in cases),
        errored=sum(c.verdict == "ERROR" for c in cases),
        pass_rate=round(passed / total, 4) if total else 0.0,
        usage=usage,
        flaky=sum(c.state == "FLAKY" for c in cases) or None,
        budget=sum(c.state == "BUDGET" for c in cases) or None,
    )


def new_report(
    started: datetime,
    cases: Sequence[ReportCase],
    config: ReportConfig,
    *,
    duration: float = 0.0,
    report_id: str | None = None,
    usage: Any = None,
    agent: ReportAgent | None = None,
    judge: ReportJudge | None = None,
    package: ReportPackage | None = None,
    sandbox: ReportSandbox | None = None,
    interrupted: bool = False,
    arm: ArmSource | None = None,
    shard: ReportShard | None = None,
) -> EvalReport:
    """A batch's report, its header made in one place for every batch that writes one (UAAPS cases, a file's
    units, an empty shard): id (default :func:`batch_id`), start, duration, this machine's environment and the
    counts of ``cases`` (``usage``: what their agents spent); the rest is what the batch knows of itself."""
    return EvalReport(
        version=1,
        id=report_id or batch_id(started),
        timestamp=iso(started),
        duration_seconds=round(duration, 3),
        config=config,
        agent=agent or ReportAgent(),
        judge=judge or ReportJudge(),
        environment=environment_info(),
        package=package or ReportPackage(),
        summary=summarize(cases, usage=usage),
        cases=list(cases),
        sandbox=sandbox,
        interrupted=interrupted,
        arm=arm,
        shard=shard,
    )


def write_report(report: EvalReport, path: Path) -> Path:
    """Validate and write atomically (temp file + fsync + rename). In a recording or replaying batch, each case
    first gets its replay note (``runner/replay.py``)."""
    annotate(report)
    data = report.model_dump(mode="json", by_alias=True, exclude_none=True)
    EvalReport.model_validate(data)
    return write_json_atomic(path, data, indent=2, durable=True)


class NotAReport(ValueError):
    """The file cannot be read as an eval report; the message is one line a user can act on."""


def read_model(path: Path, model: type[M], what: str, error: type[ValueError]) -> M:
    """A JSON file read as ``model`` (a report, a run record); anything else raises ``error`` with one line a
    user can act on, never a dump: unreadable, not JSON, nested too deeply, or the first schema problem."""
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror or exc}") from None
    except RecursionError:
        raise error(f"{path}: nested too deeply to be {what}") from None
    except ValueError as exc:
        raise error(
            f"{path} is not JSON ({str(exc).splitlines()[0] if str(exc) else 'unreadable'})"
        ) from None
    try:
        return model.model_validate(data)
    except RecursionError:
        raise error(f"{path}: nested too deeply to be {what}") from None
    except ValidationError as exc:
        first: Any = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ())) or "top level"
        raise error(
            f"{path} is not {what} ({exc.error_count()} problem(s); first: `{where}`: {first.get('msg', 'invalid')})"
        ) from None


def load_report(path: Path) -> EvalReport:
    """Read a report written by ``evalens eval``; anything else raises :class:`NotAReport` (one line, no dump)."""
    return read_model(path, EvalReport, "an evalens eval report", NotAReport)


def reports_newest_first(package_root: Path, limit: int | None = None) -> list[Path]:
    """The reports in ``evals/reports/``, most recently written first (up to ``limit``)."""
    base = reports_dir(package_root)
    if not base.is_dir():
        return []
    reports = [p for p in base.glob("*.json") if p.is_file() and not p.name.startswith(".")]
    reports.sort(key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)
    return reports[:limit] if limit is not None else reports


def newest_report(package_root: Path) -> Path | None:
    """The most recent report in ``evals/reports/``."""
    reports = reports_newest_first(package_root, 1)
    return reports[0] if reports else None


def aggregate(verdicts: Sequence[str]) -> Verdict:
    """One verdict for repeated runs (:func:`evalens.runner.verdicts.combine_runs`)."""
    return combine_runs(verdicts)


def diff_reports(a: EvalReport, b: EvalReport) -> dict[str, Any]:
    """Pass-rate change and per-unit verdict changes from ``a`` to ``b``, units paired by identity (file, name,
    content) as the gate and the PR comment pair them: a case renamed in place keeps its history, and two whose
    names were swapped are each compared with themselves."""
    # cycle: runner.ci.paired reads identities through runner.unit_identity, which loads reports from here
    from evalens.runner.ci.paired import changes as paired

    changes = [
        {"name": c.name, "before": c.before, "after": c.after} for c in paired(a, b) if c.before != c.after
    ]
    return {
        "a": a.id,
        "b": b.id,
        "pass_rate_before": a.summary.pass_rate,
        "pass_rate_after": b.summary.pass_rate,
        "pass_rate_change": round(b.summary.pass_rate - a.summary.pass_rate, 4),
        "changes": changes,
    }
