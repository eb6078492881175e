"""``--judge-repeats K`` for the graded formats (runner/suites/graded.py::grade): a skill-creator or
writing-skills run graded K times, combined by the rule every judge follows — a grader that fails once fails the
grading, a statement holds only if every grading passed it (a scored statement keeps its lowest score) — with each
statement's K verdicts for the report's flip rate and the batch's agreement (runner/stats.py). The grader's
replies are scripted at the judge client (no model is asked)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evalens.runner import judge
from evalens.runner.results import UnitResult, report_case_from_result
from evalens.runner.session import AgentResult
from evalens.runner.stats import agreement_fields, flip_fields
from evalens.runner.suites.graded import grade


def _scripted(monkeypatch: pytest.MonkeyPatch, replies: list[Any]) -> list[str]:
    """The grader answers each call with the next reply (a list of results, or an exception to raise)."""
    asked: list[str] = []

    async def ask(_spec: Any, _system: str, user: str, *_a: Any, **_kw: Any) -> str:
        asked.append(user)
        reply = replies[len(asked) - 1]
        if isinstance(reply, Exception):
            raise reply
        return json.dumps({"results": reply})

    monkeypatch.setattr(judge, "ask_text", ask)
    return asked


SPEC = judge.resolve_judge("claude-sonnet-4-5", default_provider="anthropic")


def _grade(statements: list[str], scale: bool, repeats: int) -> Any:
    return asyncio.run(
        grade(SPEC, "p", AgentResult(output="done"), statements, scale=scale, deadline=5, repeats=repeats)
    )


def test_a_statement_holds_only_if_every_grading_passed_it(monkeypatch: pytest.MonkeyPatch) -> None:
    yes = {"passed": True, "evidence": "there"}
    no = {"passed": False, "evidence": "not there"}
    asked = _scripted(
        monkeypatch,
        [[{"index": 1, **yes}, {"index": 2, **yes}], [{"index": 1, **no}, {"index": 2, **yes}]]
        + [[{"index": 1, **yes}, {"index": 2, **yes}]],
    )
    graded, error, judgements = _grade(["wrote it", "named it"], scale=False, repeats=3)
    assert len(asked) == 3 and len(set(asked)) == 1  # the same run, graded three times with one prompt
    assert error is None
    assert graded == [no, yes]  # the failing grading's evidence is the one shown
    assert judgements == [["PASS", "FAIL", "PASS"], ["PASS", "PASS", "PASS"]]


def test_a_scored_statement_keeps_its_lowest_score(monkeypatch: pytest.MonkeyPatch) -> None:
    _scripted(
        monkeypatch,
        [[{"index": 1, "score": 4, "reasoning": "good"}], [{"index": 1, "score": 2, "reasoning": "thin"}]],
    )
    graded, error, judgements = _grade(["clarity: reads well"], scale=True, repeats=2)
    assert error is None and graded == [{"score": 2, "reasoning": "thin"}]
    assert judgements == [["PASS", "FAIL"]]  # writing-skills passes a statement at 3 or more


def test_a_grader_that_fails_once_fails_the_grading(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = [{"index": 1, "verdict": "maybe"}]  # no usable result for the statement, asked and retried once
    _scripted(monkeypatch, [[{"index": 1, "passed": True, "evidence": "x"}], bad, bad])
    graded, error, judgements = _grade(["wrote it"], scale=False, repeats=2)
    assert graded is None and judgements == []
    assert error is not None and error.startswith(
        "grader error: the grader gave no usable result for statement 1"
    )


def test_one_grading_records_no_judgements(monkeypatch: pytest.MonkeyPatch) -> None:
    _scripted(monkeypatch, [[{"index": 1, "passed": True, "evidence": "x"}]])
    graded, error, judgements = _grade(["wrote it"], scale=False, repeats=1)
    assert error is None and graded == [{"passed": True, "evidence": "x"}] and judgements == []


def test_the_report_derives_the_flip_rate_and_the_agreement_from_the_judgements() -> None:
    """By hand: [P,F,P] flips in 2 of its 3 pairs, [P,P,P] in none: mean 1/3; α over both items is 0 (as for
    a UAAPS case's transcripts, tests/runner/test_adaptive_runs.py)."""
    judged = [["PASS", "FAIL", "PASS"], ["PASS", "PASS", "PASS"]]
    result = UnitResult(name="1", format="skill-creator-evals", verdict="FAIL", judgements=judged)
    case = report_case_from_result(result, None, Path("."))
    assert case.judge_flip_rate == pytest.approx(0.3333) and case.judge_verdicts == ["PASS", "PASS", "PASS"]
    assert flip_fields([]) == {} and flip_fields([["PASS"]]) == {}
    assert agreement_fields(judged, 3) == {"repeats": 3, "agreement": 0.0}
    assert agreement_fields(judged, 1) == {}
