"""Validation by items (issue 43, ``evalens.core.item_cache``): after an edit inside one task of a tasks.yaml only
that task is re-checked, the others' problems being the last validation's. A differential property test holds
the result to a validation from scratch over random edit sequences (each validation chained into the next, as the
server chains them), and to the whole-document path the formats without ``item_rules`` take."""

from __future__ import annotations

import shutil
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalens.core.formats.skilljack import SkilljackTasks
from evalens.core.problems import Problem
from evalens.core.validate import Validation, validate_text
from tests.core.test_incremental_parse import CORPUS, apply, edit


def tasks_text() -> str:
    """A suite whose tasks hold a problem of every kind the item path caches or recomputes: schema types and
    unknown keys, each per-task rule, duplicate ids (cross-task), placeholders (four or more: aggregated)."""
    out = [
        "skill: greeting",
        'version: "1.0"',
        "",
        "defaults:",
        "  expected_skill_load: greeting",
        "  criteria:",
        "    discovery: { weight: 0.3 }",
        "    adherence: { weight: 0.4 }",
        "    output: { weight: 0.3 }",
        "",
        "tasks:",
    ]
    odd = {
        2: ["    expected_skil_load: greeting"],  # an unknown key with a did-you-mean
        3: ["    deterministic:", "      expect_skill_activation: tru"],  # a type error
        4: ["    expected_skill_load: none", "    deterministic:", "      expect_marker: X"],
        5: ["    criteria:", "      discovery: { weight: 0.5 }"],  # weights that do not sum to 1
        6: ["    deterministic:", "      expect_regex: ['(a+)+$', '[']"],
        7: ["    expected_skill_load: farewell"],  # an unknown skill
        8: ['    prompt: "use the greeting skill"'],  # a leading prompt
    }
    for i in range(1, 15):
        tid = "gr-003" if i == 9 else f"gr-{i:03d}"  # task 9 repeats task 3's id
        out.append(f"  - id: {tid}")
        if i != 8:
            out.append(f'    prompt: "Task {i}: please greet member {i}."')
        out += odd.get(i, ["    deterministic:", "      expect_skill_activation: true"])
        out += [
            "    golden_checklist:",
            '      - "A checkable fact"' if i % 3 == 0 else f'      - "Greeted {i}"',
        ]
        out.append("")
    return "\n".join(out)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``evals/greeting/tasks.yaml`` beside a ``skills/greeting``, so the skill names are checked too."""
    root = tmp_path_factory.mktemp("sj") / "evals" / "greeting"
    (root / "skills" / "greeting").mkdir(parents=True)
    (root / "skills" / "greeting" / "SKILL.md").write_text("---\nname: greeting\ndescription: Greets.\n---\n")
    path = root / "tasks.yaml"
    path.write_text(tasks_text())
    return path


def whole(path: str, text: str) -> list[Problem]:
    """The problems of the whole-document path (no validation by items)."""
    with mock.patch.object(SkilljackTasks, "item_rules", return_value=None):
        return validate_text(path, text).problems


def canonical(problems: list[Problem]) -> list[tuple]:
    """A total order: the validations sort by position and severity only, so ties may differ in order."""
    return sorted((*p.sort_key(), p.code, p.message, repr(p.fixes), repr(p.data)) for p in problems)


def files(suite_path: Path) -> st.SearchStrategy[tuple[str, str]]:
    ours = (str(suite_path), suite_path.read_text())
    skilljack = [(p, t) for p, t in CORPUS if (v := validate_text(p, t)).format and v.items is not None]
    return st.one_of(st.just(ours), st.sampled_from(skilljack or [ours]))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_validation_by_items_is_a_validation_from_scratch(suite: Path, data: st.DataObject) -> None:
    path, text = data.draw(files(suite))
    previous: Validation = validate_text(path, text)
    for op, where, col, chars in data.draw(st.lists(edit, min_size=1, max_size=6)):
        text = apply(text, op, where, col, chars)
        reused = validate_text(path, text, previous=previous)
        scratch = validate_text(path, text)
        assert reused.problems == scratch.problems
        assert (reused.format.id if reused.format else None) == (
            scratch.format.id if scratch.format else None
        )
        assert canonical(scratch.problems) == canonical(whole(path, text))
        previous = reused


def test_an_edit_inside_one_task_rechecks_that_task_only(suite: Path) -> None:
    text = suite.read_text()
    before = validate_text(str(suite), text)
    edited = text.replace("please greet member 11.", "please greet member 1l.", 1)
    after = validate_text(str(suite), edited, previous=before)
    assert before.items is not None and after.items is not None
    kept = [
        i
        for i, (a, b) in enumerate(zip(before.items.rule_problems, after.items.rule_problems, strict=True))
        if a is b
    ]
    assert kept == [i for i in range(14) if i != 10]
    assert after.problems == validate_text(str(suite), edited).problems
    assert {p.code for p in after.problems} >= {
        "unknown-key",
        "schema-type",
        "none-expects-activation",
        "criteria-weights",
        "invalid-regex",
        "unknown-skill",
        "duplicate-id",
        "skeleton-placeholder",
    }


def test_what_a_task_reads_outside_itself_rechecks_every_task(suite: Path, tmp_path: Path) -> None:
    """The defaults and the suite's skills are the tasks' context: a change there re-checks them all."""
    folder = tmp_path / "evals" / "greeting"
    shutil.copytree(suite.parent, folder)
    path = str(folder / "tasks.yaml")
    text = suite.read_text()
    before = validate_text(path, text)
    assert any(p.code == "unknown-skill" for p in before.problems)
    (folder / "skills" / "farewell").mkdir()
    (folder / "skills" / "farewell" / "SKILL.md").write_text("---\nname: farewell\ndescription: Bye.\n---\n")
    edited = text.replace("please greet member 1.", "please greet member l.", 1)
    after = validate_text(path, edited, previous=before)
    assert not any(p.code == "unknown-skill" for p in after.problems)
    assert after.problems == validate_text(path, edited).problems
    edited = edited.replace(
        "expected_skill_load: greeting\n  criteria", "expected_skill_load: none\n  criteria", 1
    )
    again = validate_text(path, edited, previous=after)
    assert again.problems == validate_text(path, edited).problems


def test_cross_task_rules_follow_an_edit_of_another_task(suite: Path) -> None:
    """Duplicate ids read every task: giving task 12 task 11's id flags it, and taking it back clears it, while
    both tasks' own problems are reused or re-checked as their nodes say."""
    text = suite.read_text()
    path = str(suite)
    before = validate_text(path, text)
    clash = text.replace("  - id: gr-012", "  - id: gr-011", 1)
    after = validate_text(path, clash, previous=before)
    assert after.problems == validate_text(path, clash).problems
    assert sum(p.code == "duplicate-id" and "gr-011" in p.message for p in after.problems) == 1
    back = validate_text(path, text, previous=after)
    assert back.problems == before.problems
    assert not any(p.code == "duplicate-id" and "gr-011" in p.message for p in back.problems)
