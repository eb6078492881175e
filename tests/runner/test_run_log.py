"""The run log (issue 23 item 4): the reader ignores a torn last line and nothing else, the writer cuts a torn
tail before it appends, units are reconciled across a rename (same file, same content, new name), the resume plan
keeps exactly the runs that finished (with repeats, only the missing runs run), the inputs' fingerprint names what
changed, the units' results are rebuilt from the log alone, and the CLI finds a renamed case's last run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evalens.core.models.run_log import (
    BatchResume,
    BatchStart,
    LogUnit,
    PlannedUnit,
    RunFinish,
    RunStart,
)
from evalens.runner import depends
from evalens.runner.run_log import (
    NotARunLog,
    RunLogWriter,
    fingerprint,
    fingerprint_changes,
    read_log,
    resume_plan,
    unit_results,
)
from evalens.runner.unit_identity import key, reconcile
from tests.in_process import evalens as evalens_cli
from tests.runner.runner_helpers import case, make_package

T = "2026-01-01T00:00:00Z"


def _unit(name: str, content: str = "c1", file: str = "evals/cases/a.yaml") -> LogUnit:
    return LogUnit(file=file, name=name, content=content)


def _start(units: list[LogUnit], runs: int = 1, inputs: dict | None = None) -> BatchStart:
    planned = [
        PlannedUnit(unit=u, fingerprint={"unit": u.content or "", "engine": "claude-code"}) for u in units
    ]
    inputs = inputs if inputs is not None else {"engine": None, "runs": runs, "cases": []}
    return BatchStart(
        event="batch-start",
        version=1,
        time=T,
        batch="eval-run-x",
        package_root="/pkg",
        report="/pkg/evals/reports/x.json",
        inputs=inputs,
        fingerprint=fingerprint(inputs, planned),
        units=planned,
        runs=runs,
    )


def _finish(unit: LogUnit, run: int, verdict: str = "PASS", **extra: object) -> RunFinish:
    return RunFinish(
        event="run-finish", time=T, unit=unit, run=run, verdict=verdict, reason=verdict.lower(), **extra
    )


def _write(path: Path, events: list) -> None:
    writer = RunLogWriter(path)
    for event in events:
        writer.write(event)
    writer.close()


# --------------------------------------------------------------------------- reading and writing


def test_a_torn_last_line_is_ignored_and_cut_before_the_next_append(tmp_path: Path) -> None:
    a = _unit("a")
    path = tmp_path / "run-log.jsonl"
    _write(path, [_start([a]), RunStart(event="run-start", time=T, unit=a, run=1)])
    whole = path.read_bytes()
    torn = _finish(a, 1).model_dump_json().encode()[:40]  # killed in the middle of the write
    path.write_bytes(whole + torn)
    log = read_log(path)
    assert log.torn and log.finished == {} and len(log.events) == 1

    _write(path, [_finish(a, 1)])  # a resume appends: the torn tail goes first, never stays in the middle
    assert path.read_bytes() == whole + _finish(a, 1).model_dump_json(exclude_none=True).encode() + b"\n"
    log = read_log(path)
    assert not log.torn and [e.verdict for e in log.finished.values()] == ["PASS"]

    # a whole last line that is not an event (the newline made it, the text did not) is torn too
    path.write_bytes(whole + b'{"event": "run-fin\n')
    assert read_log(path).torn


def test_a_bad_line_before_the_last_is_not_a_run_log(tmp_path: Path) -> None:
    a = _unit("a")
    path = tmp_path / "run-log.jsonl"
    lines = [_start([a]).model_dump_json(), "{not json", _finish(a, 1).model_dump_json()]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(NotARunLog, match=":2: not a run log event"):
        read_log(path)
    path.write_text(_finish(a, 1).model_dump_json() + "\n")
    with pytest.raises(NotARunLog, match="does not start with the batch's start"):
        read_log(path)
    with pytest.raises(NotARunLog, match="cannot read"):
        read_log(tmp_path / "absent.jsonl")


def test_every_line_the_writer_writes_is_a_valid_event_of_the_schema(tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads(
        (Path(__file__).resolve().parents[2] / "schemas" / "evalens-run-log.schema.json").read_text()
    )
    a = _unit("a")
    path = tmp_path / "run-log.jsonl"
    _write(path, [_start([a]), RunStart(event="run-start", time=T, unit=a, run=1), _finish(a, 1)])
    for line in path.read_text().splitlines():
        jsonschema.validate(json.loads(line), schema)


# --------------------------------------------------------------------------- identity


def test_reconcile_follows_a_rename_in_place_and_nothing_else() -> None:
    past = [_unit("a", "c1"), _unit("b", "c2"), _unit("z", "c9", file="evals/cases/z.yaml")]
    # a renamed to a2 (same file, same content); b unchanged
    now = [_unit("a2", "c1"), _unit("b", "c2")]
    assert {k: u.name for k, u in reconcile(past, now).items()} == {
        "evals/cases/a.yaml::a2": "a",
        "evals/cases/a.yaml::b": "b",
    }
    # renamed and changed: a new unit
    assert key(_unit("a2", "c1-edited")) not in reconcile(past, [_unit("a2", "c1-edited")])
    # the same content in another file: not the same unit
    assert reconcile(past, [_unit("z2", "c1", file="evals/cases/z.yaml")]) == {}
    # the old name still in use: the new unit with its content is a copy, not the renamed one
    assert reconcile(past, [_unit("a", "c1"), _unit("a-copy", "c1")]) == {"evals/cases/a.yaml::a": past[0]}
    # two past units it could continue: ambiguous, no match
    twins = [_unit("x", "same"), _unit("y", "same")]
    assert reconcile(twins, [_unit("w", "same")]) == {}
    # unreadable content never matches
    assert reconcile([_unit("a", None)], [_unit("b", None)]) == {}  # type: ignore[arg-type]


# --------------------------------------------------------------------------- resume


def test_the_resume_plan_keeps_finished_runs_and_runs_only_the_missing_ones(tmp_path: Path) -> None:
    a, b = _unit("a", "c1"), _unit("b", "c2")
    path = tmp_path / "run-log.jsonl"
    _write(
        path,
        [
            _start([a, b], runs=3),
            RunStart(event="run-start", time=T, unit=a, run=1),
            _finish(a, 1),
            RunStart(event="run-start", time=T, unit=a, run=2),  # killed while it ran
            RunStart(event="run-start", time=T, unit=a, run=3),
            _finish(a, 3, "FAIL"),
        ],
    )
    log = read_log(path)
    plan = resume_plan(log, [a, b])
    assert sorted(plan.kept) == [(None, key(a), 1), (None, key(a), 3)]
    assert plan.todo == [(None, key(a), 2), (None, key(b), 1), (None, key(b), 2), (None, key(b), 3)]
    # a renamed since: its finished runs are kept under its new name
    renamed = _unit("a-renamed", "c1")
    plan = resume_plan(log, [renamed, b])
    assert sorted(plan.kept) == [(None, key(renamed), 1), (None, key(renamed), 3)]
    assert plan.kept[(None, key(renamed), 3)].verdict == "FAIL"
    # edited under its own name it is still the unit (the inputs' fingerprint is what refuses that resume);
    # renamed *and* edited it is a new unit: all its runs would run
    assert len(resume_plan(log, [_unit("a", "edited")]).kept) == 2
    assert resume_plan(log, [_unit("a3", "edited")]).kept == {}


def test_the_fingerprint_ignores_names_and_parallelism_and_names_what_changed() -> None:
    a, b = _unit("a", "c1"), _unit("b", "c2")
    inputs = {"engine": "codex", "runs": 1, "jobs": 1, "cases": ["a"], "agent_model": None}
    start = _start([a, b], inputs=inputs)

    def planned(*units: LogUnit) -> list[PlannedUnit]:
        return [
            PlannedUnit(unit=u, fingerprint={"unit": u.content or "", "engine": "claude-code"}) for u in units
        ]

    same = planned(_unit("a-renamed", "c1"), b)
    assert fingerprint({**inputs, "jobs": 4, "cases": ["x.yaml"]}, same) == start.fingerprint
    assert fingerprint_changes(start, inputs, same) == []
    changed = planned(_unit("a", "c1-edited"), b)
    assert fingerprint(inputs, changed) != start.fingerprint
    assert fingerprint_changes(start, inputs, changed) == ["a: the unit's own text changed"]
    new = planned(_unit("a3", "c1-edited"), b)
    assert fingerprint_changes(start, inputs, new) == ["a3: not in the batch", "a: gone"]
    edited = [PlannedUnit(unit=a, fingerprint={"unit": "c1", "engine": "codex"}), planned(b)[0]]
    assert fingerprint_changes(start, inputs, edited) == ["a: engine claude-code → codex"]
    assert fingerprint_changes(start, {**inputs, "agent_model": "other"}, planned(a, b)) == [
        "--agent-model None → 'other'"
    ]


def test_unit_results_are_rebuilt_from_the_log_alone(tmp_path: Path) -> None:
    a, b = _unit("a", "c1"), _unit("b", "c2")
    path = tmp_path / "run-log.jsonl"
    renamed = _unit("a2", "c1")
    _write(
        path,
        [
            _start([a, b], runs=2),
            _finish(a, 1, checks=[{"kind": "contains", "value": "OK", "status": "PASS"}]),
            _finish(b, 1, "ERROR", error="agent crashed"),
            BatchResume(
                event="batch-resume", time=T, fingerprint="f", kept=2, rerun=2, renamed={key(renamed): key(a)}
            ),
            _finish(renamed, 2, "FAIL"),
        ],
    )
    results = {r.name: r for r in unit_results(read_log(path))}
    assert sorted(results) == ["a2", "b"]
    assert results["a2"].run_verdicts == ["PASS", "FAIL"] and results["a2"].state == "FLAKY"
    assert results["a2"].case_file == str(Path("/pkg/evals/cases/a.yaml").resolve())
    assert results["b"].run_verdicts == ["ERROR", "SKIP"] and results["b"].verdict == "ERROR"
    assert results["b"].error == "agent crashed"


# --------------------------------------------------------------------------- the CLI after a rename


def _report_with(pkg: Path, result: object) -> Path:
    from evalens.core.models.uaaps import EvalReport
    from evalens.runner.results import report_case_from_result

    report = {
        "version": 1,
        "id": "r",
        "timestamp": T,
        "duration_seconds": 1.0,
        "config": {"engine": "claude-code"},
        "agent": {"runtime": "claude-code"},
        "judge": {},
        "environment": {"os": "linux"},
        "package": {"name": "p"},
        "summary": {"total": 1, "passed": 1, "failed": 0, "pass_rate": 1.0},
        "cases": [report_case_from_result(result, None, pkg).model_dump(mode="json", exclude_none=True)],  # type: ignore[arg-type]
    }
    EvalReport.model_validate(report)
    reports = pkg / "evals" / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "2026-01-01T00-00-00Z.json").write_text(json.dumps(report))
    return reports / "2026-01-01T00-00-00Z.json"


def test_the_cli_finds_a_renamed_cases_last_run(tmp_path: Path) -> None:
    """`evalens eval --stale --dry-run`, `evalens show NEW-NAME` and the server's restored memory after renaming a
    case in place: its last run is found through its identity; no "no case named" (issue 27 item 7, issue 29
    probe 3)."""
    from evalens.runner.results import UnitResult

    pkg = make_package(tmp_path / "pkg", cases={"extract-text": case("pass")})
    cli = tmp_path / "claude"
    cli.write_text("#!/bin/sh\necho '2.0.1 (Claude Code)'\n")
    cli.chmod(0o755)
    env = {"EVALENS_CLAUDE_BIN": str(cli), "ANTHROPIC_API_KEY": "test-key", "EVALENS_NO_BWRAP": "1"}
    case_file = pkg / "evals" / "cases" / "00-extract-text.yaml"
    result = UnitResult(
        name="extract-text",
        format="uaaps-case",
        case_file=str(case_file),
        location=[],
        verdict="PASS",
        reason="ok",
    )
    import os

    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        depends.finish_unit(result, inputs=depends.NextRun(no_judge=True))
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    _report_with(pkg, result)
    case_file.write_text(case_file.read_text().replace("name: extract-text", "name: extract-text-v2"))

    def evalens(*args: str) -> subprocess.CompletedProcess:
        return evalens_cli([*args], cwd=pkg, env={**os.environ, **env})

    stale = evalens("eval", "--stale", "--dry-run", "--no-judge")
    assert stale.returncode == 0, stale.stderr
    assert "no stale case: nothing to run" in stale.stderr and "no case named" not in stale.stderr
    failed = evalens("eval", "--failed", "--dry-run", "--no-judge")
    assert "no failed case" in failed.stderr, failed.stderr
    shown = evalens("show", "extract-text-v2")
    assert shown.returncode == 0, shown.stderr
    assert "extract-text-v2 was named extract-text in its last run" in shown.stderr
    assert "PASS" in shown.stdout
    from evalens.server.features.run_memory import read_reports

    restored = read_reports(pkg)  # the language server's memory, restored from disk (e.g. after a restart)
    assert list(restored) == ["extract-text-v2"] and restored["extract-text-v2"].result.verdict == "PASS"
    # renamed and edited: a new case, which never ran
    case_file.write_text(case_file.read_text().replace("SCENARIO=pass", "SCENARIO=done"))
    stale = evalens("eval", "--stale", "--dry-run", "--no-judge")
    assert "extract-text-v2: never ran" in stale.stderr, stale.stderr
    assert evalens("show", "extract-text-v2").returncode == 2


def test_resume_refuses_other_run_flags_and_a_missing_log(tmp_path: Path) -> None:
    """`--resume` runs the batch with its own inputs: other run-shaping flags are a usage error (exit 2), and so is
    a folder without a run log; neither starts anything."""

    def evalens(*args: str) -> subprocess.CompletedProcess:
        return evalens_cli(["eval", *args])

    flags = evalens("--resume", str(tmp_path), "--engine", "codex", "--runs", "3", "extract-text")
    assert flags.returncode == 2 and "drop CASE, --engine, --runs" in flags.stderr, flags.stderr
    missing = evalens("--resume", str(tmp_path / "2026-01-01T00-00-00Z"))
    assert missing.returncode == 2 and "cannot resume" in missing.stderr and "cannot read" in missing.stderr
    (tmp_path / "run-log.jsonl").write_text(
        '{"event": "run-start"}\n{"event": "batch-finish", "time": "x"}\n'
    )
    bad = evalens("--resume", str(tmp_path))
    assert bad.returncode == 2 and "not a run log" in bad.stderr, bad.stderr


def test_a_file_batch_started_under_the_requests_old_names_still_resumes(tmp_path: Path) -> None:
    """Issue 41 gave FileRunRequest RunOptions' names (agent_model, judge, timeout); a run log written before
    records model, judge_model and timeout_seconds. Its fingerprint is matched under those names, so the batch
    resumes instead of being refused as changed; a UAAPS batch's names did not change."""
    from evalens.runner.api_types import RunRequest
    from evalens.runner.run_log import _before_shared_names, request_inputs
    from evalens.runner.suites.base import FileRunRequest

    now = request_inputs(FileRunRequest(file=tmp_path / "tasks.yaml", agent_model="m", judge="j", timeout=5))
    before = _before_shared_names(now)
    assert (before["model"], before["judge_model"], before["timeout_seconds"]) == ("m", "j", 5.0)
    assert not {"agent_model", "judge", "timeout"} & set(before)
    uaaps = request_inputs(RunRequest(package_root=tmp_path, agent_model="m", judge="j", timeout=5))
    assert _before_shared_names(uaaps) == uaaps


def test_an_option_added_since_the_batch_started_does_not_refuse_its_resume(tmp_path: Path) -> None:
    """A run log written before a request option existed (``runs_auto`` for a file, issue 41) has no entry for
    it: left at its default the option changed nothing that ran, so the fingerprint matches without it; set to
    anything else it is a changed input."""
    from evalens.runner.run_log import _as_logged, request_inputs
    from evalens.runner.suites.base import FileRunRequest

    request = FileRunRequest(file=tmp_path / "tasks.yaml", runs=2)
    now = request_inputs(request)
    logged = {k: v for k, v in now.items() if k not in ("runs_auto", "runs_threshold")}
    assert _as_logged(request, now, logged) == logged
    auto = FileRunRequest(file=tmp_path / "tasks.yaml", runs=2, runs_auto=True)
    assert _as_logged(auto, request_inputs(auto), logged)["runs_auto"] is True
    assert _as_logged(request, now, now) == now  # a log that records it: compared as it is
