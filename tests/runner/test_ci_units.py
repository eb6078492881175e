"""``evalens.runner.ci.units``: a report as CI sees it. The unit's one-line message, the counts and the pass rate
every CI writer prints, and the line a failure annotation points at in the eval file."""

from __future__ import annotations

from pathlib import Path

from evalens.core.models.uaaps import JudgeVerdict, ReportCase, ReportCheck
from evalens.runner.ci.units import VERDICTS, ReportUnit, counts, locate, pass_rate, units_of
from tests.ci_helpers import make_case, make_report

CASE = """\
name: extract
prompt: Extract the table
expected:
  contains:
    - EXTRACTED
    - TOTAL
  not-contains:
    - ERROR
judge:
  criteria: The table is complete.
"""


def _unit(**kw: object) -> ReportUnit:
    base: dict[str, object] = {"name": "u", "verdict": "FAIL", "suite": "pkg"}
    base.update(kw)
    return ReportUnit(**base)  # type: ignore[arg-type]


# --- message -------------------------------------------------------------------------------------------------


def test_message_lists_failed_checks_then_the_judge() -> None:
    unit = _unit(failed_checks=["contains 'X': missing"], judge_reason="no table")
    assert unit.message() == "contains 'X': missing; judge: no table"


def test_message_of_a_pass_leaves_out_the_judge_reason() -> None:
    unit = _unit(verdict="PASS", judge_reason="all good")
    assert unit.passed
    assert unit.message() == "PASS"


def test_message_of_an_error_is_the_error_only() -> None:
    unit = _unit(verdict="ERROR", failed_checks=["contains 'X': missing"], error="timed out\nafter 60 s")
    assert not unit.passed
    assert unit.message() == "timed out after 60 s"


def test_message_of_an_error_falls_back_to_judge_then_reason() -> None:
    assert _unit(verdict="ERROR", judge_reason="judge crashed", reason="r").message() == "judge crashed"
    assert _unit(verdict="ERROR", reason="the reason").message() == "the reason"
    assert _unit(verdict="ERROR").message() == "ERROR"


def test_message_does_not_repeat_an_error_already_in_a_check() -> None:
    unit = _unit(failed_checks=["files-created 'a.txt': agent crashed"], error="agent crashed")
    assert unit.message() == "files-created 'a.txt': agent crashed"
    unit = _unit(failed_checks=["contains 'X': missing"], error="agent crashed")
    assert unit.message() == "contains 'X': missing; agent crashed"


def test_message_of_a_flaky_unit_starts_with_its_runs() -> None:
    unit = _unit(verdict="FLAKY", run_verdicts=["PASS", "FAIL", "PASS"], judge_reason="once missing")
    assert unit.message() == "flaky: 2 of 3 runs passed (PASS, FAIL, PASS); judge: once missing"
    assert not unit.passed


def test_message_falls_back_to_reason_then_skipped() -> None:
    assert _unit(reason="2/3 assertions passed").message() == "2/3 assertions passed"
    assert _unit(verdict="SKIP").message() == "skipped"
    assert _unit(verdict="FAIL").message() == "FAIL"


# --- units_of ------------------------------------------------------------------------------------------------


def test_units_of_reads_each_case() -> None:
    report = make_report(
        [
            make_case("a", "PASS", duration=2.5, file="evals/a.yaml"),
            make_case("b", "FAIL", failed_check="EXTRACTED", reason="missing table"),
        ],
        package="pdf-tools",
    )
    a, b = units_of(report)
    assert (a.name, a.verdict, a.suite, a.duration, a.file) == ("a", "PASS", "pdf-tools", 2.5, "evals/a.yaml")
    assert a.failed_checks == []
    assert a.fail_paths == [(("name",), None)]
    assert b.failed_checks == ["contains 'EXTRACTED': output does not contain 'EXTRACTED'"]
    assert b.judge_reason == "missing table"
    # the failed check (found by kind and value), then the judge criteria, then the case's own place
    assert b.fail_paths == [
        (("expected", "contains"), "EXTRACTED"),
        (("judge", "criteria"), None),
        (("name",), None),
    ]


def test_units_of_without_a_package_name_uses_evalens() -> None:
    report = make_report([make_case("a", "PASS")])
    report.package = None
    assert units_of(report)[0].suite == "evalens"


def test_units_of_prefers_the_check_location_and_maps_kinds_to_keys() -> None:
    case = ReportCase(
        name="c",
        verdict="FAIL",
        checks=[
            ReportCheck(kind="not_contains", value="ERROR", status="FAIL"),
            ReportCheck(
                kind="files_created", value="out.csv", status="FAIL", location=["expected", "files", 1]
            ),
            ReportCheck(kind="contains", value="ok", status="PASS"),
        ],
        judge_verdict=JudgeVerdict(result="PASS", reason="fine"),
        location=["cases", 3],
    )
    (unit,) = units_of(make_report([case]))
    assert unit.failed_checks == ["not-contains 'ERROR': failed", "files-created 'out.csv': failed"]
    assert unit.fail_paths == [
        (("expected", "not-contains"), "ERROR"),
        (("expected", "files", 1), None),
        (("cases", 3), None),  # a judge that held adds no place
    ]


def test_units_of_an_errored_case_points_at_the_unit_only() -> None:
    case = ReportCase(
        name="c",
        verdict="ERROR",
        error="agent exited 1",
        checks=[ReportCheck(kind="contains", value="X", status="FAIL")],
    )
    (unit,) = units_of(make_report([case]))
    assert unit.fail_paths == [(("name",), None)]
    assert unit.message() == "agent exited 1"


def test_units_of_takes_the_state_over_the_verdict() -> None:
    case = ReportCase(name="c", verdict="FAIL", state="FLAKY", run_verdicts=["PASS", "FAIL"])
    (unit,) = units_of(make_report([case]))
    assert unit.verdict == "FLAKY"
    assert unit.run_verdicts == ["PASS", "FAIL"]


# --- counts and pass_rate ------------------------------------------------------------------------------------


def test_counts_has_every_verdict() -> None:
    units = [_unit(verdict=v) for v in ("PASS", "PASS", "FAIL", "FLAKY")]
    assert counts(units) == {"PASS": 2, "FAIL": 1, "FLAKY": 1, "ERROR": 0, "SKIP": 0}
    assert counts([]) == dict.fromkeys(VERDICTS, 0)


def test_counts_keeps_an_unknown_state() -> None:
    assert counts([_unit(verdict="BUDGET")])["BUDGET"] == 1


def test_pass_rate() -> None:
    assert pass_rate([]) == 0.0
    assert pass_rate([_unit(verdict="PASS"), _unit(verdict="FLAKY"), _unit(verdict="FAIL")]) == 0.3333
    assert pass_rate([_unit(verdict="PASS")]) == 1.0


# --- locate --------------------------------------------------------------------------------------------------


def test_locate_without_a_file() -> None:
    assert locate(_unit(), Path("/nowhere")) == (None, 1)


def test_locate_a_missing_file_points_at_line_one(tmp_path: Path) -> None:
    path, line = locate(_unit(file="evals/gone.yaml"), tmp_path)
    assert (path, line) == (tmp_path / "evals" / "gone.yaml", 1)


def test_locate_finds_the_failed_entry_of_a_list(tmp_path: Path) -> None:
    (tmp_path / "case.yaml").write_text(CASE, encoding="utf-8")
    unit = _unit(file="case.yaml", fail_paths=[(("expected", "contains"), "TOTAL"), (("name",), None)])
    assert locate(unit, tmp_path) == (tmp_path / "case.yaml", 6)


def test_locate_an_entry_not_in_the_list_points_at_its_key(tmp_path: Path) -> None:
    (tmp_path / "case.yaml").write_text(CASE, encoding="utf-8")
    unit = _unit(file="case.yaml", fail_paths=[(("expected", "contains"), "GONE")])
    assert locate(unit, tmp_path) == (tmp_path / "case.yaml", 4)


def test_locate_skips_paths_the_file_lacks(tmp_path: Path) -> None:
    (tmp_path / "case.yaml").write_text(CASE, encoding="utf-8")
    unit = _unit(
        file="case.yaml", fail_paths=[(("expected", "files-created"), "x"), (("judge", "criteria"), None)]
    )
    assert locate(unit, tmp_path)[1] == 10  # judge: criteria:
    unit = _unit(file="case.yaml", fail_paths=[(("nothing",), None)])
    assert locate(unit, tmp_path)[1] == 1


def test_locate_an_absolute_file_and_json(tmp_path: Path) -> None:
    file = tmp_path / "evals.json"
    file.write_text(
        '{\n  "name": "x",\n  "expected": {\n    "contains": ["A", "B"]\n  }\n}\n', encoding="utf-8"
    )
    unit = _unit(file=str(file), fail_paths=[(("expected", "contains"), "B")])
    assert locate(unit, None) == (file, 4)


def test_locate_a_broken_file_points_at_line_one(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("name: [unclosed\n  - x: {\n", encoding="utf-8")
    unit = _unit(file="bad.yaml", fail_paths=[(("name",), None)])
    assert locate(unit, tmp_path) == (tmp_path / "bad.yaml", 1)


def test_units_of_and_locate_together(tmp_path: Path) -> None:
    (tmp_path / "case.yaml").write_text(CASE, encoding="utf-8")
    (unit,) = units_of(make_report([make_case("extract", "FAIL", file="case.yaml", failed_check="TOTAL")]))
    assert locate(unit, tmp_path) == (tmp_path / "case.yaml", 6)
