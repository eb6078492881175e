"""The suite protocol: a runnable eval file is a suite of units, whatever its format.

A format names its suite (:data:`evalens.runner.suites.SUITES`). A suite lists its units from the parsed file,
runs one unit through the shared agent session (:mod:`evalens.runner.session`), checks and judges it and returns
one :class:`~evalens.runner.results.UnitResult` (check locations as data); ``finish`` writes the format's own
result files; ``restore`` reads past results back from them. :func:`evalens.runner.api.run_file` drives a suite
and writes the evalens report of the batch.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from evalens.core.documents import ParsedDocument
from evalens.core.formats.registry import all_formats
from evalens.core.models.run_record import sum_usage
from evalens.core.placeholders import placeholder_problems, refusal
from evalens.core.regular_files import read_regular_bytes
from evalens.core.units import Unit, read_doc
from evalens.runner.adaptive import StopReason, decided, stop_after
from evalens.runner.api_types import SNIPPET_CHARS, RunRequest
from evalens.runner.results import UnitCheck, UnitResult, Verdict, apply_repeats
from evalens.runner.scheduling import Admission, Gate, Refused, all_of
from evalens.runner.session import AgentResult, AgentSession, UsageError
from evalens.runner.verdicts import count_passed, counted

__all__ = [
    "FileRunRequest",
    "KeptRun",
    "LoggedSession",
    "ParsedDocument",
    "Ran",
    "Restored",
    "Suite",
    "SuiteSummary",
    "Unit",
    "UnitRun",
    "UsageError",
    "installed_skill",
    "read_json",
    "skill_root_of",
]


#: The name ``evalens run FILE``'s callers knew (a public API): the one request, for a file.
FileRunRequest = RunRequest


@dataclass
class SuiteSummary:
    """How the whole file did, in the format's own terms (thresholds, precision / recall)."""

    lines: list[str] = field(default_factory=list)
    failed: bool = False  # the format's own pass rule failed (on top of the units' verdicts)
    result_file: Path | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Restored:
    """A unit's result read back from a result file."""

    result: UnitResult
    path: str
    mtime: float


Progress = Callable[[str, str, bool], None]  # (unit id, message, is a run's outcome line)

AGENT_OUTPUT_CHARS = 64_000  # the agent's output a unit-run keeps in the run log (its results files quote it)


@dataclass
class UnitRun:
    """One run of a unit (a unit-run): its verdict on its own, why, its checks, the agent's result and the
    format's own figures of the run (``figures``: JSON values, what :meth:`Suite.combine` needs beside the
    agent's result: skilljack's scores, which skill fired, the grading file). The run log keeps it as one
    ``run-finish`` event, so ``--resume`` combines a restored run exactly as a fresh one."""

    verdict: Verdict
    reason: str
    res: AgentResult
    checks: list[UnitCheck] = field(default_factory=list)
    seconds: float = 0.0
    figures: dict[str, Any] = field(default_factory=dict)
    judge: tuple[str, str, str | None] | None = None  # (PASS/FAIL/ERROR, reason, model) when a judge ruled

    def to_data(self) -> dict[str, Any]:
        """What the run log keeps beyond the verdict and checks (read back by :meth:`Suite.restored_run`)."""
        return {"agent": agent_data(self.res), "seconds": round(self.seconds, 3), "figures": self.figures}


@dataclass
class KeptRun:
    """A finished run a resumed batch keeps: the unit-run and its agent run record (None: none was kept)."""

    run: UnitRun
    record: Any = None


@dataclass
class _Made:
    """A run of a unit that finished (or was kept), with what it leaves in the session: its agent run records
    and the sandboxes it kept."""

    run: UnitRun
    records: list[tuple[str, Any]]
    kept: list[str]


def _in_order(made: dict[int, _Made]) -> list[UnitRun]:
    """The unit-runs made so far, run 1 first."""
    return [made[number].run for number in sorted(made)]


class Ran(Protocol):
    """What :meth:`Suite.combine` reads of the session its runs ran in: a live :class:`AgentSession`, or a batch
    read back from its run log (:class:`LoggedSession`), so one rule decides both."""

    @property
    def engine(self) -> Any: ...

    @property
    def engine_version(self) -> str | None: ...

    @property
    def kept(self) -> list[str]: ...


@dataclass
class LoggedSession:
    """The session a logged batch ran in, as its log tells it: the engine and its version, no sandbox kept."""

    engine: Any
    engine_version: str | None = None
    kept: list[str] = field(default_factory=list)


class RunHooks(Protocol):
    """Who hears each unit-run start and finish (the batch's run log)."""

    async def started(self, unit: Unit, run: int) -> None: ...

    async def finished(self, unit: Unit, run: int, done: UnitRun, records: list[Any]) -> None: ...


def agent_data(res: AgentResult) -> dict[str, Any]:
    """The agent's result as JSON values (the workspace itself is gone by now)."""
    return {
        "output": res.output[:AGENT_OUTPUT_CHARS],
        "skills": list(res.skills),
        "tools": list(res.tools),
        "error": res.error,
        "duration_ms": res.duration_ms,
        "cost_usd": res.cost_usd,
        "turns": res.turns,
        "workspace_files": list(res.workspace_files),
        "exit_code": res.exit_code,
        "model": res.model,
        "api_status": res.api_status,
        "retries": list(res.retries),
    }


def agent_from_data(data: Any) -> AgentResult:
    """:func:`agent_data` read back (unknown or missing keys left at their defaults)."""
    if not isinstance(data, dict):
        return AgentResult()
    names = set(AgentResult.__dataclass_fields__) - {"workspace", "activations"}
    return AgentResult(**{k: v for k, v in data.items() if k in names})


class Suite(ABC):
    """One runnable format's suite; an instance lives for one run of one file."""

    format_ids: ClassVar[tuple[str, ...]]
    needs_judge: ClassVar[bool] = False  # graded formats cannot run without their grader
    repeats_judge: ClassVar[bool] = False  # --judge-repeats K: the suite judges each run K times
    judge_repeats_refusal: ClassVar[str] = "this format's runs have no judge evalens can ask again yet"

    @classmethod
    def judge_repeats_refused(cls, request: RunRequest) -> str | None:
        """Why ``--judge-repeats`` above 1 cannot be honoured for ``request`` (None: it can). Said before anything
        runs (:func:`evalens.runner.run_file.prepare`), never silently ignored."""
        return None if cls.repeats_judge else cls.judge_repeats_refusal

    @classmethod
    def rejudge_refused(cls, request: RunRequest) -> str | None:
        """Why a finished batch of this format cannot be judged again from its run log (``evalens rejudge``;
        None: it can). A judge evalens can ask again for a repeat it can ask again for a logged run, since a
        run's log keeps what that judge reads (the agent's output, the skills it loaded, its workspace's file
        names: :func:`agent_data`)."""
        return cls.judge_repeats_refused(request)

    def open_judge(self) -> Any:
        """Resolve the judge the suite's runs are judged by (None: none of its units asks one), as
        :meth:`session` does before any agent starts; ``evalens rejudge`` calls it without a session."""
        raise UsageError(self.judge_repeats_refusal)

    def write_files_to(self, folder: Path) -> None:
        """Write the format's own files of this run (its grading files) under ``folder`` instead of where a batch
        writes them: a re-judge (``evalens rejudge``) never overwrites the files of the batch it judges again.
        A format whose files are always new (skilljack's timestamped results) keeps its place."""
        return None

    async def rejudge_run(self, unit: Unit, run: int, done: UnitRun) -> UnitRun:
        """Run ``run`` of ``unit`` judged again from what its run log kept (``done``, :meth:`restored_run`), no
        agent started: the same verdict rule as :meth:`run_once`. A run the judge does not decide (its agent
        failed, nothing to judge) comes back as it was."""
        return done

    def __init__(
        self,
        request: FileRunRequest,
        format_id: str,
        progress: Progress | None = None,
        doc: ParsedDocument | None = None,
    ) -> None:
        self.request = request
        self.format_id = format_id
        self.file = request.file_path
        self._progress = progress
        self.doc = doc if doc is not None else read_doc(self.file, format_id)
        """The file's positioned parse from :mod:`evalens.core` (the one validation read): units come from it,
        never from a second parse of the file."""
        self.baseline: str | None = (
            None  # set while a --baseline run of a unit goes (its label): no side effects
        )
        self._made: dict[str, dict[int, _Made]] = {}  # each unit's runs (its own side): for the budget left
        self.load()

    @abstractmethod
    def load(self) -> None:
        """Read the suite's own state from the parsed file and the request (a suite's constructor)."""

    def unit_result(
        self,
        session: Ran,
        name: str,
        location: list[str | int],
        runs: Sequence[Any],
        shown: Any,
        model: str | None = None,
        **fields: Any,
    ) -> UnitResult:
        """A unit's result in this suite's file, with what every suite says of its agent runs (``runs``, the
        agent results; ``shown``, the one whose output and model the result shows; ``model``, the model asked
        for when the engine named none): their time, the engine, model, output snippet, exit code, kept
        sandbox."""
        return UnitResult(
            name=name,
            format=self.format_id,
            case_file=str(self.file),
            location=location,
            agent_seconds=round(sum(r.duration_ms for r in runs) / 1000, 3),
            engine=session.engine.name,
            engine_version=session.engine_version,
            agent_model=shown.model or model or self.request.agent_model,
            output_snippet=shown.output[:SNIPPET_CHARS] or None,
            exit_code=shown.exit_code,
            runs=self.request.runs,
            sandbox_path=session.kept[-1] if session.kept else None,
            **fields,
        )

    def placeholder_refusal(self, unit: Unit) -> str | None:
        """Why ``unit`` is not run: a text its judge or grader would read (``Format.judged_keys``) is still a
        skeleton's placeholder. Judged, it measured nothing and passed (issue 45 #5), so the runner refuses it
        whatever the ``skeleton-placeholder`` rule's level; None: the unit runs."""
        fmt = next((f for f in all_formats() if f.id == self.format_id), None)  # loads every format module
        if fmt is None or (self.request.no_judge and not self.needs_judge):
            return None
        at = list(unit.location)
        for problem in placeholder_problems(self.doc, fmt.judged_keys):
            path = list((problem.data or {}).get("path", []))
            if path[: len(at)] == at:
                field = ".".join(str(p) for p in path[len(at) :]) or ".".join(str(p) for p in path)
                return refusal(field, str((problem.data or {}).get("placeholder", "")))
        return None

    async def refuse(self, unit: Unit, reason: str, hooks: RunHooks | None = None) -> UnitResult:
        """A unit the runner will not run (:meth:`placeholder_refusal`): each of its runs ends ERROR with the
        reason, no agent started, and the run log hears each run as it would a real one."""
        for number in range(1, self.request.runs + 1):
            if hooks is not None:
                await hooks.started(unit, number)
                await hooks.finished(unit, number, UnitRun("ERROR", reason, AgentResult(error=reason)), [])
        return self.refused(unit, reason)

    def refused(self, unit: Unit, reason: str) -> UnitResult:
        """The result of a refused unit, also as the run log's reader rebuilds it (``run_file.LoggedRule``)."""
        runs = self.request.runs
        return apply_repeats(
            UnitResult(
                name=unit.id,
                format=self.format_id,
                case_file=str(self.file),
                location=unit.location,
                verdict="ERROR",
                reason=reason,
                error=reason,
                runs=runs,
                run_verdicts=["ERROR"] * runs if runs > 1 else [],
            )
        )

    def skipped(self, unit: Unit, reason: str, **fields: Any) -> UnitResult:
        """A unit that did not run (the budget spent, the batch interrupted): SKIP with the reason."""
        return UnitResult(
            name=unit.id,
            format=self.format_id,
            case_file=str(self.file),
            location=unit.location,
            verdict="SKIP",
            reason=reason,
            error=reason,
            **fields,
        )

    def say(self, unit: str, message: str, outcome: bool = False) -> None:
        """Progress: a note, or (``outcome``) the line that says how one run of a unit went (a baseline run's
        line names its baseline)."""
        if self._progress is not None:
            self._progress(
                unit, f"[{self.baseline}] {message}" if self.baseline and message else message, outcome
            )

    def compare(self, results: list[UnitResult], bases: list[UnitResult], label: str) -> SuiteSummary:
        """With ``--baseline``: the format's own figures with and without (lines, and ``details`` for the
        report's ``baseline.metrics``)."""
        return SuiteSummary()

    @property
    def root(self) -> Path:
        """The folder the suite belongs to; its evalens reports go to ``<root>/evals/reports/``."""
        return skill_root_of(self.file)

    @abstractmethod
    def units(self) -> list[Unit]:
        """The units of the file (all of them; the API filters by ``request.units``)."""

    def dry_run(self, units: list[Unit]) -> list[str]:
        """What would run, one line per unit (``--dry-run``)."""
        return [f"{u.id}\t{'/'.join(str(p) for p in u.location)}" for u in units]

    @abstractmethod
    async def session(self, units: list[Unit] | None = None) -> AgentSession:
        """The agent session for this run (preflight done: raises :class:`UsageError` before any agent)."""

    @abstractmethod
    async def run_once(self, session: AgentSession, unit: Unit, run: int) -> UnitRun:
        """Run the unit once (run ``run`` of ``request.runs``), check and judge that run: one unit-run."""

    @abstractmethod
    def combine(self, session: Ran, unit: Unit, runs: list[UnitRun]) -> UnitResult:
        """The unit's result from its runs (run 1 first), by the format's own rule. Pure but for the format's
        own bookkeeping (skilljack keeps its runs for its results file); also what the run log's reader
        (``run_log.unit_results``) decides a logged unit by."""

    async def run_unit(
        self,
        session: AgentSession,
        unit: Unit,
        kept: dict[int, KeptRun] | None = None,
        hooks: RunHooks | None = None,
        gate: Gate | None = None,
    ) -> UnitResult:
        """Run one unit ``request.runs`` times, each run one unit-run (``hooks`` hear each start and finish: the
        run log), then combine them. ``kept``: runs a resumed batch already finished (by run number), used as
        they are and not run again.

        Each run holds one of the batch's slots (``gate``: the scheduler every format shares,
        :mod:`evalens.runner.scheduling`; None: a batch of its own, one run at a time). With ``--jobs`` above 1
        the unit's runs go at once, as a package's case runs do, each on its own view of the session; ``--runs
        auto`` runs them one after another, since each run decides whether another starts. Either way the runs'
        records and kept sandboxes go back into ``session`` in run order. Raises
        :class:`~evalens.runner.scheduling.Refused` when the budget was spent before the unit's first run."""
        gate = gate if gate is not None else Admission(1).gate(unit.id, self.request.agent_model)
        made: dict[int, _Made] = {}
        refused = False
        numbers = range(1, self.request.runs + 1)
        try:
            if gate.parallel and not self.request.runs_auto:
                await all_of(
                    self._run_numbered(session, unit, n, kept or {}, hooks, gate, made) for n in numbers
                )
            else:
                for number in numbers:
                    await self._run_numbered(session, unit, number, kept or {}, hooks, gate, made)
                    if self.request.runs_auto and self._decided(_in_order(made), number) is not None:
                        break  # --runs auto: decided (a resumed batch's kept runs count too)
        except Refused:
            refused = True  # nothing of the unit counts: every run of it is SKIP
            raise
        finally:
            if not refused:  # interrupted too: the runs that finished keep their records
                for number in sorted(made):
                    session.records.extend(made[number].records)
                    session.kept.extend(made[number].kept)
        if not self.baseline:
            self._made[unit.id] = made
        runs = _in_order(made)
        return self._result(session, unit, made, self._decided(runs, len(runs)) or "max-reached")

    def _result(
        self, session: Ran, unit: Unit, made: dict[int, _Made], stopped: str, extra: int = 0
    ) -> UnitResult:
        """The unit's result from the runs it made, by the format's rule; under ``--runs auto`` with the runs it
        made, why it made no more and (``extra``) how many came from the budget left (docs/repeats.md)."""
        runs = _in_order(made)
        result = self.combine(session, unit, runs)
        if self.request.runs_auto:
            result.runs = len(runs)
            result.details["stopped"] = stopped
            if extra:
                result.details["leftover_runs"] = extra
        if result.usage is None:  # what the unit's agent runs spent, from their records
            result.usage = sum_usage([rec.usage for n in sorted(made) for _, rec in made[n].records])
        return result

    def run_verdicts(self, unit: Unit) -> list[Verdict]:
        """The verdicts of the runs ``unit`` made on its own side, run 1 first (none: it did not run)."""
        return [r.verdict for r in _in_order(self._made.get(unit.id, {}))]

    async def run_more(
        self, session: AgentSession, unit: Unit, hooks: RunHooks | None, gate: Gate, extra: int
    ) -> UnitResult | None:
        """``--runs auto:MAX`` with a budget, once every unit stopped: one more run of ``unit`` beyond the runs it
        made (``gate``: admitted by the budget on its own, as a package's leftover run is), then the unit's result
        again by the format's rule, ``extra`` counting this one. None: the budget refused it (not a run)."""
        made = self._made.get(unit.id)
        if not made:
            return None
        number = max(made) + 1
        try:
            await self._run_numbered(session, unit, number, {}, hooks, gate, made)
        except Refused:
            return None
        session.records.extend(made[number].records)
        session.kept.extend(made[number].kept)
        runs = _in_order(made)
        why = decided(
            count_passed([r.verdict for r in runs]),
            sum(counted(r.verdict) for r in runs),
            len(runs),
            self.request.runs_threshold,
        )
        return self._result(session, unit, made, why or "max-reached", extra)

    async def _run_numbered(
        self,
        session: AgentSession,
        unit: Unit,
        number: int,
        kept: dict[int, KeptRun],
        hooks: RunHooks | None,
        gate: Gate,
        made: dict[int, _Made],
    ) -> None:
        """Run ``number`` of ``unit`` in a slot of ``gate``, on a view of ``session`` of its own (so runs in flight
        never take each other's records); a kept run is taken as it is, its spending counted."""
        done = kept.get(number)
        if done is not None:
            records = [(unit.id, done.record)] if done.record is not None else []
            gate.spend(rec for _, rec in records)
            made[number] = _Made(done.run, records, [])
            return
        async with gate.run():
            view = session.for_unit(unit.id, number)
            if hooks is not None:
                await hooks.started(unit, number)
            one = await self.run_once(view, unit, number)
            if hooks is not None:
                await hooks.finished(unit, number, one, [rec for _, rec in view.records])
            gate.spend(rec for _, rec in view.records)
        made[number] = _Made(one, view.records, view.kept)

    def _decided(self, runs: list[UnitRun], made: int) -> StopReason | None:
        """``--runs auto:MAX``: why no further run of the unit should start (runner/adaptive.py), or None."""
        return stop_after([r.verdict for r in runs], made, self.request.runs, self.request.runs_threshold)

    def restored_run(
        self, unit: Unit, verdict: Verdict, reason: str, checks: list[UnitCheck], data: Any
    ) -> UnitRun:
        """A unit-run the run log says finished (``--resume``), as :meth:`run_once` returned it: the agent's
        result and the format's figures from the run's ``data`` (:meth:`UnitRun.to_data`)."""
        data = data if isinstance(data, dict) else {}
        return UnitRun(
            verdict=verdict,
            reason=reason,
            res=agent_from_data(data.get("agent")),
            checks=checks,
            seconds=float(data.get("seconds") or 0.0),
            figures=dict(data.get("figures") or {}),
        )

    def finish(self, results: list[UnitResult]) -> SuiteSummary:
        """Write the format's own result files; say how the whole file did."""
        return SuiteSummary()

    @classmethod
    def anchored_options(cls, file: Path) -> dict[str, Any]:
        """Request options a batch started away from the suite's folder needs to write where one started in it
        would: the editor's server runs in no folder of the user's, so a default relative to the working
        directory (skilljack's ``./results``) would land somewhere else. Blocking (reads the suite's config)."""
        return {}

    @classmethod
    def restore(cls, format_id: str, file: Path, data: Any) -> dict[str, Restored]:
        """Unit id → its newest result from the format's own result files."""
        return {}

    @classmethod
    def result_files(cls, format_id: str, file: Path) -> list[Path]:
        """The format's own result files for ``file``, newest first."""
        return []

    @classmethod
    def result_folder(cls, format_id: str, file: Path) -> Path | None:
        """The folder new result files appear in (watched for changes)."""
        return None


def skill_root_of(file: Path) -> Path:
    """The skill an eval file belongs to: nearest ancestor with a SKILL.md, else the parent of ``evals/``."""
    for parent in file.resolve().parents:
        if (parent / "SKILL.md").is_file() or (parent / "skill.md").is_file():
            return parent
    return file.parent.parent if file.parent.name == "evals" else file.parent


def installed_skill(root: Path, name: str | None) -> dict[str, Path]:
    """The skill at ``root`` as the session installs it: name → its SKILL.md."""
    md = next((root / n for n in ("SKILL.md", "skill.md") if (root / n).is_file()), None)
    return {name or root.name: md} if md else {}


def read_json(path: Path, limit: int = 64 << 20) -> Any:
    """A result file's data (a results JSON, ``history.json``, a grading file: what tools wrote, never an eval
    file, which comes from :func:`evalens.core.units.read_doc`), or None (only regular files are opened, never
    a FIFO; deep nesting is no crash)."""
    raw = read_regular_bytes(path, limit)
    if raw is None:
        return None
    if len(raw) > limit:
        return None
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None


def newest_first(paths: list[Path], limit: int = 30) -> list[Path]:
    """Result files, newest first (bounded): restoring reads only the recent ones."""
    stamped = []
    for p in paths:
        try:
            stamped.append((p.stat().st_mtime_ns, str(p), p))
        except OSError:
            continue
    stamped.sort(reverse=True)
    return [p for *_, p in stamped[:limit]]
