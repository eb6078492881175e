"""``evalens rejudge REPORT`` for an eval file's batch (skilljack, skill-creator, writing-skills): every run the
batch's run log finished is judged again by its suite, no agent started, and the runs are combined by the suite's
own rule into a new report beside the old one.

Why from the run log and not the report: the log keeps each run as its suite made it (``run-finish``'s data: the
agent's output, the skills it loaded, its workspace's file names and the format's figures), which is all a
file suite's judge reads, so a re-judged run is decided exactly as a fresh one would be with the same agent
output. A UAAPS batch is re-judged from its saved transcripts (:func:`evalens.runner.api.rejudge`).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalens.core.models.uaaps import EvalReport, ReportCase, ReportJudge
from evalens.runner.api_types import ProgressEvent, RunError, RunRequest
from evalens.runner.engines import UnsupportedEngine, get_engine
from evalens.runner.judge import MissingKey, require_key
from evalens.runner.report import (
    artifacts_root,
    batch_id,
    iso,
    rejudged_path,
    summarize,
    utc_now,
    write_report,
)
from evalens.runner.results import UnitResult, report_case_from_result
from evalens.runner.run_file import logged_run, prepare
from evalens.runner.run_log import NotARunLog, log_path, logged_units, read_log
from evalens.runner.session import UsageError
from evalens.runner.stats import agreement_fields
from evalens.runner.suites import names_per_file
from evalens.runner.suites.base import LoggedSession, Suite, Unit
from evalens.runner.unit_identity import identity, key, reconcile


def _suite(log: Any, judge: str | None) -> tuple[Suite, list[tuple[Any, Unit]], Any]:
    """The batch's suite rebuilt from its logged inputs and today's file (``judge`` replacing the batch's),
    today's units with their identities, and the session its runs ran in as the log tells it. Raises
    :class:`RunError` for what cannot be re-judged. Blocking (reads the file)."""
    planned = log.start.units
    fmt = planned[0].unit.format if planned else None
    if fmt is None or not names_per_file(fmt):
        raise RunError(f"{log.path}: not an eval file's batch")
    inputs = {**log.start.inputs, "units": [], "no_judge": False}
    if inputs.get("baseline"):
        raise RunError(
            "a --baseline batch cannot be re-judged yet: its baseline section compares runs this would leave "
            "as they were; run it again instead"
        )
    if "json_output" in inputs:
        inputs["json_output"] = None  # the batch's --results-json is its own; the re-judged files are new
    if judge:
        inputs["judge"] = judge
    try:
        request = RunRequest.model_validate(inputs)
        suite, units = prepare(request, None, fmt)
        engine = get_engine(request.file_engine)
    except (UsageError, UnsupportedEngine, OSError, ValueError) as exc:
        raise RunError(f"cannot re-judge {log.path.parent}: {exc}") from None
    refused = suite.rejudge_refused(request)
    if refused is not None:
        raise RunError(f"cannot re-judge a {fmt} batch: {refused}")
    root = log.package_root
    today = [(identity(suite.file, u.id, root, u.location, suite.format_id), u) for u in units]
    version = next((p.fingerprint.get("engine-version") for p in planned if p.fingerprint), None)
    return suite, today, LoggedSession(engine, version)


async def rejudge_file(
    report_path: Path,
    old: EvalReport,
    *,
    judge: str | None = None,
    output: Path | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
) -> tuple[EvalReport, Path]:
    """Judge an eval file's finished batch again from its run log; write and return the new report.

    A unit whose runs did not all finish, or that today's file no longer has, keeps its case as it was; a run
    the judge does not decide (its agent failed, nothing to judge) keeps its verdict (``Suite.rejudge_run``).
    Raises :class:`RunError` when the batch cannot be re-judged (no run log, a format whose judge evalens cannot
    ask again, the judge's key missing)."""
    try:
        log = await asyncio.to_thread(read_log, log_path(report_path))
    except NotARunLog as exc:
        raise RunError(f"cannot re-judge {report_path}: it has no run log to judge from ({exc})") from None
    suite, today, session = await asyncio.to_thread(_suite, log, judge)
    spec = suite.open_judge()
    if spec is not None:
        try:
            require_key(spec.key_env, f"the {spec.provider} judge ({spec.model})")
        except MissingKey as exc:
            raise RunError(str(exc)) from None
    started, t0 = utc_now(), time.monotonic()
    output = output if output is not None else rejudged_path(report_path, started)
    suite.write_files_to(artifacts_root(output) / "files")  # the batch's own grading files stay as they were
    old_cases = {(c.case_file, c.name): c for c in old.cases}
    cases: list[ReportCase] = []
    results: list[UnitResult] = []
    for planned, logged, runs in logged_units(log):
        finished = [r for r in runs if r is not None]
        found = reconcile([logged], (now for now, _ in today))
        unit = next((u for now, u in today if key(now) in found), None)
        was = old_cases.get((logged.file, logged.name)) or next(
            (c for c in old.cases if c.name == logged.name), None
        )
        if unit is None or len(finished) != len(runs) or any(r.budget for r in finished):
            if was is not None:
                cases.append(_moved(was, report_path, output))
            continue
        why = suite.placeholder_refusal(unit)
        if why is not None:  # refused, never run: nothing to judge (``run_file._run_unit``)
            results.append(suite.refused(unit, why))
            cases.append(report_case_from_result(results[-1], None, suite.root))
            continue
        rejudged = []
        for number, done in enumerate(finished, 1):
            if on_progress is not None:
                on_progress(
                    ProgressEvent(
                        case_name=unit.id, stage="judge", run_index=number, message=f"re-judging run {number}"
                    )
                )
            rejudged.append(await suite.rejudge_run(unit, number, logged_run(suite, unit, done)))
        result = suite.combine(session, unit, rejudged)
        result.fingerprint = planned.fingerprint or None
        if result.fingerprint and spec is not None and "judge" in result.fingerprint:
            result.fingerprint = {**result.fingerprint, "judge": spec.model}  # the judge that decided now
        results.append(result)
        case = report_case_from_result(result, None, suite.root)
        if was is not None:
            case.usage = was.usage  # what the agent runs spent: nothing new was run
            case.artifacts = _moved(
                was, report_path, output
            ).artifacts  # the runs' records stay where they are
        if case.result_file and Path(case.result_file).is_absolute():
            case.result_file = _relative(Path(case.result_file), output.parent)
        cases.append(case)
        if on_progress is not None:
            on_progress(
                ProgressEvent(case_name=unit.id, stage="done", message=result.reason, verdict=result.verdict)
            )
    await asyncio.to_thread(suite.finish, results)  # the format's own files, of the re-judged runs
    report = old.model_copy(deep=True)
    report.id = batch_id(started) + "-rejudged"
    report.timestamp = iso(started)
    report.duration_seconds = round(time.monotonic() - t0, 3)
    report.cases = cases
    report.config.judge = spec.model if spec is not None else report.config.judge
    if spec is not None:
        report.judge = ReportJudge(
            model=spec.model,
            model_provider=spec.provider,
            choice=spec.why or None,
            **agreement_fields((j for r in results for j in r.judgements), suite.request.judge_repeats),
        )
    report.summary = summarize(cases, usage=old.summary.usage)
    await asyncio.to_thread(write_report, report, output)
    return report, output


def _moved(case: ReportCase, report_path: Path, output: Path) -> ReportCase:
    """``case`` as the new report at ``output`` names it: its folders relative to the new report's folder."""
    case = case.model_copy(deep=True)
    for attr in ("artifacts", "result_file"):
        value = getattr(case, attr)
        if value and not Path(value).is_absolute():
            setattr(case, attr, _relative(report_path.parent / value, output.parent))
    return case


def _relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base``, as a report names its files (pure: no file is looked at)."""
    return os.path.relpath(path, base)
