"""The Runs view's history (issue 27): every unit run of a package from its reports and, for a batch killed
before its report, its run log; newest first; kept by verdict, engine and date; any two runs of a unit compared
(not only the last two); and ``evalens.listRuns`` answers the same as wire entries."""

from __future__ import annotations

import json
from pathlib import Path

from evalens.core.models.run_log import LOG_FILE, BatchStart, LogUnit, PlannedUnit, RunFinish
from evalens.runner.run_compare import compare_runs
from evalens.runner.run_history import RunFilter, list_runs
from evalens.runner.run_log import RunLogWriter
from evalens.server.features.run_view import list_runs as list_runs_command
from evalens.server.wire import ListRunsArgs


def _report(pkg: Path, stamp: str, engine: str, model: str, verdicts: dict[str, str]) -> Path:
    cases = [
        {
            "name": name,
            "verdict": verdict,
            "duration_seconds": 2.0,
            "deterministic_checks": {"passed": 1, "failed": 0, "total": 1},
            "case_file": f"evals/cases/{name}.yaml",
            "agent_output_snippet": f"{name} said {verdict} on {engine}",
        }
        for name, verdict in verdicts.items()
    ]
    report = {
        "version": 1,
        "id": f"eval-run-{stamp}",
        "timestamp": stamp,
        "config": {"engine": engine},
        "agent": {"runtime": engine, "model": model},
        "judge": {},
        "environment": {"os": "linux"},
        "package": {"name": "p"},
        "summary": {"total": len(cases), "passed": 0, "failed": 0, "pass_rate": 0.0},
        "cases": cases,
    }
    reports = pkg / "evals" / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    path = reports / (stamp.replace(":", "-") + ".json")
    path.write_text(json.dumps(report))
    return path


def _killed_batch(pkg: Path, stamp: str) -> None:
    """A batch with a run log and no report: one unit finished FAIL before the kill."""
    unit = LogUnit(file="evals/cases/a.yaml", name="a", content="c1")
    folder = pkg / "evals" / "reports" / stamp.replace(":", "-")
    writer = RunLogWriter(folder / LOG_FILE)
    writer.write(
        BatchStart(
            event="batch-start",
            version=1,
            time=stamp,
            batch="eval-run-killed",
            package_root=str(pkg),
            report=str(folder) + ".json",
            inputs={"engine": "codex", "runs": 1, "cases": []},
            fingerprint="f",
            units=[PlannedUnit(unit=unit, fingerprint={"unit": "c1"})],
            runs=1,
        )
    )
    writer.write(RunFinish(event="run-finish", time=stamp, unit=unit, run=1, verdict="FAIL", reason="fail"))
    writer.close()


def _package(tmp_path: Path) -> tuple[Path, list[Path]]:
    pkg = tmp_path / "pkg"
    (pkg / "evals" / "cases").mkdir(parents=True)
    paths = [
        _report(pkg, "2026-01-01T10:00:00Z", "claude-code", "sonnet", {"a": "PASS", "b": "FAIL"}),
        _report(pkg, "2026-01-02T10:00:00Z", "codex", "gpt-5", {"a": "ERROR"}),
        _report(pkg, "2026-01-03T10:00:00Z", "claude-code", "opus", {"a": "FAIL", "b": "PASS"}),
    ]
    _killed_batch(pkg, "2026-01-04T10:00:00Z")
    return pkg, paths


def test_every_run_is_listed_newest_first_with_the_killed_batch_from_its_log(tmp_path: Path) -> None:
    pkg, paths = _package(tmp_path)
    runs = list_runs(pkg / "evals" / "cases")
    assert [(r.name, r.verdict, r.engine, r.timestamp[:10]) for r in runs] == [
        ("a", "FAIL", "codex", "2026-01-04"),
        ("a", "FAIL", "claude-code", "2026-01-03"),
        ("b", "PASS", "claude-code", "2026-01-03"),
        ("a", "ERROR", "codex", "2026-01-02"),
        ("a", "PASS", "claude-code", "2026-01-01"),
        ("b", "FAIL", "claude-code", "2026-01-01"),
    ]
    killed = runs[0]
    assert killed.report_path is None and killed.interrupted
    assert runs[1].report_path == str(paths[2]) and runs[1].model == "opus"
    assert runs[1].case_file == str((pkg / "evals/cases/a.yaml").resolve())


def test_the_filter_keeps_by_verdict_engine_and_date(tmp_path: Path) -> None:
    pkg, _ = _package(tmp_path)
    kept = list_runs(pkg, RunFilter(verdicts=("FAIL",), engine="claude-code"))
    assert [(r.name, r.timestamp[:10]) for r in kept] == [("a", "2026-01-03"), ("b", "2026-01-01")]
    since = list_runs(pkg, RunFilter(since="2026-01-02"))
    assert {r.timestamp[:10] for r in since} == {"2026-01-02", "2026-01-03", "2026-01-04"}
    assert list_runs(pkg, RunFilter(verdicts=("SKIP",))) == []


def test_any_two_runs_of_a_unit_compare_the_newer_as_latest(tmp_path: Path) -> None:
    pkg, paths = _package(tmp_path)
    cmp = compare_runs(paths[2], paths[0], "a", str(pkg / "evals/cases/a.yaml"))
    assert cmp is not None and cmp.previous is not None
    assert (
        cmp.latest.report_path == paths[2] and cmp.previous.report_path == paths[0]
    )  # the middle run skipped
    assert cmp.latest.unit.case.verdict == "FAIL" and cmp.previous.unit.case.verdict == "PASS"
    assert compare_runs(paths[0], paths[2], "a") is not None  # either order
    assert compare_runs(paths[1], paths[0], "b") is None  # the second report has no b


def test_list_runs_command_answers_wire_entries(tmp_path: Path) -> None:
    pkg, paths = _package(tmp_path)
    answer = [e.wire() for e in list_runs_command(ListRunsArgs(verdicts=["PASS"]), [pkg])]
    assert [(e["name"], e["reportPath"]) for e in answer] == [("b", str(paths[2])), ("a", str(paths[0]))]
    assert answer[0]["uri"].startswith("file://") and answer[0]["uri"].endswith("evals/cases/b.yaml")
    assert answer[0]["engine"] == "claude-code" and answer[0]["model"] == "opus"
    by_file = [
        e.wire()
        for e in list_runs_command(ListRunsArgs(uri=(pkg / "evals" / "cases").as_uri(), engine="codex"), [])
    ]
    assert [(e["name"], e["verdict"], e.get("interrupted")) for e in by_file] == [
        ("a", "FAIL", True),
        ("a", "ERROR", None),
    ]


def _cancelled_batch(pkg: Path, stamp: str) -> Path:
    """The report the editor's ■ Cancel leaves (runner/suites/uaaps.py on CancelledError): the batch marked
    interrupted, the cut-short unit an ERROR "interrupted", one never started "not run", one finished before."""
    path = _report(pkg, stamp, "claude-code", "sonnet", {"done": "PASS", "slow": "ERROR", "next": "SKIP"})
    report = json.loads(path.read_text())
    report["interrupted"] = True
    for case in report["cases"]:
        if case["name"] == "slow":
            case.update(reason="interrupted", error="interrupted before the case finished")
        if case["name"] == "next":
            case.update(reason="not run", error="not run: interrupted")
    path.write_text(json.dumps(report))
    return path


def test_a_cancelled_unit_is_listed_as_cancelled_not_error(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    _cancelled_batch(pkg, "2026-01-05T10:00:00Z")
    runs = {r.name: r for r in list_runs(pkg)}
    assert runs["slow"].cancelled and runs["slow"].shown == "CANCELLED"
    assert runs["next"].cancelled and runs["next"].shown == "CANCELLED"  # cancelled before it started
    # finished before the cancel: its verdict
    assert not runs["done"].cancelled and runs["done"].shown == "PASS"
    assert list_runs(pkg, RunFilter(verdicts=("ERROR",))) == []  # not an error of the agent or the judge
    assert [r.name for r in list_runs(pkg, RunFilter(verdicts=("CANCELLED",)))] == ["slow", "next"]
    wire = {e.name: e.wire() for e in list_runs_command(ListRunsArgs(), [pkg])}
    assert wire["slow"]["cancelled"] is True and wire["next"]["cancelled"] is True
    assert not wire["done"]["cancelled"]
