"""The run log of a batch: one JSON line per event, appended as it happens, inside the report's folder.

Writing (:class:`RunLogWriter`): each event is one line, written with one ``write`` and made durable (flush +
fsync) before the batch goes on, so a batch killed at any moment leaves every event it had finished and at most
one torn last line. Appending again (``--resume``) first cuts such a torn tail off, so a torn line is never
followed by another.

Reading (:func:`read_log`): a torn last line (no newline, or not an event) is ignored; a bad line anywhere else
means the file is not a run log. :func:`unit_results` rebuilds the units' results from the log alone (the report
written at the end agrees with it); :func:`resume_plan` says which runs finished and which must run again.

Modelled on Inspect AI's log (a header with the eval's spec, then one record per sample as it completes, samples
reused by a stable id and epoch on retry), in evalens's terms: the header is the batch's inputs and their
fingerprint, a sample is a unit run keyed by the unit's identity (:mod:`evalens.runner.unit_identity`) and run.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalens.core.models.run_log import (
    LOG_FILE,
    BatchFinish,
    BatchResume,
    BatchStart,
    LogJudge,
    LogUnit,
    PlannedUnit,
    RunFinish,
    RunLogLine,
    RunStart,
)
from evalens.core.models.run_record import sum_usage
from evalens.core.regular_files import LinkRefused
from evalens.runner.agent_process import in_thread
from evalens.runner.depends import fingerprint_of
from evalens.runner.fingerprint import Fingerprint, changes
from evalens.runner.judge import JudgeOutcome
from evalens.runner.record import RECORD_FILE, NotARecord, load_record
from evalens.runner.report import iso, utc_now
from evalens.runner.results import UnitCheck, UnitResult, apply_repeats, report_checks
from evalens.runner.suites import PACKAGE_FORMAT
from evalens.runner.unit_identity import identity, key, reconcile
from evalens.runner.verdicts import combine_runs

RunKey = tuple[str | None, str, int]  # (side, unit key, run number)
NOT_INPUTS = ("cases", "units", "jobs")  # the selection is the planned units; parallelism changes no verdict


class NotARunLog(ValueError):
    """The file cannot be read as a run log; the message is one line a user can act on."""


def log_path(report_path: Path) -> Path:
    """Where a report's run log is: its folder (the report's path without ``.json``) / ``run-log.jsonl``."""
    return report_path.with_suffix("") / LOG_FILE


def find_log(target: Path) -> Path:
    """The run log for ``--resume TARGET``: a report folder, its report file, or the log itself."""
    if target.is_file() and target.name == LOG_FILE:
        return target
    folder = target.with_suffix("") if target.suffix == ".json" else target
    return folder / LOG_FILE


class RunLogWriter:
    """Appends events to one run log; every event is durable once :meth:`write` returns. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:  # never through a link: a resumed batch's folder may be the repository's (#42)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LinkRefused(
                    0, f"{path} is a symbolic link; evalens does not write through links"
                ) from None
            raise
        _cut_torn_tail(self._fd, path)

    def write(self, event: Any) -> None:
        """One event as one line: a single ``write`` of the whole line, then fsync."""
        line = (event.model_dump_json(by_alias=True, exclude_none=True) + "\n").encode("utf-8")
        with self._lock:
            if self._fd < 0:
                return
            view = memoryview(line)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def _cut_torn_tail(fd: int, path: Path) -> None:
    """A line a killed batch left half-written is removed before anything is appended after it."""
    size = os.fstat(fd).st_size
    if size == 0:
        return
    with open(path, "rb") as fh:
        data = fh.read()
    keep = data.rfind(b"\n") + 1
    if keep != len(data):
        os.ftruncate(fd, keep)
        os.fsync(fd)


@dataclass
class RunLog:
    """A run log as read: its events in order and what they add up to."""

    path: Path
    start: BatchStart
    events: list[Any] = field(default_factory=list)
    torn: bool = False  # the last line was half-written (ignored)

    @property
    def finished(self) -> dict[RunKey, RunFinish]:
        """Every run that finished, by (side, unit key, run); a later line for the same run wins."""
        return {(e.side, key(e.unit), e.run): e for e in self.events if isinstance(e, RunFinish)}

    @property
    def started(self) -> set[RunKey]:
        return {(e.side, key(e.unit), e.run) for e in self.events if isinstance(e, RunStart)}

    @property
    def end(self) -> BatchFinish | None:
        """The batch's last end, unless a resume came after it."""
        last = None
        for event in self.events:
            if isinstance(event, BatchFinish):
                last = event
            elif isinstance(event, BatchResume):
                last = None
        return last

    @property
    def package_root(self) -> Path:
        return Path(self.start.package_root)


def read_log(path: Path) -> RunLog:
    """Read a run log; a torn last line is ignored. Raises :class:`NotARunLog` (one line) otherwise."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise NotARunLog(f"cannot read {path}: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # the text after the last newline is torn (or empty)
    events: list[Any] = []
    torn = bool(tail.strip())
    for number, raw in enumerate(complete, start=1):
        if not raw.strip():
            continue
        try:
            events.append(RunLogLine.model_validate_json(raw).root)
        except (ValidationError, ValueError) as exc:
            if number == len(complete) and not torn:  # the last whole line; a kill between write and newline
                torn = True
                continue
            first = str(exc).splitlines()[0]
            raise NotARunLog(f"{path}:{number}: not a run log event ({first})") from None
    if not events or not isinstance(events[0], BatchStart):
        raise NotARunLog(f"{path}: not a run log (it does not start with the batch's start)")
    return RunLog(path=path, start=events[0], events=events[1:], torn=torn)


# --------------------------------------------------------------------------- the batch's inputs


def request_inputs(request: Any) -> dict[str, Any]:
    """The request fields a resume runs with (JSON values): everything but where it runs and what it writes.
    A relative path is made absolute, so a resume from another folder finds the same files."""
    absolute = {
        name: [str(p.absolute()) for p in value] if isinstance(value, list) else str(value.absolute())
        for name, value in request
        if isinstance(value, Path)
        or (isinstance(value, list) and value and all(isinstance(p, Path) for p in value))
    }
    dumped = request.model_dump(
        mode="json",
        exclude={"package_root", "budget", "output", "report", "write_report", "dry_run", "resume"},
    )
    return {**dumped, **{k: v for k, v in absolute.items() if k in dumped}}


# A file request's options under the names they had before RunOptions gave both requests one name each
_FILE_NAMES_BEFORE = {"agent_model": "model", "judge": "judge_model", "timeout": "timeout_seconds"}


def _before_shared_names(inputs: dict[str, Any]) -> dict[str, Any]:
    """``inputs`` of a file batch as an evalens before issue 41's RunOptions recorded them, so a batch it
    started can still be resumed (a UAAPS batch's names did not change)."""
    if inputs.get("file") is None:
        return inputs
    return {_FILE_NAMES_BEFORE.get(k, k): v for k, v in inputs.items()}


def _as_logged(request: Any, inputs: dict[str, Any], logged: dict[str, Any]) -> dict[str, Any]:
    """``inputs`` without the options the batch's log does not record where they hold their defaults: an
    option added to the request since the batch started (``--runs auto``'s for a file, say) changes nothing
    it ran, so the batch still resumes; one set to anything else is a changed input."""
    fields = type(request).model_fields

    def unset(name: str, value: Any) -> bool:
        field = fields.get(name)
        return field is not None and value == field.get_default(call_default_factory=True)

    return {k: v for k, v in inputs.items() if k in logged or not unset(k, v)}


def fingerprint(inputs: dict[str, Any], units: Sequence[PlannedUnit]) -> str:
    """One hash of the inputs that decide verdicts and of every planned unit's fingerprint (by file and content,
    not name: a rename is not a change)."""
    body = {
        "inputs": {k: v for k, v in sorted(inputs.items()) if k not in NOT_INPUTS},
        "units": sorted(
            json.dumps({"file": u.unit.file, "location": u.unit.location, **u.fingerprint}, sort_keys=True)
            for u in units
        ),
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def fingerprint_changes(start: BatchStart, inputs: dict[str, Any], units: Sequence[PlannedUnit]) -> list[str]:
    """What differs between the batch's start and now, in words (empty: the same inputs)."""
    out = [
        f"--{name.replace('_', '-')} {start.inputs.get(name)!r} → {inputs.get(name)!r}"
        for name in sorted(set(start.inputs) | set(inputs))
        if name not in NOT_INPUTS and start.inputs.get(name) != inputs.get(name)
    ]
    mapping = reconcile((u.unit for u in start.units), (u.unit for u in units))
    before = {key(u.unit): u for u in start.units}
    matched = set()
    for now in units:
        was = mapping.get(key(now.unit))
        if was is None:
            out.append(f"{now.unit.name}: not in the batch")
            continue
        matched.add(key(was))
        changed = changes(Fingerprint(before[key(was)].fingerprint), Fingerprint(now.fingerprint))
        out += [f"{now.unit.name}: {what}" for what in changed]
    out += [f"{u.unit.name}: gone" for u in start.units if key(u.unit) not in matched]
    return out


# --------------------------------------------------------------------------- views of the log


@dataclass
class ResumePlan:
    """What ``--resume`` does: the finished runs it keeps (by the current unit's key) and the runs it runs."""

    kept: dict[RunKey, RunFinish]
    todo: list[RunKey]


def resume_plan(log: RunLog, units: Iterable[LogUnit]) -> ResumePlan:
    """The batch's runs as of the log, for today's ``units`` (renamed units reconciled): a run that finished is
    kept, any other (never started, or started and cut short) runs again. Pure."""
    units = list(units)
    mapping = reconcile((u.unit for u in log.start.units), units)
    finished = log.finished
    kept: dict[RunKey, RunFinish] = {}
    todo: list[RunKey] = []
    for unit in units:
        was = mapping.get(key(unit))
        for side in log.start.sides():
            for run in range(1, log.start.runs + 1):
                done = finished.get((side, key(was), run)) if was is not None else None
                if done is not None:
                    kept[(side, key(unit), run)] = done
                else:
                    todo.append((side, key(unit), run))
    return ResumePlan(kept=kept, todo=todo)


def past_batches(folder: Path) -> list[Path]:
    """Every batch of a reports folder, newest first: its report, or, for a batch killed before its report, its
    run log. The one listing every reader of past runs walks (the server's memory, the run history)."""
    try:
        reports = {
            p.with_suffix(""): p for p in folder.glob("*.json") if p.is_file() and not p.name.startswith(".")
        }
        logs = [
            d / LOG_FILE
            for d in folder.iterdir()
            if d.is_dir() and d not in reports and (d / LOG_FILE).is_file()
        ]
    except OSError:
        return []
    stamped = []
    for path in [*reports.values(), *logs]:
        try:
            stamped.append((path.stat().st_mtime_ns, path.name, path))
        except OSError:
            continue
    stamped.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [path for *_, path in stamped]


def logged_results(path: Path) -> list[UnitResult]:
    """The units of a batch killed before its report that finished at least one run, rebuilt from its log
    (:func:`unit_results`); none when the file is not a run log."""
    try:
        log = read_log(path)
    except (NotARunLog, OSError, ValueError):
        return []
    return unit_results(log, finished_only=True)


def logged_units(
    log: RunLog, side: str | None = None
) -> list[tuple[PlannedUnit, LogUnit, list[RunFinish | None]]]:
    """Each planned unit of ``log`` on ``side``, under its latest name (a resumed batch's renames followed),
    with its runs' ``run-finish`` events in run order (None: that run never finished; a leftover run of ``--runs
    auto`` past the batch's MAX included): the one reading of a log's runs, for :func:`unit_results` and
    ``evalens rejudge``."""
    aliases: dict[str, str] = {}  # a unit's key after a rename → its key at the batch's start
    for event in log.events:
        if isinstance(event, BatchResume):
            aliases.update({new: aliases.get(old, old) for new, old in event.renamed.items()})
    finished: dict[RunKey, RunFinish] = {}
    names: dict[str, LogUnit] = {}
    for (run_side, unit_key, run), event in log.finished.items():
        planned_key = aliases.get(unit_key, unit_key)
        finished[(run_side, planned_key, run)] = event
        names[planned_key] = event.unit
    for new_key, planned_key in aliases.items():  # renamed since: the latest name, also when no run ran since
        was = next((u.unit for u in log.start.units if key(u.unit) == planned_key), None)
        if was is not None and new_key.startswith(f"{was.file}::"):
            names[planned_key] = was.model_copy(update={"name": new_key[len(was.file) + 2 :]})
    last: dict[str, int] = {}  # --runs auto's leftover runs go past the batch's MAX
    for run_side, planned_key, run in finished:
        if run_side == side:
            last[planned_key] = max(last.get(planned_key, 0), run)
    return [
        (
            planned,
            names.get(key(planned.unit), planned.unit),
            [
                finished.get((side, key(planned.unit), i))
                for i in range(1, max(log.start.runs, last.get(key(planned.unit), 0)) + 1)
            ],
        )
        for planned in log.start.units
    ]


def unit_results(log: RunLog, side: str | None = None, finished_only: bool = False) -> list[UnitResult]:
    """Each planned unit's result, rebuilt from the log alone: its runs combined by the one verdict function,
    a run that never finished counted as SKIP ("not run"). Under each unit's latest name. ``finished_only``:
    leave out the units none of whose runs finished. A file batch's unit whose every run finished is decided
    by its suite's own ``combine`` (:class:`~evalens.runner.run_file.LoggedRule`), as its report was: a rule
    over all the runs (skilljack's mean-score thresholds, a trigger query's hit rate) is not a combination of
    the runs' own verdicts. Blocking (a file batch's file is read)."""
    # cycle: evalens.runner.run_file imports evalens.runner.run_log at load (a file batch writes its log)
    from evalens.runner.run_file import LoggedRule

    rule = LoggedRule.open(log)
    out = []
    for planned, unit, runs in logged_units(log, side):
        verdicts = [r.verdict if r is not None else "SKIP" for r in runs]
        budget = sum(bool(r and r.budget) for r in runs)
        verdict = combine_runs(verdicts, budget)
        real = [r for r in runs if r is not None]
        if finished_only and not real:
            continue
        ruled = (
            rule.result(unit, real) if rule is not None and len(real) == len(runs) and not budget else None
        )
        if ruled is not None:
            ruled.usage = sum_usage([r.usage for r in real])
            ruled.fingerprint = planned.fingerprint or None
            out.append(ruled)
            continue
        main = next((r for r in real if r.verdict == verdict and not r.budget), None) or next(
            (r for r in real if r.verdict == verdict), real[0] if real else None
        )
        result = UnitResult(
            name=unit.name,
            format=unit.format,
            case_file=str((log.package_root / unit.file).resolve()),
            location=list(unit.location),
            verdict=verdict,
            reason=(main.reason if main is not None else "not run"),
            error=main.error if main is not None else "not run",
            duration_seconds=round(sum(r.duration_seconds for r in real), 3),
            agent_seconds=round(sum(r.agent_seconds for r in real), 3),
            checks=[
                UnitCheck(
                    kind=c.kind, value=c.value, status=c.status, detail=c.detail or "", location=c.location
                )
                for c in (main.checks if main is not None else [])
            ],
            judge_verdict=main.judge.verdict if main is not None and main.judge else None,
            judge_reason=main.judge.reason if main is not None and main.judge else None,
            judge_model=main.judge.model if main is not None and main.judge else None,
            agent_model=main.model if main is not None else None,
            output_snippet=main.output if main is not None else None,
            runs=len(runs),  # past the batch's MAX with --runs auto's leftover runs
            run_verdicts=verdicts,
            budget_stopped=budget,
            usage=sum_usage([r.usage for r in real]),
            fingerprint=planned.fingerprint or None,
        )
        out.append(apply_repeats(result))
    return out


# --------------------------------------------------------------------------- the batch driver's side


def planned_units(cases: Iterable[tuple[str, Path]], package_root: Path, inputs: Any) -> list[PlannedUnit]:
    """Each UAAPS case to run (name, file) with its identity and fingerprint (``inputs``: the next run's
    :class:`~evalens.runner.depends.NextRun`). Blocking (hashes files)."""
    return [plan_unit(name, file, package_root, inputs) for name, file in cases]


def plan_unit(
    name: str,
    file: Path,
    package_root: Path,
    inputs: Any,
    location: Sequence[str | int] = (),
    fmt: str = PACKAGE_FORMAT,
) -> PlannedUnit:
    """A unit to run (``name`` at ``location`` in ``file``) with its identity and fingerprint, any format.
    Blocking (hashes files)."""
    fp = fingerprint_of(_Where(case_file=str(file), location=list(location), format=fmt), inputs)
    return PlannedUnit(
        unit=identity(file, name, package_root, location, fmt),
        fingerprint=fp.to_json() if fp is not None else {},
    )


@dataclass
class _Where:
    """Where a unit is written: all :func:`~evalens.runner.depends.fingerprint_of` reads of a result."""

    case_file: str
    location: list[str | int]
    format: str


class ResumeRefused(ValueError):
    """``--resume`` cannot go on: the log is missing or unreadable, the batch ended, or its inputs changed."""


class BatchLog:
    """The UAAPS driver's handle on its batch's run log: it names units by their identity and writes each
    event off the event loop (durable before the batch goes on)."""

    def __init__(
        self, writer: RunLogWriter, units: Sequence[PlannedUnit], package_root: Path, batch: str
    ) -> None:
        self.writer = writer
        self.units = {u.unit.name: u.unit for u in units}
        self.package_root = package_root
        self.folder = writer.path.parent
        self.batch = batch  # the batch's id (the report's), kept by a resume

    def name_of(self, unit_key: str) -> str | None:
        """The current name of the unit with this key."""
        return next((name for name, unit in self.units.items() if key(unit) == unit_key), None)

    async def _write(self, event: Any) -> None:
        await in_thread(self.writer.write, event)

    async def run_started(self, name: str, run: int, side: str | None) -> None:
        await self._write(RunStart(event="run-start", time=_now(), unit=self.units[name], run=run, side=side))

    async def run_finished(self, name: str, run: int, side: str | None, rec: Any) -> None:
        """A finished run of the UAAPS driver (its ``_RunRecord``) as a ``run-finish`` event."""
        judge = rec.judge
        event = self.finish_event(
            name,
            run,
            side,
            verdict=rec.verdict,
            reason=rec.reason or "",
            error=rec.error,
            budget=bool(rec.budget),
            checks=rec.checks,
            judge=(judge.verdict, judge.reason, judge.model, judge.provider) if judge is not None else None,
            duration=rec.duration,
            agent_seconds=rec.agent_seconds,
            model=rec.model,
            session_id=rec.session_id,
            output=rec.output,
            artifacts=rec.artifacts,
            usage=rec.record.usage if rec.record is not None else None,
        )
        await in_thread(self.writer.write, event)

    async def unit_run_finished(
        self, name: str, run: int, side: str | None, done: Any, artifacts: Path | None, usage: Any
    ) -> None:
        """A finished unit-run of a file suite (:class:`~evalens.runner.suites.base.UnitRun`) as a ``run-finish``
        event, with what combining it again needs (``data``)."""
        judge = (*done.judge, None) if done.judge is not None else None
        event = self.finish_event(
            name,
            run,
            side,
            verdict=done.verdict,
            reason=done.reason,
            error=done.reason if done.verdict == "ERROR" else None,
            budget=False,
            checks=done.checks,
            judge=judge,
            duration=done.seconds,
            agent_seconds=done.res.duration_ms / 1000,
            model=done.res.model,
            session_id=None,
            output=done.res.output,
            artifacts=artifacts,
            usage=usage,
            data=done.to_data(),
        )
        await in_thread(self.writer.write, event)

    def finish_event(
        self,
        name: str,
        run: int,
        side: str | None,
        *,
        verdict: str,
        reason: str,
        error: str | None,
        budget: bool,
        checks: Sequence[Any],
        judge: tuple[str, str, str | None, str | None] | None,
        duration: float,
        agent_seconds: float,
        model: str | None,
        session_id: str | None,
        output: str | None,
        artifacts: Path | None,
        usage: Any,
        data: dict[str, Any] | None = None,
    ) -> RunFinish:
        """The one ``run-finish`` event, whichever driver ran the unit."""
        return RunFinish(
            event="run-finish",
            time=_now(),
            unit=self.units[name],
            run=run,
            side=side,
            verdict=verdict,  # type: ignore[arg-type]
            reason=reason,
            error=error,
            budget=budget,
            checks=report_checks(list(checks)),
            judge=LogJudge(verdict=judge[0], reason=judge[1], model=judge[2], provider=judge[3])  # type: ignore[arg-type]
            if judge is not None
            else None,
            duration_seconds=round(duration, 3),
            agent_seconds=round(agent_seconds, 3),
            model=model,
            session_id=session_id,
            output=output[:500] if output else None,
            artifacts=Path(os.path.relpath(artifacts, self.folder)).as_posix()
            if artifacts is not None
            else None,
            usage=usage,
            data=data,
        )

    async def batch_finished(self, report: Any, interrupted: bool) -> None:
        """The end, with each unit's verdict as the report has it (a reader can check the two agree)."""
        verdicts = {}
        for case in report.cases:
            unit = self.units.get(case.name)
            if unit is not None:
                verdicts[key(unit)] = case.verdict
        await self._write(
            BatchFinish(event="batch-finish", time=_now(), interrupted=interrupted, verdicts=verdicts)
        )
        self.writer.close()


def _now() -> str:
    return iso(utc_now())


def open_batch(
    request: Any,
    cases: Sequence[tuple[str, Path]],
    report_path: Path,
    report_id: str,
    inputs: Any,
    sides: Sequence[str | None],
) -> tuple[BatchLog, ResumePlan | None]:
    """Start the batch's log (``batch-start``), or with ``request.resume`` take it up again: refuse when its
    inputs' fingerprint changed (:class:`ResumeRefused`, naming what changed), else append ``batch-resume``
    and say which runs are kept. Blocking (hashes files, fsyncs)."""
    root = request.package_root.resolve()
    return open_units(request, root, planned_units(cases, root, inputs), report_path, report_id, sides)


def open_units(
    request: Any,
    root: Path,
    units: list[PlannedUnit],
    report_path: Path,
    report_id: str,
    sides: Sequence[str | None],
) -> tuple[BatchLog, ResumePlan | None]:
    """:func:`open_batch` for planned units of any format (``evalens run``: the units of one file).
    ``request.resume`` set: take the batch up again. Blocking."""
    now_inputs = request_inputs(request)
    path = log_path(report_path)
    if request.resume is None:
        writer = RunLogWriter(path)
        writer.write(
            BatchStart(
                event="batch-start",
                version=1,
                time=_now(),
                batch=report_id,
                package_root=str(root),
                report=str(report_path.resolve()),
                inputs=now_inputs,
                fingerprint=fingerprint(now_inputs, units),
                units=units,
                runs=request.runs,
                baseline=next((s for s in sides if s is not None), None),
            )
        )
        return BatchLog(writer, units, root, report_id), None
    try:
        log = read_log(path)
    except NotARunLog as exc:
        raise ResumeRefused(str(exc)) from None
    now = fingerprint(now_inputs, units)
    older = (  # as an older evalens recorded the same request
        _as_logged(request, now_inputs, log.start.inputs),
        _as_logged(request, _before_shared_names(now_inputs), log.start.inputs),
    )
    if now != log.start.fingerprint and any(fingerprint(i, units) == log.start.fingerprint for i in older):
        now = log.start.fingerprint  # the same inputs, under the names and options it knew
    if now != log.start.fingerprint:
        what = fingerprint_changes(log.start, now_inputs, units) or ["the inputs' fingerprint"]
        raise ResumeRefused(
            f"the eval inputs changed since the batch started ({'; '.join(what)}): its finished runs no longer "
            "say what a run would now; run it afresh"
        )
    plan = resume_plan(log, (u.unit for u in units))
    mapping = reconcile((u.unit for u in log.start.units), (u.unit for u in units))
    renamed = {k: key(was) for k, was in mapping.items() if key(was) != k}
    try:
        writer = RunLogWriter(path)
    except LinkRefused as exc:
        raise ResumeRefused(exc.strerror) from None
    writer.write(
        BatchResume(
            event="batch-resume",
            time=_now(),
            fingerprint=now,
            kept=len(plan.kept),
            rerun=len(plan.todo),
            renamed=renamed,
        )
    )
    return BatchLog(writer, units, root, log.start.batch), plan


def restore_run(rec: Any, done: RunFinish, folder: Path) -> None:
    """Fill the UAAPS driver's ``_RunRecord`` of a run the log says finished (``--resume`` keeps it): verdict,
    checks, judge, output, and its run record from its folder when it is there."""
    rec.verdict, rec.reason, rec.error, rec.budget = done.verdict, done.reason, done.error, done.budget
    rec.checks = [
        UnitCheck(kind=c.kind, value=c.value, status=c.status, detail=c.detail or "", location=c.location)
        for c in done.checks
    ]
    judge = done.judge
    rec.judge = (
        JudgeOutcome(judge.verdict, judge.reason, judge.model or "", judge.provider or "")
        if judge is not None
        else None
    )
    rec.output, rec.model, rec.session_id = done.output or "", done.model, done.session_id
    rec.duration, rec.agent_seconds = done.duration_seconds, done.agent_seconds
    rec.artifacts = (folder / done.artifacts) if done.artifacts else None
    rec.state = "finished"
    if rec.artifacts is not None and (rec.artifacts / RECORD_FILE).is_file():
        with contextlib.suppress(NotARecord):
            rec.record = load_record(rec.artifacts / RECORD_FILE)
