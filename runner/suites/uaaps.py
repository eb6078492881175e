"""The UAAPS suite: a package's ``evals/eval-config.json`` and ``evals/cases/*.yaml``, each case a unit run
through the agent session (sandbox → package installed for the engine → engine → transcript), checked
(:mod:`evalens.runner.checks`, locations as data), judged (:mod:`evalens.runner.judge`) and given its verdict
(:mod:`evalens.runner.verdicts`); the batch writes one evalens report. :func:`run_cases` is re-exported by
:mod:`evalens.runner.api`.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core.env_policy import refused_reason
from evalens.core.models.run_record import sum_usage
from evalens.core.models.uaaps import (
    DeterministicChecks,
    EvalCase,
    EvalConfig,
    EvalReport,
    JudgeVerdict,
    ReportAgent,
    ReportCase,
    ReportConfig,
    ReportJudge,
    ReportPackage,
    ReportSandbox,
)
from evalens.core.placeholders import placeholder_in, refusal
from evalens.core.regular_files import write_text_atomic
from evalens.runner.adaptive import decided, stop_after, wants_leftover
from evalens.runner.agent_process import in_thread
from evalens.runner.agent_retry import after_retries, run_retrying, with_discarded
from evalens.runner.api_types import (
    SNIPPET_CHARS,
    PlannedCase,
    ProgressEvent,
    RunError,
    RunOutcome,
    RunPlan,
    RunRequest,
    Stage,
    Verdict,
)
from evalens.runner.arms import ArmError, opened_async, resolve_arm
from evalens.runner.baseline import (
    BaselineError,
    add_to,
    checked_out,
    report_section,
    require_isolation,
    resolve,
    variant,
)
from evalens.runner.budget import Budget, refuse_unpriced, unpriced_before
from evalens.runner.checks import run_checks, summarise
from evalens.runner.depends import NextRun, finish_unit
from evalens.runner.engines import EngineNotFound, UnsupportedEngine, get_engine
from evalens.runner.install import PackageError, install_package, read_package
from evalens.runner.judge import build_prompt, default_judge, judge_deadline, judge_repeated, resolve_judge
from evalens.runner.preflight import judge_sdk_ready, preflight
from evalens.runner.record import RECORD_FILE, finish, write_record
from evalens.runner.report import (
    allocate_report_path,
    artifacts_root,
    batch_id,
    new_report,
    utc_now,
    write_report,
)
from evalens.runner.resource_limits import ResourceLimits
from evalens.runner.results import CaseResult, CheckResult, report_checks
from evalens.runner.run_limits import RunLimits
from evalens.runner.run_log import ResumeRefused, open_batch, restore_run
from evalens.runner.sandbox import (
    PathEscape,
    artifact_limit,
    copy_bounded,
    plan_sandbox,
    populate,
    sweep_stale_sandboxes,
)
from evalens.runner.scheduling import Admission
from evalens.runner.session import AgentLaunch, agent_env, agent_run, capture_files
from evalens.runner.stats import agreement_fields, flip_fields
from evalens.runner.suites.uaaps_select import load_config as _load_config
from evalens.runner.suites.uaaps_select import select_cases as _select_cases
from evalens.runner.verdicts import combine_runs, count_passed, counted, unit_verdict


@dataclass
class _Context:
    request: RunRequest
    config: EvalConfig
    engine: Any
    cases: list[tuple[EvalCase, Path]]
    plan: RunPlan
    sandbox_plan: Any
    judge_spec: Any | None
    agent_env: dict[str, str]
    timeout: float
    on_progress: Callable[[ProgressEvent], None] | None
    artifacts_dir: Path | None = None
    engine_version: str | None = None
    package: Any = None
    records: dict[tuple[str, int], _RunRecord] = field(default_factory=dict)
    judge_explicit: bool = True  # False: judge with the agent's own model, known only after the run
    baseline: Any = None  # the --baseline plan (runner.baseline.BaselinePlan)
    baseline_isolated: bool = True  # False: --allow-unisolated-baseline without an enforced sandbox
    resources: Any = None  # runner.resource_limits.ResourceLimits: the config's sandbox.limits, then --limit
    side: str | None = (
        None  # the baseline's label on the context that runs it (package: None, or as at the ref)
    )
    log: Any = None  # runner.run_log.BatchLog: the batch's run log, shared by both sides
    stops: dict[str, str] = field(default_factory=dict)  # --runs auto: case → why its runs stopped
    leftover: dict[str, int] = field(default_factory=dict)  # --runs auto: case → runs from the budget left
    arm: Any = None  # --arms: what this batch installs of the package (runner.arms.Arm)

    def launch(self) -> AgentLaunch:
        """How this batch's agents launch (the session's :func:`~evalens.runner.session.agent_run` reads it)."""
        return AgentLaunch(
            engine=self.engine,
            plan=self.sandbox_plan,
            env=self.agent_env,
            model=self.request.agent_model,
            engine_version=self.engine_version,
            limits=RunLimits(self.request.max_turns, self.request.max_tokens_per_run),
            resources=self.resources,
            keep=self.request.keep_sandbox,
        )

    def emit(self, case: str | None, stage: Stage, message: str = "", **extra: Any) -> None:
        if self.on_progress is None:
            return
        try:
            self.on_progress(ProgressEvent(case_name=case, stage=stage, message=message, **extra))
        except Exception:  # a broken progress consumer must not break the run
            pass


@dataclass
class _RunRecord:
    verdict: Verdict = "SKIP"
    reason: str = "not run"
    error: str | None = None
    checks: list[CheckResult] = field(default_factory=list)
    judge: Any = None
    output: str = ""
    model: str | None = None
    session_id: str | None = None
    duration: float = 0.0
    agent_seconds: float = 0.0
    artifacts: Path | None = None
    sandbox_path: str | None = None
    state: str = "pending"  # pending | running | finished
    budget: bool = False  # a budget kept this run from starting (its SKIP is the unit's BUDGET state)
    record: Any = None  # the run record (evalens.runner.record), once the agent ran
    api_status: int | None = None  # the model API error status the engine reported (retries decide on it)
    spent: list[Any] = field(default_factory=list)  # the usage of this run's discarded attempts (retries)


def _agent_env(engine: Any, config: EvalConfig, request: RunRequest) -> dict[str, str]:
    """Only allow-listed variables reach the agent (:func:`~evalens.runner.session.agent_env`), plus the config's
    ``env`` and a key from ``agent_key_env`` under the engine's own variable name."""
    env = agent_env(engine, request.extra_env)
    custom_key = next((os.environ[k] for k in request.agent_key_env or [] if os.environ.get(k)), None)
    if custom_key:  # the CLIs read only their own variable names
        env[engine.key_env[0]] = custom_key
    env.update({k: v for k, v in config.env.items() if refused_reason(k) is None})  # load_config refused them
    return env


def _priced(engine: str, request: RunRequest) -> list[str]:
    """Before any run: a ``--max-cost`` batch whose runs cannot be priced is refused (``RunError``), unless
    ``--allow-unpriced``, and then warned about (the budget would count those runs as $0); a dry run only
    warns."""
    max_cost = request.budget.max_cost if request.budget is not None else request.max_cost
    refused = refuse_unpriced(engine, request.agent_model, max_cost, request.allow_unpriced)
    if refused is not None and not request.dry_run:
        raise RunError(refused)
    why = unpriced_before(engine, request.agent_model) if max_cost is not None else None
    return [f"--max-cost: {why}"] if why else []


def _planned(cases: list[tuple[EvalCase, Path]], judged: bool, warnings: list[str]) -> list[PlannedCase]:
    """What ``--dry-run`` lists of each case (its checks as written); a case the run will refuse (a placeholder
    the judge would read, :func:`refuse_placeholder`) is named in ``warnings`` before the run finds it."""
    planned = []
    for case, path in cases:
        checks = [f"contains {v!r}" for v in case.expected.contains]
        checks += [f"not-contains {v!r}" for v in case.expected.not_contains]
        checks += [f"files-created {v}" for v in case.expected.files_created]
        if case.expected.agent_blocked is not None:
            checks.append(f"agent-blocked {str(case.expected.agent_blocked).lower()}")
        found = placeholder_in(case.judge.criteria) if judged else None
        if found is not None:
            warnings.append(
                f"{case.name}: {refusal('judge.criteria', found)}; it will be ERROR, no agent started"
            )
        planned.append(
            PlannedCase(
                name=case.name,
                case_file=str(path),
                target=case.target,
                prompt=case.input.prompt,
                files=case.input.files,
                workspace_files=case.input.workspace_files,
                checks=checks,
            )
        )
    return planned


def plan_run(request: RunRequest, on_progress: Callable[[ProgressEvent], None] | None = None) -> _Context:
    """Resolve config, cases, engine, judge and sandbox; raises :class:`RunError` before anything starts."""
    root = request.package_path.resolve()

    try:  # a bad --baseline or --arms is named before anything else is checked
        baseline, arm = resolve(request.baseline, root), resolve_arm(request.arm, root)
    except (BaselineError, ArmError) as exc:
        raise RunError(str(exc)) from None
    if request.engine:
        try:
            get_engine(request.engine)
        except UnsupportedEngine as exc:
            raise RunError(str(exc)) from None
    config = _load_config(root)
    engine_name = request.engine or config.engine
    try:
        engine = get_engine(engine_name)
    except UnsupportedEngine as exc:
        raise RunError(str(exc)) from None
    invalid: list[str] = []
    cases = _select_cases(root, request.cases, request.target, invalid)
    try:
        package = read_package(root)
    except PackageError as exc:
        raise RunError(str(exc)) from None
    timeout = float(request.timeout or config.timeout)
    sandbox_plan = plan_sandbox(config.sandbox.network, config.sandbox.writable_paths)
    agent_env = _agent_env(engine, config, request)
    warnings: list[str] = list(invalid)

    try:
        isolated = require_isolation(baseline, sandbox_plan.enforced, request.allow_unisolated_baseline)
    except BaselineError as exc:
        if not request.dry_run:
            raise RunError(str(exc)) from None
        warnings.append(str(exc))
        isolated = False
    judge_name = request.judge or config.judge

    # no judge named and none of another family configured: the judge is the agent's own model
    own_model = not judge_name and default_judge(engine.name).provider == engine.default_provider
    checked, judge_spec = preflight(
        engine,
        judge=judge_name,
        use_judge=not request.no_judge,
        agent_key_env=tuple(request.agent_key_env) if request.agent_key_env else None,
        judge_key_env=tuple(request.judge_key_env) if request.judge_key_env else None,
        network=config.sandbox.network,
        judge_label="the agent's model" if own_model else None,
    )
    if not checked.ok:
        if not request.dry_run:
            raise RunError(checked.message()) from None
        warnings += [f"{c.detail} — fix: {c.fix}" for c in checked.failures]
    warnings += _priced(engine.name, request)
    binary = None
    try:
        binary = str(engine.binary)
    except EngineNotFound:
        pass
    if sandbox_plan.warning:
        warnings.append(sandbox_plan.warning)
    planned = _planned(cases, not request.no_judge, warnings)
    plan = RunPlan(
        package_root=str(root),
        package_name=package.name,
        package_version=package.version,
        engine=engine.name,
        engine_binary=binary,
        agent_model=request.agent_model,
        judge=None
        if judge_spec is None
        else (f"{judge_spec.provider} (agent's model)" if own_model else judge_spec.model),
        judge_provider=None if judge_spec is None else judge_spec.provider,
        timeout=timeout,
        runs=request.runs,
        jobs=request.jobs,
        sandbox={
            "enforced": sandbox_plan.enforced,
            "method": sandbox_plan.method,
            "network": sandbox_plan.network,
            "writable_paths": sandbox_plan.writable_paths,
        },
        env_passed=sorted(agent_env),
        cases=planned,
        warnings=warnings,
    )
    ctx = _Context(
        request=request,
        config=config,
        engine=engine,
        cases=cases,
        plan=plan,
        sandbox_plan=sandbox_plan,
        judge_spec=judge_spec,
        agent_env=agent_env,
        timeout=timeout,
        on_progress=on_progress,
        package=package,
    )
    ctx.judge_explicit = not own_model

    try:
        ctx.resources = (
            ResourceLimits()
            .with_overrides(config.sandbox.limits.overrides() if config.sandbox.limits else {})
            .with_overrides(request.resource_limits)
        )
    except ValueError as exc:
        raise RunError(f"sandbox limits: {exc}") from None
    ctx.baseline, ctx.arm = baseline, arm
    ctx.baseline_isolated = isolated
    plan.baseline = baseline.label if baseline is not None else None
    return ctx


async def _run_case_retrying(ctx: _Context, case: EvalCase, case_file: Path, run_index: int) -> _RunRecord:
    """One run of ``case``, run again from scratch while its attempts meet transient API errors and its time
    budget lasts (:func:`~evalens.runner.agent_retry.run_retrying`); returns the record of the attempt that
    counts, which is the one in ``ctx.records``."""
    if ctx.log is not None:
        await ctx.log.run_started(case.name, run_index, ctx.side)

    def discard(note: str) -> None:
        ctx.emit(case.name, "agent", f"retrying: {note}", run_index=run_index, case_file=str(case_file))
        old = ctx.records[(case.name, run_index)]
        fresh = _RunRecord()  # the failed attempt is not a run of the case, but what it spent counts
        # its record's usage already holds the attempts discarded before it (with_discarded)
        fresh.spent = [old.record.usage] if old.record is not None else old.spent
        ctx.records[(case.name, run_index)] = fresh

    return await run_retrying(
        lambda time_limit, retried: _run_case(ctx, case, case_file, run_index, time_limit, retried),
        lambda rec: rec.api_status if rec.error else None,
        timeout=ctx.timeout,
        retries=ctx.request.agent_retries,
        on_retry=discard,
    )


def _keep_artifacts(
    ctx: _Context,
    name: str,
    run_index: int,
    rec: _RunRecord,
    run: Any,
    transcript: Any,
    paths: Any,
    created: list[str],
) -> dict[str, str]:
    """The run's event stream, stderr and the engine's extra files (bounded) into the case's artifacts
    folder, when the batch keeps one; the previews of the files the agent created."""
    if ctx.artifacts_dir is None:
        return capture_files(paths.workspace, created, paths.logs / "captured")
    rec.artifacts = ctx.artifacts_dir / name
    if ctx.request.runs > 1:
        rec.artifacts = rec.artifacts / f"run-{run_index}"
    rec.artifacts.mkdir(parents=True, exist_ok=True)
    # Bounded, and never through a link: the engine's own files live where the agent can write.
    for src, file_name in ((run.stdout_path, "events.jsonl"), (run.stderr_path, "stderr.txt")):
        if src is not None:
            copy_bounded(src, rec.artifacts / file_name, artifact_limit())
    for file_name, src in transcript.extra_files.items():
        copy_bounded(src, rec.artifacts / file_name, artifact_limit())
    return capture_files(paths.workspace, created, rec.artifacts / "files")


async def _judge(
    ctx: _Context, case: EvalCase, rec: _RunRecord, previews: dict[str, str], extra: dict[str, Any]
) -> None:
    """Judge a run whose checks passed: the batch's judge, or one matched to the agent's model when the judge
    was not named (same provider only); a judge failure is the run's error."""
    assert ctx.judge_spec is not None
    spec = ctx.judge_spec
    if not ctx.judge_explicit:
        spec = resolve_judge(rec.model, default_provider=spec.provider, key_env=spec.key_env)
        if spec.provider != ctx.judge_spec.provider:
            spec = ctx.judge_spec
    ctx.emit(case.name, "judge", f"judging with {spec.model}", **extra)
    prompt = build_prompt(
        case.judge.criteria,
        case.input.prompt,
        rec.output,
        previews,
        [c.model_dump() for c in rec.checks],
    )
    rec.judge = await judge_repeated(
        spec,
        prompt,
        ctx.request.judge_repeats,
        deadline=judge_deadline(ctx.timeout, ctx.request.judge_timeout),
    )
    if rec.judge.verdict == "ERROR":
        rec.error = rec.judge.reason


def _judge_flips(recs: list[_RunRecord]) -> dict[str, Any]:
    """A case's ``judge_flip_rate`` and ``judge_verdicts`` with ``--judge-repeats`` (nothing otherwise): each run's
    transcript is one repeatedly judged item (runner/stats.py's one rule for every format)."""
    return flip_fields(r.judge.judgements for r in recs if r.judge is not None and r.judge.judgements)


def _judge_agreement(ctx: _Context) -> dict[str, Any]:
    """The report's ``judge.repeats`` and ``judge.agreement`` (Krippendorff's alpha over every transcript's
    repeated judgements) with ``--judge-repeats``."""
    judged = [r.judge.judgements for r in ctx.records.values() if r.judge is not None and r.judge.judgements]
    return agreement_fields(judged, ctx.request.judge_repeats)


def _write_transcript(
    rec: _RunRecord, case: EvalCase, transcript: Any, run: Any, created: list[str], previews: dict[str, str]
) -> None:
    """The case's ``transcript.json`` in its artifacts folder."""
    assert rec.artifacts is not None
    record = {
        "case": case.model_dump(mode="json", by_alias=True, exclude_none=True),
        "transcript": transcript.to_json(),
        "files_created": created,
        "file_previews": previews,
        "checks": [c.model_dump() for c in rec.checks],
        "agent_error": rec.error if rec.judge is None or rec.judge.verdict != "ERROR" else None,
        "timed_out": run.timed_out,
        "output_truncated": run.truncated,
        "output_bytes": run.stream_bytes,
        "exit_code": run.exit_code,
    }
    write_text_atomic(rec.artifacts / "transcript.json", json.dumps(record, indent=2))  # never through a link


def _finish_record(rec: _RunRecord, duration_seconds: float) -> None:
    """The run record gets the verdict, checks and judge, and is written beside the artifacts."""
    if rec.record is None:
        return

    finish(
        rec.record,
        verdict=rec.verdict,
        reason=rec.reason,
        error=rec.error,
        checks=rec.checks,
        judge=rec.judge,
        duration_seconds=duration_seconds,
    )
    if rec.artifacts is not None:
        write_record(rec.record, rec.artifacts / RECORD_FILE)


def _setup_failed(rec: _RunRecord, exc: Exception) -> None:
    """A setup failure (path escape, missing fixture, bad package) is the case's ERROR, worded for the user."""
    rec.verdict, rec.reason = "ERROR", str(exc)
    rec.error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, OSError | ValueError) else str(exc)
    if isinstance(exc, PathEscape | FileNotFoundError):
        rec.error = str(exc)


class PlaceholderCriteria(ValueError):
    """A case whose ``judge.criteria`` is still a skeleton's placeholder: refused before any agent starts,
    since judging it measured nothing and passed (issue 45 #5); the case's ERROR says why."""


def refuse_placeholder(case: EvalCase, judged: bool) -> None:
    """Raise :class:`PlaceholderCriteria` when ``judged`` (a judge will rule) and the criteria is a placeholder."""
    found = placeholder_in(case.judge.criteria) if judged and case.judge is not None else None
    if found is not None:
        raise PlaceholderCriteria(refusal("judge.criteria", found))


async def _run_case(
    ctx: _Context, case: EvalCase, case_file: Path, run_index: int, time_limit: float, retried: list[str]
) -> _RunRecord:
    """One attempt at a run of ``case``, given ``time_limit`` (what is left of the run's) after ``retried``."""
    rec = ctx.records[(case.name, run_index)]
    rec.state = "running"
    start = time.monotonic()
    extra = {"run_index": run_index, "case_file": str(case_file)}
    evals_dir = ctx.request.package_path.resolve() / "evals"

    def install(paths: Any) -> None:
        populate(paths, evals_dir, case.input.files, case.input.workspace_files)
        package = ctx.package if ctx.arm is None else ctx.arm.package(ctx.package)
        if package is not None:  # None: a `--baseline no-skill` run installs nothing of the package
            install_package(package, ctx.engine, paths)

    def kept(root: str) -> None:
        rec.sandbox_path = root

    try:
        refuse_placeholder(case, ctx.judge_spec is not None)
        async with agent_run(
            ctx.launch(),
            case.input.prompt,
            install,
            unit=case.name,
            run_index=run_index,
            time_limit=time_limit,
            side=ctx.side,
            fmt="uaaps-case",
            emit=lambda stage, message: ctx.emit(case.name, stage, message, **extra),
            on_kept=kept,
        ) as done:
            run, transcript, created = done.run, done.transcript, done.created
            rec.agent_seconds = run.duration_seconds
            rec.output, rec.model, rec.session_id = transcript.output, transcript.model, transcript.session_id
            rec.record = done.record
            with_discarded(rec.record, rec.spent)
            rec.api_status = transcript.api_status
            rec.error = after_retries(rec.record, done.error or rec.error, rec.api_status, retried)
            ctx.emit(case.name, "checks", "deterministic checks", **extra)
            # file work (the checks read the workspace; the copies, transcript and record) in a worker thread
            rec.checks = await in_thread(run_checks, case.expected, transcript, created, done.paths.workspace)
            previews = await in_thread(
                _keep_artifacts, ctx, case.name, run_index, rec, run, transcript, done.paths, created
            )
            failing = [c for c in rec.checks if c.status == "FAIL"]
            if not rec.error and not failing and ctx.judge_spec is not None:
                await _judge(ctx, case, rec, previews, extra)
            rec.verdict, rec.reason = unit_verdict(
                agent_error=rec.error,
                failed_check=failing[0].detail if failing else None,
                judged=(rec.judge.verdict, rec.judge.reason) if rec.judge is not None else None,
                checked=bool(rec.checks),
                judge_used=ctx.judge_spec is not None,
                nothing_to_check="judge disabled and the case declares no deterministic checks",
            )
            if rec.artifacts is not None:
                await in_thread(_write_transcript, rec, case, transcript, run, created, previews)
            await in_thread(_finish_record, rec, time.monotonic() - start)
    except asyncio.CancelledError:
        rec.verdict, rec.reason, rec.error = "ERROR", "interrupted", "interrupted before the case finished"
        raise
    except (
        Exception
    ) as exc:  # setup failures (path escape, missing fixture, bad package) are this case's ERROR
        _setup_failed(rec, exc)
    finally:
        rec.duration = time.monotonic() - start
        rec.state = "finished"
    ctx.emit(case.name, "done", rec.reason, verdict=rec.verdict, **extra)
    return rec


def _case_results(ctx: _Context, report_path: Path | None) -> tuple[list[CaseResult], list[ReportCase]]:
    results: list[CaseResult] = []
    report_cases: list[ReportCase] = []
    layout = ctx.request.runs  # the artifacts' layout (run-N folders) follows the runs asked for
    for case, path in ctx.cases:
        # with --runs auto a case has only the runs it made (the rest were never started: not SKIPs)
        made = sorted(i for name, i in ctx.records if name == case.name)  # beyond MAX: leftover-budget runs
        recs = [ctx.records[(case.name, i)] for i in made]
        runs = len(recs) if ctx.request.runs_auto else layout
        verdicts = [r.verdict for r in recs]
        budget_stopped = sum(r.budget for r in recs)

        verdict = combine_runs(verdicts, budget_stopped)
        # the run that explains the verdict: a real run when a budget stopped the others
        main = next((r for r in recs if r.verdict == verdict and not r.budget), None) or next(
            (r for r in recs if r.verdict == verdict), recs[0]
        )
        pass_rate = None  # derived by finish_unit (apply_repeats) from the run verdicts
        judge = main.judge
        artifacts_rel = None
        if main.artifacts is not None and report_path is not None:
            folder = main.artifacts.parent if layout > 1 else main.artifacts
            artifacts_rel = os.path.relpath(folder, report_path.parent)
        snippet = main.output[:SNIPPET_CHARS] if main.output else None
        usage = sum_usage([r.record.usage if r.record is not None else None for r in recs])
        stopped: dict[str, Any] = {"stopped": ctx.stops[case.name]} if case.name in ctx.stops else {}
        if ctx.leftover.get(case.name):
            stopped["leftover_runs"] = ctx.leftover[case.name]
        results.append(
            CaseResult(
                name=case.name,
                format="uaaps-case",
                case_file=str(path),
                location=[],
                target=case.target,
                verdict=verdict,
                reason=main.reason,
                duration_seconds=round(sum(r.duration for r in recs), 3),
                agent_seconds=round(sum(r.agent_seconds for r in recs), 3),
                checks=main.checks,
                judge_verdict=judge.verdict if judge else None,
                judge_reason=judge.reason if judge else None,
                judge_model=judge.model if judge else None,
                engine=ctx.engine.name,
                engine_version=ctx.engine_version,
                agent_model=main.model,
                output_snippet=snippet,
                error=main.error,
                runs=runs,
                pass_rate=pass_rate,
                run_verdicts=verdicts,
                budget_stopped=budget_stopped,
                artifacts=str(main.artifacts.parent if layout > 1 else main.artifacts)
                if main.artifacts
                else None,
                sandbox_path=main.sandbox_path,
                usage=usage,
                details=stopped,
            )
        )
        report_cases.append(
            ReportCase(
                name=case.name,
                target=case.target,
                verdict=verdict,
                duration_seconds=round(sum(r.duration for r in recs), 3),
                deterministic_checks=DeterministicChecks(**dict[str, Any](summarise(main.checks))),
                judge_verdict=JudgeVerdict(result=judge.verdict, reason=judge.reason, model=judge.model)
                if judge
                else None,
                agent_output_snippet=snippet,
                error=main.error if verdict in ("ERROR", "FAIL", "SKIP") else None,
                **_judge_flips(recs),
                checks=report_checks(main.checks),
                format="uaaps-case",
                location=[],
                reason=main.reason or None,
                runs=runs if runs > 1 else None,
                pass_rate=pass_rate,
                run_verdicts=verdicts if runs > 1 else [],
                case_file=os.path.relpath(path, ctx.request.package_path.resolve()),
                artifacts=artifacts_rel,
                usage=usage,
                details=dict(stopped),
            )
        )
        if verdict in ("FAIL",) and not report_cases[-1].error:
            report_cases[-1].error = main.reason
        finish_unit(
            results[-1],
            report_case=report_cases[-1],  # state, interval, fingerprint
            inputs=_next_run(ctx),
        )
    return results, report_cases


def _build_report(
    ctx: _Context,
    started: Any,
    duration: float,
    report_cases: list[ReportCase],
    interrupted: bool,
    report_id: str,
) -> EvalReport:
    models = [r.model for r in ctx.records.values() if r.model]
    sessions = [r.session_id for r in ctx.records.values() if r.session_id]
    judges = [r.judge for r in ctx.records.values() if r.judge is not None]
    judge_model = judges[0].model if judges else (ctx.judge_spec.model if ctx.judge_spec else None)
    judge_provider = judges[0].provider if judges else (ctx.judge_spec.provider if ctx.judge_spec else None)
    if ctx.judge_spec is not None and not judges and not ctx.judge_explicit:
        judge_model = models[0] if models else judge_model
    return new_report(
        started,
        report_cases,
        ReportConfig(
            engine=ctx.engine.name, engine_version=ctx.engine_version, judge=judge_model, timeout=ctx.timeout
        ),
        duration=duration,
        report_id=report_id,
        usage=sum_usage([c.usage for c in report_cases]),
        agent=ReportAgent(
            runtime=ctx.engine.name,
            runtime_version=ctx.engine_version,
            model=models[0] if models else ctx.request.agent_model,
            model_provider=ctx.engine.default_provider,
            session_id=sessions[0] if sessions else None,
        ),
        judge=ReportJudge(
            model=judge_model,
            model_provider=judge_provider,
            choice=(ctx.judge_spec.why or None) if ctx.judge_spec is not None else None,
            **_judge_agreement(ctx),
        ),
        package=ReportPackage(name=ctx.package.name, version=ctx.package.version),
        sandbox=ReportSandbox(
            enforced=ctx.sandbox_plan.enforced,
            method=ctx.sandbox_plan.method,
            network=ctx.sandbox_plan.network,
            writable_paths=ctx.sandbox_plan.writable_paths,
        ),
        interrupted=interrupted,
        arm=ctx.arm.source() if ctx.arm is not None else None,  # --arms, or an editor's run of an arm's cell
    )


async def run_cases(
    request: RunRequest, on_progress: Callable[[ProgressEvent], None] | None = None
) -> RunOutcome:
    """Run the selected cases (``jobs`` at a time, ``runs`` times each; with ``baseline`` each again without the
    package or with it at a git ref) and write the report.

    Raises :class:`RunError` before starting anything when the selection, config, engine or keys are unusable.
    Progress events are delivered on the event loop's thread; the callback must be quick.
    """
    ctx = await asyncio.to_thread(
        plan_run, request, on_progress
    )  # the preflight runs `--version`: off the loop
    if request.dry_run:
        return RunOutcome(plan=ctx.plan)
    if ctx.judge_spec is not None:
        # A judge SDK that is installed but broken must stop the run before any agent is paid for.
        problem = await judge_sdk_ready(ctx.judge_spec.provider)
        if problem:
            raise RunError(problem)

    try:
        async with (
            checked_out(ctx.baseline) as plan,  # a REF's worktree exists only while the batch runs
            opened_async(ctx.arm),  # an arm's too, and its filtered copies
        ):
            return await _run_batch(ctx, plan)
    except (BaselineError, ArmError) as exc:
        raise RunError(str(exc)) from None


def _next_run(ctx: _Context) -> NextRun:
    """The batch's inputs a unit's fingerprint covers (engine and its version, models, judge)."""
    return NextRun(
        engine=ctx.engine.name,
        agent_model=ctx.request.agent_model,
        judge=ctx.request.judge,
        no_judge=ctx.request.no_judge,
        engine_version=ctx.engine_version,
    )


async def _open_log(
    ctx: _Context, sides: list[_Context], report_path: Path | None, report_id: str
) -> set[tuple[str | None, str, int]]:
    """Start the batch's run log (``runner/run_log.py``), or take it up again with ``resume``: the runs it says
    finished are restored into their records and not run again; returns them as (side, case, run)."""
    if report_path is None:
        return set()

    inputs = _next_run(ctx)
    cases = [(c.name, p) for c, p in ctx.cases]
    try:
        log, resumed = await asyncio.to_thread(
            open_batch, ctx.request, cases, report_path, report_id, inputs, [s.side for s in sides]
        )
    except ResumeRefused as exc:
        raise RunError(f"cannot resume {report_path}: {exc}") from None
    for side in sides:
        side.log = log
    if resumed is None:
        return set()
    by_side = {s.side: s for s in sides}
    kept = set()
    for (label, unit_key, run), done in resumed.kept.items():
        name = log.name_of(unit_key)
        if name is not None and label in by_side and (name, run) in by_side[label].records:
            restore_run(by_side[label].records[(name, run)], done, log.folder)
            kept.add((label, name, run))
    ctx.emit(None, "plan", f"resuming: {len(kept)} finished run(s) kept, {len(resumed.todo)} to run")
    return kept


class _Admission(Admission):
    """The batch's scheduler (:mod:`evalens.runner.scheduling`, the one every format's batch goes through) as a
    package's cases use it: a run starts when a slot frees and only while the budget lasts, each run admitted on
    its own, and ``--runs auto`` gets the budget's leftover rounds."""

    async def run(self, side: _Context, case: EvalCase, path: Path, index: int) -> None:
        async with (
            self.slots
        ):  # admitted when a slot frees: running ones finish, no new one starts once spent
            rec = side.records[(case.name, index)]
            refused = self.budget.admit(case.name)
            if refused is not None:
                rec.verdict, rec.reason, rec.error, rec.state = "SKIP", refused, refused, "finished"
                rec.budget = True
                side.emit(case.name, "done", refused, verdict="SKIP")
                if side.log is not None:
                    await side.log.run_finished(case.name, index, side.side, rec)
                return
            rec = await _run_case_retrying(side, case, path, index)  # a retry's record replaced the first
            if side.log is not None:  # only now: a retried attempt is not a run of the case
                await side.log.run_finished(case.name, index, side.side, rec)
            self.budget.spend_usage(
                rec.record.usage if rec.record is not None else None,
                (rec.record.model if rec.record is not None else None) or side.request.agent_model,
            )

    async def adaptive(self, side: _Context, case: EvalCase, path: Path) -> None:
        """``--runs auto:MAX``: one run after another until the stop rule (runner/adaptive.py) says enough."""
        request = side.request
        made = 0
        for index in range(1, request.runs + 1):
            await self.run(side, case, path, index)
            made = index
            recs = [side.records[(case.name, i)] for i in range(1, index + 1)]
            if recs[-1].budget:
                side.stops[case.name] = "budget"
                break
            why = stop_after([r.verdict for r in recs], index, request.runs, request.runs_threshold)
            if why is not None:
                side.stops[case.name] = why
                break
        for i in range(made + 1, request.runs + 1):  # never started: not a run of the case
            side.records.pop((case.name, i), None)

    async def leftover(self, sides: list[_Context]) -> None:
        """``--runs auto:MAX`` with ``--max-cost`` / ``--max-tokens``, once every case stopped: the budget left
        goes to the cases still FLAKY after MAX (``adaptive.wants_leftover``), one more run of each per round,
        until each is decided or the budget is spent. A round that spends nothing ends it (runs the budget
        cannot measure would never use it up)."""
        budget = self.budget
        if budget.max_cost is None and budget.max_tokens is None:
            return

        def verdicts(side: _Context, name: str) -> list[str]:
            return [side.records[k].verdict for k in sorted(k for k in side.records if k[0] == name)]

        while True:
            todo = [
                (side, case, path)
                for side in sides
                for case, path in side.cases
                if wants_leftover(verdicts(side, case.name), side.stops.get(case.name))
            ]
            if not todo:
                return
            if budget.exhausted() is not None:
                for side, case, _path in todo:
                    if side.leftover.get(case.name):  # the budget ran out with it still undecided
                        side.stops[case.name] = "budget"
                return
            spent = (budget.cost, budget.tokens)
            await asyncio.gather(*(self.one_more(side, case, path) for side, case, path in todo))
            if (budget.cost, budget.tokens) == spent:
                return

    async def one_more(self, side: _Context, case: EvalCase, path: Path) -> None:
        """One leftover run of ``case`` beyond the runs it made; its stop reason updated."""
        index = 1 + max(i for name, i in side.records if name == case.name)
        side.records[(case.name, index)] = _RunRecord()
        await self.run(side, case, path, index)
        if side.records[(case.name, index)].budget:  # refused: not a run of the case
            side.records.pop((case.name, index))
            if side.leftover.get(case.name):
                side.stops[case.name] = "budget"
            return
        side.leftover[case.name] = side.leftover.get(case.name, 0) + 1
        runs = [side.records[k].verdict for k in sorted(k for k in side.records if k[0] == case.name)]
        why = decided(
            count_passed(runs), sum(1 for v in runs if counted(v)), len(runs), side.request.runs_threshold
        )
        if why is not None:
            side.stops[case.name] = why


async def _run_batch(ctx: _Context, plan: Any) -> RunOutcome:
    """Every run of every case (and with ``--baseline`` every baseline run) through one semaphore and budget."""
    request = ctx.request
    started = utc_now()
    t0 = time.monotonic()
    report_path = _report_path(ctx, started)
    for warning in ctx.plan.warnings:
        ctx.emit(None, "plan", warning)
    sides = [ctx] + (
        [variant(ctx, plan)] if plan is not None else []
    )  # the baseline reads the package at REF
    for side in sides:
        for case, _path in ctx.cases:
            for i in range(1, request.runs + 1):
                side.records[(case.name, i)] = _RunRecord()
    admission = _Admission(request.jobs, request.budget or Budget(request.max_cost, request.max_tokens))
    tasks: list[asyncio.Task] = []
    interrupted = False
    try:  # from here on an interruption still writes a report (interrupted: true)
        kept = await _prepare(ctx, sides, report_path, started, admission.budget)
        if request.runs_auto:
            tasks = [
                asyncio.create_task(admission.adaptive(side, c, p)) for c, p in ctx.cases for side in sides
            ]
        else:
            tasks = [
                asyncio.create_task(admission.run(side, c, p, i))
                for c, p in ctx.cases
                for side in sides
                for i in range(1, request.runs + 1)
                if (side.side, c.name, i) not in kept
            ]
        await asyncio.gather(*tasks)
        if request.runs_auto:  # the budget left goes to the cases still FLAKY after MAX
            await admission.leftover(sides)
    except asyncio.CancelledError:
        interrupted = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for rec in (r for side in sides for r in side.records.values()):
            if rec.state == "pending":
                rec.verdict, rec.reason, rec.error = "SKIP", "not run: interrupted", "not run: interrupted"
    note = admission.budget.unpriced_note()
    if note:
        ctx.emit(None, "plan", note)
    outcome = await _finish_batch(ctx, plan, sides, started, time.monotonic() - t0, report_path, interrupted)
    if interrupted:
        ctx.emit(None, "done", "interrupted; partial report written", report_path=str(report_path or ""))
        raise asyncio.CancelledError()
    return outcome


def _report_path(ctx: _Context, started: Any) -> Path | None:
    """Where the batch's report goes (a resumed batch: where it went), its artifacts folder set on ``ctx``;
    None when the request writes no report."""
    request = ctx.request
    if not request.write_report:
        return None
    report_path = request.resume or allocate_report_path(
        request.package_path.resolve(), started, request.output
    )
    ctx.artifacts_dir = artifacts_root(report_path)
    ctx.emit(None, "report", "report path", report_path=str(report_path))
    return report_path


async def _prepare(
    ctx: _Context, sides: list[_Context], report_path: Path | None, started: Any, budget: Any
) -> set[tuple[str | None, str, int]]:
    """The engine's version, stale sandboxes swept, the run log opened: the runs a resumed batch keeps
    (their spending counted in the budget)."""
    ctx.engine_version = await asyncio.to_thread(ctx.engine.version)
    for side in sides:
        side.engine_version = ctx.engine_version
    await asyncio.to_thread(sweep_stale_sandboxes)
    kept = await _open_log(ctx, sides, report_path, batch_id(started))
    for label, name, i in kept:  # a resumed batch's budget counts what its finished runs spent
        rec = next(s for s in sides if s.side == label).records[(name, i)]
        budget.spend_usage(rec.record.usage if rec.record is not None else None, rec.model)
    return kept


async def _finish_batch(
    ctx: _Context,
    plan: Any,
    sides: list[_Context],
    started: Any,
    duration: float,
    report_path: Path | None,
    interrupted: bool,
) -> RunOutcome:
    """The report (with the baseline's section), written, and the run log's end."""
    results, report_cases = await asyncio.to_thread(_case_results, ctx, report_path)  # hashes files
    report = _build_report(
        ctx,
        started,
        duration,
        report_cases,
        interrupted,
        ctx.log.batch if ctx.log is not None else batch_id(started),
    )
    if plan is not None:
        bases, base_cases = await asyncio.to_thread(_case_results, sides[1], report_path)
        add_to(
            report,
            report_section(plan, results, bases, base_cases, report_cases, isolated=ctx.baseline_isolated),
        )
    if report_path is not None:  # written and fsynced in a worker thread: the editor's loop keeps answering
        await asyncio.to_thread(write_report, report, report_path)
    if ctx.log is not None:
        await ctx.log.batch_finished(report, interrupted)
    return RunOutcome(
        plan=ctx.plan, report=report, report_path=report_path, results=results, interrupted=interrupted
    )
