"""skilljack tasks.yaml, eval.config.yaml, task.md and results: every rule, with the original's messages."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from evalens.core.formats.base import RuleContext
from evalens.core.formats.registry import by_id, detect
from evalens.core.problems import Severity
from tests.format_helpers import apply, check, codes, only

GREETING_MD = (
    "---\nname: greeting\ndescription: Greets the user. Use when someone says hello.\n---\nSay hi.\n"
)


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    write(tmp_path, "evals/greet/skills/greeting/SKILL.md", GREETING_MD)
    return tmp_path / "evals" / "greet"


TASKS = """
skill: greeting
version: "1.0"
defaults:
  expected_skill_load: greeting
  criteria:
    discovery: { weight: 0.3 }
    adherence: { weight: 0.4 }
    output: { weight: 0.3 }
tasks:
  - id: gr-001
    prompt: "Hey, I just joined the team, can you give me a nice welcome?"
    deterministic:
      expect_marker: GREETING_SUCCESS
  - id: gr-fp-001
    prompt: "What are best practices for greetings in emails?"
    expected_skill_load: none
    deterministic:
      expect_skill_activation: false
"""


def test_valid_suite_has_no_problems(suite: Path) -> None:
    v = check(write(suite, "tasks.yaml", TASKS))
    assert v.format is not None and v.format.id == "skilljack-tasks"
    assert v.problems == []


def test_missing_skill_and_tasks_use_the_original_messages(suite: Path) -> None:
    v = check(write(suite, "tasks.yaml", "defaults: {expected_skill_load: greeting}\n"))
    assert "Missing required field: 'skill'" in [p.message for p in v.problems]
    assert "Missing or invalid 'tasks' array" in [p.message for p in v.problems]
    v = check(write(suite, "tasks.yaml", "skill: greeting\ntasks: nope\n"))
    assert only(v, "schema-type").message == "Missing or invalid 'tasks' array"


def test_missing_id_and_prompt(suite: Path) -> None:
    v = check(
        write(suite, "tasks.yaml", "skill: greeting\ntasks:\n  - prompt: hi there greet me\n  - id: ''\n")
    )
    messages = [p.message for p in v.problems]
    assert "tasks[0]: Missing 'id'" in messages
    assert "tasks[1]: Missing 'prompt'" in messages
    assert "tasks[1]: Missing 'id'" in messages


def test_duplicate_task_id(suite: Path) -> None:
    v = check(write(suite, "tasks.yaml", TASKS.replace("gr-fp-001", "gr-001")))
    p = only(v, "duplicate-id")
    assert p.message.startswith("tasks[1]: Duplicate task id 'gr-001'")
    assert p.severity == Severity.ERROR and p.span.start_line == 13


def test_criteria_weights_missing_weight_counts_033(suite: Path) -> None:
    text = TASKS.replace(
        "      expect_marker: GREETING_SUCCESS\n",
        "      expect_marker: GREETING_SUCCESS\n"
        "    criteria:\n      discovery: { weight: 0.5 }\n      adherence: { weight: 0.3 }\n"
        "      output: { description: x }\n",
    )
    p = only(check(write(suite, "tasks.yaml", text)), "criteria-weights")
    assert p.message == "tasks[0]: Criteria weights sum to 1.13, expected ~1.0"
    ok = text.replace("{ weight: 0.5 }", "{ weight: 0.3 }")  # 0.3 + 0.3 + 0.33 = 0.93: within 0.1
    assert "criteria-weights" not in codes(check(write(suite, "tasks.yaml", ok)))


def test_none_task_with_implicit_activation_gets_an_insert_fix(suite: Path) -> None:
    text = TASKS.replace("      expect_skill_activation: false\n", "      expect_marker: X\n")
    path = write(suite, "tasks.yaml", text)
    p = only(check(path), "none-expects-activation")
    assert "defaults to `true` because a `deterministic` block exists" in p.message
    fixed = apply(path.read_text(), p.fixes[0].edits)
    assert "expect_skill_activation: false" in fixed
    assert "none-expects-activation" not in codes(check(path, fixed))


def test_none_task_with_explicit_true_and_flow_mapping(suite: Path) -> None:
    text = TASKS.replace(
        "    deterministic:\n      expect_skill_activation: false\n",
        "    deterministic: { expect_marker: X }\n",
    )
    path = write(suite, "tasks.yaml", text)
    p = only(check(path), "none-expects-activation")
    fixed = apply(path.read_text(), p.fixes[0].edits)
    assert "{ expect_skill_activation: false, expect_marker: X }" in fixed
    explicit = TASKS.replace("expect_skill_activation: false", "expect_skill_activation: true")
    path = write(suite, "tasks.yaml", explicit)
    p = only(check(path), "none-expects-activation")
    assert apply(path.read_text(), p.fixes[0].edits).count("expect_skill_activation: false") == 1


def test_negative_test_naming_a_skill_and_ignored_checks(suite: Path) -> None:
    text = TASKS.replace("    expected_skill_load: none\n", "    expected_skill_load: greeting\n").replace(
        "      expect_skill_activation: false\n",
        "      expect_skill_activation: false\n      expect_marker: X\n",
    )
    v = check(write(suite, "tasks.yaml", text))
    p = only(v, "negative-test-names-skill")
    assert p.fixes and p.fixes[0].edits[0].text == "none"
    assert "expect_marker" in only(v, "ignored-checks").message


def test_invalid_regex_and_js_named_groups(suite: Path) -> None:
    text = TASKS.replace(
        "      expect_marker: GREETING_SUCCESS\n",
        "      expect_regex: ['(?<year>\\d{4})-\\k<year>', '([a-z']\n",
    )
    p = only(check(write(suite, "tasks.yaml", text)), "invalid-regex")
    assert p.message.startswith("tasks[0]: Invalid regex /([a-z/")


def test_unknown_skill_with_did_you_mean(suite: Path) -> None:
    v = check(
        write(
            suite,
            "tasks.yaml",
            TASKS.replace("expected_skill_load: greeting", "expected_skill_load: greting"),
        )
    )
    p = only(v, "unknown-skill")
    assert "Did you mean `greeting`?" in p.message and p.fixes[0].edits[0].text == "greeting"


def test_skill_names_are_not_checked_without_a_skills_folder(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "evals/s/tasks.yaml",
        TASKS.replace("expected_skill_load: greeting", "expected_skill_load: x"),
    )
    assert "unknown-skill" not in codes(check(path))


def test_leading_prompt_and_no_scoring(suite: Path) -> None:
    text = (
        "skill: greeting\ntasks:\n  - id: a\n    prompt: Please use the greeting skill to say hello\n"
        "    expected_skill_load: greeting\n"
    )
    v = check(write(suite, "tasks.yaml", text))
    assert only(v, "leading-prompt").severity == Severity.HINT
    assert only(v, "no-scoring").message.startswith("tasks[0]: No scoring method available")


def test_unquoted_version_and_empty_file(suite: Path) -> None:
    v = check(write(suite, "tasks.yaml", TASKS.replace('version: "1.0"', "version: 1.0")))
    p = only(v, "unquoted-version")
    assert p.fixes[0].edits[0].text == '"1.0"'
    empty = check(write(suite, "tasks.yaml", ""))
    assert empty.format is not None and empty.format.id == "skilljack-tasks" and empty.problems == []


def test_unknown_key_is_a_warning_with_rename(suite: Path) -> None:
    v = check(
        write(
            suite,
            "tasks.yaml",
            TASKS.replace("golden", "x").replace('    prompt: "What', '    promt: x\n    prompt: "What'),
        )
    )
    p = only(v, "unknown-key")
    assert p.severity == Severity.WARNING and "did you mean `prompt`" in p.message


def test_sniffed_any_name_under_evals(tmp_path: Path) -> None:
    text = "skill: greeting\ntasks:\n  - id: a\n    prompt: hello\n"
    assert detect(str(tmp_path / "evals/suite/greeting-evals.yaml"), text).format.id == "skilljack-tasks"
    assert detect(str(tmp_path / "config/greeting-evals.yaml"), text).format is None


def test_cases_definition_value_choices_and_hover(suite: Path) -> None:
    path = write(suite, "tasks.yaml", TASKS)
    v = check(path)
    fmt = v.format
    assert fmt is not None and v.doc is not None
    cases = fmt.cases(v.doc)
    assert [c.name for c in cases] == ["*", "gr-001", "gr-fp-001"]
    assert cases[1].span.start_line == 9 and cases[1].path == ("tasks", 0)
    ctx = RuleContext(str(path), None)
    choices = [c.value for c in fmt.value_choices(("tasks", 0, "expected_skill_load"), ctx)]
    assert choices == ["greeting", "none"]
    assert "Read" in [
        c.value for c in fmt.value_choices(("tasks", 0, "deterministic", "expect_tool_calls", 0), ctx)
    ]
    target = fmt.definition(v.doc, ("defaults", "expected_skill_load"), "greeting", ctx)
    assert target and target[0].path.endswith("skills/greeting/SKILL.md")
    hover = fmt.hover_value(("tasks", 0, "id"), "gr-001", ctx)
    assert hover is not None
    assert "expect_skill_activation: `true` (default: a `deterministic` block exists)" in hover
    assert "discovery 0.3 (defaults)" in hover and "runs: 3" in hover
    assert "Greets the user" in (fmt.hover_value(("tasks", 0, "expected_skill_load"), "greeting", ctx) or "")


def test_skeleton_is_valid(suite: Path) -> None:
    fmt = by_id("skilljack-tasks")
    assert fmt is not None
    text = (fmt.skeleton(False) or "").replace("my-skill", "greeting")
    v = check(write(suite, "tasks.yaml", text))
    # the checklist item is the skeleton's placeholder, flagged until the user writes their own (issue 45 #5)
    assert [p.code for p in v.problems if p.severity <= Severity.WARNING] == ["skeleton-placeholder"]
    v = check(
        write(suite, "tasks.yaml", text.replace("A checkable fact", "The reply greets the user by name"))
    )
    assert [p for p in v.problems if p.severity <= Severity.WARNING] == []


def test_large_valid_file_skips_jsonschema(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 500-task benchmark file takes the pydantic fast path: jsonschema must not run at all."""
    from evalens.core import schema_check

    body = "".join(
        f"  - id: t-{i}\n    prompt: hello {i}\n    deterministic: {{ expect_marker: M }}\n"
        for i in range(500)
    )
    path = write(suite, "tasks.yaml", "skill: greeting\ntasks:\n" + body)
    real = schema_check._cached_validator

    def guarded(schema):  # type: ignore[no-untyped-def]
        validator = real(schema)

        class NoSlowPath:
            def iter_errors(self, data):  # type: ignore[no-untyped-def]
                raise AssertionError("jsonschema ran on a valid document")

        return NoSlowPath() if schema.get("$id", "").endswith("skilljack-tasks.schema.json") else validator

    monkeypatch.setattr(schema_check, "_cached_validator", guarded)
    assert check(path).problems == []


# ------------------------------------------------------------------------------------------- eval.config.yaml


def test_config_values(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "eval.config.yaml",
        """
        models: { agent: sonnet }
        runner:
          type: claude-cod
          concurrency: -1
        nudge: loud
        scoring:
          weights: { discovery: 0.5, adherence: 0.5, output: 0.5 }
        thresholds: { avg_score: 7 }
        outptu: {}
    """,
    )
    v = check(path)
    assert v.format is not None and v.format.id == "skilljack-config"
    messages = {p.code: p.message for p in v.problems}
    assert messages["unknown-runner-type"].startswith(
        'Invalid runner type "claude-cod" in config file. Valid:'
    )
    assert any(
        p.message == 'Invalid runner.concurrency "-1" in config file. Must be a non-negative integer.'
        for p in v.problems
    )
    assert any(
        p.message.startswith('Invalid nudge "loud" in config file. Valid: off, name') for p in v.problems
    )
    assert "Score weights sum to 1.50" in messages["weights-sum"]
    assert any(p.code == "schema-maximum" and "avg_score" in p.message for p in v.problems)
    assert "did you mean `output`" in messages["unknown-key"]


def test_config_hover_docs_note_ignored_values() -> None:
    fmt = by_id("skilljack-config")
    assert fmt is not None
    schema = fmt.schema() or {}
    from evalens.core.schema_check import subschema

    for path in (
        ("runner", "timeout_ms"),
        ("thresholds", "discovery_rate"),
        ("output", "judge_truncation"),
        ("ci", "exit_on_failure"),
        ("scoring", "weights", "adherence"),
    ):
        field = subschema(schema, path) or {}
        assert "Ignored by skilljack-evals at `e51416b`" in field.get("markdownDescription", ""), path
    assert subschema(schema, ("runner", "timeout_ms"))["default"] == 300000


# ------------------------------------------------------------------------------------------- task.md


TASK_MD = "---\nexpected_skill: greeting\nchecks:\n  marker: HI\nassertions:\n  - Says hello by name\n---\n\nHello!\n"


def test_task_md_valid_and_messages(suite: Path) -> None:
    assert check(write(suite, "gr-001/task.md", TASK_MD)).problems == []
    text = (
        "---\nid: other\ndifficulty: extreme\nexpected_skil: x\nchecks:\n  marker: [a]\n  regex: ['(']\n"
        "  contain: [a]\nassertions: nope\n---\n"
    )
    v = check(write(suite, "gr-001/task.md", text))
    messages = [p.message for p in v.problems]
    assert "frontmatter id 'other' does not match directory name 'gr-001'" in messages
    assert "invalid difficulty 'extreme' (expected easy|medium|hard)" in messages
    assert "unknown frontmatter key(s) ignored: expected_skil (did you mean `expected_skill`?)" in messages
    assert any(m.startswith("unknown checks key(s) ignored: contain") for m in messages)
    assert "checks.marker must be a string" in messages
    assert "assertions must be an array of strings" in messages
    assert any(m.startswith('invalid regex in checks.regex: "(" — ') for m in messages)
    assert "missing prompt body (markdown after frontmatter)" in messages


def test_task_md_skill_rules(suite: Path) -> None:
    neg = "---\nexpect_skill_invocation: false\nexpected_skill: greeting\nchecks: { marker: X }\n---\nHi\n"
    v = check(write(suite, "fp/task.md", neg))
    assert (
        only(v, "expected-skill-ignored").message
        == "expected_skill 'greeting' ignored because expect_skill_invocation is false"
    )
    assert only(v, "ignored-checks").message.startswith("output checks (marker) have no effect")
    v = check(write(suite, "t/task.md", TASK_MD.replace("greeting", "greting")))
    assert (
        only(v, "unknown-skill").message
        == "expected_skill 'greting' not found among available skills: greeting"
    )
    write(suite, "skills/farewell/SKILL.md", GREETING_MD.replace("greeting", "farewell"))
    v = check(write(suite, "t/task.md", "---\nassertions: [Says hello]\n---\nHi\n"))
    assert (
        only(v, "ambiguous-skill").message
        == "multiple skills found (farewell, greeting) — set expected_skill in frontmatter"
    )


def test_task_md_checks_verifier_and_empty_skills(suite: Path) -> None:
    v = check(write(suite, "t/task.md", "---\nexpected_skill: greeting\n---\nHi\n"))
    assert (
        only(v, "no-checks").message == "task must define at least one of checks:, verifier, or assertions:"
    )
    v = check(
        write(suite, "t/task.md", "---\nexpected_skill: greeting\nverifier: { timeout_ms: 5 }\n---\nHi\n")
    )
    assert only(v, "verifier-missing").message.startswith("verifier block present but no verifier/verify.*")
    write(suite, "t/verifier/verify.sh", "exit 0\n")
    assert "verifier-missing" not in codes(check(suite / "t" / "task.md"))
    (suite / "t" / "environment" / "skills").mkdir(parents=True)
    assert "empty-skills-dir" in codes(check(suite / "t" / "task.md"))


def test_task_md_without_frontmatter_is_not_claimed(tmp_path: Path) -> None:
    path = write(tmp_path, "notes/task.md", "# A to-do list\n")
    assert check(path).format is None


# ------------------------------------------------------------------------------------------- results


def test_results_consistency(tmp_path: Path) -> None:
    import json

    data = {
        "skillName": "greeting",
        "timestamp": "2026-03-01T00:00:00Z",
        "passed": True,
        "failureReasons": ["Discovery rate 50% below threshold 80%"],
        "summary": {"totalTasks": 3, "discoveryAccuracy": 0.5},
        "tasks": [{"task": {}, "result": {}, "score": {}}],
    }
    path = write(tmp_path, "results/greeting-2026.json", json.dumps(data, indent=2))
    v = check(path)
    assert v.format is not None and v.format.id == "skilljack-results"
    assert {"passed-mismatch", "summary-mismatch"} <= set(codes(v))


def test_folder_walk_finds_sniffed_files(tmp_path: Path) -> None:
    from evalens.core.validate import iter_candidate_files

    write(tmp_path, "evals/suite/greeting-evals.yaml", "skill: greeting\ntasks:\n  - id: a\n    prompt: hi\n")
    write(tmp_path, "evals/queries.json", '[{"query": "hi", "should_trigger": true}]')
    write(tmp_path, "evals/other.json", '{"a": 1}')
    found = sorted(p.name for p in iter_candidate_files([tmp_path]))
    assert found == ["greeting-evals.yaml", "queries.json"]


def test_top_level_shape_and_skill_name(suite: Path) -> None:
    v = check(write(suite, "tasks.yaml", TASKS.replace("skill: greeting", "skill: greetings")))
    p = only(v, "unknown-skill")
    assert p.severity == Severity.WARNING and p.span.start_line == 0
    v = check(write(suite, "tasks.yaml", "# evalens: format=skilljack-tasks\n- a\n"))
    assert [p.message for p in v.problems] == [
        "Invalid evaluation file: expected a mapping with `skill` and `tasks`."
    ]


def test_task_md_frontmatter_must_be_a_mapping(suite: Path) -> None:
    v = check(write(suite, "t/task.md", "---\n- a\n---\nHi\n"))
    assert [p.message for p in v.problems] == ["frontmatter must be a YAML mapping"]


def test_task_md_syntax_messages(suite: Path) -> None:
    v = check(write(suite, "t/task.md", "---\nexpected_skill: [x\n---\nHi\n"))
    assert v.problems and v.problems[0].message.startswith("invalid YAML frontmatter — ")
    v = check(write(suite, "t/task.md", "---\nexpected_skill: x\n"))
    assert [p.message for p in v.problems] == ["invalid YAML frontmatter — not closed with ---"]
