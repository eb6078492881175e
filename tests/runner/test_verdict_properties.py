"""Every face agrees, for every mix of runs (docs/verdicts.md rule 5, docs/repeats.md): hypothesis generates run
sequences of PASS, FAIL, ERROR, SKIP and runs a budget kept from starting, and checks the exit code, the CLI
table, the report (as written, as re-judged, as restored) and the lens against the documented rules, which are
written out here a second time as the oracle."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evalens.core.models.uaaps import EvalReport
from evalens.runner.results import (
    UnitResult,
    apply_repeats,
    fails_run,
    rederive_report_case,
    report_case_from_result,
    result_from_report_case,
)

RUN = st.sampled_from(["PASS", "FAIL", "ERROR", "SKIP", "BUDGET"])


def documented(runs: list[str]) -> tuple[str, str]:
    """The verdict and the state docs/verdicts.md and docs/repeats.md give."""
    if "FAIL" in runs:
        return "FAIL", ("FLAKY" if "PASS" in runs and "ERROR" not in runs else "FAIL")
    if "ERROR" in runs:
        return "ERROR", "ERROR"
    if "BUDGET" in runs:
        return "SKIP", "BUDGET"
    if all(r == "PASS" for r in runs):
        return "PASS", "PASS"
    if all(r == "SKIP" for r in runs):
        return "SKIP", "SKIP"
    return "ERROR", "ERROR"  # passes beside runs that never happened (an interruption)


def documented_exit(state: str, flaky: str) -> int:
    if state == "FLAKY":
        return 1 if flaky == "fail" else 0
    return 1 if state in ("FAIL", "ERROR") else 0


def _result(runs: list[str]) -> UnitResult:
    verdicts = ["SKIP" if r == "BUDGET" else r for r in runs]
    many = len(runs) > 1
    return apply_repeats(
        UnitResult(
            name="unit-x",
            verdict=verdicts[0] if not many else "PASS",
            reason="why",
            runs=len(runs),  # type: ignore[arg-type]
            run_verdicts=verdicts if many else [],
            budget_stopped=runs.count("BUDGET"),
        )
    )  # type: ignore[arg-type]


REPORT = {
    "version": 1,
    "id": "r",
    "timestamp": "2026-01-01T00:00:00Z",
    "duration_seconds": 1.0,
    "config": {"engine": "claude-code"},
    "agent": {"runtime": "claude-code"},
    "judge": {},
    "environment": {"os": "linux"},
    "package": {"name": "p"},
    "summary": {"total": 0, "passed": 0, "failed": 0, "pass_rate": 0.0},
    "cases": [],
}


@settings(max_examples=300, deadline=None)
@given(st.lists(RUN, min_size=1, max_size=6))
def test_exit_code_table_report_and_lens_agree_with_the_docs(runs: list[str]) -> None:
    from evalens.cli.progress import print_summary
    from evalens.server.features.run_present import verdict_title

    verdict, state = documented(runs)
    result = _result(runs)
    # the runner's result and the exit code
    assert (result.verdict, result.shown_state) == (verdict, state), runs
    for flaky in ("fail", "pass"):
        assert int(fails_run([result], flaky)) == documented_exit(state, flaky), (runs, flaky)  # type: ignore[arg-type]
    # the counted figures: errored and unstarted runs are not counted
    counted = runs.count("PASS") + runs.count("FAIL")
    if len(runs) > 1:
        assert result.pass_rate == (round(runs.count("PASS") / counted, 4) if counted else None)
        assert (result.pass_hat_k is None) == (counted != len(runs))
        assert (result.pass_at_k or {}).get("1") == result.pass_rate  # pass@1 is the pass rate
        if counted:  # at least all counted runs passed exactly when none of them failed
            assert result.at_least_k is not None
            assert result.at_least_k[str(counted)] == (1.0 if "FAIL" not in runs else 0.0)
    if state == "BUDGET":
        assert "budget" in result.reason
    # the report, as written, as re-judged (rederived) and as restored
    case = report_case_from_result(result, None, Path("/"))
    assert case.verdict == verdict
    assert (case.state or case.verdict) == state
    rederived = rederive_report_case(case.model_copy(deep=True))
    assert (rederived.verdict, rederived.state or rederived.verdict) == (verdict, state)
    report = EvalReport.model_validate({**REPORT, "cases": [case.model_dump(mode="json", exclude_none=True)]})
    restored = result_from_report_case(report.cases[0], report, Path("/tmp/r.json"))
    assert (restored.verdict, restored.shown_state) == (verdict, state)
    # the lens and the CLI table
    assert state in verdict_title(result)
    out = io.StringIO()
    print_summary([result], None, stream=out, ci=True)
    row = next(line for line in out.getvalue().splitlines() if "unit-x" in line)
    assert state in row, (runs, row)
