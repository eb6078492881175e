"""``evalens.core.item_cache.check`` called directly on a skilljack tasks.yaml: it gives what the whole-document
path gives, keeps (the very lists of) an unchanged task's problems across an incremental re-parse, re-checks the
edited task, and reuses nothing when the context changes or the file has no task list.
tests/core/test_item_cache.py holds the same equality over random edits, through ``validate_text``."""

from __future__ import annotations

from evalens.core.documents import parse
from evalens.core.formats.base import RuleContext
from evalens.core.formats.registry import by_id
from evalens.core.item_cache import check
from evalens.core.validate import whole_document_problems

FMT = by_id("skilljack-tasks")
PATH = "/nowhere/suite/tasks.yaml"


def _task(i: int, extra: str = "") -> str:
    return (
        f'  - id: t{i}\n    prompt: "Question {i}?"\n    expected_skill_load: none\n'
        f"    deterministic: {{ expect_skill_activation: false }}\n{extra}"
    )


TEXT = "skill: greeting\ntasks:\n" + _task(0) + _task(1, "    bogus_key: 1\n") + _task(2) + _task(1)


def _key(p) -> tuple:
    return (p.span.start_line, p.span.start_col, p.code, p.message)


def _run(text: str, previous_doc=None, previous=None, settings=None):
    assert FMT is not None
    doc = parse(text, "yaml", previous_doc)
    ctx = RuleContext(PATH, None, settings or {})
    schema = FMT.schema()
    split = FMT.item_rules(doc, ctx)
    assert schema is not None and split is not None
    out = check(doc, FMT, schema, ctx, split, previous)
    assert out is not None
    return doc, ctx, schema, out


def test_equals_the_whole_document_path() -> None:
    doc, ctx, schema, (problems, results) = _run(TEXT)
    assert FMT is not None
    whole = whole_document_problems(doc, FMT, schema, ctx)
    assert sorted(map(_key, problems)) == sorted(map(_key, whole))
    assert [(p.span.start_line, p.code) for p in problems] == [(10, "unknown-key"), (15, "duplicate-id")]
    assert [len(group) for group in results.schema_problems] == [0, 1, 0, 0]  # task 1's own, kept by item
    assert len(results.nodes) == 4 and results.key == "tasks"


def test_an_edit_in_one_task_rechecks_that_task_alone() -> None:
    doc, _, _, (_, first) = _run(TEXT)
    edited = TEXT.replace('"Question 2?"', '"Question two?"')
    doc2, ctx2, schema, (problems, second) = _run(edited, doc, first)
    unchanged = [i for i in range(4) if second.nodes[i] is first.nodes[i]]
    assert 2 not in unchanged and {0, 1, 3} <= set(unchanged)
    for i in unchanged:
        assert second.rule_problems[i] is first.rule_problems[i]
        assert second.schema_problems[i] is first.schema_problems[i]
    assert FMT is not None
    assert sorted(map(_key, problems)) == sorted(map(_key, whole_document_problems(doc2, FMT, schema, ctx2)))


def test_an_edit_that_adds_a_problem_is_seen() -> None:
    doc, _, _, (before, first) = _run(TEXT)
    edited = TEXT.replace('"Question 0?"\n', '"Question 0?"\n    also_bogus: 2\n', 1)
    _, _, _, (after, second) = _run(edited, doc, first)
    assert len(after) > len(before)
    assert second.schema_problems[0] is not first.schema_problems[0]
    assert any(p.span.start_line == 4 for p in second.schema_problems[0])


def test_nothing_is_reused_when_the_context_changes() -> None:
    doc, _, _, (_, first) = _run(TEXT)
    _, _, _, (_, second) = _run(TEXT, doc, first, settings={"skillProfile": "claude-code"})
    assert all(second.rule_problems[i] is not first.rule_problems[i] for i in range(4))
    assert second.schema_problems[1] is not first.schema_problems[1]
    assert not first.reusable("tasks", FMT.schema(), second.context)  # type: ignore[union-attr]
    assert first.reusable("tasks", first.schema, first.context)
    assert not first.reusable("other", first.schema, first.context)


def test_no_task_list_means_the_whole_document_path() -> None:
    assert FMT is not None
    doc = parse("skill: greeting\ntasks: nope\n", "yaml")
    ctx = RuleContext(PATH, None)
    schema = FMT.schema()
    assert schema is not None
    split = FMT.item_rules(doc, ctx)
    if split is not None:  # the format may already decline
        assert check(doc, FMT, schema, ctx, split, None) is None
    listed = parse("- a\n- b\n", "yaml")
    _, _, _, (_, results) = _run(TEXT)
    split_of_text = FMT.item_rules(parse(TEXT, "yaml"), ctx)
    assert split_of_text is not None
    assert check(listed, FMT, schema, ctx, split_of_text, results) is None
