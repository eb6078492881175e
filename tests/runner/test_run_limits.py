"""Per-run limits (issue 29): the meter counts model calls and tokens from each engine's own usage events, a
limit is passed once, and a stopped process is reported as stopped, not timed out. The agent CLIs themselves are
in tests/runner/test_agents_limits.py."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from evalens.runner.agent_process import run_process
from evalens.runner.engines.base import read_jsonl
from evalens.runner.engines.claude_record import UsageReader
from evalens.runner.engines.codex_record import RolloutUsage, stream_usage
from evalens.runner.live import EventLines
from evalens.runner.run_limits import JsonlTail, Meter, ModelCall, RunLimits


def _assistant(msg_id: str, inp: int, out: int, block: str = "text") -> dict:
    return {
        "type": "assistant",
        "message": {
            "id": msg_id,
            "content": [{"type": block}],
            "usage": {"input_tokens": inp, "output_tokens": out},
        },
    }


def test_limits_refuse_zero_and_say_when_inactive() -> None:
    assert not RunLimits().active and RunLimits(max_turns=1).active
    with pytest.raises(ValueError, match="--max-turns"):
        RunLimits(max_turns=0)
    with pytest.raises(ValueError, match="--max-tokens-per-run"):
        RunLimits(max_tokens=0)


def test_claude_blocks_of_one_message_are_one_turn_and_usage_grows() -> None:
    told: list[str] = []
    meter = Meter(RunLimits(max_turns=2), told.append)
    read = UsageReader()
    meter.add(read(_assistant("m1", 17, 1)))
    meter.add(read(_assistant("m1", 17, 9, "tool_use")))  # the same message, a later block
    meter.add(read({"type": "user", "message": {"content": []}}))
    meter.add(read(_assistant("m2", 30, 2)))
    assert (meter.turns, meter.tokens, meter.exceeded) == (2, 58, None)
    meter.add(read(_assistant("m3", 5, 1)))
    assert meter.exceeded is not None and "turn limit" in meter.exceeded and "--max-turns 2" in meter.exceeded
    meter.add(read(_assistant("m4", 5, 1)))
    assert told == [meter.exceeded]  # said once


def test_odd_usage_counts_nothing_and_unnamed_messages_are_distinct_calls() -> None:
    read = UsageReader()
    odd = {"type": "assistant", "message": {"usage": {"input_tokens": "9", "output_tokens": -3}}}
    first, second = read(odd), read(odd)
    assert first[0].input_tokens == 0 and first[0].output_tokens == 0
    assert first[0].key != second[0].key
    assert read({"type": "assistant", "message": "text"}) == []


def test_token_limit_from_codex_rollout_and_the_streams_total() -> None:
    meter = Meter(RunLimits(max_tokens=100))
    rollout = RolloutUsage()
    record = {"type": "token_usage_record", "payload": {"usage": {"input_tokens": 40, "output_tokens": 5}}}
    meter.add(rollout(record))
    meter.add(rollout({"type": "response_item", "payload": {"type": "message"}}))
    meter.add(rollout(record))
    assert (meter.turns, meter.tokens, meter.exceeded) == (2, 90, None)
    # --json's turn.completed is the run's total: it raises the count, never adds a turn
    meter.add(stream_usage({"type": "turn.completed", "usage": {"input_tokens": 95, "output_tokens": 10}}))
    assert meter.turns == 2 and meter.tokens == 105
    assert meter.exceeded is not None and "token limit" in meter.exceeded and "105" in meter.exceeded


def test_tail_reads_complete_lines_once_and_skips_links(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "2026"
    folder.mkdir(parents=True)
    log = folder / "rollout-1.jsonl"
    log.write_text(json.dumps({"a": 1}) + "\n" + '{"b": ')
    (folder / "rollout-2.jsonl").symlink_to(log)
    tail = JsonlTail(tmp_path, "sessions/**/rollout-*.jsonl")
    assert tail.read() == [{"a": 1}]
    assert tail.read() == []  # the torn line waits for its newline
    with open(log, "a") as fh:
        fh.write("2}\nnot json\n")
    assert tail.read() == [{"b": 2}]


def test_every_reader_of_engine_lines_agrees_on_what_an_event_is(tmp_path: Path) -> None:
    """The live stream, the live usage tail and the finished trace read one file alike (one rule, json_event):
    a CLI's warning, an array, a scalar and a torn object are never events; an object with bad UTF-8 is."""
    lines = [
        b'{"type": "a"}',
        b"warning: something the CLI printed",
        b"[1, 2]",
        b"42",
        b'  {"type": "b"}  ',
        b'{"type": "c", "text": "\xff"}',
        b'{"torn": ',
    ]
    folder = tmp_path / "sessions"
    folder.mkdir()
    trace = folder / "rollout-1.jsonl"
    trace.write_bytes(b"\n".join(lines) + b"\n")
    finished = read_jsonl(trace)
    assert [e["type"] for e in finished] == ["a", "b", "c"]
    assert JsonlTail(tmp_path, "sessions/rollout-*.jsonl").read() == finished
    streamed: list[dict] = []
    stream = EventLines([streamed.append])
    stream(trace.read_bytes())
    stream.close()
    assert streamed == finished


def test_event_lines_feed_every_consumer_and_survive_a_broken_one() -> None:
    seen: list[dict] = []

    def broken(_ev: dict) -> None:
        raise RuntimeError("consumer bug")

    lines = EventLines([broken, seen.append])
    lines(b'{"type": "a"}\nwarning: not an event\n{"type"')
    lines(b': "b"}')
    lines.close()
    assert seen == [{"type": "a"}, {"type": "b"}]


def test_run_process_stop_ends_the_tree_as_stopped_not_timed_out(tmp_path: Path) -> None:
    async def go():
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.5, stop.set)
        return await run_process(
            [sys.executable, "-c", "import time; time.sleep(60)"],
            {"PATH": "/usr/bin:/bin"},
            tmp_path,
            tmp_path / "out",
            tmp_path / "err",
            30,
            stop=stop,
        )

    started = time.monotonic()
    run = asyncio.run(go())
    assert time.monotonic() - started < 15
    assert run.stopped and not run.timed_out and run.exit_code is None


def test_meter_keeps_the_larger_report_of_one_call() -> None:
    meter = Meter(RunLimits(max_tokens=1000))
    meter.add([ModelCall("x", 10, 50), ModelCall("x", 10, 5)])
    assert meter.tokens == 60
