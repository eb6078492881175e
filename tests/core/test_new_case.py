"""Where "New eval case for this skill" writes (evalens.core.new_case.plan): the format the package uses,
required fields filled, the cursor inside the prompt's quotes of the file as it will be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core.new_case import NewCase, plan

SKILL = "---\nname: {name}\ndescription: Does things. Use when asked.\n---\n\nBody\n"


def _read(path: Path) -> str | None:
    return path.read_text() if path.is_file() else None


def _result(found: NewCase) -> str:
    """The file after the edit."""
    if found.insert is None:
        return found.text
    lines = found.path.read_text().split("\n")
    at = found.insert
    here = lines[at.start_line]
    return "\n".join(
        [
            *lines[: at.start_line],
            here[: at.start_col] + found.text + here[at.start_col :],
            *lines[at.start_line + 1 :],
        ]
    )


def _at_cursor(found: NewCase) -> tuple[str, str]:
    line, col = found.cursor
    text = _result(found).split("\n")[line]
    return text[:col], text[col:]


def _skill(root: Path, name: str = "greet") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "SKILL.md").write_text(SKILL.format(name=name))
    return root / "SKILL.md"


def test_uaaps_case_numbered_after_its_siblings(tmp_path: Path):
    skill_md = _skill(tmp_path / "pkg" / "skills" / "pdf", "pdf")
    cases = tmp_path / "pkg" / "evals" / "cases"
    cases.mkdir(parents=True)
    for name in ("001-a.yaml", "007-b.yaml", "notes.txt"):
        (cases / name).write_text("name: x\n")
    found = plan(skill_md, _read)
    assert found.format == "uaaps-case" and found.path == cases / "008-pdf-new-case.yaml"
    assert "name: pdf-new-case\ntarget: skill:pdf\n" in found.text and 'criteria: ""' in found.text
    assert _at_cursor(found) == ('  prompt: "', '"')
    (cases / "008-pdf-new-case.yaml").write_text(found.text)
    assert plan(skill_md, _read).path == cases / "009-pdf-new-case-2.yaml"  # names stay unique


def test_skill_creator_entry_keeps_the_files_style(tmp_path: Path):
    skill_md = _skill(tmp_path / "greet")
    path = tmp_path / "greet" / "evals" / "evals.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {
                "skill_name": "greet",
                "evals": [
                    {"id": 2, "prompt": "Hi", "expected_output": "hello", "assertions": ["says hello"]},
                    {"id": 9, "prompt": "Bye", "expected_output": "bye", "assertions": ["says bye"]},
                ],
            },
            indent=4,
        )
        + "\n"
    )
    found = plan(skill_md, _read)
    after = json.loads(_result(found))
    assert after["evals"][-1] == {"id": 10, "prompt": "", "expected_output": "", "assertions": []}
    assert (
        _result(found).split("\n")[found.cursor[0]].startswith(" " * 12 + '"prompt"')
    )  # indented like the file
    assert _at_cursor(found)[1] == '",'


def test_empty_evals_array_and_writing_skills(tmp_path: Path):
    skill_md = _skill(tmp_path / "a")
    path = tmp_path / "a" / "evals" / "evals.json"
    path.parent.mkdir()
    path.write_text('{"skill_name": "greet", "evals": []}\n')
    found = plan(skill_md, _read)
    assert json.loads(_result(found))["evals"] == [
        {"id": 1, "prompt": "", "expected_output": "", "assertions": []}
    ]
    assert _at_cursor(found)[0].endswith('"prompt": "')

    skill_md = _skill(tmp_path / "b")
    path = tmp_path / "b" / "evals" / "evals.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {
                "version": "1.0",
                "skill": "b",
                "cases": [{"id": "new-case", "prompt": "x", "expectations": []}],
            },
            indent=2,
        )
        + "\n"
    )
    found = plan(skill_md, _read)
    assert found.format == "writing-skills-evals"
    case = json.loads(_result(found))["cases"][-1]
    assert case["id"] == "new-case-2" and case["expectations"] == [
        {"criterion": "", "description": "", "required": True}
    ]


def test_default_is_a_skill_creator_evals_json(tmp_path: Path):
    skill_md = _skill(tmp_path / "solo", "solo")
    found = plan(skill_md, _read)
    assert found.format == "skill-creator-evals" and found.insert is None
    assert found.path == tmp_path / "solo" / "evals" / "evals.json"
    assert json.loads(found.text) == {
        "skill_name": "solo",
        "evals": [{"id": 1, "prompt": "", "expected_output": "", "assertions": []}],
    }
    # an evals.json that does not parse is neither edited nor replaced: the user fixes it first
    found.path.parent.mkdir()
    found.path.write_text("{ broken")
    with pytest.raises(ValueError, match="does not parse"):
        plan(skill_md, _read)
