"""``evalens.core.models.skill_creator`` validated directly: what each file model accepts and rejects (the error
locations a schema diagnostic is placed by), the defaults it fills in (sub-objects become their models, lists are
fresh per instance), the unknown keys it keeps, and what its JSON Schema says (required keys, bounds, markdown)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from evalens.core.models import skill_creator as m


def errors(model: Any, data: Any) -> list[tuple[tuple, str]]:
    """``(location, error type)`` of every validation error, in order; [] when ``data`` is valid."""
    try:
        model.model_validate(data)
    except ValidationError as e:
        return [(tuple(x["loc"]), x["type"]) for x in e.errors()]
    return []


CASE = {"id": 1, "prompt": "Extract the tables of evals/files/report.pdf into CSV"}
SUMMARY = {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1.0}


def test_evals_file_requires_a_name_and_non_empty_prompts() -> None:
    assert errors(m.EvalsFile, {"skill_name": "pdf", "evals": [CASE]}) == []
    assert errors(m.EvalsFile, {"skill_name": "", "evals": [{"id": "tables", "prompt": ""}]}) == [
        (("skill_name",), "string_too_short"),
        (("evals", 0, "id"), "int_parsing"),  # the model says integer; the format makes it a hint
        (("evals", 0, "prompt"), "string_too_short"),
    ]
    assert errors(m.EvalsFile, {}) == [(("skill_name",), "missing"), (("evals",), "missing")]
    assert errors(m.EvalsFile, {"skill_name": "pdf", "evals": [{**CASE, "expected_output": ""}]}) == [
        (("evals", 0, "expected_output"), "string_too_short")
    ]


def test_checks_and_files_are_strings_only() -> None:
    bad = {
        **CASE,
        "assertions": [{"text": "a"}],
        "expectations": [3],
        "files": [{"path": "a", "content": ""}],
    }
    assert errors(m.EvalsFile, {"skill_name": "pdf", "evals": [bad], "schema_version": 2}) == [
        (("schema_version",), "literal_error"),
        (("evals", 0, "files", 0), "string_type"),
        (("evals", 0, "expectations", 0), "string_type"),
        (("evals", 0, "assertions", 0), "string_type"),
    ]


def test_unknown_keys_are_kept_and_defaults_filled() -> None:
    f = m.EvalsFile.model_validate(
        {"skill_name": "pdf", "evals": [{**CASE, "category": "tables"}], "owner": "me"}
    )
    case = f.evals[0]
    assert f.model_extra == {"owner": "me"} and case.model_extra == {"category": "tables"}
    assert (case.files, case.expectations, case.assertions, case.expected_output) == ([], None, None, None)
    assert f.schema_version is None
    other = m.EvalCase.model_validate(CASE)
    case.files.append("evals/files/a.pdf")
    assert other.files == []  # each instance has its own default list


def test_grading_defaults_are_models() -> None:
    g = m.GradingFile.model_validate({"expectations": [], "summary": SUMMARY})
    assert isinstance(g.timing, m.Timing) and g.timing.total_duration_seconds is None
    assert isinstance(g.user_notes_summary, m.UserNotesSummary) and g.user_notes_summary.needs_review == []
    assert isinstance(g.eval_feedback, m.EvalFeedback) and g.eval_feedback.suggestions == []
    assert g.execution_metrics == {} and g.claims == []


def test_grading_rejects_bad_results_and_totals() -> None:
    data = {
        "expectations": [{"text": "a", "passed": "sometimes"}],
        "summary": {"passed": -1, "failed": 0, "total": 0, "pass_rate": 1.5},
        "eval_feedback": {"suggestions": ["tighten a"]},
    }
    assert errors(m.GradingFile, data) == [
        (("expectations", 0, "passed"), "bool_parsing"),
        (("expectations", 0, "evidence"), "missing"),
        (("summary", "passed"), "greater_than_equal"),
        (("summary", "pass_rate"), "less_than_equal"),
        (("eval_feedback", "suggestions", 0), "model_type"),
    ]
    assert errors(m.GradingFile, {"assertion_results": [], "summary": SUMMARY}) == [
        (("expectations",), "missing")
    ]


def test_eval_metadata_ids_are_integers_or_strings() -> None:
    assert m.EvalMetadataFile.model_validate({"eval_id": "tables", "prompt": "p"}).assertions == []
    assert (
        m.EvalMetadataFile.model_validate(
            {"eval_id": 2, "prompt": "p", "assertions": [{"text": "a"}]}
        ).eval_id
        == 2
    )
    assert [loc for loc, _ in errors(m.EvalMetadataFile, {"eval_id": 1.5, "prompt": "p"})] == [
        ("eval_id", "int"),
        ("eval_id", "str"),
    ]


def test_trigger_sets() -> None:
    root = m.TriggerEvalSet.model_validate([{"query": "turn this pdf into csv", "should_trigger": True}]).root
    assert [(q.query, q.should_trigger) for q in root] == [("turn this pdf into csv", True)]
    assert errors(m.TriggerEvalSet, [{"query": "", "should_trigger": True}, {"query": "q"}]) == [
        ((0, "query"), "string_too_short"),
        ((1, "should_trigger"), "missing"),
    ]
    assert errors(m.TriggerEvalSet, {"queries": []}) == [((), "list_type")]
    assert errors(m.TriggerEvalSetVariant, {"should_trigger": ["a"]}) == [
        (("should_not_trigger",), "missing")
    ]
    assert (
        m.TriggerEvalSetVariant.model_validate({"should_trigger": [], "should_not_trigger": []}).skill_name
        is None
    )


@pytest.mark.parametrize(
    ("run", "found"),
    [
        ({"eval_id": "a", "configuration": "without_skill", "result": {"pass_rate": 0}}, []),
        (
            {"eval_id": 1, "configuration": "with_rule", "result": {"pass_rate": 2}},
            [
                (("runs", 0, "configuration"), "literal_error"),
                (("runs", 0, "result", "pass_rate"), "less_than_equal"),
            ],
        ),
        (
            {"eval_id": 1, "configuration": "with_skill", "pass_rate": 0.5},  # beside `result`, not in it
            [(("runs", 0, "result"), "missing")],
        ),
    ],
)
def test_benchmark_runs(run: dict[str, Any], found: list) -> None:
    assert errors(m.BenchmarkFile, {"runs": [run]}) == found


def test_benchmark_defaults() -> None:
    b = m.BenchmarkFile.model_validate({"runs": []})
    assert isinstance(b.metadata, m.BenchmarkMetadata) and b.metadata.evals_run == []
    assert b.run_summary == {} and b.notes == []


def test_schema_required_keys_bounds_and_docs() -> None:
    schema = m.EvalsFile.model_json_schema()
    assert schema["required"] == ["skill_name", "evals"]
    case = schema["$defs"]["EvalCase"]
    assert case["required"] == ["id", "prompt"]
    assert case["properties"]["files"]["type"] == "array" and case["properties"]["files"]["items"] == {
        "type": "string"
    }
    md = case["properties"]["files"]["markdownDescription"]
    assert "- **Type:** `string[]`" in md and "- **Required:** no" in md
    assert '- **Example:** `["evals/files/report.pdf"]`' in md
    assert "Strings only" in case["properties"]["assertions"]["markdownDescription"]
    rate = m.GradingSummary.model_json_schema()["properties"]["pass_rate"]
    assert (rate["minimum"], rate["maximum"], rate["type"]) == (0, 1, "number")
    assert "- **Type:** `number (0–1)`" in rate["markdownDescription"]
    assert m.Timing.model_fields["grader_duration_seconds"].description == "Grader time. Unit: seconds."
    configuration = m.BenchmarkRun.model_json_schema()["properties"]["configuration"]
    assert configuration["enum"] == ["with_skill", "without_skill"]
    assert m.TriggerEvalSet.model_json_schema()["type"] == "array"
