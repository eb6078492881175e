"""The drifts between the two run paths that issue #11 names, each with the test that would have caught it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalens.core.js_regex import compile_js, js_regex_error
from evalens.core.validate import validate_text
from evalens.runner.session import AgentResult
from evalens.runner.suites import skilljack as sj
from evalens.runner.suites.skilljack import SjTask
from evalens.runner.verdicts import combine_runs, combine_units

# Patterns JavaScript accepts; the ones Python cannot compile must be refused by validation, never at run time.
JS_PATTERNS = [
    r"(?<year>\d{4})-\k<year>",
    r"(?<w>[Hh]i)\s\k<w>",
    r"(?<=a)b(?!c)",
    r"(?:x|y)+\/done",
    r"[\d.]+ ms",
    r"([a-z",  # invalid in both
]


def _task(det: dict) -> SjTask:
    return SjTask("t-1", "hi", "greeting", {}, [], {"expect_skill_activation": True, **det}, {})


@pytest.mark.parametrize("pattern", JS_PATTERNS)
def test_a_regex_that_validates_never_fails_mid_run(pattern: str, tmp_path: Path) -> None:
    """Drift (a): validation mapped `\\k<name>` but the run did not, so `re.error` escaped mid-run."""
    text = (
        "skill: greeting\ntasks:\n  - id: t-1\n    prompt: say hi\n    expected_skill_load: greeting\n"
        f"    deterministic:\n      expect_regex: ['{pattern}']\n"
    )
    checked = validate_text(str(tmp_path / "tasks.yaml"), text)
    invalid = [p for p in checked.problems if p.code == "invalid-regex"]
    assert bool(invalid) == (js_regex_error(pattern) is not None)
    result = AgentResult(
        output="2024-2024 Hi Hi ab x/done 1.5 ms", tools=[{"tool": "Skill", "input": {"skill": "greeting"}}]
    )
    ok, details, _ = sj.deterministic(_task({"expect_regex": [pattern]}), result)  # never raises
    if invalid:
        assert not ok and details[-1].endswith("(invalid regex)")
    else:
        assert ok, details
        assert compile_js(pattern).search(result.output)


def test_js_regex_translation_is_the_one_the_formats_use() -> None:
    from evalens.core.formats import _shared

    assert _shared.js_regex_error is js_regex_error
    with pytest.raises(re.error):
        compile_js("([a-z")


def _unit(name: str, verdict: str, want: bool, rate: float | None) -> object:
    from evalens.runner.results import UnitResult

    return UnitResult(
        name=name,
        verdict=verdict,
        format="trigger-evals",
        details={"query": f"q{name}", "should_trigger": want, "trigger_rate": rate},
    )


def test_trigger_precision_recall_use_real_labels_and_leave_errors_out() -> None:
    """Drift (b): the `*` summary guessed each query's label from its verdict, so an ERROR query (rate None)
    counted as a missed positive; precision and recall come from the labels, ERROR left out and said so."""
    from evalens.server.features.run_formats import summary

    units = [
        _unit("0", "PASS", True, 1.0),
        _unit("1", "PASS", False, 0.0),
        _unit("2", "ERROR", True, None),
        _unit("3", "FAIL", False, 1.0),
    ]
    whole = summary("trigger-evals", units, 1.0)  # type: ignore[arg-type]
    assert "precision 0.5, recall 1.0" in whole.reason  # tp=1 (q0), fp=1 (q3), fn=0: q2 did not run
    assert "1 ERROR left out" in whole.reason
    assert whole.verdict == "FAIL"
    only_error = summary("trigger-evals", units[:3], 1.0)  # type: ignore[arg-type]
    assert (
        only_error.verdict == "ERROR"
    )  # nothing failed, but a query could not be judged: never FAIL or PASS
    assert "precision 1.0, recall 1.0" in only_error.reason


def test_verdict_combination_rules() -> None:
    assert combine_runs(["PASS", "ERROR", "PASS"]) == "ERROR"
    assert combine_runs(["PASS", "FAIL", "ERROR"]) == "FAIL"
    assert combine_runs(["SKIP", "SKIP"]) == "SKIP"
    assert combine_units(["PASS", "SKIP"]) == "PASS"
    assert combine_units(["PASS", "ERROR"]) == "ERROR"
    assert combine_units([]) == "ERROR"


def test_report_to_result_is_one_conversion(tmp_path: Path) -> None:
    """Drift (c): `runner.api` and the server's memory each converted report cases to results, and disagreed
    (the server lost `artifacts` and kept `case_file` relative)."""
    from evalens.core.models.uaaps import EvalReport
    from evalens.runner.api import load_last_results
    from evalens.runner.report import write_report
    from evalens.server.features.run_memory import read_reports

    pkg = tmp_path / "pkg"
    report = EvalReport.model_validate(
        {
            "version": 1,
            "id": "eval-run-x",
            "timestamp": "2026-01-01T00:00:00Z",
            "config": {"engine": "codex"},
            "summary": {"total": 2, "passed": 0, "failed": 1, "skipped": 0, "errored": 1, "pass_rate": 0.0},
            "cases": [
                {
                    "name": "a",
                    "verdict": "ERROR",
                    "error": "judge did not answer within 10 s",
                    "case_file": "evals/cases/a.yaml",
                    "judge_verdict": {"result": "ERROR", "reason": "judge did not answer within 10 s"},
                    "artifacts": "x/a",
                },
                {
                    "name": "b",
                    "verdict": "FAIL",
                    "error": "output does not contain 'A'",
                    "case_file": "evals/cases/b.yaml",
                    "checks": [
                        {
                            "kind": "contains",
                            "value": "A",
                            "status": "FAIL",
                            "detail": "output does not contain 'A'",
                            "location": ["expected", "contains", 0],
                        }
                    ],
                },
                {"name": "other", "verdict": "PASS", "format": "skilljack-tasks", "case_file": "tasks.yaml"},
            ],
        }
    )
    path = write_report(report, pkg / "evals" / "reports" / "2026-01-01T00-00-00Z.json")
    from_api = load_last_results(pkg)
    from_server = {n: r.result for n, r in read_reports(pkg).items()}
    assert from_api == from_server
    assert set(from_api) == {"a", "b"}  # another format's units are not UAAPS cases
    assert from_api["a"].artifacts == str((path.parent / "x" / "a").resolve())
    assert from_api["a"].case_file == str((pkg / "evals" / "cases" / "a.yaml").resolve())
    assert from_api["b"].checks[0].location == ["expected", "contains", 0]
