"""One model of a unit (issue 23): validation, the editor's lens and listing, and the runner read the same
positioned parse, so a task whose checks come through a YAML merge key gets the same checks from all three."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evalens.core.documents import parse
from evalens.core.formats.skilljack import effective_task_markdown
from evalens.core.units import read_doc, skilljack_tasks
from evalens.core.validate import validate_file
from evalens.runner.run_file import prepare
from evalens.runner.session import AgentResult
from evalens.runner.suites.base import FileRunRequest
from evalens.runner.suites.skilljack import SjTask, check_task
from evalens.server.features import run_formats
from evalens.server.settings import Settings

MERGE_KEY = Path(__file__).resolve().parents[1] / "fixtures" / "merge-key" / "tasks.yaml"
CHECKS = {"expect_skill_activation": True, "expect_marker": "WELCOME", "expect_contains": ["Hi"]}


def test_merge_key_task_gets_the_same_checks_from_validate_lens_and_run() -> None:
    # validate: nothing ignored, nothing unscored; its resolved task checks what the merge brought in
    checked = validate_file(MERGE_KEY)
    assert checked.format is not None and checked.format.id == "skilljack-tasks"
    assert [(p.code, p.message) for p in checked.problems] == []
    assert checked.doc is not None
    _, validated = skilljack_tasks(checked.doc.data)
    assert [(t.id, t.det) for t in validated] == [("gr-001", CHECKS), ("gr-002", CHECKS)]

    # the lens and the listing: the unit is there, its hover and the editor's dry run say it is checked
    assert [c.name for c in checked.format.cases(checked.doc)] == ["*", "gr-001", "gr-002"]
    hover = effective_task_markdown(checked.doc.data, 1)
    assert "expect_skill_activation: `true`" in hover and "`greeting` (from defaults)" in hover
    listed = asyncio.run(run_formats.dry_run("skilljack-tasks", MERGE_KEY, "gr-002", Settings()))
    assert listed.dry_run == ["gr-002\texpected=greeting\tnegative=False\tjudge=False\tdeterministic=True"]

    # run: the suite's unit is the task validation resolved, and a run checks exactly those keys
    suite, units = prepare(FileRunRequest(file=MERGE_KEY, units=["gr-002"]))
    [unit] = units
    task: SjTask = unit.data
    assert (unit.id, unit.location, task.det) == ("gr-002", ["tasks", 1], validated[1].det)
    outcome = check_task(
        task,
        AgentResult(output="WELCOME! Hi Sam.", tools=[{"tool": "Skill", "input": {"skill": "greeting"}}]),
    )
    assert [(c.kind, c.status, c.location) for c in outcome.checks] == [
        ("skill_activation", "PASS", ["defaults", "expected_skill_load"]),
        ("marker", "PASS", ["tasks", 1, "deterministic", "expect_marker"]),
        ("contains", "PASS", ["tasks", 1, "deterministic", "expect_contains", 0]),
    ]
    # the check's location leads to where it is written: the anchored block of gr-001
    assert checked.doc.span_for(("tasks", 1, "deterministic", "expect_marker")).start_line == (
        checked.doc.span_for(("tasks", 0, "deterministic", "expect_marker")).start_line
    )


def test_merge_keys_follow_yaml_merge_rules() -> None:
    doc = parse(
        "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc:\n  <<: [*a, *b]\n  x: 3\n",
        "yaml",
    )
    assert doc.problems == []
    assert doc.data["c"] == {"x": 3, "y": 1, "z": 2}  # explicit keys first, then earlier sources
    assert [k for k, _, _ in doc.root.get("c").entries] == ["x", "y", "z"]  # type: ignore[union-attr]
    quoted = parse('c:\n  "<<": {x: 1}\n', "yaml")  # a quoted `<<` is a plain key
    assert quoted.data == {"c": {"<<": {"x": 1}}}
    bad = parse("l: &l [1, 2]\nc:\n  <<: *l\n", "yaml")
    assert [p.code for p in bad.problems] == ["merge-invalid"] and bad.data["c"] == {}
    fast = parse("c:\n  <<: {x: 1}\n  y: 2\n", "yaml")  # no anchor: the event fast path must not keep `<<`
    assert fast.data == {"c": {"y": 2, "x": 1}}


def test_runner_refuses_what_the_tools_cannot_load(tmp_path: Path) -> None:
    bad = tmp_path / "evals.json"
    bad.write_text('{"skill_name": "x", "evals": [],}')
    with pytest.raises(ValueError, match="Trailing comma"):
        read_doc(bad, "skill-creator-evals")
    with pytest.raises(FileNotFoundError):
        read_doc(tmp_path / "missing.yaml")
