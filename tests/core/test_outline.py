"""The outline: one symbol per runnable unit, named as the Test Explorer names it; keys under units only
where editors have no outline of their own (YAML, Markdown), never a second key tree for JSON."""

from __future__ import annotations

import json
from pathlib import Path

from evalens.core.index import IndexCache
from evalens.core.labels import case_label
from evalens.core.validate import validate_text
from evalens.server.features.symbols import outline

REPO = Path(__file__).resolve().parents[2]


def _outline(path: Path, text: str | None = None):
    text = path.read_text() if text is None else text
    v = validate_text(str(path), text, IndexCache())
    assert v.format is not None and v.doc is not None, path
    return outline(v.doc, v.format, "utf-16", json=path.suffix == ".json", unnamed=path.parent.name), v


def _names(symbols, depth: int = 0) -> list[str]:
    out = []
    for s in symbols:
        out.append("  " * depth + s.name)
        out += _names(s.children or [], depth + 1)
    return out


def _contained(symbols) -> None:
    for s in symbols:
        r, sel = s.range, s.selection_range
        assert (r.start.line, r.start.character) <= (sel.start.line, sel.start.character), s.name
        assert (sel.end.line, sel.end.character) <= (r.end.line, r.end.character), s.name
        assert s.name
        _contained(s.children or [])


def test_uaaps_case_is_one_unit_with_its_keys():
    symbols, _ = _outline(REPO / "examples" / "pdf-tools" / "evals" / "cases" / "01-extract-text.yaml")
    (case,) = symbols
    assert case.name == "extract-text" and case.detail is None
    assert [c.name for c in case.children] == ["name", "description", "target", "input", "expected", "judge"]
    _contained(symbols)


def test_skill_creator_evals_are_labelled_by_prompt_with_no_key_tree(tmp_path: Path):
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets. Use when someone says hi.\n---\nHi\n"
    )
    data = {
        "skill_name": "greeting",
        "evals": [
            {
                "id": i,
                "prompt": f"Say hello to person number {i} in a friendly way, mentioning the weather today",
                "expected_output": "a greeting",
                "assertions": [],
            }
            for i in (1, 2)
        ],
    }
    path = skill / "evals" / "evals.json"
    path.write_text(json.dumps(data, indent=2))
    symbols, _ = _outline(path)
    assert [s.name for s in symbols] == [
        "Say hello to person number 1 in a friendly way, mentioning…",
        "Say hello to person number 2 in a friendly way, mentioning…",
    ]
    assert [s.detail for s in symbols] == ["#1", "#2"]
    assert all(s.children is None for s in symbols)  # JSON: the editor's own outline has the keys
    _contained(symbols)


def test_json_without_units_adds_no_second_key_tree():
    symbols, _ = _outline(REPO / "examples" / "pdf-tools" / "evals" / "eval-config.json")
    assert symbols == []


def test_trigger_queries_and_skilljack_tasks(tmp_path: Path):
    triggers = tmp_path / "skill" / "evals" / "trigger-eval.json"
    triggers.parent.mkdir(parents=True)
    triggers.write_text(
        json.dumps(
            [
                {"query": "turn this pdf into text", "should_trigger": True},
                {"query": "what is the weather", "should_trigger": False},
            ],
            indent=2,
        )
    )
    symbols, _ = _outline(triggers)
    assert [s.name for s in symbols] == ["turn this pdf into text", "what is the weather"]  # no "*" unit
    tasks = tmp_path / "suite" / "tasks.yaml"
    tasks.parent.mkdir()
    tasks.write_text(
        "skill: greeting\ntasks:\n  - id: gr-001\n    prompt: say hello\n    expected_skill_load: greeting\n"
        "  - id: gr-002\n    prompt: say bye\n    expected_skill_load: greeting\n"
    )
    symbols, _ = _outline(tasks)
    assert _names(symbols)[:4] == ["gr-001", "  id", "  prompt", "  expected_skill_load"]
    assert [s.name for s in symbols] == ["gr-001", "gr-002"]
    _contained(symbols)


def test_named_units_keep_their_name():
    v = validate_text(
        str(REPO / "examples" / "pdf-tools" / "evals" / "cases" / "01-extract-text.yaml"),
        (REPO / "examples" / "pdf-tools" / "evals" / "cases" / "01-extract-text.yaml").read_text(),
    )
    (case,) = v.format.cases(v.doc)
    assert case_label(v.doc, case) == "extract-text"


def test_skill_creator_evals_with_a_name_are_labelled_by_it(tmp_path: Path):
    """Issue 27 #3: an eval's own `name` wins over its prompt (outline and Test Explorer use the same label)."""
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets. Use when someone says hi.\n---\nHi\n"
    )
    data = {
        "skill_name": "greeting",
        "evals": [
            {
                "id": 1,
                "name": "weather-greeting",
                "prompt": "Say hello, mentioning the weather",
                "assertions": [],
            },
            {"id": 2, "name": "  ", "prompt": "Say goodbye", "assertions": []},
        ],
    }
    path = skill / "evals" / "evals.json"
    path.write_text(json.dumps(data, indent=2))
    symbols, v = _outline(path)
    assert [s.name for s in symbols] == ["weather-greeting", "Say goodbye"]
    assert [case_label(v.doc, c) for c in v.format.cases(v.doc)] == ["weather-greeting", "Say goodbye"]
