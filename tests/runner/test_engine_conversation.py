"""``evalens.runner.engines.conversation``: the engine-neutral conversation. Timestamps and durations, a turn's
tokens, the builder keeping turns, calls and text within the record's bounds (and saying what it dropped), hook
runs onto their call, and workspace paths shown relative."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evalens.core.models.run_record import HookRun, ToolCall, Turn
from evalens.runner.bounds import Bounds
from evalens.runner.engines.conversation import (
    Builder,
    Conversation,
    as_int,
    hook_run,
    millis,
    parse_time,
    relativise,
    turn_tokens,
)


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every record limit at 1% (turns 4, calls 10, text 200, tool 80, hook output 20 characters)."""
    monkeypatch.setenv("EVALENS_RECORD_SCALE", "0.01")


@pytest.fixture(autouse=True)
def _full_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALENS_RECORD_SCALE", raising=False)


# --- times and numbers ---------------------------------------------------------------------------------------


def test_parse_time_iso_with_z() -> None:
    assert parse_time("2026-02-22T14:30:01.120Z") == datetime(2026, 2, 22, 14, 30, 1, 120000, tzinfo=UTC)


def test_parse_time_epoch_milliseconds() -> None:
    assert parse_time(1_700_000_000_500) == datetime.fromtimestamp(1_700_000_000.5, UTC)
    assert parse_time(1.5e12) == datetime.fromtimestamp(1.5e9, UTC)


@pytest.mark.parametrize("value", [None, "", "yesterday", 0, -5, [], {"t": 1}])
def test_parse_time_refuses_anything_else(value: object) -> None:
    assert parse_time(value) is None


def test_millis() -> None:
    start = parse_time("2026-02-22T14:30:00Z")
    end = parse_time("2026-02-22T14:30:01.234Z")
    assert millis(start, end) == 1234
    assert millis(start, start) == 0
    assert millis(end, start) is None  # clocks going backwards give no duration
    assert millis(None, end) is None
    assert millis(start, None) is None


def test_as_int_only_real_integers() -> None:
    assert as_int(5) == 5
    assert as_int(0) == 0
    assert as_int(True) is None
    assert as_int(5.0) is None
    assert as_int("5") is None
    assert as_int(None) is None


def test_turn_tokens_takes_the_first_model_call_only() -> None:
    turn = Turn(index=0)
    turn_tokens(turn, {"input_tokens": 100, "output_tokens": 7})
    turn_tokens(turn, {"input_tokens": 999, "output_tokens": 999})
    assert (turn.input_tokens, turn.output_tokens) == (100, 7)
    turn_tokens(None, {"input_tokens": 1})  # no open turn: nothing to do


def test_turn_tokens_ignores_non_integers() -> None:
    turn = Turn(index=0)
    turn_tokens(turn, {"input_tokens": "12", "output_tokens": True})
    assert (turn.input_tokens, turn.output_tokens) == (None, None)


# --- the builder ---------------------------------------------------------------------------------------------


def test_builder_assembles_turns_and_calls() -> None:
    b = Builder(Bounds())
    t0 = b.new_turn("2026-02-22T14:30:00Z")
    assert t0 is not None and t0.index == 0 and t0.started_at == "2026-02-22T14:30:00Z"
    b.add_text(t0, "Reading")
    b.add_text(t0, "")
    b.add_text(t0, "the file")
    assert t0.text == "Reading\nthe file"
    call = b.add_call(t0, "toolu_1", "Read", {"file_path": "in.txt"})
    assert call is not None and b.calls == {"toolu_1": call}
    b.set_result(call, "contents", is_error=True)
    assert (call.result, call.is_error, call.truncated) == ("contents", True, False)
    assert b.add_call(t0, None, "Bash", {"command": "ls"}) is not None
    assert list(b.calls) == ["toolu_1"]  # a call without an id is kept, not indexed
    t1 = b.new_turn()
    assert t1 is not None and t1.index == 1
    assert b.finish() == [t0, t1]
    assert b.bounds.notes == []


def test_builder_without_a_turn_drops_text_and_calls() -> None:
    b = Builder(Bounds())
    b.add_text(None, "lost")
    assert b.add_call(None, "x", "Read", {}) is None
    assert b.call_count == 0


def test_builder_keeps_at_most_the_turn_limit(small: None) -> None:
    b = Builder(Bounds())
    turns = [b.new_turn() for _ in range(6)]
    assert [t.index for t in turns if t is not None] == [0, 1, 2, 3]
    assert turns[4:] == [None, None]
    b.finish()
    assert b.bounds.notes == ["turns: 2 later turns not kept (limit 4)"]


def test_builder_keeps_at_most_the_call_limit(small: None) -> None:
    b = Builder(Bounds())
    turn = b.new_turn()
    calls = [b.add_call(turn, f"c{i}", "Bash", {"command": "true"}) for i in range(12)]
    assert sum(c is not None for c in calls) == 10
    assert calls[10:] == [None, None]
    assert turn is not None and len(turn.tool_calls) == 10
    b.finish()
    assert b.bounds.notes == ["tool calls: 2 later calls not kept (limit 10)"]


def test_builder_cuts_long_text_and_tool_values(small: None) -> None:
    b = Builder(Bounds())
    turn = b.new_turn()
    assert turn is not None
    b.add_text(turn, "a" * 300)
    assert turn.text.startswith("a" * 200 + "\n… [evalens: 100 more characters not kept]")
    call = b.add_call(turn, "c1", "Write", {"content": "x" * 100, "path": "short"})
    assert call is not None and call.truncated
    assert call.input["path"] == "short"
    assert call.input["content"].startswith("x" * 80 + "\n…")
    other = b.add_call(turn, "c2", "Read", {"path": "p"})
    assert other is not None and not other.truncated
    b.set_result(other, "r" * 81)
    assert other.truncated and other.result is not None and other.result.startswith("r" * 80 + "\n…")
    assert "turn 0: text: cut to 200 of 300 characters" in b.bounds.notes
    assert "turn 0: Write input: cut to 80 of 100 characters" in b.bounds.notes
    assert "Read call c2: result: cut to 80 of 81 characters" in b.bounds.notes


def test_set_result_of_a_call_without_id_names_the_tool(small: None) -> None:
    b = Builder(Bounds())
    call = b.add_call(b.new_turn(), None, "Bash", "ls")
    assert call is not None
    b.set_result(call, None)
    assert call.result == ""
    b.set_result(call, "y" * 100)
    assert "Bash call: result: cut to 80 of 100 characters" in b.bounds.notes


# --- hooks ---------------------------------------------------------------------------------------------------


def test_hook_run_that_denies() -> None:
    hook = hook_run(Bounds(), "PreToolUse", "PreToolUse:Write", 2, "", "no writes")
    assert hook == HookRun(
        event="PreToolUse",
        name="PreToolUse:Write",
        exit_code=2,
        blocked=True,
        reason="no writes",
        output="no writes",
    )


def test_hook_run_that_allows_joins_its_output() -> None:
    hook = hook_run(Bounds(), "PostToolUse", None, 2, "out", "err")
    assert (hook.blocked, hook.reason, hook.output, hook.exit_code) == (False, None, "out\nerr", 2)
    quiet = hook_run(Bounds(), "PreToolUse", None, "0", None, "")
    assert (quiet.output, quiet.exit_code, quiet.blocked) == (None, None, False)


def test_hook_run_output_is_bounded(small: None) -> None:
    bounds = Bounds()
    hook = hook_run(bounds, "PreToolUse", None, 0, "z" * 50, "")
    assert hook.output is not None and hook.output.startswith("z" * 20 + "\n…")
    assert bounds.notes == ["PreToolUse hook output: cut to 20 of 50 characters"]


def test_add_hook_onto_its_call_or_the_run() -> None:
    conv = Conversation()
    call = ToolCall(name="Write")
    allow = HookRun(event="PreToolUse", blocked=False)
    deny = HookRun(event="PreToolUse", blocked=True, reason="no")
    conv.add_hook(allow, call)
    assert not call.blocked
    conv.add_hook(deny, call)
    conv.add_hook(HookRun(event="PostToolUse"), call)  # a later allowing hook does not unblock
    assert call.blocked and call.hooks == [allow, deny, HookRun(event="PostToolUse")]
    session = HookRun(event="SessionStart")
    conv.add_hook(session, None)
    assert conv.hooks == [session]


# --- relativise ----------------------------------------------------------------------------------------------


def test_relativise_strips_the_sandbox_path_everywhere() -> None:
    ws = "/tmp/sandbox-1/workspace"
    call = ToolCall(
        name="Write",
        input={"file_path": f"{ws}/output/x.txt", "args": [f"{ws}/a", 3, {"p": f"{ws}/b"}], "n": 1},
        result=f"wrote {ws}/output/x.txt",
        hooks=[HookRun(event="PreToolUse", output=f"saw {ws}/output", reason=f"{ws}/secret")],
    )
    turn = Turn(index=0, text=f"I will write {ws}/output/x.txt", tool_calls=[call])
    conv = Conversation(turns=[turn])
    relativise(conv, ws + "/")
    assert turn.text == "I will write output/x.txt"
    assert call.input == {"file_path": "output/x.txt", "args": ["a", 3, {"p": "b"}], "n": 1}
    assert call.result == "wrote output/x.txt"
    assert (call.hooks[0].output, call.hooks[0].reason) == ("saw output", "secret")


def test_relativise_leaves_other_paths_and_missing_values() -> None:
    call = ToolCall(name="Read", input=None, result=None)
    turn = Turn(index=0, text="/tmp/sandbox-10/workspace/x and /etc/passwd", tool_calls=[call])
    relativise(Conversation(turns=[turn]), "/tmp/sandbox-1/workspace")
    assert turn.text == "/tmp/sandbox-10/workspace/x and /etc/passwd"  # a sibling folder is not the workspace
    assert (call.input, call.result) == (None, None)
