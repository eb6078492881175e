"""A skeleton's placeholder is never taken for the user's words (issue 45 #5): the quick fix for a missing `judge`
inserts it as a snippet's tab stop, the ``skeleton-placeholder`` error stays on it until it is replaced, and every
skeleton's judged text (UAAPS, skilljack tasks.yaml and task.md, skill-creator evals.json) is known as one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core import placeholders
from evalens.core.formats.registry import by_id
from evalens.core.placeholders import CRITERIA_FIX, placeholder_in, tab_stop
from tests.format_helpers import apply, check, only

GREETING_MD = (
    "---\nname: greeting\ndescription: Greets the user. Use when someone says hello.\n---\nSay hi.\n"
)


def _case(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pkg" / "evals" / "cases" / "01-x.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text",
    [
        "name: x\ninput:\n  prompt: hi\n",  # no judge: the fix adds `judge:` and its criteria
        "name: x\ninput:\n  prompt: hi\njudge:\n  model: claude-haiku\n",  # judge without criteria
    ],
)
def test_the_criteria_fix_inserts_a_tab_stop_and_its_text_is_flagged_until_replaced(
    tmp_path: Path, text: str
):
    path = _case(tmp_path, text)
    missing = next(p for p in check(path).problems if p.code == "missing-key")
    (fix,) = [f for f in missing.fixes if f.title == "Add a `judge.criteria` skeleton"]
    (edit,) = fix.edits
    assert edit.snippet is not None and tab_stop(CRITERIA_FIX) in edit.snippet
    assert (
        edit.snippet.replace(tab_stop(CRITERIA_FIX), CRITERIA_FIX) == edit.text
    )  # the same text, as a snippet
    fixed = apply(text, fix.edits)
    left = only(check(path, fixed), placeholders.CODE)
    assert left.severity == 1 and left.data["path"] == ["judge", "criteria"]
    assert "judge.criteria" in left.message and "will not judge" in left.message
    written = fixed.replace(CRITERIA_FIX, "The output names the file report.md and its three totals.")
    assert placeholders.CODE not in {p.code for p in check(path, written).problems}


def test_every_skeletons_judged_text_is_flagged(tmp_path: Path):
    skill = tmp_path / "s"
    (skill / "skills" / "greeting").mkdir(parents=True)
    (skill / "skills" / "greeting" / "SKILL.md").write_text(GREETING_MD)
    files = {
        "uaaps-case": (_case(tmp_path, ""), ["judge", "criteria"]),
        "skilljack-tasks": (skill / "tasks.yaml", ["tasks", 0, "golden_checklist", 0]),
        "skilljack-task": (skill / "gr-001" / "task.md", ["assertions", 0]),
        "skill-creator-evals": (tmp_path / "sc" / "evals" / "evals.json", ["evals", 0, "assertions", 0]),
    }
    for fmt_id, (path, where) in files.items():
        fmt = by_id(fmt_id)
        assert fmt is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((fmt.skeleton(False) or "").replace("my-skill", "greeting"))
        found = [p for p in check(path).problems if p.code == placeholders.CODE]
        assert [p.data["path"] for p in found] == [where], (
            fmt_id,
            [(p.code, p.message) for p in check(path).problems],
        )
        snippet = fmt.skeleton(True) or ""
        assert "${" not in snippet or any(
            tab_stop(t).split(":", 1)[1] in snippet for t in placeholders.PLACEHOLDERS
        )


def test_what_counts_as_a_placeholder():
    assert placeholder_in("The output <names a concrete, checkable fact>.") == CRITERIA_FIX
    assert (
        placeholder_in("  the output names a concrete,\n   checkable fact \n") == placeholders.CASE_CRITERIA
    )
    assert (
        placeholder_in("The report lists <the three quarterly totals> in a table")
        == "<the three quarterly totals>"
    )
    for own in (
        "The output contains an <h1> and a <title>",
        'It prints <a href="x">',
        "A checkable fact: 42",
        "",
    ):
        assert placeholder_in(own) is None, own
    assert tab_stop("costs $5 {a}\\b", 2) == "${2:costs \\$5 {a\\}\\\\b}"


def test_a_skill_creator_case_written_by_the_user_is_not_flagged(tmp_path: Path):
    path = tmp_path / "sc" / "evals" / "evals.json"
    path.parent.mkdir(parents=True)
    data = {"skill_name": "x", "evals": [{"id": 1, "prompt": "p", "assertions": ["report.md has 3 rows"]}]}
    path.write_text(json.dumps(data))
    assert placeholders.CODE not in {p.code for p in check(path).problems}


def test_a_client_with_lsp_snippet_edits_gets_them_in_the_edit_itself():
    """LSP 3.18 ``workspace.workspaceEdit.snippetEditSupport``: the snippet is the edit; without it, plain text."""
    from evalens.core.problems import Edit, Fix, Span
    from evalens.server.convert import fix_snippets, fix_to_edit

    fix = Fix(
        "Add", (Edit(Span(2, 12, 2, 12), "\nx: " + CRITERIA_FIX, snippet="\nx: " + tab_stop(CRITERIA_FIX)),)
    )
    lines = ["name: x", "input:", "  prompt: hi"]
    native = fix_to_edit(fix, "file:///a.yaml", lines, "utf-16", snippets=True)
    (doc_edit,) = native.document_changes or []
    (edit,) = doc_edit.edits
    assert edit.snippet.value == "\nx: " + tab_stop(CRITERIA_FIX)
    plain = fix_to_edit(fix, "file:///a.yaml", lines, "utf-16")
    assert plain.changes["file:///a.yaml"][0].new_text == "\nx: " + CRITERIA_FIX
    (spare,) = fix_snippets(fix, "file:///a.yaml", lines, "utf-16") or []
    assert spare.snippet == "\nx: " + tab_stop(CRITERIA_FIX) and spare.range.start.character == 12
    assert (
        fix_snippets(Fix("Rename", (Edit(Span(0, 0, 0, 1), "y"),)), "file:///a.yaml", lines, "utf-16") is None
    )
