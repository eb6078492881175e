"""``evalens.core.formats.trigger_sets`` called directly: which files are trigger sets (sniffed under any name,
a wrapped set, another tool's routing set or nested flags as a look-alike, a JSON Schema left alone), the rules
on duplicates, conflicts and one-sided sets, the runnable units the lens shows, and the variant's conversion
fix, which must give the canonical array the runner reads."""

from __future__ import annotations

import json

import pytest

from evalens.core.documents import parse
from evalens.core.formats.base import Match, RuleContext
from evalens.core.formats.trigger_sets import TriggerEvalSet, TriggerEvalSetVariant, one_sided
from evalens.core.problems import Severity
from tests.format_helpers import apply

SET = TriggerEvalSet()
VARIANT = TriggerEvalSetVariant()


def _rules(fmt, data: object) -> list:
    text = json.dumps(data, indent=2)
    doc = parse(text, "json")
    return fmt.rules(doc, RuleContext("evals/trigger.json", None))


def test_sniff_finds_a_set_under_any_json_name() -> None:
    text = '[\n  {"query": "make a pdf", "should_trigger": true}\n]'
    assert SET.sniff("data/queries.json", text)
    assert SET.sniff("X.JSON", "  " + text)
    assert not SET.sniff("queries.yaml", text)
    assert not SET.sniff("q.json", '{"query": "x", "should_trigger": true}')  # an object, not an array
    assert not SET.sniff("q.json", '[{"query": "x"}]')
    assert VARIANT.sniff("v.json", '{"skill_name": "x", "should_not_trigger": []}')
    assert not VARIANT.sniff("v.json", '[{"should_not_trigger": []}]')


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([], Match.YES),
        ([{"query": "q", "should_trigger": True}], Match.YES),
        ([{"query": "q", "should_trigger": "pdf-skill"}], Match.LOOKALIKE),  # a router's test
        ({"skill_name": "pdf", "queries": [{"query": "q", "should_trigger": False}]}, Match.YES),
        ({"cases": [{"input": {"query": "q"}}]}, Match.LOOKALIKE),
        ({"results": {"r": {"should_trigger": True}}}, Match.LOOKALIKE),
        ({"should_not_trigger": ["q"]}, Match.NO),  # the variant's
        ({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"query": {}}}, Match.NO),
        ({"name": "unrelated"}, Match.NO),
        ([1, 2], Match.NO),
        ("text", Match.NO),
    ],
)
def test_detect(data: object, match: Match) -> None:
    assert SET.detect("x-trigger.json", data) is match


def test_variant_detect() -> None:
    assert VARIANT.detect("t.json", {"skill_name": "x", "should_not_trigger": []}) is Match.YES
    assert VARIANT.detect("t.json", {"should_trigger": ["a"]}) is Match.YES
    assert VARIANT.detect("t.json", {"should_trigger": True}) is Match.NO
    assert VARIANT.detect("t.json", [{"query": "a"}]) is Match.NO


def test_duplicates_and_conflicts_ignore_case_and_spacing() -> None:
    problems = _rules(
        SET,
        [
            {"query": "Make a PDF", "should_trigger": True},
            {"query": "make  a pdf ", "should_trigger": True},
            {"query": "MAKE A PDF", "should_trigger": False},
            {"query": "tell a joke", "should_trigger": False},
            {"query": 7, "should_trigger": True},
        ],
    )
    found = [(p.code, p.severity, p.data["path"]) for p in problems]
    assert found == [
        ("duplicate-query", Severity.WARNING, [1, "query"]),
        ("conflicting-query", Severity.ERROR, [2, "should_trigger"]),
    ]
    assert "item 0" in problems[0].message and "item 0" in problems[1].message


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ([True, True], "No negative (`should_trigger: false`) queries: precision cannot be measured."),
        ([False], "No positive (`should_trigger: true`) queries: recall cannot be measured."),
    ],
)
def test_a_one_sided_set_is_warned(flags: list[bool], said: str) -> None:
    (p,) = _rules(SET, [{"query": f"q{i}", "should_trigger": f} for i, f in enumerate(flags)])
    assert (p.code, p.severity, p.message) == ("one-sided", Severity.WARNING, said)


def test_one_sided_needs_some_queries_on_one_side_only() -> None:
    doc = parse("[]", "json")
    assert one_sided(doc, (), 0, 0) == [] and one_sided(doc, (), 2, 1) == []
    (p,) = one_sided(doc, ("cases",), 3, 0)
    assert p.data == {"path": ["cases"]}


def test_a_wrapped_set_is_hinted_and_checked_by_its_items() -> None:
    problems = _rules(
        SET,
        {
            "skill_name": "pdf",
            "cases": [{"query": "a", "should_trigger": True}, {"query": "A", "should_trigger": True}],
        },
    )
    assert [(p.code, p.data["path"]) for p in problems] == [
        ("trigger-wrapped", ["cases"]),
        ("duplicate-query", ["cases", 1, "query"]),
        ("one-sided", ["cases"]),
    ]
    assert problems[0].severity is Severity.HINT


def test_cases_are_the_whole_set_then_each_query() -> None:
    text = json.dumps(
        [{"query": "a", "should_trigger": True}, {"nope": 1}, {"query": "c", "should_trigger": False}],
        indent=2,
    )
    cases = SET.cases(parse(text, "json"))
    assert [(c.name, c.path) for c in cases] == [("*", ()), ("0", (0,)), ("2", (2,))]
    assert cases[1].name_span.start_line == 2  # the query value's line
    wrapped = json.dumps({"skill": "s", "queries": [{"query": "a", "should_trigger": True}]}, indent=2)
    assert [(c.name, c.path) for c in SET.cases(parse(wrapped, "json"))] == [("*", ()), ("0", ("queries", 0))]
    assert SET.cases(parse('{"a": 1}', "json")) == []


def test_the_skeleton_is_a_valid_two_sided_set() -> None:
    text = SET.skeleton(False)
    assert text is not None
    data = json.loads(text)
    assert SET.detect("t.json", data) is Match.YES
    assert _rules(SET, data) == []


def test_the_variant_converts_to_the_canonical_array_and_flags_conflicts() -> None:
    data = {
        "skill_name": "pdf",
        "should_trigger": ["make a pdf", "merge pdfs"],
        "should_not_trigger": ["merge pdfs"],
    }
    text = json.dumps(data, indent=2)
    doc = parse(text, "json")
    problems = VARIANT.rules(doc, RuleContext("t.json", None))
    assert [(p.code, p.severity) for p in problems] == [
        ("trigger-variant", Severity.INFO),
        ("conflicting-query", Severity.ERROR),
    ]
    assert problems[1].data["path"] == ["should_not_trigger", 0]
    (fix,) = problems[0].fixes
    converted = json.loads(apply(text, fix.edits))
    assert converted == [
        {"query": "make a pdf", "should_trigger": True},
        {"query": "merge pdfs", "should_trigger": True},
        {"query": "merge pdfs", "should_trigger": False},
    ]
    assert SET.detect("t.json", converted) is Match.YES


def test_variant_cases_and_one_sidedness() -> None:
    text = json.dumps({"skill_name": "x", "should_trigger": ["a", "b"], "should_not_trigger": []}, indent=2)
    doc = parse(text, "json")
    assert [c.name for c in VARIANT.cases(doc)] == ["*", "should_trigger[0]", "should_trigger[1]"]
    codes = [p.code for p in VARIANT.rules(doc, RuleContext("t.json", None))]
    assert codes == ["trigger-variant", "one-sided"]
