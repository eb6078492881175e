"""The runner API: run UAAPS eval cases and get typed results. The CLI, the language server's code lens and the
VS Code Test Explorer are all thin faces of :func:`run_cases`.

Stability: the names in ``__all__`` and the fields of :class:`RunRequest`, :class:`ProgressEvent`,
:class:`CaseResult` and :class:`RunOutcome` are a public contract; add fields, don't rename them.

Typical use from asyncio code::

    outcome = await run_cases(RunRequest(package_root=root, cases=["extract-text"]), on_progress=print)
    outcome.results[0].verdict   # "PASS" | "FAIL" | "SKIP" | "ERROR"

Cancelling the task that awaits :func:`run_cases` kills every agent's process tree, removes every sandbox,
writes a partial report (``interrupted: true``) and re-raises :class:`asyncio.CancelledError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from evalens.runner.checks import CheckResult, files_created, run_checks, summarise
from pydantic import BaseModel, ConfigDict, Field

from evalens.core.models.run_record import Usage, sum_usage
from evalens.core.models.uaaps import (
    DeterministicChecks,
    EvalCase,
    EvalConfig,
    EvalReport,
    JudgeVerdict,
    ReportAgent,
    ReportCase,
    ReportCheck,
    ReportConfig,
    ReportJudge,
    ReportPackage,
    ReportSandbox,
    ReportSummary,
)

__all__ = [
    "RunRequest", "ProgressEvent", "CaseResult", "CheckResult", "RunOutcome", "RunPlan", "PlannedCase",
    "RunError", "run_cases", "rejudge", "load_last_results", "plan_run",
]

Stage = Literal["plan", "sandbox", "agent", "checks", "judge", "cleanup", "done", "report"]
Verdict = Literal["PASS", "FAIL", "SKIP", "ERROR"]

BASE_ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
SNIPPET_CHARS = 500
CAPTURE_FILE_LIMIT = 1 << 20  # per captured created file
CAPTURE_TOTAL_LIMIT = 20 << 20


class RunError(Exception):
    """A run cannot start (bad selection, config, engine, missing key). ``exit_code`` is 2 for usage errors."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class RunRequest(BaseModel):
    """What to run. Unset overrides fall back to ``evals/eval-config.json``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    package_root: Path = Field(description="Package root: the folder holding `evals/`.")
    cases: list[str] = Field(default_factory=list,
                             description="Case names or case file paths; empty = every case in evals/cases/.")
    target: str | None = Field(default=None, description="Only cases with this target, e.g. `skill:pdf-tools`.")
    engine: str | None = Field(default=None, description="Engine override (`claude-code`, `codex`).")
    judge: str | None = Field(default=None, description="Judge model override (`model` or `provider:model`).")
    agent_model: str | None = Field(default=None, description="Model the agent should use (engine default if unset).")
    timeout: float | None = Field(default=None, description="Per-case timeout override in seconds.")
    judge_timeout: float | None = Field(default=None, description="Seconds all judge calls of one case run may "
                                        "take (default: $EVALENS_JUDGE_TIMEOUT, else half the case timeout, "
                                        "10-60 s); then the case is ERROR.")
    no_judge: bool = Field(default=False, description="Skip the LLM judge; verdicts come from checks alone.")
    dry_run: bool = Field(default=False, description="Plan only: no agent, no model, no report.")
    keep_sandbox: bool = Field(default=False, description="Keep each sandbox directory for inspection.")
    jobs: int = Field(default=1, ge=1, description="Case runs executed concurrently.")
    runs: int = Field(default=1, ge=1, description="Runs per case; the report carries each case's pass rate.")
    extra_env: list[str] = Field(default_factory=list,
                                 description="Extra environment variable names passed through to the agent.")
    agent_key_env: list[str] | None = Field(default=None,
                                            description="Env var names holding the agent's API key (engine default).")
    judge_key_env: list[str] | None = Field(default=None,
                                            description="Env var names holding the judge's API key (provider default).")
    output: Path | None = Field(default=None, description="Report path; default evals/reports/<timestamp>.json.")
    write_report: bool = Field(default=True, description="Write the report and artifacts (false: results only).")


class ProgressEvent(BaseModel):
    """A step of the run; ``case_name`` is None for run-level events (plan, report)."""

    case_name: str | None = Field(description="Case the event belongs to.")
    stage: Stage = Field(description="plan | sandbox | agent | checks | judge | cleanup | done | report.")
    message: str = Field(default="", description="Human-readable detail.")
    run_index: int = Field(default=1, description="1-based run number with `runs` > 1.")
    case_file: str | None = Field(default=None, description="Case file path.")
    verdict: Verdict | None = Field(default=None, description="Set on `done`.")
    report_path: str | None = Field(default=None, description="Set on `report` (announced before the cases run).")


class CaseResult(BaseModel):
    """The typed outcome of one case (aggregated over its runs)."""

    name: str
    case_file: str | None = None
    target: str | None = None
    verdict: Verdict
    reason: str = Field(default="", description="Why: the first failing check, the judge's reason, or the error.")
    duration_seconds: float = 0.0
    agent_seconds: float = Field(default=0.0, description="Time spent in the agent process (all runs).")
    checks: list[CheckResult] = Field(default_factory=list)
    judge_verdict: str | None = None
    judge_reason: str | None = None
    judge_model: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    agent_model: str | None = None
    output_snippet: str | None = None
    error: str | None = None
    runs: int = 1
    pass_rate: float | None = None
    run_verdicts: list[Verdict] = Field(default_factory=list)
    artifacts: str | None = Field(default=None, description="Absolute folder with transcript and captured files.")
    sandbox_path: str | None = Field(default=None, description="Kept sandbox (with keep_sandbox).")
    usage: Usage | None = Field(default=None, description="Tokens and cost of the agent runs, summed over runs.")


class PlannedCase(BaseModel):
    name: str
    case_file: str
    target: str | None = None
    prompt: str
    files: list[str] = Field(default_factory=list)
    workspace_files: list[str] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)


class RunPlan(BaseModel):
    """What would run: printed by ``--dry-run``."""

    package_root: str
    package_name: str
    package_version: str | None = None
    engine: str
    engine_binary: str | None = None
    agent_model: str | None = None
    judge: str | None = None
    judge_provider: str | None = None
    timeout: float
    runs: int
    jobs: int
    sandbox: dict[str, Any]
    env_passed: list[str]
    cases: list[PlannedCase]
    warnings: list[str] = Field(default_factory=list)


class RunOutcome(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    plan: RunPlan
    report: EvalReport | None = None
    report_path: Path | None = None
    results: list[CaseResult] = Field(default_factory=list)
    interrupted: bool = False


# --------------------------------------------------------------------------- planning


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
    record: Any = None  # the run record (evalens.runner.record), once the agent ran


def _normalised_case(case: EvalCase) -> EvalCase:
    """Model defaults given as plain dicts (``expected: {}``) become typed parts."""
    from evalens.core.models.uaaps import CaseExpected

    if not isinstance(case.expected, CaseExpected):
        case.expected = CaseExpected.model_validate(case.expected or {})
    return case


def _load_config(root: Path) -> EvalConfig:
    from evalens.core.models.uaaps import SandboxConfig, load_config

    path = root / "evals" / "eval-config.json"
    if not path.is_file():
        raise RunError(f"no eval config: {path} not found")
    try:
        config = load_config(path)
        if not isinstance(config.sandbox, SandboxConfig):
            config.sandbox = SandboxConfig.model_validate(config.sandbox or {})
        return config
    except Exception as exc:
        raw: dict[str, Any] = {}
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            pass
        engine = raw.get("engine") if isinstance(raw, dict) else None
        if isinstance(engine, str) and engine not in ("claude-code", "codex"):
            from evalens.runner.engines import UnsupportedEngine, get_engine

            try:
                get_engine(engine)
            except UnsupportedEngine as unsupported:
                raise RunError(str(unsupported)) from None
        raise RunError(f"{path}: invalid eval config: {exc}") from None


def _why(exc: Exception) -> str:
    """One line a user can act on, from a pydantic error or anything else."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            return f"`{where}`: {first.get('msg', '')}" if where else str(first.get("msg", exc))
        except Exception:  # noqa: BLE001
            pass
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _select_cases(root: Path, names: list[str], target: str | None,
                  skipped: list[str] | None = None) -> list[tuple[EvalCase, Path]]:
    """The cases to run; invalid files met in a whole-package run are reported in ``skipped``."""
    from evalens.core.models.uaaps import load_case

    cases_dir = root / "evals" / "cases"
    files = sorted(p for p in cases_dir.glob("*.y*ml") if p.is_file()) if cases_dir.is_dir() else []
    loaded: list[tuple[EvalCase, Path]] = []
    problems: list[str] = []
    wanted_files = {Path(n).resolve() for n in names if n.endswith((".yaml", ".yml"))}
    wanted_names = {n for n in names if not n.endswith((".yaml", ".yml"))}
    for path in files:
        if names and path.resolve() not in wanted_files and not wanted_names:
            continue
        try:
            case = _normalised_case(load_case(path))
        except Exception as exc:
            if not names or path.resolve() in wanted_files:
                problems.append(f"{path}: invalid case: {_why(exc)}")
            continue
        loaded.append((case, path))
    for path in wanted_files:
        if path not in {p.resolve() for p in files}:
            try:
                loaded.append((_normalised_case(load_case(path)), path))
            except FileNotFoundError:
                problems.append(f"case file {path} not found")
            except Exception as exc:
                problems.append(f"{path}: invalid case: {_why(exc)}")
    if wanted_names:
        by_name = {c.name: (c, p) for c, p in loaded}
        missing = sorted(wanted_names - set(by_name))
        if missing:
            problems.append(f"no case named {', '.join(missing)} in {cases_dir}/")
        loaded = [(c, p) for c, p in loaded if c.name in wanted_names or p.resolve() in wanted_files]
    if target:
        loaded = [(c, p) for c, p in loaded if c.target == target]
    if problems and names:
        raise RunError("; ".join(problems))
    if skipped is not None:
        skipped.extend(f"{p} — not run (`evalens validate` shows why)" for p in problems)
    seen: set[str] = set()
    unique = []
    for case, path in loaded:
        if case.name not in seen:
            seen.add(case.name)
            unique.append((case, path))
    if not unique:
        raise RunError(f"no eval cases selected in {cases_dir}/" + (f" (target {target})" if target else "")
                       + (f"; {'; '.join(problems)}" if problems else ""))
    return unique


def _agent_env(engine: Any, config: EvalConfig, request: RunRequest) -> dict[str, str]:
    """Only allow-listed variables reach the agent: base locale/PATH, the engine's provider vars, extras, config env."""
    provider_vars = {
        "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"),
        "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"),
    }[engine.default_provider]
    allow = [*BASE_ENV_ALLOW, *provider_vars, *request.extra_env]
    env = {k: os.environ[k] for k in allow if k in os.environ}
    custom_key = next((os.environ[k] for k in request.agent_key_env or [] if os.environ.get(k)), None)
    if custom_key:  # the CLIs read only their own variable names
        env[engine.key_env[0]] = custom_key
    env.update(config.env)
    return env


def plan_run(request: RunRequest, on_progress: Callable[[ProgressEvent], None] | None = None) -> _Context:
    """Resolve config, cases, engine, judge and sandbox; raises :class:`RunError` before anything starts."""
    from evalens.runner.engines import EngineNotFound, UnsupportedEngine, get_engine
    from evalens.runner.install import PackageError, read_package
    from evalens.runner.preflight import preflight
    from evalens.runner.sandbox import plan_sandbox

    root = request.package_root.resolve()
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
    judge_name = request.judge or config.judge
    checked, judge_spec = preflight(
        engine, judge=judge_name, use_judge=not request.no_judge,
        agent_key_env=tuple(request.agent_key_env) if request.agent_key_env else None,
        judge_key_env=tuple(request.judge_key_env) if request.judge_key_env else None,
        network=config.sandbox.network, judge_label=None if judge_name else "the agent's model")
    if not checked.ok:
        if not request.dry_run:
            raise RunError(checked.message()) from None
        warnings += [f"{c.detail} — fix: {c.fix}" for c in checked.failures]
    binary = None
    try:
        binary = str(engine.binary)
    except EngineNotFound:
        pass
    if sandbox_plan.warning:
        warnings.append(sandbox_plan.warning)
    planned = []
    for case, path in cases:
        checks = [f"contains {v!r}" for v in case.expected.contains]
        checks += [f"not-contains {v!r}" for v in case.expected.not_contains]
        checks += [f"files-created {v}" for v in case.expected.files_created]
        if case.expected.agent_blocked is not None:
            checks.append(f"agent-blocked {str(case.expected.agent_blocked).lower()}")
        planned.append(PlannedCase(name=case.name, case_file=str(path), target=case.target,
                                   prompt=case.input.prompt, files=case.input.files,
                                   workspace_files=case.input.workspace_files, checks=checks))
    plan = RunPlan(
        package_root=str(root), package_name=package.name, package_version=package.version, engine=engine.name,
        engine_binary=binary, agent_model=request.agent_model,
        judge=None if judge_spec is None else (judge_spec.model if request.judge or config.judge else
                                               f"{judge_spec.provider} (agent's model)"),
        judge_provider=None if judge_spec is None else judge_spec.provider, timeout=timeout,
        runs=request.runs, jobs=request.jobs,
        sandbox={"enforced": sandbox_plan.enforced, "method": sandbox_plan.method,
                 "network": sandbox_plan.network, "writable_paths": sandbox_plan.writable_paths},
        env_passed=sorted(agent_env), cases=planned, warnings=warnings,
    )
    ctx = _Context(request=request, config=config, engine=engine, cases=cases, plan=plan,
                   sandbox_plan=sandbox_plan, judge_spec=judge_spec, agent_env=agent_env, timeout=timeout,
                   on_progress=on_progress, package=package)
    ctx.judge_explicit = bool(request.judge or config.judge)
    return ctx


# --------------------------------------------------------------------------- one case run


def _capture_files(ws: Path, created: list[str], dest: Path) -> dict[str, str]:
    """Copy created files into the artifacts (bounded, regular files only, never through a link) and return short
    text previews for the judge."""
    import stat

    from evalens.runner.sandbox import copy_bounded

    previews: dict[str, str] = {}
    total = 0
    for rel in created:
        try:
            st = os.lstat(ws / rel)
        except OSError:
            continue
        size = st.st_size
        if not stat.S_ISREG(st.st_mode) or size > CAPTURE_FILE_LIMIT or total + size > CAPTURE_TOTAL_LIMIT:
            previews[rel] = f"(not captured: {size} bytes)"
            continue
        total += size
        copy_bounded(ws / rel, dest / rel, CAPTURE_FILE_LIMIT)
        try:
            previews[rel] = (dest / rel).read_text(encoding="utf-8")[:2000]
        except (UnicodeDecodeError, OSError):
            previews[rel] = f"(binary, {size} bytes)"
    return previews


async def _in_thread(func: Callable[..., Any], *args: Any) -> Any:
    """Run blocking file work off the event loop; if cancelled, let the thread finish before re-raising so no
    one races the cleanup that follows."""
    task = asyncio.ensure_future(asyncio.to_thread(func, *args))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), timeout=30)
        raise


async def _run_case(ctx: _Context, case: EvalCase, case_file: Path, run_index: int) -> _RunRecord:
    from evalens.runner.install import install_package
    from evalens.runner.judge import build_prompt, judge_case, judge_deadline, resolve_judge
    from evalens.runner.sandbox import (
        artifact_limit,
        copy_bounded,
        create_sandbox,
        launch_agent,
        populate,
        remove_sandbox,
        snapshot,
        truncation_note,
    )

    rec = ctx.records[(case.name, run_index)]
    rec.state = "running"
    start = time.monotonic()
    extra = {"run_index": run_index, "case_file": str(case_file)}
    paths = None
    try:
        ctx.emit(case.name, "sandbox", "creating sandbox", **extra)
        paths = create_sandbox()
        evals_dir = ctx.request.package_root.resolve() / "evals"

        def prepare() -> tuple[dict[str, tuple[int, int]], Any]:
            from evalens.runner.workspace_diff import baseline

            populate(paths, evals_dir, case.input.files, case.input.workspace_files)
            install_package(ctx.package, ctx.engine, paths)
            return snapshot(paths.workspace), baseline(paths.workspace)

        before, base = await _in_thread(prepare)
        from evalens.runner.report import iso, utc_now

        started_at = iso(utc_now())
        ctx.emit(case.name, "agent", f"running {ctx.engine.name}", **extra)
        run, transcript = await launch_agent(ctx.engine, ctx.sandbox_plan, paths, case.input.prompt,
                                             model=ctx.request.agent_model, agent_env=ctx.agent_env,
                                             timeout=ctx.timeout)
        rec.agent_seconds = run.duration_seconds
        created = files_created(before, snapshot(paths.workspace))
        rec.output, rec.model, rec.session_id = transcript.output, transcript.model, transcript.session_id
        from evalens.runner.record import capture

        rec.record = await _in_thread(lambda: capture(
            ctx.engine, transcript, run, paths, base, unit=case.name, prompt=case.input.prompt, run_index=run_index,
            fmt="uaaps-case", engine_version=ctx.engine_version, started_at=started_at))
        if run.timed_out:
            rec.error = f"timed out after {ctx.timeout:g} s (agent process tree killed)"
        elif truncation_note(run):
            rec.error = truncation_note(run)
        elif transcript.error:
            rec.error = transcript.error
        ctx.emit(case.name, "checks", "deterministic checks", **extra)
        rec.checks = run_checks(case.expected, transcript, created)
        previews: dict[str, str] = {}
        if ctx.artifacts_dir is not None:
            rec.artifacts = ctx.artifacts_dir / case.name
            if ctx.request.runs > 1:
                rec.artifacts = rec.artifacts / f"run-{run_index}"
            rec.artifacts.mkdir(parents=True, exist_ok=True)
            # Bounded, and never through a link: the engine's own files live where the agent can write.
            copy_bounded(run.stdout_path, rec.artifacts / "events.jsonl", artifact_limit())
            copy_bounded(run.stderr_path, rec.artifacts / "stderr.txt", artifact_limit())
            for name, src in transcript.extra_files.items():
                copy_bounded(src, rec.artifacts / name, artifact_limit())
            previews = _capture_files(paths.workspace, created, rec.artifacts / "files")
        else:
            previews = _capture_files(paths.workspace, created, paths.logs / "captured")
        failing = [c for c in rec.checks if c.status == "FAIL"]
        if rec.error:
            rec.verdict, rec.reason = "ERROR", rec.error
        elif failing:
            rec.verdict, rec.reason = "FAIL", failing[0].detail
        elif ctx.judge_spec is None:
            if rec.checks:
                rec.verdict, rec.reason = "PASS", "all deterministic checks passed (judge disabled)"
            else:
                rec.verdict, rec.reason = "SKIP", "judge disabled and the case declares no deterministic checks"
        else:
            spec = ctx.judge_spec
            if not ctx.judge_explicit:
                spec = resolve_judge(rec.model, default_provider=spec.provider, key_env=spec.key_env)
                if spec.provider != ctx.judge_spec.provider:
                    spec = ctx.judge_spec
            ctx.emit(case.name, "judge", f"judging with {spec.model}", **extra)
            prompt = build_prompt(case.judge.criteria, case.input.prompt, rec.output, previews,
                                  [c.model_dump() for c in rec.checks])
            rec.judge = await judge_case(spec, prompt, deadline=judge_deadline(ctx.timeout, ctx.request.judge_timeout))
            rec.verdict, rec.reason = rec.judge.verdict, rec.judge.reason
            if rec.judge.verdict == "ERROR":
                rec.error = rec.judge.reason
        if rec.artifacts is not None:
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
            (rec.artifacts / "transcript.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
        if rec.record is not None:
            from evalens.runner.record import RECORD_FILE, finish, write_record

            finish(rec.record, verdict=rec.verdict, reason=rec.reason, error=rec.error, checks=rec.checks,
                   judge=rec.judge, duration_seconds=time.monotonic() - start)
            if rec.artifacts is not None:
                write_record(rec.record, rec.artifacts / RECORD_FILE)
    except asyncio.CancelledError:
        rec.verdict, rec.reason, rec.error = "ERROR", "interrupted", "interrupted before the case finished"
        raise
    except Exception as exc:  # setup failures (path escape, missing fixture, bad package) are this case's ERROR
        rec.verdict, rec.reason = "ERROR", str(exc)
        rec.error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, OSError | ValueError) else str(exc)
        from evalens.runner.sandbox import PathEscape

        if isinstance(exc, PathEscape | FileNotFoundError):
            rec.error = str(exc)
    finally:
        rec.duration = time.monotonic() - start
        if paths is not None:
            if ctx.request.keep_sandbox:
                from evalens.runner.sandbox import keep_sandbox

                keep_sandbox(paths)
                rec.sandbox_path = str(paths.root)
            else:
                ctx.emit(case.name, "cleanup", "removing sandbox", **extra)
                try:
                    await _in_thread(remove_sandbox, paths)
                except asyncio.CancelledError:
                    remove_sandbox(paths)
                    raise
        rec.state = "finished"
    ctx.emit(case.name, "done", rec.reason, verdict=rec.verdict, **extra)
    return rec


# --------------------------------------------------------------------------- results and report


def _case_results(ctx: _Context, report_path: Path | None) -> tuple[list[CaseResult], list[ReportCase]]:
    results: list[CaseResult] = []
    report_cases: list[ReportCase] = []
    runs = ctx.request.runs
    for case, path in ctx.cases:
        recs = [ctx.records[(case.name, i)] for i in range(1, runs + 1)]
        verdicts = [r.verdict for r in recs]
        from evalens.runner.report import aggregate

        verdict = aggregate(verdicts)
        main = next((r for r in recs if r.verdict == verdict), recs[0])
        passed = sum(v == "PASS" for v in verdicts)
        pass_rate = passed / runs if runs > 1 else None
        judge = main.judge
        artifacts_rel = None
        if main.artifacts is not None and report_path is not None:
            folder = main.artifacts.parent if runs > 1 else main.artifacts
            artifacts_rel = os.path.relpath(folder, report_path.parent)
        snippet = main.output[:SNIPPET_CHARS] if main.output else None
        usage = sum_usage([r.record.usage if r.record is not None else None for r in recs])
        results.append(CaseResult(
            name=case.name, case_file=str(path), target=case.target, verdict=verdict, reason=main.reason,
            duration_seconds=round(sum(r.duration for r in recs), 3),
            agent_seconds=round(sum(r.agent_seconds for r in recs), 3), checks=main.checks,
            judge_verdict=judge.verdict if judge else None, judge_reason=judge.reason if judge else None,
            judge_model=judge.model if judge else None, engine=ctx.engine.name, engine_version=ctx.engine_version,
            agent_model=main.model, output_snippet=snippet, error=main.error, runs=runs, pass_rate=pass_rate,
            run_verdicts=verdicts,
            artifacts=str(main.artifacts.parent if runs > 1 else main.artifacts) if main.artifacts else None,
            sandbox_path=main.sandbox_path, usage=usage,
        ))
        report_cases.append(ReportCase(
            name=case.name, target=case.target, verdict=verdict,
            duration_seconds=round(sum(r.duration for r in recs), 3),
            deterministic_checks=DeterministicChecks(**summarise(main.checks)),
            judge_verdict=JudgeVerdict(result=judge.verdict, reason=judge.reason, model=judge.model)
            if judge else None,
            agent_output_snippet=snippet, error=main.error if verdict in ("ERROR", "FAIL", "SKIP") else None,
            checks=[ReportCheck(kind=c.kind, value=c.value, status=c.status, detail=c.detail or None)
                    for c in main.checks],
            runs=runs if runs > 1 else None, pass_rate=pass_rate, run_verdicts=verdicts if runs > 1 else [],
            case_file=os.path.relpath(path, ctx.request.package_root.resolve()), artifacts=artifacts_rel,
            usage=usage,
        ))
        if verdict in ("FAIL",) and not report_cases[-1].error:
            report_cases[-1].error = main.reason
    return results, report_cases


def _build_report(ctx: _Context, started: Any, duration: float, report_cases: list[ReportCase],
                  interrupted: bool, report_id: str) -> EvalReport:
    from evalens.runner.report import environment_info, iso

    total = len(report_cases)
    passed = sum(c.verdict == "PASS" for c in report_cases)
    failed = sum(c.verdict == "FAIL" for c in report_cases)
    skipped = sum(c.verdict == "SKIP" for c in report_cases)
    errored = sum(c.verdict == "ERROR" for c in report_cases)
    models = [r.model for r in ctx.records.values() if r.model]
    sessions = [r.session_id for r in ctx.records.values() if r.session_id]
    judges = [r.judge for r in ctx.records.values() if r.judge is not None]
    judge_model = judges[0].model if judges else (ctx.judge_spec.model if ctx.judge_spec else None)
    judge_provider = judges[0].provider if judges else (ctx.judge_spec.provider if ctx.judge_spec else None)
    if ctx.judge_spec is not None and not judges and not ctx.judge_explicit:
        judge_model = models[0] if models else judge_model
    return EvalReport(
        version=1, id=report_id, timestamp=iso(started), duration_seconds=round(duration, 3),
        config=ReportConfig(engine=ctx.engine.name, engine_version=ctx.engine_version, judge=judge_model,
                            timeout=ctx.timeout),
        agent=ReportAgent(runtime=ctx.engine.name, runtime_version=ctx.engine_version,
                          model=models[0] if models else ctx.request.agent_model,
                          model_provider=ctx.engine.default_provider, session_id=sessions[0] if sessions else None),
        judge=ReportJudge(model=judge_model, model_provider=judge_provider),
        environment=environment_info(),
        package=ReportPackage(name=ctx.package.name, version=ctx.package.version),
        summary=ReportSummary(total=total, passed=passed, failed=failed, skipped=skipped, errored=errored,
                              pass_rate=round(passed / total, 4) if total else 0.0,
                              usage=sum_usage([c.usage for c in report_cases])),
        cases=report_cases,
        sandbox=ReportSandbox(enforced=ctx.sandbox_plan.enforced, method=ctx.sandbox_plan.method,
                              network=ctx.sandbox_plan.network, writable_paths=ctx.sandbox_plan.writable_paths),
        interrupted=interrupted,
    )


async def run_cases(request: RunRequest, on_progress: Callable[[ProgressEvent], None] | None = None) -> RunOutcome:
    """Run the selected cases (``jobs`` at a time, ``runs`` times each) and write the report.

    Raises :class:`RunError` before starting anything when the selection, config, engine or keys are unusable.
    Progress events are delivered on the event loop's thread; the callback must be quick.
    """
    from evalens.runner.report import allocate_report_path, artifacts_root, stamp, utc_now, write_report

    ctx = await asyncio.to_thread(plan_run, request, on_progress)  # the preflight runs `--version`: off the loop
    if request.dry_run:
        return RunOutcome(plan=ctx.plan)
    if ctx.judge_spec is not None:
        # A judge SDK that is installed but broken must stop the run before any agent is paid for.
        from evalens.runner.preflight import import_judge_sdk

        problem = await asyncio.to_thread(import_judge_sdk, ctx.judge_spec.provider)
        if problem:
            raise RunError(problem)
    started = utc_now()
    t0 = time.monotonic()
    report_path = None
    if request.write_report:
        report_path = allocate_report_path(request.package_root.resolve(), started, request.output)
        ctx.artifacts_dir = artifacts_root(report_path)
        ctx.emit(None, "report", "report path", report_path=str(report_path))
    for warning in ctx.plan.warnings:
        ctx.emit(None, "plan", warning)
    for case, _path in ctx.cases:
        for i in range(1, request.runs + 1):
            ctx.records[(case.name, i)] = _RunRecord()
    semaphore = asyncio.Semaphore(request.jobs)

    async def guarded(case: EvalCase, path: Path, index: int) -> None:
        async with semaphore:
            await _run_case(ctx, case, path, index)

    tasks: list[asyncio.Task] = []
    interrupted = False
    try:  # from here on an interruption still writes a report (interrupted: true)
        ctx.engine_version = await asyncio.to_thread(ctx.engine.version)
        from evalens.runner.sandbox import sweep_stale_sandboxes

        await asyncio.to_thread(sweep_stale_sandboxes)
        tasks = [asyncio.create_task(guarded(c, p, i)) for c, p in ctx.cases for i in range(1, request.runs + 1)]
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        interrupted = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for rec in ctx.records.values():
            if rec.state == "pending":
                rec.verdict, rec.reason, rec.error = "SKIP", "not run: interrupted", "not run: interrupted"
    results, report_cases = _case_results(ctx, report_path)
    report = _build_report(ctx, started, time.monotonic() - t0, report_cases, interrupted,
                           f"eval-run-{stamp(started)}")
    if report_path is not None:
        write_report(report, report_path)
    outcome = RunOutcome(plan=ctx.plan, report=report, report_path=report_path, results=results,
                         interrupted=interrupted)
    if interrupted:
        ctx.emit(None, "done", "interrupted; partial report written", report_path=str(report_path or ""))
        raise asyncio.CancelledError()
    return outcome


# --------------------------------------------------------------------------- reading results back


def _result_from_report_case(case: ReportCase, report: EvalReport, report_path: Path,
                             package_root: Path | None = None) -> CaseResult:
    checks = [CheckResult(kind=c.kind, value=c.value, status=c.status, detail=c.detail or "") for c in case.checks]
    judge = case.judge_verdict
    reason = (judge.reason if judge else None) or case.error or ""
    case_file = case.case_file
    if case_file and package_root is not None and not os.path.isabs(case_file):
        case_file = str((package_root / case_file).resolve())
    return CaseResult(
        name=case.name, case_file=case_file, target=case.target, verdict=case.verdict, reason=reason,
        duration_seconds=case.duration_seconds or 0.0, checks=checks,
        judge_verdict=judge.result if judge else None, judge_reason=judge.reason if judge else None,
        judge_model=judge.model if judge else None, engine=report.config.engine,
        engine_version=report.config.engine_version, agent_model=report.agent.model,
        output_snippet=case.agent_output_snippet, error=case.error, runs=case.runs or 1, pass_rate=case.pass_rate,
        run_verdicts=list(case.run_verdicts),
        artifacts=str((report_path.parent / case.artifacts).resolve()) if case.artifacts else None,
        usage=case.usage,
    )


def load_last_results(package_root: Path, *, max_reports: int = 50) -> dict[str, CaseResult]:
    """Case name → its latest result across ``evals/reports/`` (newest report first, up to ``max_reports``).

    A run of one case writes a report holding only that case, so each case is taken from the newest report that
    has it; cases merely interrupted or never started in an interrupted run are passed over. Unreadable reports
    are skipped. ``case_file`` and ``artifacts`` come back as absolute paths."""
    from evalens.runner.report import load_report, reports_dir

    base = reports_dir(package_root)
    if not base.is_dir():
        return {}
    paths = sorted((p for p in base.glob("*.json") if p.is_file() and not p.name.startswith(".")),
                   key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)[:max_reports]
    out: dict[str, CaseResult] = {}
    for path in paths:
        try:
            report = load_report(path)
        except Exception:
            continue
        for case in report.cases:
            if case.name in out:
                continue
            if report.interrupted and (case.error or "").startswith(("interrupted", "not run")):
                continue
            out[case.name] = _result_from_report_case(case, report, path, package_root)
    return out


async def rejudge(report_path: Path, *, judge: str | None = None, output: Path | None = None,
                  judge_key_env: list[str] | None = None,
                  on_progress: Callable[[ProgressEvent], None] | None = None) -> tuple[EvalReport, Path]:
    """Judge a finished run again from its saved transcripts (no agent is run); writes a new report.

    Every run of a ``--runs N`` case is judged again and the runs are recombined (:func:`report.aggregate`);
    runs whose agent errored or whose deterministic checks failed keep their verdict.
    """
    from evalens.runner.judge import (
        MissingKey,
        build_prompt,
        judge_case,
        judge_deadline,
        require_key,
        resolve_judge,
    )
    from evalens.runner.report import load_report, stamp, utc_now, write_report

    old = load_report(report_path)
    default_provider = "anthropic" if old.config.engine == "claude-code" else "openai"
    spec = resolve_judge(judge or old.config.judge or old.judge.model, default_provider=default_provider,
                         agent_model=old.agent.model,
                         key_env=tuple(judge_key_env) if judge_key_env else None)
    try:
        require_key(spec.key_env, f"the {spec.provider} judge ({spec.model})")
    except MissingKey as exc:
        raise RunError(str(exc)) from None
    started = utc_now()
    t0 = time.monotonic()
    if output is None:
        output = report_path.parent / f"{stamp(started)}-rejudged.json"
        n = 2
        while output.exists():
            output = report_path.parent / f"{stamp(started)}-rejudged-{n}.json"
            n += 1
    deadline = judge_deadline(old.config.timeout)
    new_cases = []
    for case in old.cases:
        case = case.model_copy(deep=True)
        folder = (report_path.parent / case.artifacts) if case.artifacts else None
        if case.artifacts:
            case.artifacts = os.path.relpath(report_path.parent / case.artifacts, output.parent)
        runs = case.runs or 1
        old_verdicts = list(case.run_verdicts) or [case.verdict]
        verdicts: list[str] = []
        judged: list[tuple[str, Any]] = []  # (verdict, judge outcome) of the runs judged again
        for i in range(1, runs + 1):
            record_file = (folder / f"run-{i}" / "transcript.json" if runs > 1 else folder / "transcript.json") \
                if folder is not None else None
            before = old_verdicts[i - 1] if i - 1 < len(old_verdicts) else case.verdict
            if record_file is None or not record_file.is_file():
                verdicts.append(before)  # nothing saved to judge again: the run keeps its verdict
                continue
            record = json.loads(record_file.read_text(encoding="utf-8"))
            if record.get("agent_error") or any(c["status"] == "FAIL" for c in record.get("checks", [])):
                verdicts.append("ERROR" if record.get("agent_error") else "FAIL")
                continue
            if on_progress:
                on_progress(ProgressEvent(case_name=case.name, stage="judge", run_index=i,
                                          message=f"re-judging with {spec.model}"))
            prompt = build_prompt(record["case"]["judge"]["criteria"], record["case"]["input"]["prompt"],
                                  record["transcript"]["output"], record.get("file_previews", {}), record["checks"])
            outcome = await judge_case(spec, prompt, deadline=deadline)
            verdicts.append(outcome.verdict)
            judged.append((outcome.verdict, outcome))
        if not judged:
            new_cases.append(case)
            continue
        from evalens.runner.report import aggregate

        verdict = aggregate(verdicts)
        outcome = next((o for v, o in judged if v == verdict), judged[0][1])
        case.judge_verdict = JudgeVerdict(result=outcome.verdict, reason=outcome.reason, model=outcome.model)
        case.verdict = verdict
        case.error = None
        if verdict in ("ERROR", "FAIL"):
            case.error = outcome.reason if outcome.verdict == verdict else \
                f"{verdicts.count(verdict)} of {runs} runs {verdict} (kept from the original run)"
        if runs > 1:
            case.run_verdicts = verdicts
            case.pass_rate = sum(v == "PASS" for v in verdicts) / runs
        new_cases.append(case)
        if on_progress:
            on_progress(ProgressEvent(case_name=case.name, stage="done", message=outcome.reason, verdict=verdict))
    total = len(new_cases)
    passed = sum(c.verdict == "PASS" for c in new_cases)
    report = old.model_copy(deep=True)
    report.id = f"eval-run-{stamp(started)}-rejudged"
    report.timestamp = started.strftime("%Y-%m-%dT%H:%M:%SZ")
    report.duration_seconds = round(time.monotonic() - t0, 3)
    report.cases = new_cases
    report.config.judge = spec.model
    report.judge = ReportJudge(model=spec.model, model_provider=spec.provider)
    report.summary = ReportSummary(
        total=total, passed=passed, failed=sum(c.verdict == "FAIL" for c in new_cases),
        skipped=sum(c.verdict == "SKIP" for c in new_cases), errored=sum(c.verdict == "ERROR" for c in new_cases),
        pass_rate=round(passed / total, 4) if total else 0.0,
    )
    write_report(report, output)
    return report, output
