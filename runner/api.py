"""The runner API: run eval files of every runnable format and get typed results. The CLI (``evalens eval``,
``evalens run``), the language server's code lens and the VS Code Test Explorer are all thin faces of
:func:`run_cases` (UAAPS cases: a package's eval config, cases and installed package) and :func:`run_file`
(every other runnable format, through its suite in ``runner/suites/``). Both return
:class:`~evalens.runner.results.UnitResult` s and write one evalens report per batch.

Stability: the names in ``__all__`` and the fields of :class:`RunRequest`, :class:`ProgressEvent`,
:class:`CaseResult` and :class:`RunOutcome` are a public contract; add fields, don't rename them.

Typical use from asyncio code::

    outcome = await run_cases(RunRequest(package_root=root, cases=["extract-text"]), on_progress=print)
    outcome.results[0].verdict   # "PASS" | "FAIL" | "SKIP" | "ERROR"

Cancelling the task that awaits :func:`run_cases` kills every agent's process tree, removes every sandbox,
writes a partial report (``interrupted: true``) and re-raises :class:`asyncio.CancelledError`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalens.core.models.uaaps import EvalReport, JudgeVerdict, ReportJudge
from evalens.core.regular_files import read_regular
from evalens.runner.api_types import (
    PlannedCase,
    ProgressEvent,
    RunError,
    RunOutcome,
    RunPlan,
    RunRequest,
    Stage,
    Verdict,
)
from evalens.runner.judge import (
    MissingKey,
    build_prompt,
    default_judge,
    judge_case,
    judge_deadline,
    require_key,
    resolve_judge,
)
from evalens.runner.live import LiveTurn, TurnCallback, streaming
from evalens.runner.pairwise import transcript_file
from evalens.runner.replay import carry, cassettes, settings_of
from evalens.runner.report import (
    batch_id,
    iso,
    load_report,
    rejudged_path,
    reports_newest_first,
    summarize,
    utc_now,
    write_report,
)
from evalens.runner.results import (
    CaseResult,
    CheckResult,
    UnitCheck,
    UnitResult,
    is_interrupted,
    rederive_report_case,
    result_from_report_case,
)
from evalens.runner.run_file import FileOutcome, FileProgress, InvalidFile, NotRunnable, prepare
from evalens.runner.run_file import run_file as _run_file
from evalens.runner.session import UsageError
from evalens.runner.suites import PACKAGE_FORMAT, names_per_file, suite_for
from evalens.runner.suites.base import FileRunRequest
from evalens.runner.suites.uaaps import plan_run
from evalens.runner.suites.uaaps import run_cases as _run_cases
from evalens.runner.verdicts import combine_runs, held, unit_verdict

__all__ = [
    "FileOutcome",
    "FileProgress",
    "FileRunRequest",
    "InvalidFile",
    "NotRunnable",
    "UsageError",
    "run_file",
    "run",
    "request_for",
    "unit_count",
    "RunRequest",
    "ProgressEvent",
    "CaseResult",
    "CheckResult",
    "UnitResult",
    "UnitCheck",
    "RunOutcome",
    "RunPlan",
    "PlannedCase",
    "RunError",
    "Stage",
    "Verdict",
    "run_cases",
    "rejudge",
    "load_last_results",
    "plan_run",
    "LiveTurn",
    "TurnCallback",
]


async def run_cases(
    request: RunRequest,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    on_turn: TurnCallback | None = None,
) -> RunOutcome:
    """Run UAAPS cases (``runner/suites/uaaps.py``). ``on_turn`` gets each agent's turns as they happen
    (:class:`LiveTurn`: text, tool calls, results, blocking hooks; called on the caller's event loop, so it
    must return at once)."""
    with streaming(on_turn):
        async with cassettes(settings_of(request, request.package_path.resolve())):  # --record / --replay
            return carry(await _run_cases(request, on_progress))


async def run_file(
    request: RunRequest,
    on_progress: Callable[[FileProgress], None] | None = None,
    format_id: str | None = None,
    on_turn: TurnCallback | None = None,
) -> FileOutcome:
    """Run the units of any other runnable format's file (``runner/run_file.py``); ``on_turn`` as for
    :func:`run_cases`."""
    with streaming(on_turn):
        return await _run_file(request, on_progress, format_id)


def request_for(
    format_id: str,
    file: Path,
    units: list[str],
    options: dict[str, Any],
    *,
    package_root: Path | None = None,
    jobs: int = 1,
) -> RunRequest:
    """The request of a batch of ``units`` of ``file`` (empty: the whole file, or with ``file`` the package root
    itself, every case of the package), whatever its format, under the
    shared ``options`` (:class:`RunOptions`' fields). A package's case runs as its package plans it
    (``package_root``, ``jobs`` at once); a file's units as its suite does,
    anchored to the suite's folder (:meth:`Suite.anchored_options`). Blocking (a suite may read its config).
    Raises :class:`RunError` for a format evalens does not run."""
    if names_per_file(format_id):
        suite = suite_for(format_id)
        assert suite is not None
        return RunRequest(
            file=file, units=list(units), jobs=jobs, **{**suite.anchored_options(file), **options}
        )
    if package_root is None:
        raise RunError(
            f"{file} is neither a package's case (no evals/ above it) nor an eval file evalens runs"
        )
    return RunRequest(
        package_root=package_root,
        cases=list(units) or ([str(file)] if file != package_root else []),  # the package itself: every case
        jobs=jobs,
        **options,
    )


async def run(
    request: RunRequest,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    on_turn: TurnCallback | None = None,
    format_id: str | None = None,
) -> RunOutcome | FileOutcome:
    """Run a batch of any format (:func:`request_for` builds its request): the one entry the editors use.
    Progress comes as :class:`ProgressEvent` whatever the format: a file run's line saying how a unit's run went
    is a ``done`` event, its other notes ``plan`` events, and the partial report of an interrupted batch a
    ``report`` event. ``format_id``: the file's format as the caller detected it (else detected again).
    Raises :class:`RunError` / :class:`UsageError` before any agent starts."""
    if request.file is None:  # a package's cases
        return await run_cases(request, on_progress, on_turn)
    progress = as_progress_events(on_progress, request.file) if on_progress is not None else None
    return await run_file(request, progress, format_id, on_turn=on_turn)


def unit_count(request: RunRequest, format_id: str | None = None) -> int:
    """How many units a batch of ``request`` runs (each up to ``request.runs`` times), as its dry run plans
    them: a package's selected cases, or the selected units of a file as its suite lists them. Nothing runs.
    Blocking (reads the config or the file). Raises :class:`RunError` / :class:`UsageError` as the batch would."""
    if request.file is None:  # a package's cases, as :func:`run` routes them
        return len(plan_run(request.model_copy(update={"dry_run": True})).plan.cases)
    return len(prepare(request, None, format_id)[1])


def as_progress_events(
    on_progress: Callable[[ProgressEvent], None], file: Path
) -> Callable[[FileProgress], None]:
    """A file suite's progress as the package batch's :class:`ProgressEvent`: how one run of a unit went is
    ``done``, the partial report of an interrupted batch ``report``, any other note ``plan``."""

    def progress(event: FileProgress) -> None:
        stage: Stage = "done" if event.outcome else "report" if event.report_path else "plan"
        on_progress(
            ProgressEvent(
                case_name=event.unit or None,
                stage=stage,
                message=event.message,
                case_file=str(file),
                report_path=str(event.report_path) if event.report_path else None,
            )
        )

    return progress


# --------------------------------------------------------------------------- reading results back


def load_last_results(
    package_root: Path, *, max_reports: int = 50, every_format: bool = False
) -> dict[str, CaseResult]:
    """Case name → its latest result across ``evals/reports/`` (newest report first, up to ``max_reports``);
    UAAPS cases only unless ``every_format`` (then keyed ``<case_file>::<name>``: unit ids repeat across files).

    A run of one case writes a report holding only that case, so each case is taken from the newest report that
    has it; cases merely interrupted or never started in an interrupted run are passed over. Unreadable reports
    are skipped. ``case_file`` and ``artifacts`` come back as absolute paths."""
    out: dict[str, CaseResult] = {}
    for path in reports_newest_first(package_root, max_reports):
        try:
            report = load_report(path)
        except Exception:
            continue
        for case in report.cases:
            uaaps = not names_per_file(case.format or PACKAGE_FORMAT)
            key = case.name if not every_format else f"{case.case_file}::{case.name}"
            if key in out or not (uaaps or every_format) or is_interrupted(case, report):
                continue
            out[key] = result_from_report_case(case, report, path, package_root)
    return out


def _relative(path: Path, base: Path) -> str:
    return os.path.relpath(path, base)


async def rejudge(
    report_path: Path,
    *,
    judge: str | None = None,
    output: Path | None = None,
    judge_key_env: list[str] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
) -> tuple[EvalReport, Path]:
    """Judge a finished run again from its saved transcripts (no agent is run); writes a new report. An eval
    file's batch is judged again from its run log by its suite (``runner/rejudge_file.py``).

    Every run of a ``--runs N`` case is judged again and the runs are recombined (:func:`report.aggregate`);
    runs whose agent errored or whose deterministic checks failed keep their verdict.
    """
    old = load_report(report_path)
    if any(names_per_file(case.format or PACKAGE_FORMAT) for case in old.cases):  # an eval file's batch
        # lazy: the file re-judge reads run logs through the file pipeline, which imports this module's peers
        from evalens.runner.rejudge_file import rejudge_file

        return await rejudge_file(report_path, old, judge=judge, output=output, on_progress=on_progress)
    default_provider = default_judge(old.config.engine)
    spec = resolve_judge(
        judge or old.config.judge or old.judge.model,
        default_provider=default_provider,
        agent_model=old.agent.model,
        key_env=tuple(judge_key_env) if judge_key_env else None,
    )
    try:
        require_key(spec.key_env, f"the {spec.provider} judge ({spec.model})")
    except MissingKey as exc:
        raise RunError(str(exc)) from None
    started = utc_now()
    t0 = time.monotonic()
    if output is None:
        output = rejudged_path(report_path, started)
    deadline = judge_deadline(old.config.timeout)
    new_cases = []
    for case in old.cases:
        case = case.model_copy(deep=True)
        folder = (report_path.parent / case.artifacts) if case.artifacts else None
        if case.artifacts:
            case.artifacts = _relative(report_path.parent / case.artifacts, output.parent)
        runs = case.runs or 1
        old_verdicts = list(case.run_verdicts) or [case.verdict]
        verdicts: list[Verdict] = []
        judged: list[tuple[str, Any]] = []  # (verdict, judge outcome) of the runs judged again
        for i in range(1, runs + 1):
            record_file = transcript_file(folder, runs, i) if folder is not None else None
            before = old_verdicts[i - 1] if i - 1 < len(old_verdicts) else case.verdict
            if record_file is None or not record_file.is_file():
                verdicts.append(before)  # nothing saved to judge again: the run keeps its verdict
                continue

            record = json.loads(read_regular(record_file).decode("utf-8"))
            failing = next((c for c in record.get("checks", []) if not held(c["status"])), None)
            if record.get("agent_error") or failing is not None:  # not the judge's call: the run keeps it
                verdicts.append(
                    unit_verdict(
                        agent_error=record.get("agent_error"),
                        failed_check=str(failing.get("detail") or "") if failing is not None else None,
                        judged=None,
                        checked=True,
                        judge_used=False,
                    )[0]
                )
                continue
            if on_progress:
                on_progress(
                    ProgressEvent(
                        case_name=case.name,
                        stage="judge",
                        run_index=i,
                        message=f"re-judging with {spec.model}",
                    )
                )
            prompt = build_prompt(
                record["case"]["judge"]["criteria"],
                record["case"]["input"]["prompt"],
                record["transcript"]["output"],
                record.get("file_previews", {}),
                record["checks"],
            )
            outcome = await judge_case(spec, prompt, deadline=deadline)
            verdicts.append(outcome.verdict)
            judged.append((outcome.verdict, outcome))
        if not judged:
            new_cases.append(case)
            continue

        verdict = combine_runs(verdicts, case.budget_stopped or 0)
        outcome = next((o for v, o in judged if v == verdict), judged[0][1])
        case.judge_verdict = JudgeVerdict(result=outcome.verdict, reason=outcome.reason, model=outcome.model)
        case.error = None
        if verdict in ("ERROR", "FAIL"):
            case.error = (
                outcome.reason
                if outcome.verdict == verdict
                else f"{verdicts.count(verdict)} of {runs} runs {verdict} (kept from the original run)"
            )
        case.reason = case.error or outcome.reason
        case.run_verdicts = verdicts if runs > 1 else []
        case.verdict = verdict
        if case.fingerprint and "judge" in case.fingerprint:  # the judge that decided it now
            case.fingerprint = {**case.fingerprint, "judge": spec.model}
        rederive_report_case(case)  # verdict, state, pass rate, interval, pass^k: derived, never kept
        new_cases.append(case)
        if on_progress:
            on_progress(
                ProgressEvent(case_name=case.name, stage="done", message=outcome.reason, verdict=verdict)
            )
    report = old.model_copy(deep=True)
    report.id = batch_id(started) + "-rejudged"
    report.timestamp = iso(started)
    report.duration_seconds = round(time.monotonic() - t0, 3)
    report.cases = new_cases
    report.config.judge = spec.model
    report.judge = ReportJudge(model=spec.model, model_provider=spec.provider, choice=spec.why or None)
    report.summary = summarize(new_cases, usage=old.summary.usage)
    write_report(report, output)
    return report, output
