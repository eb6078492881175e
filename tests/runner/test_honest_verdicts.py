"""Honest verdicts, round two (issue 29), without an agent: what a verdict depends on is the next run's inputs;
state is derived by the one verdict function whoever produces a result (a run, re-judging, restoring); an ERROR
is never forgiven as flakiness; a budget stop is its own state; every grader parses strictly."""

from __future__ import annotations

import asyncio
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from evalens.runner import depends, judge
from evalens.runner.budget import Budget
from evalens.runner.results import (
    UnitResult,
    apply_repeats,
    fails_run,
    report_case_from_result,
    result_from_report_case,
)
from evalens.runner.stats import Repeats
from tests.runner.runner_helpers import case, make_package


def _repeated(verdicts: list[str], budget: int = 0, reason: str = "fake judge") -> UnitResult:
    return apply_repeats(
        UnitResult(
            name="u",
            verdict="PASS",
            reason=reason,
            runs=len(verdicts),
            run_verdicts=verdicts,
            budget_stopped=budget,
        )
    )  # type: ignore[arg-type]


# --------------------------------------------------------------------------- probe 5: --flaky pass and ERROR


def test_flaky_pass_never_forgives_an_error_run() -> None:
    mixed = _repeated(["PASS", "FAIL", "ERROR"])
    assert (mixed.verdict, mixed.state) == ("FAIL", "FAIL")
    assert fails_run([mixed], "pass") and fails_run([mixed], "fail")
    flaky = _repeated(["PASS", "FAIL", "PASS"])
    assert flaky.state == "FLAKY" and not fails_run([flaky], "pass") and fails_run([flaky], "fail")


# --------------------------------------------------------------------------- probe 6 + minor: budgets


def test_a_unit_cut_short_by_a_budget_agrees_with_itself_in_every_face() -> None:
    from evalens.cli.progress import print_summary
    from evalens.server.features.run_present import verdict_title

    refused = "budget spent: 40,000 of --max-tokens 1 tokens"
    cut = _repeated(["PASS", "SKIP", "SKIP"], budget=2, reason=refused)
    assert (cut.verdict, cut.state) == ("SKIP", "BUDGET")
    assert cut.reason.startswith("budget: 2 of 3 runs not started") and refused in cut.reason
    assert cut.pass_hat_k is None  # one counted run says nothing of pass^3
    assert not fails_run([cut])
    case_ = report_case_from_result(cut, None, Path("/"))
    assert (case_.verdict, case_.state, case_.budget_stopped) == ("SKIP", "BUDGET", 2)
    assert verdict_title(cut).startswith("$ BUDGET: budget: 2 of 3")
    out = io.StringIO()
    print_summary([cut], None, stream=out, ci=True)
    assert "BUDGET" in out.getvalue() and "budget: 1" in out.getvalue()
    # a FAIL that really happened is still a FAIL when the budget stopped the rest
    assert _repeated(["FAIL", "SKIP"], budget=1).state == "FAIL"
    single = apply_repeats(UnitResult(name="u", verdict="SKIP", reason=refused, budget_stopped=1))
    assert single.state == "BUDGET" and report_case_from_result(single, None, Path("/")).state == "BUDGET"


def test_budget_message_does_not_round_a_tiny_cap_to_zero() -> None:
    b = Budget(max_cost=0.000001)
    b.spend(0.0123, 10)
    assert b.exhausted() == "budget spent: $0.0123 of --max-cost $0.000001"


def test_pass_rate_counts_only_runs_that_passed_or_failed() -> None:
    r = _repeated(["PASS", "ERROR"])
    assert (
        r.verdict == "ERROR" and r.pass_rate == 1.0 and Repeats.of(r.run_verdicts).label() == "1/1 +1 error"
    )
    assert report_case_from_result(r, None, Path("/")).pass_rate == 1.0
    assert r.pass_hat_k is None  # k = 2 runs asked for, one counted


# --------------------------------------------------------------------------- probe 4: state is derived


def _report_with_runs(tmp_path: Path, verdicts: list[str], state: str) -> Path:
    from evalens.core.models.uaaps import EvalReport

    folder = tmp_path / "reports" / "r1" / "c"
    for i in range(1, len(verdicts) + 1):
        (folder / f"run-{i}").mkdir(parents=True)
        (folder / f"run-{i}" / "transcript.json").write_text(
            json.dumps(
                {
                    "case": {"judge": {"criteria": "ok"}, "input": {"prompt": "p"}},
                    "transcript": {"output": "out"},
                    "checks": [],
                    "agent_error": None,
                }
            )
        )
    report = {
        "version": 1,
        "id": "r1",
        "timestamp": "2026-01-01T00:00:00Z",
        "duration_seconds": 1.0,
        "config": {"engine": "claude-code", "judge": "claude-sonnet-4-5", "timeout": 60},
        "agent": {"runtime": "claude-code"},
        "judge": {"model": "claude-sonnet-4-5"},
        "environment": {"os": "linux"},
        "package": {"name": "p"},
        "summary": {"total": 1, "passed": 1, "failed": 0, "pass_rate": 1.0},
        "cases": [
            {
                "name": "c",
                "verdict": "PASS",
                "duration_seconds": 1.0,
                "runs": len(verdicts),
                "run_verdicts": verdicts,
                "state": state,
                "artifacts": "r1/c",
                "pass_rate": 1.0,
            }
        ],
    }
    path = tmp_path / "reports" / "r1.json"
    EvalReport.model_validate(report)
    path.write_text(json.dumps(report))
    return path


@pytest.mark.parametrize(
    ("before", "state"), [(["PASS", "PASS", "PASS"], "PASS"), (["PASS", "FAIL", "PASS"], "FLAKY")]
)
def test_rejudge_recomputes_state_through_the_verdict_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: list[str], state: str
) -> None:
    from evalens.runner import api
    from evalens.runner.reselect import failed_reason

    path = _report_with_runs(tmp_path, before, state)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")

    async def fails(spec: Any, prompt: str, **_kw: Any) -> judge.JudgeOutcome:
        return judge.JudgeOutcome("FAIL", "criteria not met", spec.model, spec.provider)

    monkeypatch.setattr(api, "judge_case", fails)  # where rejudge looks it up
    report, out = asyncio.run(api.rejudge(path))
    c = report.cases[0]
    assert c.run_verdicts == ["FAIL", "FAIL", "FAIL"]
    assert (c.verdict, c.state, c.pass_rate, c.pass_hat_k) == ("FAIL", "FAIL", 0.0, 0.0)
    assert report.summary.failed == 1 and not report.summary.flaky
    result = result_from_report_case(c, report, out)
    assert result.shown_state == "FAIL" and failed_reason(result) == "last run: FAIL"


def test_restoring_derives_state_instead_of_trusting_the_file(tmp_path: Path) -> None:
    from evalens.core.models.uaaps import EvalReport

    path = _report_with_runs(tmp_path, ["FAIL", "FAIL", "FAIL"], "FLAKY")  # a file that contradicts itself
    report = EvalReport.model_validate_json(path.read_text())
    result = result_from_report_case(report.cases[0], report, path)
    assert (result.verdict, result.shown_state) == ("FAIL", "FAIL")


# --------------------------------------------------------------------------- probe 7: one strict parser


def test_a_grader_reply_with_an_example_object_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalens.runner.session import AgentResult
    from evalens.runner.suites.graded import grade

    replies = [
        'Example: {"results": [{"index": 1, "passed": true, "evidence": "example"}]} '
        'My grading: {"results": [{"index": 1, "passed": false, "evidence": "missing"}]}'
    ]

    async def ask(*_a: Any, **_kw: Any) -> str:
        return replies[0]

    monkeypatch.setattr(judge, "ask_text", ask)
    spec = judge.resolve_judge("claude-sonnet-4-5", default_provider="anthropic")
    graded, error, _judgements = asyncio.run(
        grade(spec, "p", AgentResult(output="done"), ["wrote it"], scale=False, deadline=5)
    )
    assert graded is None and error is not None and error.startswith("grader error:")
    replies[0] = '{"results": [{"index": 1, "passed": false, "evidence": "missing"}]}'
    graded, error, _judgements = asyncio.run(
        grade(spec, "p", AgentResult(output="done"), ["wrote it"], scale=False, deadline=5)
    )
    assert error is None and graded == [{"passed": False, "evidence": "missing"}]


# --------------------------------------------------------------------------- probes 1-3: next-run fingerprint


FAKE_CLI = "#!/bin/sh\necho '{version} (Claude Code)'\n"


def _fake_cli(tmp_path: Path, version: str) -> Path:
    cli = tmp_path / f"claude-{version}"
    cli.write_text(FAKE_CLI.format(version=version))
    cli.chmod(0o755)
    return cli


def test_the_fingerprint_comes_from_the_next_runs_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = make_package(tmp_path / "pkg", judge="claude-sonnet-4-5", cases={"a": case("pass")})
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(_fake_cli(tmp_path, "2.0.1")))
    result = UnitResult(
        name="a",
        format="uaaps-case",
        case_file=str(pkg / "evals" / "cases" / "00-a.yaml"),
        location=[],
        verdict="PASS",
        engine="claude-code",
        engine_version="2.0.1",
        judge_model="claude-sonnet-4-5",
        agent_model="claude-sonnet-4-5-20250929",
    )
    depends.finish_unit(result, inputs=depends.NextRun(engine="claude-code"))
    assert result.fingerprint is not None
    assert result.fingerprint["engine-version"] == "2.0.1 (Claude Code)"
    assert depends.staleness(result) == []
    assert depends.staleness(result, depends.NextRun(judge="claude-opus-4-1")) == [
        "judge model claude-sonnet-4-5 → claude-opus-4-1"
    ]
    assert depends.staleness(result, depends.NextRun(agent_model="other-model-9")) == [
        "agent model default → other-model-9"
    ]
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(_fake_cli(tmp_path, "9.9.9")))
    assert depends.staleness(result) == ["engine version 2.0.1 (Claude Code) → 9.9.9 (Claude Code)"]
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(_fake_cli(tmp_path, "2.0.1")))
    config = pkg / "evals" / "eval-config.json"
    data = json.loads(config.read_text())
    config.write_text(json.dumps({**data, "judge": "claude-opus-4-1"}))
    assert depends.staleness(result) == [
        "eval config changed",
        "judge model claude-sonnet-4-5 → claude-opus-4-1",
    ]
    config.write_text(json.dumps(data))
    for folder in ("scripts", "bin"):
        (pkg / folder).mkdir()
        (pkg / folder / "hook.sh").write_text("#!/bin/sh\nexit 0\n")
        depends.finish_unit(result, inputs=depends.NextRun())
        (pkg / folder / "hook.sh").write_text("#!/bin/sh\nexit 2\n")
        os.utime(pkg / folder / "hook.sh", ns=(1, 1))
        assert depends.staleness(result) == [f"{folder} changed"]


def test_a_renamed_case_keeps_its_last_run_for_stale_and_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Renamed in place (same file, same content), a case is the same unit (its identity, issue 23): its FAIL is
    still its last run, and a rename alone does not make it stale. Renamed *and* changed, it is a new case."""
    from evalens.core.models.uaaps import EvalReport
    from evalens.runner.reselect import case_names, pick
    from evalens.runner.results import report_case_from_result as to_case

    pkg = make_package(tmp_path / "pkg", cases={"a": case("pass")})
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(_fake_cli(tmp_path, "2.0.1")))
    result = UnitResult(
        name="a",
        format="uaaps-case",
        case_file=str(pkg / "evals" / "cases" / "00-a.yaml"),
        location=[],
        verdict="FAIL",
        reason="no",
    )
    depends.finish_unit(result)
    reports = pkg / "evals" / "reports"
    reports.mkdir()
    report = {
        "version": 1,
        "id": "r",
        "timestamp": "2026-01-01T00:00:00Z",
        "duration_seconds": 1.0,
        "config": {"engine": "claude-code"},
        "agent": {"runtime": "claude-code"},
        "judge": {},
        "environment": {"os": "linux"},
        "package": {"name": "p"},
        "summary": {"total": 1, "passed": 0, "failed": 1, "pass_rate": 0.0},
        "cases": [to_case(result, None, pkg).model_dump(mode="json", exclude_none=True)],
    }
    EvalReport.model_validate(report)
    (reports / "r.json").write_text(json.dumps(report))
    case_file = pkg / "evals" / "cases" / "00-a.yaml"
    case_file.write_text(case_file.read_text().replace("name: a", "name: b"))
    assert case_names(pkg) == ["b"]
    assert pick(pkg, "stale", case_names(pkg), []) == ([], {})
    assert pick(pkg, "failed", case_names(pkg), []) == (["b"], {"b": "last run: FAIL"})
    case_file.write_text(
        case_file.read_text().replace("name: b", "name: c").replace("SCENARIO=pass", "SCENARIO=done")
    )
    assert pick(pkg, "stale", case_names(pkg), []) == (["c"], {"c": "never ran"})
    assert pick(pkg, "failed", case_names(pkg), [])[0] == []


# --------------------------------------------------------------------------- probe 8: baselines need isolation


def test_a_baseline_without_an_enforced_sandbox_is_refused_unless_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalens.runner.api_types import RunError, RunRequest
    from evalens.runner.baseline import BaselinePlan, report_section
    from evalens.runner.suites.uaaps import plan_run
    from evalens.runner.uplift_words import describe

    pkg = make_package(tmp_path / "pkg", cases={"a": case("pass")})
    monkeypatch.setenv("EVALENS_NO_BWRAP", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with pytest.raises(RunError, match="--allow-unisolated-baseline"):
        plan_run(RunRequest(package_root=pkg, baseline="no-skill"))
    assert (
        plan_run(
            RunRequest(package_root=pkg, baseline="no-skill", allow_unisolated_baseline=True)
        ).baseline_isolated
        is False
    )
    monkeypatch.delenv("EVALENS_NO_BWRAP")
    with_pkg = UnitResult(name="a", verdict="PASS", runs=1)
    without = UnitResult(name="a", verdict="FAIL", runs=1)
    section = report_section(BaselinePlan(kind="no-skill"), [with_pkg], [without], [], isolated=False)
    assert (
        section.uplift.isolated is False and with_pkg.uplift is not None and with_pkg.uplift.isolated is False
    )
    assert "unisolated" in describe(with_pkg.uplift)


def test_no_cost_comparison_against_baseline_runs_that_all_crashed() -> None:
    from evalens.core.models.run_record import Usage
    from evalens.runner.baseline import unit_uplift
    from evalens.runner.uplift_words import cost_text

    mine = UnitResult(
        name="a", verdict="PASS", usage=Usage(input_tokens=100, output_tokens=10, cost_usd=0.01)
    )
    crashed = UnitResult(
        name="a", verdict="ERROR", usage=Usage(input_tokens=5, output_tokens=0, cost_usd=0.0001)
    )
    assert cost_text(unit_uplift(mine, crashed, "no skill")) == ""
    ran = UnitResult(name="a", verdict="FAIL", usage=Usage(input_tokens=50, output_tokens=5, cost_usd=0.005))
    assert cost_text(unit_uplift(mine, ran, "no skill")).startswith("cost +$0.0050")


def test_fail_on_error_tolerates_a_share_of_errored_units_but_never_a_fail() -> None:
    import argparse

    from evalens.runner.results import error_rate_arg

    units = [UnitResult(name=str(i), verdict="PASS") for i in range(19)] + [
        UnitResult(name="e", verdict="ERROR")
    ]
    assert fails_run(units) and fails_run(units, error_rate=0.04)
    assert not fails_run(units, error_rate=0.05)
    assert fails_run([*units[:-1], UnitResult(name="f", verdict="FAIL")], error_rate=0.5)
    assert error_rate_arg("0.05") == 0.05
    with pytest.raises(argparse.ArgumentTypeError):
        error_rate_arg("5")


def test_codex_tokens_are_priced_from_the_versioned_overridable_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalens.core.models.run_record import Usage
    from evalens.runner import prices

    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=400_000)
    assert prices.price_of("gpt-5-2025-08-07") == prices.SHIPPED["gpt-5"]
    assert prices.cost_of(usage, "gpt-5") == pytest.approx(0.6 * 1.25 + 0.4 * 0.125 + 0.1 * 10.0)
    assert prices.cost_of(usage, "gpt-fake") is None
    b = Budget(max_cost=1.0)
    b.spend_usage(usage, "gpt-fake")
    assert b.cost == 0 and b.unpriced == ["gpt-fake"]
    assert "no price for gpt-fake" in (b.unpriced_note() or "")
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"gpt-fake": {"input": 1.0, "output": 2.0}}))
    monkeypatch.setenv(prices.PRICES_ENV, str(table))
    b = Budget(max_cost=1.0)
    b.spend_usage(usage, "gpt-fake")
    assert b.cost == pytest.approx(1.2) and b.exhausted() == "budget spent: $1.2000 of --max-cost $1.0000"


def test_pass_at_k_and_at_least_k_beside_pass_hat_k() -> None:
    from evalens.runner.stats import at_least_k, pass_at_k

    assert pass_at_k(2, 5, 2) == pytest.approx(0.7)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(0, 5, 5) == 0.0 and pass_at_k(1, 5, 5) == 1.0 and pass_at_k(1, 2, 3) is None
    assert at_least_k(2, 3, 2) == 1.0 and at_least_k(1, 3, 2) == 0.0 and at_least_k(1, 1, 2) is None
    r = _repeated(["PASS", "FAIL", "PASS"])
    assert r.pass_at_k == {"1": 0.6667, "2": 1.0, "3": 1.0} and r.at_least_k == {"1": 1.0, "2": 1.0, "3": 0.0}
    assert r.pass_hat_k == 0.0
    case_ = report_case_from_result(r, None, Path("/"))
    assert case_.pass_at_k == r.pass_at_k and case_.at_least_k == r.at_least_k


def test_merging_shards_derives_state_again(tmp_path: Path) -> None:
    from evalens.runner.ci.merge import merge_reports
    from evalens.runner.report import load_report
    from tests.ci_helpers import make_case, make_report, write

    def shard(case_: Any, k: int) -> Path:
        from evalens.core.models.uaaps import ReportShard as Shard

        report = make_report([case_])
        report.shard = Shard(index=k, count=2, units=2, balanced_by="count", split="abc")
        return write(report, tmp_path / f"s{k}" / "r.json")

    lying = make_case(
        "c1", "PASS", file="evals/cases/01.yaml", runs=3, run_verdicts=["FAIL", "FAIL", "FAIL"], state="FLAKY"
    )
    cut = make_case(
        "c2", "ERROR", file="evals/cases/02.yaml", runs=2, run_verdicts=["PASS", "SKIP"], budget_stopped=1
    )
    a, b = shard(lying, 1), shard(cut, 2)
    merged, _ = merge_reports([(a, load_report(a)), (b, load_report(b))], tmp_path / "m.json")
    by = {c.name: c for c in merged.cases}
    assert (by["c1"].verdict, by["c1"].state) == ("FAIL", "FAIL")
    assert (by["c2"].verdict, by["c2"].state) == ("SKIP", "BUDGET")
    s = merged.summary
    assert (s.passed, s.failed, s.errored, s.skipped, s.flaky, s.budget) == (0, 1, 0, 1, None, 1)


def test_show_prints_the_reports_run_verdicts_under_a_rejudged_header() -> None:
    from rich.console import Console

    from evalens.cli.show import render_terminal
    from evalens.runner.run_view import load_view
    from tests.conftest import REPO

    report = REPO / "tests" / "runner" / "fixtures" / "run-report" / "2026-11-26T11-58-59Z.json"
    view = load_view(report, "writes-greeting")
    unit = view.units[0]
    record = unit.records[0]
    unit.records = [record.model_copy(update={"run_index": i, "verdict": "PASS"}) for i in (1, 2)]
    unit.case.verdict, unit.case.runs, unit.case.run_verdicts = "FAIL", 2, ["FAIL", "FAIL"]  # as re-judged
    out = io.StringIO()
    render_terminal(view, console=Console(file=out, width=200, highlight=False, color_system=None))
    text = out.getvalue()
    assert "run 1 FAIL" in text and "run 2 FAIL" in text and "run 1 PASS" not in text
