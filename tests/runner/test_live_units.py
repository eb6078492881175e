"""Live turns without an agent: the engines' incremental readers over recorded event lines, and the feed's
bounds (lines split across chunks, a line too long to parse, the per-run cap, a consumer that raises)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.runner import live
from evalens.runner.engines import get_engine
from evalens.runner.engines.base import SandboxPaths

WS = "/var/tmp/evalens-x/ws"
CLAUDE = [
    {"type": "system", "subtype": "init", "cwd": WS, "session_id": "s"},
    {
        "type": "assistant",
        "message": {
            "id": "m1",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Write",
                    "input": {"file_path": f"{WS}/output/result.txt", "content": "hello\n"},
                }
            ],
        },
    },
    {
        "type": "system",
        "subtype": "hook_response",
        "hook_name": "PreToolUse:Write",
        "hook_event": "PreToolUse",
        "exit_code": 0,
        "stdout": "",
        "stderr": "",
    },
    {
        "type": "user",
        "message": {
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": f"File created successfully at: {WS}/output/result.txt",
                }
            ]
        },
    },
    {
        "type": "assistant",
        "message": {
            "id": "m2",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "Write",
                    "input": {"file_path": f"{WS}/output/blocked.txt"},
                }
            ],
        },
    },
    {
        "type": "system",
        "subtype": "hook_response",
        "hook_name": "PreToolUse:Write",
        "hook_event": "PreToolUse",
        "exit_code": 2,
        "stdout": "",
        "stderr": "BLOCKED_BY_POLICY: no\n",
    },
    {
        "type": "user",
        "message": {
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "is_error": True,
                    "content": "PreToolUse:Write hook error: BLOCKED_BY_POLICY: no",
                }
            ]
        },
    },
    {"type": "assistant", "message": {"id": "m3", "content": [{"type": "text", "text": "DONE GREETING-OK"}]}},
    {"type": "result", "subtype": "success", "is_error": False, "result": "DONE GREETING-OK"},
]
CODEX = [
    {"type": "thread.started", "thread_id": "x"},
    {
        "type": "item.completed",
        "item": {"id": "item_0", "type": "error", "message": "Model metadata not found"},
    },
    {"type": "turn.started"},
    {
        "type": "item.started",
        "item": {
            "id": "item_3",
            "type": "command_execution",
            "command": "/bin/bash -lc 'cat .agents/skills/greeter/SKILL.md'",
            "aggregated_output": "",
            "exit_code": None,
            "status": "in_progress",
        },
    },
    {
        "type": "item.completed",
        "item": {
            "id": "item_3",
            "type": "command_execution",
            "command": "/bin/bash -lc 'cat .agents/skills/greeter/SKILL.md'",
            "aggregated_output": "Write a greeting.\n",
            "exit_code": 0,
        },
    },
    {
        "type": "item.completed",
        "item": {
            "id": "item_4",
            "type": "command_execution",
            "command": "false",
            "aggregated_output": "",
            "exit_code": 1,
        },
    },
    {"type": "item.completed", "item": {"id": "item_6", "type": "agent_message", "text": "DONE GREETING-OK"}},
    {"type": "turn.completed", "usage": {"input_tokens": 85, "output_tokens": 35}},
]


def paths() -> SandboxPaths:
    root = Path("/var/tmp/evalens-x")
    return SandboxPaths(
        root=root, workspace=Path(WS), home=root / "home", config_home=root / "cfg", logs=root / "logs"
    )


def stream(engine: str, events: list[dict], chunk: int = 7) -> list[live.LiveTurn]:
    """Feed the events as the agent's stdout would arrive: in small chunks that split lines anywhere."""
    got: list[live.LiveTurn] = []
    with live.streaming(got.append):
        feed = live.feed(get_engine(engine), paths(), "scripted", 2)
    assert feed is not None
    data = b"warning: not an event\n" + b"".join(json.dumps(e).encode() + b"\n" for e in events)
    for i in range(0, len(data), chunk):
        feed(data[i : i + chunk])
    feed.close()
    return got


def test_claude_turns_as_they_arrive() -> None:
    turns = stream("claude-code", CLAUDE)
    assert [(t.kind, t.tool, t.text) for t in turns] == [
        ("tool", "Write", "output/result.txt"),
        ("result", "Write", "File created successfully at: output/result.txt"),
        ("tool", "Write", "output/blocked.txt"),
        ("hook", "PreToolUse:Write", "BLOCKED_BY_POLICY: no"),
        ("result", "Write", "PreToolUse:Write hook error: BLOCKED_BY_POLICY: no"),
        ("text", None, "DONE GREETING-OK"),
    ]
    assert turns[3].blocked and turns[4].is_error and not turns[1].is_error
    assert [t.seq for t in turns] == list(range(6)) and {(t.unit, t.run) for t in turns} == {("scripted", 2)}
    assert turns[1].call_id == turns[0].call_id == "t1"


def test_codex_turns_as_they_arrive() -> None:
    turns = stream("codex", CODEX, chunk=5)
    assert [(t.kind, t.text, t.is_error) for t in turns] == [
        ("tool", "cat .agents/skills/greeter/SKILL.md", False),  # the shell wrapper is not shown
        ("result", "Write a greeting.\n", False),
        ("tool", "false", False),  # a command seen only when it completed: its call, then its result
        ("result", "", True),
        ("text", "DONE GREETING-OK", False),
    ]


def test_codex_hook_records_stream_blocks(tmp_path: Path) -> None:
    for n, (event, rc, err) in enumerate(
        [("PreToolUse", 0, ""), ("PreToolUse", 2, "BLOCKED_BY_POLICY: no\n")]
    ):
        base = tmp_path / f"17000000000{n}-1"
        for suffix, text in ((".event", event), (".out", ""), (".err", err), (".rc", str(rc))):
            Path(f"{base}{suffix}").write_text(text)
    seen: set[str] = set()
    [block] = live.new_hook_runs(tmp_path, seen)
    assert block == {"kind": "hook", "tool": "PreToolUse", "blocked": True, "text": "BLOCKED_BY_POLICY: no"}
    assert live.new_hook_runs(tmp_path, seen) == []  # each record once


def test_no_consumer_no_feed() -> None:
    assert live.feed(get_engine("claude-code"), paths(), "u", 1) is None


def test_bounds_and_a_broken_consumer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "LINE_LIMIT", 200)
    monkeypatch.setattr(live, "MAX_LIVE_TURNS", 4)
    got: list[live.LiveTurn] = []

    def sink(turn: live.LiveTurn) -> None:
        got.append(turn)
        raise RuntimeError("a consumer bug")

    huge = {"type": "assistant", "message": {"content": [{"type": "text", "text": "x" * 500}]}}
    text = {"type": "assistant", "message": {"content": [{"type": "text", "text": "y" * 5000}]}}
    monkeypatch.setattr(live, "LINE_LIMIT", 20_000)
    feed = live.LiveFeed(get_engine("claude-code").live_reader(paths()), sink, "u", 1)
    feed(json.dumps(text).encode() + b"\n")
    assert len(got[0].text) < live.TEXT_LIMIT + 40 and got[0].text.endswith("more characters]")
    monkeypatch.setattr(live, "LINE_LIMIT", 200)
    feed(json.dumps(huge).encode() + b"\n")  # too long to parse live: said once, never parsed
    assert got[1].kind == "note" and "not streamed" in got[1].text
    for _ in range(5):
        feed(b'{"type":"assistant","message":{"content":[{"type":"text","text":"z"}]}}\n')
    assert [t.kind for t in got] == ["text", "note", "text", "text", "note"]  # the cap: one closing note
    assert "later turns" in got[-1].text


def test_cli_prints_turns() -> None:
    """``evalens eval --verbose`` / ``evalens run --verbose``: one line per turn, errors and blocks said."""
    import io

    from evalens.cli.progress import ProgressView, turn_text

    turns = stream("claude-code", CLAUDE)
    lines = [turn_text(t) for t in turns]
    assert lines[0] == "[scripted #2] ▸ Write output/result.txt"
    assert lines[3] == "[scripted #2] ⛔ PreToolUse:Write blocked: BLOCKED_BY_POLICY: no"
    assert lines[4].startswith("[scripted #2]   ↳ failed: PreToolUse:Write hook error")
    out = io.StringIO()
    view = ProgressView(stream=out, live=False)
    for turn in turns:
        view.turn(turn)
    assert "[scripted #2] 💬 DONE GREETING-OK" in out.getvalue()
