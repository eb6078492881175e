"""Run one eval file of any runnable format except UAAPS cases (skilljack, skill-creator, writing-skills,
trigger sets) through its suite, and write the evalens report of the batch.

``evalens run``, the code lens and the Test Explorer call :func:`run_file`; it never prints. Progress goes to
``on_progress``; the outcome holds one :class:`~evalens.runner.results.UnitResult` per unit, the suite's own
summary lines and the exit code the verdict rules give (``docs/verdicts.md``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evalens.core.models.run_record import sum_usage
from evalens.core.models.uaaps import (
    EvalReport,
    ReportAgent,
    ReportCase,
    ReportConfig,
    ReportJudge,
    ReportPackage,
)
from evalens.core.validate import validate_file
from evalens.runner.adaptive import wants_leftover
from evalens.runner.agent_process import in_thread
from evalens.runner.api_types import RunRequest
from evalens.runner.arms import ArmError, opened_async, resolve_arm
from evalens.runner.baseline import (
    FOLDER,
    BaselineError,
    add_to,
    attach_baseline_records,
    checked_out,
    report_section,
    require_isolation,
    resolve,
    run_side,
)
from evalens.runner.budget import Budget, refuse_unpriced, unpriced_before
from evalens.runner.depends import NextRun, finish_unit
from evalens.runner.engines import UnsupportedEngine, get_engine
from evalens.runner.record import (
    RECORD_FILE,
    NotARecord,
    attach_records,
    load_record,
    unit_folder_name,
    write_record,
)
from evalens.runner.replay import carry, cassettes, settings_of
from evalens.runner.report import allocate_report_path, batch_id, new_report, utc_now, write_report
from evalens.runner.resource_limits import ResourceLimits
from evalens.runner.results import UnitCheck, UnitResult, apply_repeats, report_case_from_result
from evalens.runner.run_limits import RunLimits
from evalens.runner.run_log import (
    NotARunLog,
    ResumeRefused,
    log_path,
    open_units,
    plan_unit,
    read_log,
)
from evalens.runner.scheduling import Admission, Refused, all_of
from evalens.runner.session import AgentResult, UsageError, agent_env
from evalens.runner.stats import agreement_fields
from evalens.runner.suites import names_per_file, suite_for
from evalens.runner.suites.base import KeptRun, LoggedSession, Suite, Unit, UnitRun
from evalens.runner.unit_identity import identity, key, reconcile

__all__ = ["FileOutcome", "FileProgress", "InvalidFile", "NotRunnable", "file_report", "prepare", "run_file"]


class InvalidFile(UsageError):
    """The file has errors; ``problems`` are the validation problems (the CLI prints each with its position)."""

    def __init__(self, message: str, problems: list[Any]) -> None:
        super().__init__(message)
        self.problems = problems


class NotRunnable(UsageError):
    """The file is not a runnable eval file of a suite format (UAAPS cases run with ``evalens eval``)."""

    def __init__(self, message: str, format_id: str | None) -> None:
        super().__init__(message)
        self.format_id = format_id


class FileProgress(BaseModel):
    """A step of a file run: a note, or (``outcome``) the line saying how one run of a unit went, or
    (``report_path``) the partial report an interrupted batch wrote, which ``--resume`` finishes."""

    unit: str = ""
    message: str = ""
    outcome: bool = False
    report_path: Path | None = None


class FileOutcome(BaseModel):
    """What a file run produced."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    format: str
    file: Path
    results: list[UnitResult] = Field(default_factory=list)
    summary: list[str] = Field(default_factory=list, description="The suite's own summary lines.")
    summary_failed: bool = Field(default=False, description="The format's own pass rule failed (thresholds).")
    result_file: Path | None = None
    report: EvalReport | None = None
    report_path: Path | None = None
    dry_run: list[str] = Field(default_factory=list, description="With --dry-run: what would run.")
    exit_code: int = 0
    interrupted: bool = False


def prepare(
    request: RunRequest,
    on_progress: Callable[[FileProgress], None] | None = None,
    format_id: str | None = None,
) -> tuple[Suite, list[Unit]]:
    """Validate the file, pick its suite and the selected units; raises :class:`UsageError` before anything
    runs. Blocking (reads and validates the file): call it off the event loop."""
    file = request.file_path
    if not file.is_file():
        raise UsageError(f"{file}: no such file")
    doc = None  # the parse validation made: the suite's units come from it (evalens.core.units)
    if format_id is None:
        checked = validate_file(file)
        format_id = checked.format.id if checked.format else None
        errors = [p for p in checked.problems if p.severity == 1]
        doc = checked.doc if checked.doc is not None and checked.doc.ok else None
    else:
        errors = []
    suite_cls = suite_for(format_id or "")
    if suite_cls is None:
        raise NotRunnable(
            f"{file} is not a runnable eval file (detected: {format_id or 'unknown'}); UAAPS cases "
            "run as a package (`evalens run PACKAGE` or a case file)",
            format_id,
        )
    if errors:
        raise InvalidFile(f"fix the {len(errors)} error(s) above first", errors)
    if request.no_judge and suite_cls.needs_judge:
        raise UsageError("grading evals.json needs the judge; --no-judge is not available here")
    refused = suite_cls.judge_repeats_refused(request) if request.judge_repeats > 1 else None
    if refused is not None and not request.no_judge:
        raise UsageError(f"--judge-repeats: {refused}")

    def emit(unit: str, message: str, outcome: bool = False) -> None:
        if on_progress is not None:
            try:
                on_progress(FileProgress(unit=unit, message=message, outcome=outcome))
            except Exception:  # noqa: BLE001 - a broken progress consumer must not break the run
                pass

    try:
        suite = suite_cls(request, format_id or "", emit, doc)
    except (OSError, ValueError) as exc:
        raise UsageError(f"{file}: {exc}") from None
    units = suite.units()
    if request.units:
        wanted = {u.strip() for u in request.units if u.strip()}
        units = [u for u in units if u.id in wanted or wanted & set(u.aliases)]
        if not units:
            raise UsageError(
                "No tasks to run"
                if format_id and format_id.startswith("skilljack")
                else "No evals to run"
                if format_id == "skill-creator-evals"
                else "No cases to run"
            )
    elif not units:
        raise UsageError("No evals to run" if format_id == "skill-creator-evals" else "No cases to run")
    return suite, units


async def run_file(
    request: RunRequest,
    on_progress: Callable[[FileProgress], None] | None = None,
    format_id: str | None = None,
) -> FileOutcome:
    """Run the selected units of ``request.file`` (each ``request.runs`` times) and write the evalens report.

    Raises :class:`UsageError` (or :class:`InvalidFile`, :class:`NotRunnable`) before any agent starts.
    Cancelling the task kills the agent in flight, removes its sandbox, writes a partial report (units not run
    are SKIP, ``interrupted: true``) and re-raises :class:`asyncio.CancelledError`.
    """
    suite, units = await asyncio.to_thread(prepare, request, on_progress, format_id)
    try:
        plan = await asyncio.to_thread(_baseline_plan, request, suite)
    except BaselineError as exc:
        raise UsageError(str(exc)) from None
    outcome = FileOutcome(format=suite.format_id, file=request.file_path)
    if request.dry_run:
        outcome.dry_run = suite.dry_run(units) + (
            [f"baseline: {plan.label}: every unit runs {request.runs} more time(s)"]
            if plan is not None
            else []
        )
        return outcome
    try:  # --arms: what every run installs of the skills (a ref resolved by git: off the loop)
        arm = await asyncio.to_thread(resolve_arm, request.arm, suite.root) if request.arm else None
    except ArmError as exc:
        raise UsageError(str(exc)) from None
    max_cost = request.budget.max_cost if request.budget is not None else request.max_cost
    refused = refuse_unpriced(request.file_engine, request.agent_model, max_cost, request.allow_unpriced)
    if refused is not None:  # before any run: the budget would count them $0
        raise UsageError(refused)
    session = await suite.session(units)
    if request.extra_env:  # --env NAME: the caller's variable, as a package's run passes it
        session.env.update(agent_env(session.engine, request.extra_env))
    unpriced = unpriced_before(request.file_engine, request.agent_model) if max_cost is not None else None
    if unpriced is not None:
        suite.say("", f"warning: --max-cost: {unpriced}")

    session.limits = RunLimits(request.max_turns, request.max_tokens_per_run)
    session.resources = ResourceLimits().with_overrides(request.resource_limits)
    session.retries = request.agent_retries

    try:
        isolated = require_isolation(plan, session.plan.enforced, request.allow_unisolated_baseline)
    except BaselineError as exc:
        raise UsageError(str(exc)) from None
    try:
        async with (
            checked_out(plan),
            opened_async(arm),  # an arm's worktree or filtered copies, removed afterwards
            cassettes(settings_of(request, suite.root, request.file)),
        ):  # --record / --replay
            if arm is not None:
                session.install = arm.skills
            try:
                return carry(await _run_units(request, suite, units, session, plan, outcome, isolated))
            except asyncio.CancelledError:
                _say_partial(on_progress, outcome.report_path)
                raise
    except (BaselineError, ArmError) as exc:
        raise UsageError(str(exc)) from None


def _say_partial(on_progress: Callable[[FileProgress], None] | None, report_path: Path | None) -> None:
    """Tell the caller where an interrupted batch's partial report is: the CLI prints the command that finishes
    it, as ``evalens eval`` does."""
    if on_progress is None or report_path is None:
        return
    try:
        on_progress(FileProgress(message="interrupted; partial report written", report_path=report_path))
    except Exception:  # noqa: BLE001 - a broken progress consumer must not hide the interruption
        pass


def _baseline_plan(request: RunRequest, suite: Suite) -> Any:
    """``--baseline`` resolved against the repository holding the skill (blocking: runs git)."""
    return resolve(request.baseline, suite.root)


async def _run_units(
    request: RunRequest,
    suite: Suite,
    units: list[Unit],
    session: Any,
    plan: Any,
    outcome: FileOutcome,
    isolated: bool = True,
) -> FileOutcome:
    started, t0 = utc_now(), time.monotonic()
    base_records: list[tuple[str, Any]] = []
    interrupted = False

    admission = Admission(request.jobs, request.budget or Budget(request.max_cost, request.max_tokens))
    budget = admission.budget
    inputs = NextRun(
        engine=request.engine,
        agent_model=request.agent_model,
        judge=request.judge,
        no_judge=request.no_judge,
        engine_version=getattr(session, "engine_version", None),
    )
    report_path = _report_path(request, suite, started)
    batch: FileBatch | None = None
    if report_path is not None:  # the run log: one event per unit-run as it finishes (runner/run_log.py)
        batch = await asyncio.to_thread(
            FileBatch.open, request, suite, units, inputs, report_path, started, plan.label if plan else None
        )
        units = batch.units
        if batch.resumed is not None:
            suite.say("", f"resuming: {batch.resumed[0]} finished run(s) kept, {batch.resumed[1]} to run")
    finished: dict[int, tuple[UnitResult, UnitResult | None]] = {}  # by the unit's place in the batch
    try:
        if request.jobs > 1:
            await _run_at_once(
                request, suite, units, session, plan, admission, batch, inputs, base_records, finished
            )
        else:
            for i, unit in enumerate(units):
                finished[i] = await _run_unit(
                    request, suite, unit, session, plan, admission, batch, inputs, base_records
                )
        # --runs auto: the budget left goes to the units still FLAKY after MAX
        await _leftover(request, suite, units, session, admission, batch, inputs, finished)
    except asyncio.CancelledError:
        interrupted = True
    results, bases = _in_file_order(suite, units, finished)
    note = budget.unpriced_note()
    if not interrupted:
        summary = await asyncio.to_thread(suite.finish, results)
        outcome.summary, outcome.summary_failed, outcome.result_file = (
            summary.lines,
            summary.failed,
            summary.result_file,
        )
        for result in results:
            if result.result_file is None and summary.result_file is not None:
                result.result_file = str(summary.result_file)
        exit_on_fail = summary.details.get("exit_on_failure", True) is not False
    else:
        exit_on_fail = True
    outcome.results = results
    if note:
        outcome.summary.append(note)
    section = None
    if plan is not None:
        compared = suite.compare(results, bases, plan.label)
        outcome.summary += compared.lines
        section = report_section(
            plan,
            results,
            bases,
            [report_case_from_result(b, None, suite.root) for b in bases],
            metrics=compared.details,
            isolated=isolated,
        )
    if report_path is not None:
        report = file_report(suite, session, results, started, time.monotonic() - t0, interrupted)
        if batch is not None:
            report.id = batch.log.batch  # a resumed batch keeps its id

        add_to(report, section)  # the units' uplift is already on their results
        outcome.report_path = await asyncio.to_thread(
            _write, report, report_path, getattr(session, "records", []), base_records
        )
        outcome.report = report
        if batch is not None:
            await batch.log.batch_finished(report, interrupted)
    verdicts = {r.verdict for r in results}  # the baseline's never count
    outcome.exit_code = (
        1 if "ERROR" in verdicts or (exit_on_fail and ("FAIL" in verdicts or outcome.summary_failed)) else 0
    )
    outcome.interrupted = interrupted
    if interrupted:
        raise asyncio.CancelledError()
    return outcome


async def _leftover(
    request: RunRequest,
    suite: Suite,
    units: list[Unit],
    session: Any,
    admission: Admission,
    batch: FileBatch | None,
    inputs: NextRun,
    finished: dict[int, tuple[UnitResult, UnitResult | None]],
) -> None:
    """``--runs auto:MAX`` with ``--max-cost`` / ``--max-tokens``, once every unit stopped: the budget left goes to
    the units still FLAKY after MAX (``adaptive.wants_leftover`` over the runs' own verdicts), one more run of
    each per round, each admitted by the budget on its own, until each is decided or the budget is spent; as a
    package's cases get it (docs/repeats.md). A round that spends nothing ends it (runs the budget cannot
    measure would never use it up). The baseline side gets none."""
    budget = admission.budget
    if not request.runs_auto or (budget.max_cost is None and budget.max_tokens is None):
        return
    extra: dict[int, int] = {}  # a unit's place in the batch → the runs the budget left gave it
    hooks = batch.hooks(None) if batch is not None else None

    async def one(i: int) -> None:
        """One more run of unit ``i``, on a view of the session of its own (``Suite.run_more``)."""
        unit = units[i]
        gate = admission.gate(unit.id, request.agent_model)  # admitted by the budget on its own
        result = await suite.run_more(session, unit, hooks, gate, extra.get(i, 0) + 1)
        if result is None:  # refused by the budget: not a run of the unit (the round spends nothing)
            if extra.get(i):
                finished[i][0].details["stopped"] = "budget"
            return
        extra[i] = extra.get(i, 0) + 1
        await asyncio.to_thread(finish_unit, result, None, inputs)
        finished[i] = (result, finished[i][1])

    while True:
        todo = [
            i
            for i, (result, _base) in sorted(finished.items())
            if wants_leftover(suite.run_verdicts(units[i]), result.details.get("stopped"))
        ]
        if not todo:
            return
        if budget.exhausted() is not None:
            for i in todo:
                if extra.get(i):  # the budget ran out with it still undecided
                    finished[i][0].details["stopped"] = "budget"
            return
        spent = (budget.cost, budget.tokens)
        await all_of(one(i) for i in todo)
        if (budget.cost, budget.tokens) == spent:
            return


def _in_file_order(
    suite: Suite, units: list[Unit], finished: dict[int, tuple[UnitResult, UnitResult | None]]
) -> tuple[list[UnitResult], list[UnitResult]]:
    """Every unit's result in the file's order however they finished (one not run: SKIP, interrupted), and
    with ``--baseline`` the baseline results of those that have one."""
    results = [
        finished[i][0] if i in finished else suite.skipped(unit, "not run: interrupted")
        for i, unit in enumerate(units)
    ]
    bases = [base for i in sorted(finished) if (base := finished[i][1]) is not None]
    return results, bases


async def _run_at_once(
    request: RunRequest,
    suite: Suite,
    units: list[Unit],
    session: Any,
    plan: Any,
    admission: Admission,
    batch: FileBatch | None,
    inputs: NextRun,
    base_records: list[tuple[str, Any]],
    finished: dict[int, tuple[UnitResult, UnitResult | None]],
) -> None:
    """``--jobs N``: N runs at once (:mod:`evalens.runner.scheduling`, the scheduler a package's cases go
    through): every unit is started, each on its own view of the session (its records, its install), and its
    runs wait for a slot in the file's order, a unit's repeats at once unless ``--runs auto`` rules them one
    after another. A unit is admitted by the budget when its first run gets a slot (one in flight may still
    spend past it, as a package's case run does). With ``--baseline`` every unit's own runs go first and then
    every baseline side: the suite knows which side it is running for the whole phase (its result files and
    messages are per side). The run records are merged in the file's order."""
    views: dict[int, Any] = {}
    mains: dict[int, tuple[UnitResult, bool]] = {}

    async def main(i: int, unit: Unit) -> None:
        views[i] = session.for_unit(unit.id)
        mains[i] = await _run_own(request, suite, unit, views[i], admission, batch, inputs)

    try:
        await all_of(main(i, u) for i, u in enumerate(units))
    finally:
        for i in sorted(views):
            session.take_records(views[i])
        if plan is None:  # interrupted: the units that finished keep their results
            finished.update({i: (r, None) for i, (r, _went) in mains.items()})
    if plan is None:
        return
    finished.update({i: (r, None) for i, (r, went) in mains.items() if not went})  # no baseline side
    sides: dict[int, UnitResult] = {}
    taken: dict[int, list[tuple[str, Any]]] = {i: [] for i, (_r, went) in mains.items() if went}

    async def side(i: int, unit: Unit) -> None:
        view = session.for_unit(unit.id)
        try:
            sides[i] = await run_side(
                suite,
                view,
                unit,
                plan,
                admission,
                taken[i],
                kept=batch.kept(suite, unit, plan.label) if batch is not None else None,
                hooks=batch.hooks(plan.label) if batch is not None else None,
            )
        finally:  # its records went to taken[i]; its kept sandboxes are the session's
            session.kept.extend(view.kept)

    suite.baseline = plan.label  # for the whole phase: run_side puts back what it found
    try:
        await all_of(side(i, units[i]) for i in sorted(taken))
    finally:
        suite.baseline = None
        for i in sorted(taken):
            base_records.extend(taken[i])
        finished.update({i: (mains[i][0], sides[i]) for i in sides})


async def _run_own(
    request: RunRequest,
    suite: Suite,
    unit: Unit,
    session: Any,
    admission: Admission,
    batch: FileBatch | None,
    inputs: NextRun,
) -> tuple[UnitResult, bool]:
    """One unit's own runs (those a resumed batch kept are not run again), and whether they went (a baseline
    side follows only then): a unit the budget refuses is SKIP with the reason, a skeleton's placeholder ERROR
    without an agent."""
    why = suite.placeholder_refusal(unit)
    if why is not None:  # a skeleton's placeholder is never judged: ERROR, no agent, no budget spent
        return await suite.refuse(unit, why, batch.hooks(None) if batch is not None else None), False
    kept = batch.kept(suite, unit, None) if batch is not None else {}
    session.unit = unit.id
    try:
        result = await suite.run_unit(
            session,
            unit,
            kept,
            batch.hooks(None) if batch is not None else None,
            admission.gate(unit.id, request.agent_model),
        )
    except Refused as refused:  # the budget is spent: the rest are SKIP with the reason
        if batch is not None:
            await batch.refused(unit, refused.reason, None)
        skipped = suite.skipped(
            unit,
            refused.reason,
            runs=request.runs,
            run_verdicts=["SKIP"] * request.runs if request.runs > 1 else [],
            budget_stopped=request.runs,
        )
        return apply_repeats(skipped), False
    await asyncio.to_thread(finish_unit, result, None, inputs)
    return result, True


async def _run_unit(
    request: RunRequest,
    suite: Suite,
    unit: Unit,
    session: Any,
    plan: Any,
    admission: Admission,
    batch: FileBatch | None,
    inputs: NextRun,
    base_records: list[tuple[str, Any]],
) -> tuple[UnitResult, UnitResult | None]:
    """One unit: its own runs (:func:`_run_own`), then with ``--baseline`` its baseline runs."""
    result, went = await _run_own(request, suite, unit, session, admission, batch, inputs)
    if plan is None or not went:
        return result, None

    base = await run_side(
        suite,
        session,
        unit,
        plan,
        admission,
        base_records,
        kept=batch.kept(suite, unit, plan.label) if batch is not None else None,
        hooks=batch.hooks(plan.label) if batch is not None else None,
    )
    return result, base


def _report_path(request: RunRequest, suite: Suite, started: Any) -> Path | None:
    """Where the batch's report and run log go (a resumed batch: where they went); None: no report."""
    if not request.write_report:
        return None
    return request.resume or allocate_report_path(suite.root, started, request.output)


def _write(
    report: EvalReport,
    path: Path,
    records: list[tuple[str, Any]] | None = None,
    base_records: list[tuple[str, Any]] | None = None,
) -> Path:
    by_unit: dict[str, list[Any]] = {}
    for unit, record in (
        records or []
    ):  # each agent run's record, beside the report (evalens show, the run view)
        by_unit.setdefault(unit, []).append(record)
    attach_records(report, path, by_unit)
    if report.baseline is not None:  # the baseline runs' records: <report>/_baseline/<unit>/
        attach_baseline_records(report.baseline, path, base_records or [])
    # the report's paths are relative to its folder: fix them now that it is known
    for case in report.cases:
        for attr in ("result_file", "artifacts"):
            value = getattr(case, attr)
            if value and Path(value).is_absolute():
                setattr(case, attr, _rel(value, path.parent))
    write_report(report, path)
    return path


def _rel(path: str, base: Path) -> str:
    try:
        return os.path.relpath(path, base)
    except ValueError:
        return path


def unrun_report(request: RunRequest, why: str, format_id: str | None = None) -> EvalReport:
    """The report of a comparison's batch that could not start (its CLI missing, a refused setting): every unit
    it would have run ERROR with the reason, so its column in the matrix and its JUnit suite say so instead of
    vanishing (issue 44), and its exit code stays the refusal's. A file that cannot even be read gives one
    ``(cell)`` unit. Blocking: reads the file."""
    reason = f"the cell did not run: {why}"
    try:
        suite, units = prepare(request, None, format_id)
        root = suite.root
        results = [suite.refused(unit, reason) for unit in units]
    except (UsageError, ValueError, OSError):
        root, results = request.file_path.parent, []
    cases = [report_case_from_result(r, None, root) for r in results]
    if not cases:
        cases = [ReportCase(name="(cell)", verdict="ERROR", error=reason)]
    engine = request.file_engine
    arm = None
    if request.arm:
        try:  # the arm's label for the column: a ref arm that cannot resolve is named as asked
            arm = resolve_arm(request.arm, root).source()
        except ArmError:
            arm = None
    return new_report(
        utc_now(),
        cases,
        ReportConfig(engine=engine),
        agent=ReportAgent(runtime=engine, model=request.agent_model),
        arm=arm,
    )


def file_report(
    suite: Suite, session: Any, results: list[UnitResult], started: Any, duration: float, interrupted: bool
) -> EvalReport:
    """The evalens report of one file run: the same report model as ``evalens eval``, one case per unit."""
    cases = [report_case_from_result(r, None, suite.root) for r in results]
    spec = getattr(suite, "judge_spec", None) or getattr(suite, "spec", None)
    model = next((r.agent_model for r in results if r.agent_model), None)
    return new_report(
        started,
        cases,
        ReportConfig(
            engine=session.engine.name,
            engine_version=session.engine_version,
            judge=spec.model if spec is not None else None,
            timeout=session.timeout,
        ),
        duration=duration,
        agent=ReportAgent(
            runtime=session.engine.name,
            runtime_version=session.engine_version,
            model=model,
            model_provider=session.engine.default_provider,
        ),
        judge=ReportJudge(
            model=spec.model if spec is not None else None,
            model_provider=spec.provider if spec is not None else None,
            choice=(spec.why or None) if spec is not None else None,
            **agreement_fields((j for r in results for j in r.judgements), suite.request.judge_repeats),
        ),
        package=ReportPackage(name=getattr(suite, "skill", None) or suite.root.name),
        interrupted=interrupted,
    )


class FileBatch:
    """A file run's side of the run log (:mod:`evalens.runner.run_log`): the batch's start (or, resuming, the
    runs it keeps), each unit-run's start and finish, with its agent run record written at once beside the
    report (``<report>/<unit>/[run-N/]record.json``) so a kept run keeps its record too."""

    def __init__(self, log: Any, units: list[Unit], runs: int, kept: dict[Any, Any], resumed: Any) -> None:
        self.log = log
        self.units = units
        self.runs = runs
        self._kept = kept  # (side, unit name, run) -> RunFinish
        self.resumed: tuple[int, int] | None = resumed

    @classmethod
    def open(
        cls,
        request: RunRequest,
        suite: Suite,
        units: list[Unit],
        inputs: NextRun,
        report_path: Path,
        started: Any,
        baseline: str | None,
    ) -> FileBatch:
        """Start the log, or resume it (the units the batch planned, found by identity: a unit renamed since
        is the same unit). Raises :class:`UsageError` when the log cannot be resumed. Blocking."""
        root = suite.root.resolve()
        planned = [plan_unit(u.id, suite.file, root, inputs, u.location, suite.format_id) for u in units]
        if request.resume is not None:
            try:
                past = read_log(log_path(request.resume)).start.units
            except NotARunLog as exc:
                raise UsageError(f"cannot resume {request.resume}: {exc}") from None
            mapping = reconcile((p.unit for p in past), (p.unit for p in planned))
            chosen = [i for i, p in enumerate(planned) if key(p.unit) in mapping]
            units, planned = [units[i] for i in chosen], [planned[i] for i in chosen]
        try:
            log, plan = open_units(request, root, planned, report_path, batch_id(started), [None, baseline])
        except ResumeRefused as exc:
            raise UsageError(f"cannot resume {request.resume}: {exc}") from None
        kept: dict[Any, Any] = {}
        resumed = None
        if plan is not None:
            for (side, unit_key, run), done in plan.kept.items():
                name = log.name_of(unit_key)
                if name is not None:
                    kept[(side, name, run)] = done
            resumed = (len(kept), len(plan.todo))
        return cls(log, units, request.runs, kept, resumed)

    def kept(self, suite: Suite, unit: Unit, side: str | None) -> dict[int, Any]:
        """The unit's runs on ``side`` the resumed batch keeps, as unit-runs with their records."""
        out: dict[int, Any] = {}
        for run in range(1, self.runs + 1):
            done = self._kept.get((side, unit.id, run))
            if done is None or done.budget:
                continue
            record = None
            if done.artifacts:
                try:
                    record = load_record(self.log.folder / done.artifacts / RECORD_FILE)
                except (NotARecord, OSError):
                    record = None
            out[run] = KeptRun(logged_run(suite, unit, done), record)
        return out

    def hooks(self, side: str | None) -> _Hooks:
        return _Hooks(self, side)

    def folder(self, unit: Unit, run: int, side: str | None) -> Path:
        """Where a unit-run's record goes: where the report's records of the unit will be."""
        base = self.log.folder / FOLDER if side is not None else self.log.folder
        folder = base / unit_folder_name(unit.id)
        return folder / f"run-{run}" if self.runs > 1 else folder

    async def refused(self, unit: Unit, reason: str, side: str | None) -> None:
        """A unit the budget kept from running: each of its runs finished as a budget SKIP."""
        for run in range(1, self.runs + 1):
            event = self.log.finish_event(
                unit.id,
                run,
                side,
                verdict="SKIP",
                reason=reason,
                error=reason,
                budget=True,
                checks=[],
                judge=None,
                duration=0.0,
                agent_seconds=0.0,
                model=None,
                session_id=None,
                output=None,
                artifacts=None,
                usage=None,
                data=UnitRun("SKIP", reason, AgentResult()).to_data(),
            )
            await in_thread(self.log.writer.write, event)


class _Hooks:
    """The run log's ears on one side of a file batch (:class:`~evalens.runner.suites.base.RunHooks`)."""

    def __init__(self, batch: FileBatch, side: str | None) -> None:
        self.batch, self.side = batch, side

    async def started(self, unit: Unit, run: int) -> None:
        await self.batch.log.run_started(unit.id, run, self.side)

    async def finished(self, unit: Unit, run: int, done: Any, records: list[Any]) -> None:
        folder = None
        if records:
            folder = self.batch.folder(unit, run, self.side)
            await asyncio.to_thread(write_record, records[-1], folder / RECORD_FILE)
        usage = sum_usage([r.usage for r in records]) if records else None
        await self.batch.log.unit_run_finished(unit.id, run, self.side, done, folder, usage)


def logged_run(suite: Suite, unit: Unit, done: Any) -> Any:
    """A unit-run as its ``run-finish`` logged it (:class:`~evalens.core.models.run_log.RunFinish`), back as
    the suite's :class:`~evalens.runner.suites.base.UnitRun`: what ``--resume`` keeps and the log's reader
    combines."""
    checks = [
        UnitCheck(kind=c.kind, value=c.value, status=c.status, detail=c.detail or "", location=c.location)
        for c in done.checks
    ]
    return suite.restored_run(unit, done.verdict, done.reason, checks, done.data)


class LoggedRule:
    """The format's own rule over a logged file batch's runs: the batch's suite, rebuilt from its logged inputs
    and its file, combines a unit's logged runs with :meth:`~evalens.runner.suites.base.Suite.combine`, the
    function the batch's report came from (skilljack's mean-score thresholds, a trigger query's hit rate, the
    graded formats' rule). :func:`evalens.runner.run_log.unit_results` decides each file unit by it."""

    def __init__(self, suite: Suite, units: list[tuple[Any, Unit]], session: Any) -> None:
        self.suite, self.session = suite, session
        self.units = units  # today's units of the file, each with its identity

    @classmethod
    def open(cls, log: Any) -> LoggedRule | None:
        """The rule of ``log``'s batch; None when it is not a file batch or its file cannot be read any more
        (then the log's generic reading stands). Blocking (reads and validates the file)."""
        planned = log.start.units
        if not planned or not names_per_file(planned[0].unit.format):
            return None
        try:
            request = RunRequest.model_validate({**log.start.inputs, "units": []})
            suite, units = prepare(request, None, planned[0].unit.format)
            engine = get_engine(request.file_engine)
        except (UsageError, UnsupportedEngine, OSError, ValueError):
            return None
        root = log.package_root
        today = [(identity(suite.file, u.id, root, u.location, suite.format_id), u) for u in units]
        version = next((p.fingerprint.get("engine-version") for p in planned if p.fingerprint), None)
        return cls(suite, today, LoggedSession(engine, version))

    def result(self, unit: Any, runs: list[Any]) -> UnitResult | None:
        """The result of the logged unit ``unit`` (its identity as last logged) from its finished ``runs`` (run
        1 first), by the suite's rule; None when today's file no longer has it (renamed in place since: found
        by its content, as :func:`~evalens.runner.unit_identity.reconcile` finds it)."""
        found = reconcile([unit], (now for now, _ in self.units))
        today = next((u for now, u in self.units if key(now) in found), None)
        if today is None:
            return None
        why = self.suite.placeholder_refusal(today)
        if why is not None:  # refused, not run (``_run_unit``): the log's ERROR runs say the same
            return self.suite.refused(today, why)
        result = self.suite.combine(
            self.session, today, [logged_run(self.suite, today, done) for done in runs]
        )
        if self.suite.request.runs_auto:  # the runs it made (past MAX with the budget's leftover runs)
            result.runs = len(runs)
        return result
