"""The one agent session the file suites share: sandbox → skills installed → engine → transcript.

One private sandbox per run, the skill installed where the engine discovers skills, the whole process tree
killed on timeout, the sandbox removed afterwards. File work (creating, populating, snapshotting and removing
the sandbox, the checks that read the workspace) runs in a worker thread, never on the caller's event loop.
The steps of one run are :func:`agent_run`, which UAAPS cases (``runner.suites.uaaps``) run too, with their
package installer in place of the skill copy.
"""

from __future__ import annotations

import asyncio
import copy
import os
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core.models.run_record import RunRecord
from evalens.runner import workspace_diff
from evalens.runner.agent_process import AgentRun, in_thread
from evalens.runner.agent_retry import after_retries, run_retrying, with_discarded
from evalens.runner.api_types import Stage
from evalens.runner.checks import CheckNotRun, CheckTimedOut, check_deadline, files_created
from evalens.runner.engines import UnsupportedEngine, get_engine
from evalens.runner.engines.base import SandboxPaths, Transcript
from evalens.runner.limit_readback import merged, refused_in_results
from evalens.runner.preflight import judge_sdk_ready, preflight
from evalens.runner.record import capture
from evalens.runner.report import iso, utc_now
from evalens.runner.resource_limits import ResourceLimits
from evalens.runner.run_limits import RunLimits
from evalens.runner.sandbox import (
    SandboxPlan,
    copy_bounded,
    copy_confined,
    create_sandbox,
    keep_sandbox,
    launch_agent,
    plan_sandbox,
    populate,
    remove_sandbox,
    run_error,
    snapshot,
)
from evalens.runner.trigger_detect import skill_names

BASE_ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
CAPTURE_FILE_LIMIT = 1 << 20  # per captured created file
CAPTURE_TOTAL_LIMIT = 20 << 20
PROVIDER_VARS = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"),
}


class UsageError(Exception):
    """The run cannot start; the message is what the user needs (no agent was started)."""


@dataclass(slots=True)
class AgentResult:
    """What one agent run produced, engine-neutral."""

    output: str = ""
    skills: list[str] = field(default_factory=list)  # activated skills, in order
    tools: list[dict[str, Any]] = field(default_factory=list)  # {tool, input}
    error: str | None = None
    duration_ms: float = 0.0
    cost_usd: float = 0.0
    turns: int | None = None
    workspace_files: list[str] = field(default_factory=list)  # files present after the run (relative)
    workspace: Path | None = None  # kept only while checks run
    exit_code: int | None = None
    model: str | None = None
    api_status: int | None = None  # the model API's error status the engine reported, if any
    retries: list[str] = field(default_factory=list)  # transient API errors retried before this result
    activations: list[Any] = field(default_factory=list)  # run_record.Activation: installed skills that fired


def agent_error(res: AgentResult) -> str:
    """The agent's failure, worded once (engines already say ``agent error (API status N): …``)."""
    text = res.error or ""
    return text if text.startswith(("agent ", "check timed out")) else f"agent error: {text}"


def agent_env(engine: Any, extra: list[str] | tuple[str, ...] = ()) -> dict[str, str]:
    """Only allow-listed variables reach the agent: locale/PATH, the engine's provider variables, extras."""
    allow = (*BASE_ENV_ALLOW, *PROVIDER_VARS[engine.default_provider], *extra)
    return {k: os.environ[k] for k in allow if k in os.environ}


def capture_files(ws: Path, created: list[str], dest: Path) -> dict[str, str]:
    """Copy created files into the artifacts (bounded, regular files only, never through a link) and return short
    text previews for the judge."""
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


@dataclass(slots=True)
class AgentLaunch:
    """How a batch launches its agents, the same for each of its runs: engine, sandbox plan, the agent's
    environment and model, the per-run limits, and whether sandboxes are kept (``--keep-sandbox``)."""

    engine: Any
    plan: SandboxPlan
    env: dict[str, str]
    model: str | None
    engine_version: str | None = None
    limits: RunLimits | None = None
    resources: ResourceLimits | None = None
    keep: bool = False


@dataclass(slots=True)
class SandboxRun:
    """One agent run while its sandbox still exists: what the checks, the artifacts and the verdict read."""

    paths: SandboxPaths
    run: AgentRun
    transcript: Transcript
    record: RunRecord
    files: list[str]  # every file in the workspace after the run (relative, sorted; never through a link)
    created: list[str]  # those the agent created or changed (:func:`~evalens.runner.checks.files_created`)
    error: str | None  # why the run is ERROR, in every suite's words (sandbox.run_error); None: it ran


def _fresh_sandbox(fill: Callable[[SandboxPaths], None]) -> tuple[SandboxPaths, Exception | None]:
    """A new sandbox and ``fill`` run on it; a failure to fill comes back beside the sandbox, which the caller
    keeps or removes like any other."""
    paths = create_sandbox()
    try:
        fill(paths)
    except Exception as exc:  # noqa: BLE001 - raised by agent_run once the sandbox is in its hands
        return paths, exc
    return paths, None


def _before(paths: SandboxPaths) -> tuple[dict[str, tuple[int, int]], workspace_diff.Baseline]:
    """The workspace as the agent finds it: what it then created is told from this, and its record's diff."""
    return snapshot(paths.workspace), workspace_diff.baseline(paths.workspace)


def _release(launch: AgentLaunch, paths: SandboxPaths, on_kept: Callable[[str], None]) -> None:
    """Blocking release (a cancelled setup's sandbox): kept when the batch keeps them, else removed."""
    if launch.keep:
        keep_sandbox(paths)
        on_kept(str(paths.root))
    else:
        remove_sandbox(paths)


@asynccontextmanager
async def agent_run(
    launch: AgentLaunch,
    prompt: str,
    fill: Callable[[SandboxPaths], None],
    *,
    unit: str,
    run_index: int,
    time_limit: float,
    side: str | None = None,
    fmt: str | None = None,
    installed: dict[str, str] | None = None,
    emit: Callable[[Stage, str], None] = lambda _stage, _message: None,
    on_kept: Callable[[str], None] = lambda _root: None,
) -> AsyncIterator[SandboxRun]:
    """The steps of one agent run, for every suite: a fresh sandbox, ``fill`` (blocking: the unit's files and
    what it installs, the skills or the UAAPS package), the workspace's starting state, the engine launched,
    its run record captured (``installed``: the skills trigger detection knows; ``side``: a baseline's label),
    the files it created. The body runs while the sandbox exists; the sandbox is then kept (``launch.keep``,
    its root to ``on_kept``) or removed, also on error and when cancelled. ``emit`` hears the stages."""
    emit("sandbox", "creating sandbox")
    paths, failed = await in_thread(
        _fresh_sandbox, fill, on_cancel=lambda made: _release(launch, made[0], on_kept)
    )
    try:
        if failed is not None:
            raise failed
        before, base = await in_thread(_before, paths)
        started_at = iso(utc_now())
        emit("agent", f"running {launch.engine.name}")
        run, transcript = await launch_agent(
            launch.engine,
            launch.plan,
            paths,
            prompt,
            model=launch.model,
            agent_env=launch.env,
            time_limit=time_limit,
            unit=f"{unit} [{side}]" if side else unit,
            run_index=run_index,
            limits=launch.limits,
            resources=launch.resources,
        )
        record = await in_thread(
            lambda: capture(
                launch.engine,
                transcript,
                run,
                paths,
                base,
                unit=unit,
                prompt=prompt,
                run_index=run_index,
                fmt=fmt,
                engine_version=launch.engine_version,
                started_at=started_at,
                installed=installed,
            )
        )
        record.baseline = side
        _limits_reported(run, transcript, record, launch.resources)
        after = await in_thread(snapshot, paths.workspace)  # never follows links
        yield SandboxRun(
            paths=paths,
            run=run,
            transcript=transcript,
            record=record,
            files=sorted(after),
            created=files_created(before, after),
            error=run_error(run, transcript, time_limit),
        )
    finally:
        if launch.keep:
            _release(launch, paths, on_kept)
        else:
            emit("cleanup", "removing sandbox")
            try:
                await in_thread(remove_sandbox, paths)
            except asyncio.CancelledError:
                remove_sandbox(paths)  # cancelled: the sandbox still goes
                raise


class AgentSession:
    """Runs one prompt at a time in a fresh sandbox with chosen skills installed."""

    def __init__(
        self,
        engine: str,
        model: str | None,
        timeout: float,
        *,
        network: bool = False,
        keep_sandbox: bool = False,
        judge: Any = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        """Runs the shared preflight (CLI, keys, judge SDK and provider, sandbox, temp space) for ``engine`` and
        the resolved ``judge`` spec (None: no judge); raises :class:`UsageError` before any agent starts."""
        try:
            self.engine = get_engine(engine)
        except UnsupportedEngine as exc:
            raise UsageError(str(exc)) from None
        checked, _spec = preflight(
            self.engine,
            judge=f"{judge.provider}:{judge.model}" if judge else None,
            use_judge=judge is not None,
            judge_key_env=judge.key_env if judge else None,
            network=network,
        )
        if not checked.ok:
            judge_missing = any(c.name.startswith("judge") for c in checked.failures)
            raise UsageError(checked.message() + (" (or pass --no-judge)" if judge_missing else ""))
        self.judge = judge
        self.env = agent_env(self.engine)
        self.model = model
        self.timeout = timeout
        self.keep_sandbox = keep_sandbox
        self.plan = plan_sandbox(network, None)
        self.warn = warn or (lambda _message: None)
        self.kept: list[str] = []
        self.unit = ""  # the unit being run (the caller sets it): names the run records below
        self.records: list[tuple[str, Any]] = []  # (unit, run record) of every agent run, in order
        self.runs_before = 0  # a view for run N of a unit (for_unit): the unit's runs numbered before it
        self.engine_version: str | None = None
        # --baseline: which skills a run really installs (none, or each as it was at a git ref); None: as asked
        self.install: Callable[[dict[str, Path]], dict[str, Path]] | None = None
        self.side: str | None = None  # the baseline's label while its runs go (live turns name it)
        # --max-turns / --max-tokens-per-run, enforced while a run streams
        self.limits: RunLimits | None = None
        self.resources: ResourceLimits | None = None  # --limit: pids, memory, CPU, file and sandbox size
        self.retries: int | None = None  # --agent-retries (None: $EVALENS_AGENT_RETRIES, else the default)
        if self.plan.warning:
            self.warn(self.plan.warning)

    def for_unit(self, unit: str, run: int = 1) -> AgentSession:
        """A view of this session for one unit run beside others (``--jobs``): the preflight, engine, judge,
        environment and limits are shared; what a unit's runs change while they go (the unit that names their
        records, the records themselves, the sandboxes they kept, a baseline's install and side) is its own, so
        two units in flight never number or take each other's runs, nor name each other's kept sandbox. The
        caller merges them back in unit order (:meth:`take_records`). ``run``: the view runs that run of the unit
        (its repeats at once), so its agent run is numbered so (the live turns' ``#N``)."""
        view = copy.copy(self)
        view.unit, view.records, view.kept, view.runs_before = unit, [], [], run - 1
        return view

    def take_records(self, view: AgentSession) -> None:
        """A unit view's run records and kept sandboxes, appended to this session's (after the unit finished)."""
        self.records.extend(view.records)
        self.kept.extend(view.kept)

    async def ready(self) -> None:
        """The judge's SDK is known to import (``preflight.judge_sdk_ready``: imported off the event loop, or
        proven by an earlier process on the same files) before the first agent starts."""
        self.engine_version = await asyncio.to_thread(self.engine.version)
        if self.judge is None:
            return
        problem = await judge_sdk_ready(self.judge.provider)
        if problem:
            raise UsageError(problem)

    def _fill(self, skills: dict[str, Path], files_base: Path | None, files: list[str], paths: Any) -> None:
        """The unit's files and ``skills`` (as the run installs them: ``self.install`` already applied), copied
        where the engine discovers them, into a fresh sandbox."""
        if files_base is not None and files:
            populate(paths, files_base, list(files), [])
        for name, skill_md in skills.items():
            dest = paths.workspace / self.engine.skills_dir / name
            for entry in sorted(skill_md.parent.iterdir()):
                if entry.name not in ("evals", ".git") and not entry.name.endswith("-workspace"):
                    copy_confined(entry, dest / entry.name, skill_md.parent, what="skill file")

    def _kept(self, root: str) -> None:
        self.kept.append(root)
        self.warn(f"sandbox kept: {root}")

    def launch(self) -> AgentLaunch:
        """The session's agents' launch, as its callers have set it (limits, resources) by now."""
        return AgentLaunch(
            engine=self.engine,
            plan=self.plan,
            env=self.env,
            model=self.model,
            engine_version=self.engine_version,
            limits=self.limits,
            resources=self.resources,
            keep=self.keep_sandbox,
        )

    async def _check(self, check: Callable[[AgentResult], None], result: AgentResult) -> None:
        """Run the checks in a worker thread under a deadline inside the case budget: past it, or when a check
        reports its own time bound, the run is ERROR "check timed out" (the thread, bounded itself, is left)."""
        deadline = check_deadline(self.timeout)
        task = asyncio.ensure_future(asyncio.to_thread(check, result))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved even when abandoned
        done, _ = await asyncio.wait({task}, timeout=deadline)
        if not done:
            result.error = f"check timed out: the checks ran longer than {deadline:g} s"
            return
        exc = task.exception()
        if isinstance(exc, CheckTimedOut):
            result.error = f"check timed out: {exc}"
        elif isinstance(exc, CheckNotRun):
            result.error = f"check not run: {exc}"
        elif exc is not None:
            raise exc

    async def run(
        self,
        prompt: str,
        skills: dict[str, Path],
        files_base: Path | None = None,
        files: list[str] | tuple[str, ...] = (),
        check: Callable[[AgentResult], None] | None = None,
        beside: dict[str, Path] | None = None,
    ) -> AgentResult:
        """Run ``prompt``; ``check(result)`` runs (in a worker thread) while the workspace still exists;
        ``beside``: skills installed as they are in every run, a baseline's too (a trigger set's co-installed
        skills: only the skill under test is swapped or left out). An
        attempt that met a transient API error is run again in a fresh sandbox within the time budget
        (:mod:`evalens.runner.agent_retry`); the result and its record say what was retried."""
        count = len(self.records)

        spent: list[Any] = []  # the usage of the discarded attempts: counted with the attempt that counts

        def discard(_note: str) -> None:
            if len(self.records) > count:  # its record's usage already holds the ones before (with_discarded)
                spent[:] = [record.usage for _unit, record in self.records[count:]]
            del self.records[count:]  # the failed attempt is not a run of the unit

        return await run_retrying(
            lambda time_limit, retried: self._attempt(
                prompt, skills, files_base, files, check, time_limit, beside or {}, retried, spent
            ),
            lambda result: result.api_status if result.error else None,
            timeout=self.timeout,
            retries=self.retries,
            on_retry=discard,
        )

    async def _attempt(
        self,
        prompt: str,
        skills: dict[str, Path],
        files_base: Path | None,
        files: list[str] | tuple[str, ...],
        check: Callable[[AgentResult], None] | None,
        time_limit: float,
        beside: dict[str, Path],
        retried: list[str],
        spent: list[Any] | None = None,
    ) -> AgentResult:
        """One attempt of :meth:`run`, given ``time_limit`` (what is left of the run's) after ``retried``, whose
        discarded attempts spent ``spent`` (added to this attempt's record)."""
        result = AgentResult(retries=retried)
        try:
            installed = await in_thread(self.install, skills) if self.install is not None else skills
            installed = {**beside, **installed}
            names = await in_thread(skill_names, installed)
            unit = self.unit
            async with agent_run(
                self.launch(),
                prompt,
                lambda paths: self._fill(installed, files_base, list(files), paths),
                unit=unit,
                run_index=1  # this unit's runs so far, plus this one
                + self.runs_before
                + sum(u == unit for u, _ in self.records),
                time_limit=time_limit,
                side=self.side,
                installed=names,
                on_kept=self._kept,
            ) as done:
                self.records.append((unit, done.record))
                with_discarded(done.record, spent or [])
                transcript, run = done.transcript, done.run
                result.output = transcript.output
                result.tools = list(transcript.tool_calls)
                result.skills = list(done.record.skills_activated)
                result.activations = list(done.record.activations)
                result.duration_ms = round(run.duration_seconds * 1000)
                result.exit_code = run.exit_code
                result.model = transcript.model
                usage = transcript.usage or {}
                result.cost_usd = float(usage.get("total_cost_usd") or 0.0)
                result.turns = usage.get("num_turns")
                result.api_status = transcript.api_status
                result.error = after_retries(done.record, done.error, result.api_status, retried)
                result.workspace_files = done.files
                result.workspace = done.paths.workspace
                if check is not None:
                    await self._check(check, result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # setup failures are this run's error, not the whole run's
            result.error = result.error or f"{type(exc).__name__}: {exc}"
        finally:
            result.workspace = None
        return result


async def start_session(*args: Any, **kwargs: Any) -> AgentSession:
    """An :class:`AgentSession` whose preflight (``--version``, sandbox probe) and judge SDK import ran off the
    event loop: the language server awaits this on its own loop."""
    session = await asyncio.to_thread(AgentSession, *args, **kwargs)
    await session.ready()
    return session


def _limits_reported(run: Any, transcript: Any, record: RunRecord, resources: Any) -> None:
    """A limit a shell call's result reports as refused (ENOMEM, SIGXCPU, EFBIG, a refused fork) is the run's
    ERROR, named, as a limit the kernel's state shows met is (runner/limit_readback.py): read from the run
    record's calls, the one reading of the engine's trace."""
    calls = ((call.name, call.result) for turn in record.turns for call in turn.tool_calls)
    named = merged(run.limits_hit, refused_in_results(calls, resources or ResourceLimits()))
    if len(named) == len(run.limits_hit):
        return
    run.limits_hit = named
    transcript.error = record.error = "; ".join(named)
