"""``evalens.runner.trigger_suggest``: new trigger queries appended in the set's own shape, the new ones only, at
most ``count`` of each kind, and the edit as a diff (the file is never written). The judge is replaced by a
function that answers as a judge model would; everything else runs as ``evalens triggers suggest`` runs it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evalens.runner import trigger_suggest
from evalens.runner.trigger_suggest import SYSTEM, Suggestion, _append, _load, suggest

SKILL = "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\n---\n\n# PDF tools\n"


def _skill(tmp_path: Path, name: str = "SKILL.md") -> Path:
    skill = tmp_path / "pdf-tools"
    skill.mkdir()
    (skill / name).write_text(SKILL, encoding="utf-8")
    return skill


class FakeJudge:
    """Stands in for ``ask_json``: records what it was asked and answers ``reply``."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.calls: list[tuple[Any, str, str, float | None]] = []

    async def __call__(
        self, spec: Any, system: str, user: str, deadline: float | None = None
    ) -> dict[str, Any]:
        self.calls.append((spec, system, user, deadline))
        return self.reply


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> FakeJudge:
    fake = FakeJudge({})
    monkeypatch.setattr(trigger_suggest, "ask_json", fake)
    return fake


def _run(skill: Path, trigger_set: Path, others: dict[str, str] | None = None, count: int = 2) -> Suggestion:
    return asyncio.run(suggest(skill, trigger_set, others or {}, count=count, engine="claude-code"))


# --- _append -------------------------------------------------------------------------------------------------


def test_append_to_nothing_makes_an_array() -> None:
    assert _append(None, [("a", True), ("b", False)]) == [
        {"query": "a", "should_trigger": True},
        {"query": "b", "should_trigger": False},
    ]


def test_append_to_an_array_keeps_what_is_there() -> None:
    data = [{"query": "old", "should_trigger": True, "note": "kept"}]
    out = _append(data, [("new", False)])
    assert out == [
        {"query": "old", "should_trigger": True, "note": "kept"},
        {"query": "new", "should_trigger": False},
    ]
    assert data == [{"query": "old", "should_trigger": True, "note": "kept"}]  # the input is not changed


def test_append_to_a_wrapped_array() -> None:
    data = {"skill_name": "pdf-tools", "queries": [{"query": "old", "should_trigger": True}]}
    out = _append(data, [("new", True)])
    assert out == {
        "skill_name": "pdf-tools",
        "queries": [{"query": "old", "should_trigger": True}, {"query": "new", "should_trigger": True}],
    }
    assert len(data["queries"]) == 1


def test_append_to_the_two_lists() -> None:
    data = {"skill_name": "pdf-tools", "should_trigger": ["a"]}
    out = _append(data, [("b", True), ("c", False), ("d", False)])
    assert out == {"skill_name": "pdf-tools", "should_trigger": ["a", "b"], "should_not_trigger": ["c", "d"]}
    assert data == {"skill_name": "pdf-tools", "should_trigger": ["a"]}


# --- _load ---------------------------------------------------------------------------------------------------


def test_load_without_a_trigger_set(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    assert _load(skill, tmp_path / "triggers.json") == ("Extract text and tables from PDF files.", None, None)


def test_load_reads_a_lowercase_skill_md_and_the_set(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "skill.md")
    file = tmp_path / "triggers.json"
    text = json.dumps([{"query": "q", "should_trigger": True}])
    file.write_text(text, encoding="utf-8")
    assert _load(skill, file) == (
        "Extract text and tables from PDF files.",
        text,
        [{"query": "q", "should_trigger": True}],
    )


def test_load_refuses_a_set_that_is_not_json(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    file = tmp_path / "triggers.json"
    file.write_text("[{broken", encoding="utf-8")
    with pytest.raises(ValueError, match="not a readable JSON trigger set"):
        _load(skill, file)


# --- suggest -------------------------------------------------------------------------------------------------


def test_suggest_a_new_set(tmp_path: Path, judge: FakeJudge) -> None:
    skill = _skill(tmp_path)
    target = tmp_path / "evals" / "triggers.json"
    judge.reply = {
        "should_trigger": ["Pull the tables out of report.pdf"],
        "should_not_trigger": ["Resize a PNG"],
    }
    result = _run(skill, target, {"images": "Resize and crop images."})
    assert result.added == [("Pull the tables out of report.pdf", True), ("Resize a PNG", False)]
    assert json.loads(result.new_text) == [
        {"query": "Pull the tables out of report.pdf", "should_trigger": True},
        {"query": "Resize a PNG", "should_trigger": False},
    ]
    assert result.diff.startswith(f"--- /dev/null\n+++ {target} (proposed)\n")
    assert not target.exists()  # never written
    ((_spec, system, user, deadline),) = judge.calls
    assert system == SYSTEM
    assert deadline == 120
    assert "- images: Resize and crop images." in user
    assert "(none yet)" in user
    assert "Write 2 new requests" in user
    assert "The skill is `pdf-tools`; its description is:\nExtract text and tables from PDF files." in user


def test_suggest_keeps_only_new_requests_and_at_most_count(tmp_path: Path, judge: FakeJudge) -> None:
    skill = _skill(tmp_path)
    target = tmp_path / "triggers.json"
    old = json.dumps([{"query": "Extract the text of a.pdf", "should_trigger": True}], indent=2) + "\n"
    target.write_text(old, encoding="utf-8")
    judge.reply = {
        "should_trigger": ["  extract the TEXT of a.pdf ", "", "Read b.pdf", "read B.pdf", "third", "fourth"],
        "should_not_trigger": "not a list",
    }
    result = _run(skill, target, count=4)
    assert result.added == [("Read b.pdf", True)]
    assert result.skipped == ["extract the TEXT of a.pdf", "read B.pdf"]
    assert [q["query"] for q in json.loads(result.new_text)] == ["Extract the text of a.pdf", "Read b.pdf"]
    assert target.read_text(encoding="utf-8") == old
    assert result.diff.startswith(f"--- {target}\n+++ {target} (proposed)\n")
    assert '+    "query": "Read b.pdf",' in result.diff
    ((_spec, _system, user, _deadline),) = judge.calls
    assert "- [use] Extract the text of a.pdf" in user
    assert "Other installed skills:\n(none)" in user


def test_suggest_count_cuts_each_kind(tmp_path: Path, judge: FakeJudge) -> None:
    skill = _skill(tmp_path)
    judge.reply = {"should_trigger": ["a", "b", "c"], "should_not_trigger": ["x", "y", "z"]}
    result = _run(skill, tmp_path / "t.json", count=1)
    assert result.added == [("a", True), ("x", False)]


def test_suggest_onto_the_two_lists_shape(tmp_path: Path, judge: FakeJudge) -> None:
    skill = _skill(tmp_path)
    target = tmp_path / "t.json"
    target.write_text(json.dumps({"should_trigger": ["a"], "should_not_trigger": ["b"]}), encoding="utf-8")
    judge.reply = {"should_trigger": ["B", "c"], "should_not_trigger": ["d"]}
    result = _run(skill, target)
    assert result.skipped == ["B"]  # already there, as a should-not request
    assert json.loads(result.new_text) == {"should_trigger": ["a", "c"], "should_not_trigger": ["b", "d"]}


def test_suggest_with_nothing_new_has_an_empty_diff(tmp_path: Path, judge: FakeJudge) -> None:
    skill = _skill(tmp_path)
    target = tmp_path / "t.json"
    target.write_text(json.dumps([{"query": "a", "should_trigger": True}], indent=2) + "\n", encoding="utf-8")
    judge.reply = {"should_trigger": ["a"]}
    result = _run(skill, target)
    assert result.added == []
    assert result.diff == ""
