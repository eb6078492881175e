"""Inline suppression: YAML comments, Markdown frontmatter and HTML comments, the JSON ``$evalens`` member."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core.aggregate import related_of
from evalens.core.config import Tuning
from evalens.core.validate import validate_text

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
    text = case().replace(
        "  bogus: 1\n", "  # evalens: ignore[unknown-key]\n\n  # why: legacy key\n  bogus: 1\n"
    )
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
    hints = [
        p
        for p in validate_text(CASE_PATH, text, None, None, Tuning()).problems
        if p.code == "unused-suppression"
    ]
    # hints of one kind in one file are one diagnostic with related locations (docs/severity-policy.md)
    assert sum(1 + len(related_of(p)) for p in hints) == 2 and all(p.span.start_line == 0 for p in hints)
    result = validate_text(CASE_PATH, case(head="# evalens: ignore-file[made-up]\n"), None, None, Tuning())
    hint = next(p for p in result.problems if p.code == "unused-suppression")
    assert hint.severity.label == "hint" and "not an evalens rule" in hint.message
    assert (hint.span.start_col, hint.span.end_col) == (0, len("# evalens: ignore-file[made-up]"))


def test_unused_hint_can_be_turned_off_like_any_rule(tmp_path: Path):
    from evalens.core.config import RuleLevels

    text = case(head="# evalens: ignore-file[made-up]\n")
    off = Tuning(overrides=RuleLevels({"unused-suppression": None}))
    assert "unused-suppression" not in {
        p.code for p in validate_text(CASE_PATH, text, None, None, off).problems
    }


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


EVALS = {
    "skill_name": "my-skill",
    "evals": [
        {
            "id": 1,
            "prompt": "short",
            "expected_output": "x",
            "assertions": ["The file report.md lists three items"],
        }
    ],
}
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
    text = json.dumps(
        {
            "$evalens": {"ignore": ["secret-in-config"]},
            "version": 1,
            "engine": "claude-code",
            "env": {"KEYRING_NAME": "x"},  # API_TOKEN is now refused outright (env-refused)
        }
    )
    found = problems(text, "/nowhere/pkg/evals/eval-config.json")
    assert found == []
    found = problems(text.replace('"$evalens"', '"$evalenz"'), "/nowhere/pkg/evals/eval-config.json")
    assert "secret-in-config" in dict(found)


# ------------------------------------------------------------------------------------------- quick fixes


def _fixes(path: str, text: str, code: str) -> dict[str, tuple]:
    from evalens.core.suppress import suppression_fixes

    result = validate_text(path, text, None, None, Tuning())
    problem = next(p for p in result.problems if p.code == code)
    return {f.title.split(" (")[0]: f.edits for f in suppression_fixes(problem, result.doc)}


def _after(path: str, text: str, code: str, which: str) -> tuple[str, set[str]]:
    from tests.format_helpers import apply

    fixed = apply(text, _fixes(path, text, code)[which])
    return fixed, {p.code for p in validate_text(path, fixed, None, None, Tuning()).problems}


def test_yaml_line_and_file_fixes_silence_the_problem():
    fixed, found = _after(CASE_PATH, case(), "unknown-key", "Ignore `unknown-key` on this line")
    assert "  bogus: 1  # evalens: ignore[unknown-key]\n" in fixed and "unknown-key" not in found
    fixed, found = _after(CASE_PATH, fixed, "vague-criteria", "Ignore `vague-criteria` in this file")
    assert fixed.startswith("# evalens: ignore-file[vague-criteria]\n") and "vague-criteria" not in found
    assert "unused-suppression" not in found


def test_fixes_extend_an_existing_directive():
    text = case(
        bogus_comment="  # evalens: ignore[no-checks]", head="# evalens: ignore-file[fixture-missing]\n"
    )
    fixed, found = _after(CASE_PATH, text, "unknown-key", "Ignore `unknown-key` on this line")
    assert "# evalens: ignore[no-checks, unknown-key]" in fixed and "unknown-key" not in found
    fixed, _ = _after(CASE_PATH, text, "vague-criteria", "Ignore `vague-criteria` in this file")
    assert fixed.startswith("# evalens: ignore-file[fixture-missing, vague-criteria]\n")


def test_frontmatter_fixes_stay_inside_the_frontmatter():
    path = "/nowhere/my-skill/SKILL.md"
    text = SKILL.format(desc="", colour="").replace("# evalens: ignore-file[unexpected-field]\n", "")
    fixed, found = _after(path, text, "unexpected-field", "Ignore `unexpected-field` on this line")
    assert "colour: blue  # evalens: ignore[unexpected-field]" in fixed and "unexpected-field" not in found
    fixed, found = _after(path, text, "unexpected-field", "Ignore `unexpected-field` in this file")
    assert (
        fixed.startswith("---\n# evalens: ignore-file[unexpected-field]\nname:")
        and "unexpected-field" not in found
    )


def test_no_line_fix_on_the_frontmatter_fence():
    path = "/nowhere/my-skill/SKILL.md"
    titles = _fixes(path, "---\nname: my-skill\n---\nBody.\n", "missing-field")
    assert list(titles) == ["Ignore `missing-field` in this file"]


def test_json_fix_adds_then_extends_the_member():
    text = json.dumps(EVALS, indent=2)
    fixed, found = _after(EVALS_PATH, text, "short-prompt", "Ignore `short-prompt` in this file")
    assert json.loads(fixed)["$evalens"] == {"ignore": ["short-prompt"]}
    assert "short-prompt" not in found and "unknown-key" not in found
    data = json.loads(fixed)
    data["evals"][0].pop("expected_output")
    text2 = json.dumps(data, indent=2)
    fixed2, found2 = _after(
        EVALS_PATH, text2, "missing-expected-output", "Ignore `missing-expected-output` in this file"
    )
    assert json.loads(fixed2)["$evalens"] == {"ignore": ["short-prompt", "missing-expected-output"]}
    assert not found2 & {"short-prompt", "missing-expected-output"}


def test_no_suppression_fix_for_problems_that_cannot_be_silenced():
    from evalens.core.suppress import suppression_fixes

    result = validate_text(CASE_PATH, "name: [unclosed\n", None, None, Tuning())
    assert all(suppression_fixes(p, result.doc) == [] for p in result.problems)


def test_no_line_fix_inside_a_quoted_scalar_that_goes_on():
    from evalens.core.suppress import _opens_quote

    assert _opens_quote('  prompt: "first line')
    assert _opens_quote("  - 'it''s open")
    assert not _opens_quote('  prompt: "closed" # "quoted comment')
    assert not _opens_quote("  name: it's fine")  # an apostrophe inside a plain scalar
    assert not _opens_quote('  path: "a\\"b" ')
    text = case().replace("  bogus: 1\n", '  bogus: "one\n    two"\n')
    titles = _fixes(CASE_PATH, text, "unknown-key")
    assert list(titles) == ["Ignore `unknown-key` in this file"]


def test_no_ignore_is_offered_for_a_rule_the_runner_enforces():
    """Issue 45 #10: "Ignore `path-escape`" was offered, but the runner refuses such a case whatever the level, so
    the ignore only hid why it would not run. Rules marked ``enforced`` in the catalog get no ignore; a rule
    beside them on the same case still does."""
    from evalens.core.rules import catalog

    text = case().replace("  prompt: hi\n", "  prompt: hi\n  files: [../../secrets.txt]\n")
    assert _fixes(CASE_PATH, text, "path-escape") == {}
    assert "Ignore `unknown-key` on this line" in _fixes(CASE_PATH, text, "unknown-key")
    enforced = {code for code, rule in catalog().items() if rule.enforced}
    assert {"path-escape", "env-refused", "skeleton-placeholder"} <= enforced
    assert all(catalog()[code].tunable for code in enforced)  # a level still applies; the run refuses anyway
