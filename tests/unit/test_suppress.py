"""Inline suppression: YAML comments, Markdown frontmatter and HTML comments, the JSON ``$evalens`` member."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evalens.runner.aggregate import related_of
from evalens.runner.config import Tuning
from evalens.runner.validate import validate_text

CASE_PATH = "/nowhere/pkg/evals/cases/a.yaml"
# Two problems on known lines: line 4 `bogus` (unknown-key), line 6 vague criteria (vague-criteria).
CASE = """name: my-case
target: skill:x
input:
  prompt: hi{bogus}
  bogus: 1{bogus_comment}
judge:
  criteria: The reply is good.{vague_comment}
"""


def problems(text: str, path: str = CASE_PATH) -> list[tuple[str, int]]:
    """(code, 1-based line) of every problem, with no config file involved."""
    result = validate_text(path, text, None, None, Tuning())
    return [(p.code, p.span.start_line + 1) for p in result.problems]


def case(bogus: str = "", bogus_comment: str = "", vague_comment: str = "", head: str = "") -> str:
    return head + CASE.format(bogus=bogus, bogus_comment=bogus_comment, vague_comment=vague_comment)


def test_baseline_has_both_problems():
    found = problems(case())
    assert ("unknown-key", 5) in found and ("vague-criteria", 7) in found


def test_same_line_comment_silences_that_code_only():
    found = problems(case(bogus_comment="  # evalens: ignore[unknown-key]"))
    assert "unknown-key" not in dict(found) and ("vague-criteria", 7) in found
    found = problems(case(bogus_comment="  # evalens: ignore[vague-criteria]"))
    assert ("unknown-key", 5) in found
    assert ("unused-suppression", 5) in found  # nothing of that code on line 5


def test_comment_on_the_line_above_skips_blank_and_comment_lines():
    text = case().replace("  bogus: 1\n", "  # evalens: ignore[unknown-key]\n\n  # why: legacy key\n  bogus: 1\n")
    assert "unknown-key" not in dict(problems(text))


def test_bare_ignore_silences_everything_on_the_line():
    found = problems(case(vague_comment="  # evalens: ignore"))
    assert "vague-criteria" not in dict(found) and "unused-suppression" not in dict(found)


def test_several_codes_and_file_level():
    head = "# evalens: ignore-file[unknown-key, vague-criteria]\n"
    found = problems(case(head=head))
    assert "unknown-key" not in dict(found) and "vague-criteria" not in dict(found)
    assert "unused-suppression" not in dict(found)
    found = problems(case(head="# evalens: ignore-file\n"))
    assert found == []


def test_unknown_and_unused_codes_get_a_hint_only():
    text = case(head="# evalens: ignore-file[made-up, unknown-key, fixture-missing]\n")
    hints = [p for p in validate_text(CASE_PATH, text, None, None, Tuning()).problems
             if p.code == "unused-suppression"]
    # hints of one kind in one file are one diagnostic with related locations (docs/severity-policy.md)
    assert sum(1 + len(related_of(p)) for p in hints) == 2 and all(p.span.start_line == 0 for p in hints)
    result = validate_text(CASE_PATH, case(head="# evalens: ignore-file[made-up]\n"), None, None, Tuning())
    hint = next(p for p in result.problems if p.code == "unused-suppression")
    assert hint.severity.label == "hint" and "not an evalens rule" in hint.message
    assert (hint.span.start_col, hint.span.end_col) == (0, len("# evalens: ignore-file[made-up]"))


def test_unused_hint_can_be_turned_off_like_any_rule(tmp_path: Path):
    from evalens.runner.config import RuleLevels

    text = case(head="# evalens: ignore-file[made-up]\n")
    off = Tuning(overrides=RuleLevels({"unused-suppression": None}))
    assert "unused-suppression" not in {p.code for p in validate_text(CASE_PATH, text, None, None, off).problems}


def test_syntax_errors_cannot_be_silenced():
    found = problems("# evalens: ignore-file\nname: [unclosed\n")
    assert ("syntax", 3) in found or any(c == "syntax" for c, _ in found)


def test_a_hash_inside_a_value_is_not_a_directive():
    """YAML comments start at a `#` after whitespace; `a#b` is text."""
    found = problems(case().replace("  bogus: 1\n", '  bogus: "1#evalens: ignore"\n'))
    assert ("unknown-key", 5) in found


SKILL = """---
name: my-skill
description: Does things.{desc}
colour: blue{colour}
---
# evalens: ignore-file[unexpected-field]

Body.
"""


def skill_problems(desc: str = "", colour: str = "", body: str = "") -> list[tuple[str, int]]:
    return problems(SKILL.format(desc=desc, colour=colour) + body, "/nowhere/my-skill/SKILL.md")


def test_frontmatter_comments_work_and_a_body_heading_is_not_a_directive():
    assert ("unexpected-field", 4) in skill_problems()  # the body line is a Markdown heading
    assert "unexpected-field" not in dict(skill_problems(colour="  # evalens: ignore[unexpected-field]"))


def test_markdown_html_comment_in_the_body():
    body = "<!-- evalens: ignore-file[unexpected-field] -->\n"
    assert "unexpected-field" not in dict(skill_problems(body=body))


EVALS = {"skill_name": "my-skill",
         "evals": [{"id": 1, "prompt": "short", "expected_output": "x",
                    "assertions": ["The file report.md lists three items"]}]}
EVALS_PATH = "/nowhere/my-skill/evals/evals.json"


def evals_problems(extra: dict | None) -> list[tuple[str, int]]:
    data = dict(EVALS)
    if extra is not None:
        data = {"$evalens": extra, **data}
    return problems(json.dumps(data, indent=2), EVALS_PATH)


def test_json_member_silences_codes_in_the_file():
    assert "short-prompt" in dict(evals_problems(None))
    assert "short-prompt" not in dict(evals_problems({"ignore": ["short-prompt"]}))
    assert "short-prompt" not in dict(evals_problems({"ignore": True}))


@pytest.mark.parametrize("extra", [{"ignore": "short-prompt"}, {"skip": ["x"]}, []])
def test_malformed_json_member_is_a_hint_not_an_error(extra):
    found = evals_problems(extra)
    assert ("unused-suppression", 2) in found
    assert "short-prompt" in dict(found)
    assert not any(c == "unknown-key" for c, _ in found)


def test_json_member_is_not_an_unknown_key_even_in_closed_schemas():
    """eval-config.json is closed (unknown keys are reported); ``$evalens`` is evalens' own member."""
    text = json.dumps({"$evalens": {"ignore": ["secret-in-config"]}, "version": 1, "engine": "claude-code",
                       "env": {"API_TOKEN": "x"}})
    found = problems(text, "/nowhere/pkg/evals/eval-config.json")
    assert found == []
    found = problems(text.replace('"$evalens"', '"$evalenz"'), "/nowhere/pkg/evals/eval-config.json")
    assert "secret-in-config" in dict(found)
