"""``evalens.core.models.writing_skills`` validated directly: what each file model accepts and rejects (and the
error locations a schema diagnostic is placed by), the nullable fields' schema types, the one strict object
(``convention_compliance``), the 1–5 and 1–10 bounds, and the key lists the rules rely on matching the models."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import ValidationError

from evalens.core.models import writing_skills as m


def errors(model: Any, data: Any) -> list[tuple[tuple, str]]:
    """``(location, error type)`` of every validation error, in order; [] when ``data`` is valid."""
    try:
        model.model_validate(data)
    except ValidationError as e:
        return [(tuple(x["loc"]), x["type"]) for x in e.errors()]
    return []


EXPECTATION = {"criterion": "runs-diff", "description": "Runs `git diff --cached` first", "required": True}
CONVENTIONS = {k: {"passed": None, "details": "N/A - behavioral run"} for k in m.CONVENTION_KEYS}
RESULT = {"criterion": "runs-diff", "score": 4, "passed": True, "reasoning": "Transcript step 2"}


def grading(**over: Any) -> dict[str, Any]:
    data = {
        "case_id": "stages-first",
        "version": 1,
        "run": 1,
        "overall_score": 4.0,
        "required_score": 4.0,
        "results": [RESULT],
        "overall": "pass",
        "convention_compliance": CONVENTIONS,
    }
    data.update(over)
    return data


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("stages-first", True),
        ("v2", True),
        ("a-b-c", True),
        ("Stages", False),
        ("a--b", False),
        ("-a", False),
        ("a_b", False),
        ("", False),
    ],
)
def test_kebab(value: str, ok: bool) -> None:
    assert bool(re.match(m.KEBAB, value)) is ok
    found = errors(m.Case, {"id": value, "prompt": "p", "expectations": []})
    assert found == ([] if ok else [(("id",), "string_pattern_mismatch")])


def test_evals_file() -> None:
    data = {
        "version": "1.0",
        "skill": "/s/commit",
        "cases": [{"id": "a", "prompt": "p", "expectations": [EXPECTATION]}],
    }
    f = m.EvalsFile.model_validate(data)
    assert f.cases[0].files == [] and f.cases[0].expectations[0].required is True
    bad = {
        "version": 1,
        "skill": "",
        "cases": [
            {"id": "a", "prompt": "", "expectations": [{**EXPECTATION, "criterion": "", "required": "maybe"}]}
        ],
    }
    assert errors(m.EvalsFile, bad) == [
        (("version",), "string_type"),
        (("skill",), "string_too_short"),
        (("cases", 0, "prompt"), "string_too_short"),
        (("cases", 0, "expectations", 0, "criterion"), "string_too_short"),
        (("cases", 0, "expectations", 0, "required"), "bool_parsing"),
    ]
    assert errors(m.Case, {"id": "a", "prompt": "p"}) == [(("expectations",), "missing")]


def test_history_nullable_fields_are_required_but_may_be_null() -> None:
    version = {"version": 0, "timestamp": "t", "description": "baseline", "path": "v0/skill"}
    assert errors(m.HistoryVersion, {**version, "git_hash": None, "average_score": None}) == []
    assert errors(m.HistoryVersion, version) == [(("git_hash",), "missing"), (("average_score",), "missing")]
    assert errors(m.HistoryFile, {"versions": [], "current_version": -1}) == [
        (("current_version",), "greater_than_equal")
    ]
    props = m.HistoryVersion.model_json_schema()["properties"]
    assert props["git_hash"]["type"] == [
        "string",
        "null",
    ]  # one type list, not an anyOf the editor shows badly
    assert props["average_score"]["type"] == ["number", "null"]
    assert "anyOf" not in props["git_hash"]
    passed = m.ConventionCheck.model_json_schema()["properties"]["passed"]
    assert passed["type"] == ["boolean", "null"]


@pytest.mark.parametrize(
    ("score", "found"), [(1, []), (5, []), (0, "greater_than_equal"), (6, "less_than_equal")]
)
def test_scores_are_one_to_five(score: int, found: Any) -> None:
    got = errors(m.GradedResult, {**RESULT, "score": score})
    assert got == ([] if not found else [(("score",), found)])


def test_grading_file() -> None:
    g = m.GradingFile.model_validate(grading())
    assert (g.claims, g.user_notes_summary, g.eval_feedback, g.execution_metrics) == ([], "", "", {})
    assert g.convention_compliance.frontmatter.passed is None
    bad = grading(run=0, overall_score=0.5, overall="PASS", version=-1)
    assert errors(m.GradingFile, bad) == [
        (("version",), "greater_than_equal"),
        (("run",), "greater_than_equal"),
        (("overall_score",), "greater_than_equal"),
        (("overall",), "literal_error"),
    ]


def test_convention_compliance_is_strict_and_complete() -> None:
    assert errors(m.ConventionCompliance, CONVENTIONS) == []
    extra = {**CONVENTIONS, "naming": {"passed": True, "details": "ok"}}
    assert errors(m.ConventionCompliance, extra) == [(("naming",), "extra_forbidden")]
    partial = {k: v for k, v in CONVENTIONS.items() if k != "type_alignment"}
    assert errors(m.ConventionCompliance, partial) == [(("type_alignment",), "missing")]
    assert m.ConventionCompliance.model_json_schema()["additionalProperties"] is False
    # every other model keeps unknown keys (warned by the format, not rejected)
    assert m.GradingFile.model_validate(grading(extra_key=1)).model_extra == {"extra_key": 1}
    assert m.GradingFile.model_json_schema().get("additionalProperties") is not False


def test_key_lists_match_the_models() -> None:
    assert tuple(m.ConventionCompliance.model_fields) == m.CONVENTION_KEYS
    assert tuple(m.ComparisonScores.model_fields) == m.COMPARISON_KEYS
    assert m.PASS_SCORE == 3


def test_comparison_file() -> None:
    scores = {k: {"A": 7, "B": 5} for k in m.COMPARISON_KEYS}
    ok = {"eval_prompt": "p", "winner": "A", "reasoning": "r", "scores": scores}
    assert errors(m.ComparisonFile, ok) == []
    bad = {**ok, "winner": "tie", "scores": {**scores, "content_value": {"A": 11, "B": 0}}}
    assert errors(m.ComparisonFile, bad) == [
        (("winner",), "literal_error"),
        (("scores", "content_value", "A"), "less_than_equal"),
        (("scores", "content_value", "B"), "greater_than_equal"),
    ]
    del scores["token_efficiency"]
    assert errors(m.ComparisonFile, {**ok, "scores": scores}) == [(("scores", "token_efficiency"), "missing")]


def test_analysis_file() -> None:
    ok = {"winner_version": "v2", "loser_version": "v1", "strengths": [], "weaknesses": [], "suggestions": []}
    assert errors(m.AnalysisFile, ok) == []
    assert errors(
        m.AnalysisFile, {**ok, "winner_version": "2", "suggestions": [{"area": "description"}]}
    ) == [
        (("winner_version",), "string_pattern_mismatch"),
        (("suggestions", 0, "before"), "missing"),
        (("suggestions", 0, "after"), "missing"),
        (("suggestions", 0, "reasoning"), "missing"),
    ]
