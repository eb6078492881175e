"""Issue #9 rules: detection by evidence, context-aware SKILL.md profile, BOM, collapsed repeats (one rule
per test, principles rather than corpus files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core.aggregate import aggregate, related_of
from evalens.core.index import IndexCache, container_root, scan_skills
from evalens.core.problems import Edit, Fix, Problem, Severity, Span
from evalens.core.validate import validate_file, validate_text
from tests.format_helpers import apply


def put(root: Path, rel: str, text: str | dict | list) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if isinstance(text, str) else json.dumps(text, indent=2), encoding="utf-8")
    return path


def run(path: Path, **settings: str):
    return validate_file(path, IndexCache(), settings or None)


# ------------------------------------------------------------------------------------------ detection


@pytest.mark.parametrize(
    ("rel", "content"),
    [
        (
            "tasks.yaml",
            "tasks:\n  - description: ship it\n    priority: high\n  - id: 2\n    title: t\n    status: open\n",
        ),
        ("eval.config.yaml", "thresholds:\n  latency_ms: 200\noutput:\n  dir: out\n"),
        (
            "evals/benchmark.json",
            {"metadata": {"timestamp": "x"}, "runs": [{"eval_id": "a", "with_skill": {}}]},
        ),
        (
            "evals/evals.json",
            {"version": 1, "cases": [{"id": "a", "kind": "cli", "prompt": "p", "command": "x"}]},
        ),
        ("evals/evals.json", {"cases": [{"id": "a"}]}),
        ("grading.json", {"average_grade": 4.2, "course_sum": 12}),
        (
            "schemas/triggers.schema.json",
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"should_trigger": {"type": "boolean"}},
            },
        ),
        ("notes/task.md", "---\ntitle: Plan\nstatus: open\n---\nDo the thing.\n"),
    ],
)
def test_common_names_without_eval_evidence_are_left_alone(tmp_path: Path, rel: str, content) -> None:
    v = run(put(tmp_path, rel, content))
    assert v.format is None and v.problems == [], [(p.code, p.message) for p in v.problems]


@pytest.mark.parametrize(
    ("rel", "content"),
    [
        ("tasks.yaml", "tasks:\n  - id: t1\n    prompt: Greet the user in French\n"),
        ("evals/evals.json", [{"id": 1, "prompt": "p", "expected_output": "o", "assertions": ["a"]}]),
        (
            "evals/trigger_evals.json",
            {"version": 1, "cases": [{"id": "a", "query": "q", "should_trigger": True}]},
        ),
    ],
)
def test_weak_evidence_gets_one_hint_at_line_one(tmp_path: Path, rel: str, content) -> None:
    v = run(put(tmp_path, rel, content))
    assert v.format is None and [(p.code, p.severity, p.span.start_line) for p in v.problems] == [
        ("lookalike", Severity.HINT, 0)
    ]


@pytest.mark.parametrize(
    ("rel", "content", "fmt"),
    [
        ("tasks.yaml", "skill: greeting\ntasks:\n  - id: g-1\n    prompt: Say hi\n", "skilljack-tasks"),
        (
            "tasks.yaml",
            "tasks:\n  - id: g-1\n    prompt: Say hi\n    expected_skill_load: greeting\n",
            "skilljack-tasks",
        ),
        ("eval.config.yaml", "thresholds:\n  discovery_rate: 0.9\n", "skilljack-config"),
        (
            "evals/benchmark.json",
            {"runs": [{"eval_id": 1, "configuration": "with_skill", "result": {}}]},
            "skill-creator-benchmark",
        ),
        ("evals/evals.json", {"skill": "/abs/s", "cases": []}, "writing-skills-evals"),
        (
            "evals/evals.json",
            {"evals": [{"id": 1, "prompt": "p", "expected_output": "o"}]},
            "skill-creator-evals",
        ),
    ],
)
def test_specific_evidence_claims(tmp_path: Path, rel: str, content, fmt: str) -> None:
    assert run(put(tmp_path, rel, content)).format.id == fmt


def test_modeline_still_forces_a_format(tmp_path: Path) -> None:
    v = run(put(tmp_path, "tasks.yaml", "# evalens: format=skilljack-tasks\ntasks:\n  - description: x\n"))
    assert v.format.id == "skilljack-tasks" and "missing-key" in {p.code for p in v.problems}


def test_symlink_checked_out_as_text_is_not_a_broken_skill(tmp_path: Path) -> None:
    put(tmp_path, "skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDFs. Use for PDFs.\n---\n")
    link = put(tmp_path, "evals/t1/skills/pdf/SKILL.md", "../../../../skills/pdf/SKILL.md")
    assert run(link).problems == []


# ------------------------------------------------------------------------------------------ SKILL.md


SKILL = (
    "---\nname: pdf\ndescription: PDFs. Use for PDFs.\nargument-hint: '[file]'\nversion: 1.0.0\n---\nBody\n"
)


def _unexpected(v) -> list[Severity]:
    return [p.severity for p in v.problems if p.code == "unexpected-field"]


def test_profile_follows_context(tmp_path: Path) -> None:
    plain = put(tmp_path, "repo/skills/pdf/SKILL.md", SKILL)
    # `argument-hint` is the skill's own evidence that Claude Code reads it (issue #20): `version` is a hint
    assert _unexpected(run(plain)) == [Severity.HINT]
    bare = put(tmp_path, "bare/skills/pdf/SKILL.md", SKILL.replace("argument-hint: '[file]'\n", ""))
    assert _unexpected(run(bare)) == [Severity.ERROR]  # no evidence: strict agentskills
    put(tmp_path, "plugin/.claude-plugin/plugin.json", {"name": "kit"})
    in_plugin = put(tmp_path, "plugin/skills/pdf/SKILL.md", SKILL)
    # a Claude-Code-only repository: Claude Code ignores `version` and never fails on it (issue #39)
    assert _unexpected(run(in_plugin)) == []
    dot_claude = put(tmp_path, "proj/.claude/skills/pdf/SKILL.md", SKILL)
    assert _unexpected(run(dot_claude)) == []
    agents = put(tmp_path, "proj/.agents/skills/pdf/SKILL.md", SKILL)
    # the cross-agent folder: strict, and Claude Code's own key only a portability hint
    assert sorted(_unexpected(run(agents))) == [Severity.ERROR, Severity.HINT]
    put(tmp_path, "pkg/package.agent.json", {"name": "pkg"})
    uaaps = put(tmp_path, "pkg/skills/pdf/SKILL.md", SKILL)
    assert _unexpected(run(uaaps)) == [Severity.HINT]  # UAAPS knows the Claude Code keys too
    assert _unexpected(run(in_plugin, skillProfile="agentskills")) == [Severity.ERROR, Severity.ERROR]


def test_byte_order_mark_before_frontmatter(tmp_path: Path) -> None:
    path = tmp_path / "skills" / "pdf" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(
        b"\xef\xbb\xbf" + SKILL.replace("argument-hint: '[file]'\nversion: 1.0.0\n", "").encode()
    )
    v = run(path)  # evalens validate reads the bytes: the mark is seen, the frontmatter still checked
    (p,) = v.problems
    assert p.code == "bom" and p.severity == Severity.ERROR and "skills-ref" in p.message
    fixed = apply(v.doc.text, p.fixes[0].edits)
    assert not fixed.startswith("\ufeff")
    # an editor that drops the mark from the text it sends: the file on disk still has it, no in-text fix
    (p,) = validate_text(str(path), fixed).problems
    assert p.code == "bom" and p.fixes == []
    path.write_text(fixed, encoding="utf-8")
    assert validate_text(str(path), fixed).problems == []


def test_bom_in_json_and_yaml_is_read_through(tmp_path: Path) -> None:
    path = tmp_path / "evals" / "trigger-evals.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(
        b"\xef\xbb\xbf"
        + json.dumps(
            [{"query": "a", "should_trigger": True}, {"query": "b", "should_trigger": False}]
        ).encode()
    )
    assert run(path).problems == []


# ------------------------------------------------------------------------------------------ skill names


def test_container_root_and_skill_catalog(tmp_path: Path) -> None:
    put(tmp_path, "kit/.claude-plugin/plugin.json", {"name": "kit"})
    put(tmp_path, "kit/skills/a-dir/SKILL.md", "---\nname: alpha\ndescription: d\n---\n")
    put(tmp_path, "kit/skills/b/SKILL.md", "no frontmatter\n")
    evals = tmp_path / "kit" / "skills" / "a-dir" / "evals" / "evals.json"
    assert container_root(evals) == tmp_path / "kit"
    assert sorted(scan_skills(tmp_path / "kit")) == ["a-dir", "alpha", "b"]  # SKILL.md names and folder names


# ------------------------------------------------------------------------------------------ aggregation


def _p(line: int, code: str = "x", severity: Severity = Severity.WARNING, fix: bool = True) -> Problem:
    fixes = [Fix("Change", (Edit(Span(line, 0, line, 1), "y"),))] if fix else []
    return Problem(Span(line, 0, line, 1), severity, code, f"thing {line}", fixes=fixes)


def test_aggregate_collapses_repeats_with_one_fix_for_all() -> None:
    out = aggregate([_p(i) for i in range(5)] + [_p(9, "other")])
    main = next(p for p in out if p.code == "x")
    assert len(out) == 2 and [r["span"][0] for r in related_of(main)] == [1, 2, 3, 4]
    assert len(main.fixes[0].edits) == 5 and main.fixes[1].preferred is False


def test_aggregate_keeps_few_real_findings_apart_but_not_advice() -> None:
    assert len(aggregate([_p(i) for i in range(3)])) == 3
    hints = aggregate([_p(i, severity=Severity.HINT, fix=False) for i in range(500)])
    assert len(hints) == 1 and len(related_of(hints[0])) == 499 and hints[0].fixes == []


def test_skilljack_skill_names_resolve_against_skill_md_names(tmp_path: Path) -> None:
    """A skill answers to its folder name (what skilljack copies) and its SKILL.md name (what loads)."""
    put(tmp_path, "suite/skills/greet-dir/SKILL.md", "---\nname: greeting\ndescription: d\n---\n")
    tasks = (
        "skill: greeting\ntasks:\n  - id: g-1\n    prompt: Say hi to Ana\n    expected_skill_load: {}\n"
        "    deterministic:\n      expect_marker: HI\n"
    )
    for name in ("greeting", "greet-dir"):
        path = put(tmp_path, "suite/tasks.yaml", tasks.format(name))
        assert "unknown-skill" not in {p.code for p in run(path).problems}
    path = put(tmp_path, "suite/tasks.yaml", tasks.format("greetings-old"))
    assert "unknown-skill" in {p.code for p in run(path).problems}


def test_messages_quote_text_as_written(tmp_path: Path) -> None:
    grading = {
        "case_id": "其他",
        "version": 1,
        "run": 1,
        "results": [{"criterion": "标题", "score": 4, "passed": True, "reasoning": "好"}],
    }
    v = run(put(tmp_path, "ws/grading/表格_v1_run1.json", grading))
    (p,) = [p for p in v.problems if p.code == "filename-mismatch"]
    assert '"其他"' in p.message and '"表格"' in p.message and "\\u" not in p.message
