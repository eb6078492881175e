"""The run record of one unit run: built from the engine's trace and the workspace, written next to the report.

Two calls from the agent session, whatever the format::

    base = workspace_diff.baseline(paths.workspace)          # before the agent starts
    ...launch the agent...
    record = capture(engine, transcript, run, paths, base, unit=..., prompt=...)   # before the sandbox goes
    ...checks, judge...
    finish(record, verdict=..., reason=..., checks=..., judge=...)
    write_record(record, artifacts / RECORD_FILE)

Readers use :func:`load_record` and :func:`records_for` (every run of a unit of a report).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from evalens.core.models.run_record import RECORD_VERSION, RecordCheck, RecordJudge, RunRecord, sum_usage
from evalens.core.regular_files import read_regular_bytes, write_json_atomic
from evalens.runner.bounds import TEXT_LIMIT, Bounds
from evalens.runner.engines.base import Engine
from evalens.runner.replay import run_note
from evalens.runner.report import artifacts_root, read_model
from evalens.runner.trigger_detect import detect
from evalens.runner.workspace_diff import changes

RECORD_FILE = "record.json"


def capture(
    engine: Any,
    transcript: Any,
    run: Any,
    paths: Any,
    base: Any,
    *,
    unit: str,
    prompt: str,
    run_index: int = 1,
    fmt: str | None = None,
    engine_version: str | None = None,
    started_at: str | None = None,
    installed: dict[str, str] | None = None,
) -> RunRecord:
    """Everything the agent did, read while the sandbox still exists (its trace files and workspace)."""
    bounds = Bounds()
    try:
        conv = engine.conversation(transcript, paths, bounds)
    except Exception as exc:  # noqa: BLE001 - a trace the reader does not understand must not lose the run
        conv = Engine.conversation(engine, transcript, paths, bounds)
        bounds.note(f"turns: the {engine.name} trace could not be read in full ({type(exc).__name__}: {exc})")
    files = changes(base, paths.workspace, bounds) if base is not None else []
    output, _ = bounds.text(transcript.output, TEXT_LIMIT, "final output")
    prompt_text, _ = bounds.text(prompt, TEXT_LIMIT, "prompt")
    if getattr(run, "truncated", None):
        bounds.note(
            f"the agent's {', '.join(run.truncated)} stream was cut at the capture limit "
            "(EVALENS_MAX_OUTPUT_MB): later turns are missing"
        )
    activations = detect(
        engine,
        conv.turns,
        installed or {},
        prompt=prompt,
        injected=conv.injected_skills,
        workspace=str(paths.workspace),
        contents=_installed_contents(paths.workspace, engine.skills_dir, installed or {}),
    )
    skills = list(transcript.skills_activated)
    for turn in conv.turns:
        for call in turn.tool_calls:
            if call.skill and call.skill not in skills:
                skills.append(call.skill)
    return RunRecord(
        version=RECORD_VERSION,  # type: ignore[arg-type]
        unit=unit,
        run_index=run_index,
        format_id=fmt,
        engine=engine.name,
        engine_version=engine_version,
        model=transcript.model,
        session_id=transcript.session_id,
        prompt=prompt_text,
        started_at=started_at,
        agent_seconds=round(run.duration_seconds, 3) if run is not None else None,
        api_seconds=conv.api_seconds,
        exit_code=transcript.exit_code,
        timed_out=bool(getattr(run, "timed_out", False)),
        error=transcript.error,
        output=output,
        turns=conv.turns,
        hooks=conv.hooks,
        skills_activated=skills,
        activations=activations,
        blocked=transcript.blocked,
        files=files,
        usage=_usage(conv.usage, getattr(run, "bridge", None)),
        bounds=bounds.notes,
        sources=conv.sources,
    )


def _installed_contents(workspace: Path, skills_dir: str, installed: dict[str, str]) -> dict[str, str]:
    """Each installed skill's SKILL.md as the run had it (bounded), by folder: trigger detection counts a read
    only when its result holds a line of it. Never through a link the agent may have left there."""
    out: dict[str, str] = {}
    for folder in set(installed.values()):
        data = read_regular_bytes(workspace / skills_dir / folder / "SKILL.md", 65536, follow_links=False)
        if data is not None:
            out[folder] = data[:65536].decode("utf-8", "replace")
    return out


def _usage(engine_usage: Any, bridge: Any) -> Any:
    """The run's usage: the model bridge's count of every call when the bridge saw the run (the engine reports
    only its own calls, not those its shell made through the bridge), else the engine's."""
    if bridge is None or not bridge.calls:
        return engine_usage
    return bridge.usage(engine_usage)


def finish(
    record: RunRecord,
    *,
    verdict: str,
    reason: str,
    error: str | None,
    checks: list[Any],
    judge: Any = None,
    duration_seconds: float | None = None,
) -> RunRecord:
    """Add the verdict, the checks and the judge's ruling once they are known."""
    record.verdict = verdict  # type: ignore[assignment]
    record.reason = reason
    record.error = error or record.error
    record.checks = [
        RecordCheck(kind=c.kind, value=c.value, status=c.status, detail=c.detail or None) for c in checks
    ]
    if judge is not None:
        record.judge = RecordJudge(verdict=judge.verdict, reason=judge.reason or "", model=judge.model)
    if duration_seconds is not None:
        record.duration_seconds = round(duration_seconds, 3)
    # the tape is named as launch_agent named the run: a baseline's with its side
    tape_unit = f"{record.unit} [{record.baseline}]" if record.baseline else record.unit
    record.replay = run_note(tape_unit, record.run_index) or record.replay
    return record


def write_record(record: RunRecord, path: Path) -> Path:
    """Write atomically (a reader never sees half a record)."""
    return write_json_atomic(
        path, record.model_dump(mode="json", exclude_none=True), indent=1, ensure_ascii=False
    )


class NotARecord(ValueError):
    """The file is not a run record; the message is one line a user can act on."""


def load_record(path: Path) -> RunRecord:
    """Read a run record; anything else raises :class:`NotARecord` (one line, no dump)."""
    return read_model(path, RunRecord, "an evalens run record", NotARecord)


def records_for(report_path: Path, artifacts: str | None) -> list[tuple[Path, RunRecord | None]]:
    """Every run record of a unit (``artifacts`` as the report names it): ``record.json``, or ``run-N/record.json``
    with ``--runs``. An unreadable record comes back as None, never as an exception."""
    if not artifacts:
        return []
    folder = (report_path.parent / artifacts).resolve()
    found = (
        [folder / RECORD_FILE]
        if (folder / RECORD_FILE).is_file()
        else sorted(
            folder.glob(f"run-*/{RECORD_FILE}"),
            key=lambda p: (
                int(p.parent.name.split("-", 1)[1] or 0) if p.parent.name.split("-", 1)[1].isdigit() else 0
            ),
        )
    )
    out: list[tuple[Path, RunRecord | None]] = []
    for path in found:
        try:
            out.append((path, load_record(path)))
        except NotARecord:
            out.append((path, None))
    return out


def unit_folder_name(name: str) -> str:
    """A unit's artifacts folder name: its name where that is a safe file name, else a readable stand-in."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:100]
    return safe or "unit"


def attach_records(report: Any, report_path: Path, records: dict[str, list[RunRecord]]) -> None:
    """Write each unit's run records beside the report (``<report>/<unit>/record.json``, or ``run-N/`` with
    several runs), finish them with the unit's verdict, checks and judge, and give the report's unit its
    ``artifacts`` folder and summed ``usage``. For formats whose suites keep no artifacts of their own."""
    root = artifacts_root(report_path)
    for case in report.cases:
        recs = records.get(case.name) or []
        if not recs:
            continue
        folder = (
            (report_path.parent / case.artifacts) if case.artifacts else root / unit_folder_name(case.name)
        )
        verdicts = list(case.run_verdicts) or [case.verdict] * len(recs)
        judge = case.judge_verdict
        for i, rec in enumerate(recs, start=1):
            rec.run_index = i
            rec.unit = case.name
            rec.format_id = rec.format_id or getattr(case, "format", None)
            verdict = verdicts[i - 1] if i - 1 < len(verdicts) else case.verdict
            finish(
                rec,
                verdict=verdict,
                reason=getattr(case, "reason", None) or case.error or "",
                error=case.error if verdict == "ERROR" else None,
                checks=list(case.checks),
                judge=_Judge(judge.result, judge.reason, judge.model) if judge is not None else None,
            )
            write_record(rec, (folder / f"run-{i}" if len(recs) > 1 else folder) / RECORD_FILE)
        if not case.artifacts:
            case.artifacts = os.path.relpath(folder, report_path.parent)
        case.usage = sum_usage([r.usage for r in recs])
    report.summary.usage = sum_usage([c.usage for c in report.cases])


class _Judge:
    """A report's judge ruling in the shape :func:`finish` reads."""

    def __init__(self, verdict: str, reason: str, model: str | None) -> None:
        self.verdict, self.reason, self.model = verdict, reason, model
