"""The expected/actual pair an editor diffs for a failed check (issue 27): `contains`, `not-contains` and the
file checks compare; the others (a judge, agent-blocked) have nothing to diff."""

from __future__ import annotations

from evalens.runner.results import UnitCheck, UnitResult
from evalens.server.features.run_present import check_diff

OUTPUT = 'EXTRACTED: the first line "Hello, World" was written.'


def _result(*checks: UnitCheck) -> UnitResult:
    return UnitResult(name="c", verdict="FAIL", checks=list(checks), output_snippet=OUTPUT)


def test_contains_diffs_the_wanted_text_against_the_output():
    check = UnitCheck(kind="contains", value="Goodbye", status="FAIL")
    assert check_diff(_result(check), check) == ("Goodbye", OUTPUT)


def test_not_contains_diffs_the_output_without_the_forbidden_text():
    check = UnitCheck(kind="not_contains", value="Hello", status="FAIL")
    expected, actual = check_diff(_result(check), check) or ("", "")
    assert actual == OUTPUT and expected == OUTPUT.replace("Hello", "") and "Hello" not in expected


def test_file_checks_diff_every_declared_path_against_those_that_exist():
    made = UnitCheck(kind="files_created", value="output/a.txt", status="PASS")
    missing = UnitCheck(kind="files_created", value="output/report.md", status="FAIL")
    assert check_diff(_result(made, missing), missing) == (
        "output/a.txt\noutput/report.md\n",
        "output/a.txt\n",
    )


def test_checks_without_a_comparison_have_no_diff():
    check = UnitCheck(kind="agent_blocked", value=True, status="FAIL")
    assert check_diff(_result(check), check) is None
