"""The run record's parts without an agent: workspace diffs, bounds, and trace readers on odd input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalens.core.models.run_record import Usage, sum_usage
from evalens.runner.bounds import Bounds
from evalens.runner.engines.base import Transcript
from evalens.runner.engines.claude_record import conversation as claude_conversation
from evalens.runner.engines.codex_record import _output
from evalens.runner.workspace_diff import baseline, changes


def test_changes_created_modified_deleted_binary_and_links(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "fixtures").mkdir(parents=True)
    (ws / "fixtures" / "data.txt").write_text("one\ntwo\n")
    (ws / "gone.txt").write_text("bye\n")
    (ws / "same.txt").write_text("same\n")
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text("{}")
    base = baseline(ws)
    (ws / "fixtures" / "data.txt").write_text("one\nTWO\n")
    (ws / "gone.txt").unlink()
    (ws / "out.bin").write_bytes(b"\x00\x01\x02")
    (ws / "new.txt").write_text("no newline")
    os.utime(ws / "same.txt", ns=(1, 1))  # touched, same bytes: not a change
    os.symlink("/etc/passwd", ws / "link")  # never read through
    (ws / ".claude" / "settings.json").write_text('{"x": 1}')  # installed by evalens, not the agent's
    bounds = Bounds()
    got = {c.path: c for c in changes(base, ws, bounds)}
    assert set(got) == {"fixtures/data.txt", "gone.txt", "out.bin", "new.txt"}
    assert got["fixtures/data.txt"].status == "modified" and "-two\n+TWO\n" in got["fixtures/data.txt"].diff
    assert (
        got["gone.txt"].status == "deleted"
        and "-bye" in got["gone.txt"].diff
        and got["gone.txt"].size is None
    )
    assert got["out.bin"].binary and got["out.bin"].diff is None
    assert got["new.txt"].diff.endswith("+no newline\n\\ No newline at end of file\n")
    assert bounds.notes == []


def test_big_files_and_long_diffs_are_bounded_and_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALENS_RECORD_SCALE", "0.01")  # 2.6 KB per file, 640 characters per diff
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big-start.txt").write_text("x\n" * 5000)
    base = baseline(ws)
    (ws / "big-start.txt").write_text("y\n" * 5000)
    (ws / "big-new.txt").write_text("z\n" * 5000)
    (ws / "long-diff.txt").write_text("line\n" * 400)
    bounds = Bounds()
    got = {c.path: c for c in changes(base, ws, bounds)}
    assert got["big-start.txt"].truncated and "baseline limit" in got["big-start.txt"].note
    assert (
        got["big-new.txt"].truncated
        and got["big-new.txt"].diff is None
        and "no diff" in got["big-new.txt"].note
    )
    assert got["long-diff.txt"].truncated and "more characters not kept" in got["long-diff.txt"].diff
    assert len(bounds.notes) == 3 and any("diff of long-diff.txt" in n for n in bounds.notes)


def test_bounds_mark_cut_text_and_nested_values() -> None:
    bounds = Bounds()
    text, cut = bounds.text("a" * 30_000, 20_000, "final output")
    assert cut and text.startswith("a" * 20_000) and "10000 more characters not kept" in text
    value, cut = bounds.value({"content": "b" * 9000, "n": 1}, 8000, "Write input")
    assert cut and value["n"] == 1 and len(value["content"]) < 9000
    assert bounds.notes == [
        "final output: cut to 20000 of 30000 characters",
        "Write input: cut to 8000 of 9000 characters",
    ]


def test_claude_reader_keeps_runless_hooks_on_the_run_and_denials_on_the_call() -> None:
    events = [
        {
            "type": "system",
            "subtype": "hook_response",
            "hook_name": "SessionStart:startup",
            "hook_event": "SessionStart",
            "exit_code": 0,
            "stdout": "hello",
            "stderr": "",
        },
        {
            "type": "assistant",
            "uuid": "u1",
            "message": {
                "id": "m1",
                "usage": {"input_tokens": 3, "output_tokens": 2},
                "content": [
                    {"type": "text", "text": "Let me write."},
                    {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/ws/a.txt"}},
                ],
            },
        },
        {
            "type": "system",
            "subtype": "hook_response",
            "hook_name": "PreToolUse:Write",
            "hook_event": "PreToolUse",
            "exit_code": 0,
            "stdout": '{"hookSpecificOutput": {"permissionDecision": "deny", '
            '"permissionDecisionReason": "JSON_DENY"}}',
            "stderr": "",
        },
        {
            "type": "user",
            "message": {
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "JSON_DENY"}
                ]
            },
        },
        {
            "type": "result",
            "usage": {"input_tokens": 3, "output_tokens": 2},
            "total_cost_usd": 0.5,
            "permission_denials": [{"tool_use_id": "t1"}],
            "duration_api_ms": 1500,
        },
    ]
    conv = claude_conversation(Transcript(events=events), Bounds(), "/ws")
    [turn] = conv.turns
    [call] = turn.tool_calls
    assert turn.text == "Let me write." and call.input == {"file_path": "a.txt"}
    assert call.blocked and call.is_error and call.hooks[0].reason == "JSON_DENY"
    assert call.duration_ms is None  # no session file: no timestamps, no made-up duration
    assert [h.event for h in conv.hooks] == ["SessionStart"] and not conv.hooks[0].blocked
    assert conv.usage.cost_usd == 0.5 and conv.api_seconds == 1.5


def test_codex_output_header_is_stripped_and_exit_status_read() -> None:
    assert _output("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nhi\n") == (
        "hi\n",
        False,
    )
    assert _output("Chunk ID: 1\nProcess exited with code 3\nOutput:\nboom") == ("boom", True)
    assert _output("plain text") == ("plain text", False)


def test_usage_totals_are_never_partial() -> None:
    a, b = Usage(input_tokens=10, output_tokens=2, cost_usd=0.1), Usage(input_tokens=5, output_tokens=1)
    total = sum_usage([a, b, None])
    assert total.input_tokens == 15 and total.output_tokens == 3 and total.cost_usd is None
    assert sum_usage([a, Usage(input_tokens=1, output_tokens=1, cost_usd=0.2)]).cost_usd == 0.3
    assert sum_usage([None]) is None


def test_codex_reader_without_rollout_uses_the_stream_and_hook_records_by_time(tmp_path: Path) -> None:
    from evalens.runner.engines.codex_record import conversation as codex_conversation

    events = [
        {
            "type": "item.completed",
            "item": {
                "id": "i1",
                "type": "command_execution",
                "command": "cat .agents/skills/pdf/SKILL.md",
                "exit_code": 0,
                "aggregated_output": "# pdf",
            },
        },
        {
            "type": "item.completed",
            "item": {
                "id": "i2",
                "type": "command_execution",
                "command": "false",
                "exit_code": 1,
                "aggregated_output": "",
            },
        },
        {"type": "item.completed", "item": {"id": "i3", "type": "agent_message", "text": "done"}},
        {
            "type": "turn.completed",
            "usage": {"input_tokens": 30, "cached_input_tokens": 10, "output_tokens": 4},
        },
    ]
    records = tmp_path / "hooks"
    records.mkdir()
    for name, rc, err in (("1700000000000000000-1", "0", ""), ("1700000001000000000-2", "2", "NO WAY")):
        (records / f"{name}.rc").write_text(rc + "\n")
        (records / f"{name}.event").write_text("PreToolUse\n")
        (records / f"{name}.err").write_text(err)
    conv = codex_conversation(
        Transcript(events=events, usage={"usage": events[-1]["usage"]}), Bounds(), hook_dir=records
    )
    calls = [c for t in conv.turns for c in t.tool_calls]
    assert [c.skill for c in calls] == ["pdf", None] and calls[1].is_error and not calls[0].is_error
    assert conv.turns[-1].text == "done"
    assert (conv.usage.input_tokens, conv.usage.cache_read_tokens, conv.usage.output_tokens) == (30, 10, 4)
    assert conv.usage.cost_usd is None
    # no timestamps to place them on a call: the hook runs belong to the run, the denial with its reason
    assert [(h.blocked, h.reason) for h in conv.hooks] == [(False, None), (True, "NO WAY")]


def test_attach_records_writes_them_beside_the_report_with_the_units_verdicts(tmp_path: Path) -> None:
    import shutil

    from evalens.runner.record import attach_records, load_record, records_for
    from evalens.runner.report import load_report

    fixture = Path(__file__).parent / "fixtures" / "run-report"
    source = load_report(fixture / "2026-11-26T11-58-59Z.json")
    records = {c.name: [load_record(fixture / c.artifacts / "record.json")] for c in source.cases}
    records["writes-greeting"].append(records["writes-greeting"][0].model_copy(deep=True))  # two runs
    report = source.model_copy(deep=True)
    for case in report.cases:
        case.artifacts, case.usage = None, None
    next(c for c in report.cases if c.name == "writes-greeting").run_verdicts = ["PASS", "FAIL"]
    report.summary.usage = None
    path = tmp_path / "reports" / "batch.json"
    path.parent.mkdir()
    attach_records(report, path, records)
    by_name = {c.name: c for c in report.cases}
    assert by_name["respects-policy"].artifacts == "batch/respects-policy"
    [(_, rec)] = records_for(path, by_name["respects-policy"].artifacts)
    assert rec.verdict == "FAIL" and [c.status for c in rec.checks] == ["PASS", "FAIL"]
    runs = records_for(path, by_name["writes-greeting"].artifacts)
    assert [(p.parent.name, r.run_index, r.verdict) for p, r in runs] == [
        ("run-1", 1, "PASS"),
        ("run-2", 2, "FAIL"),
    ]
    assert by_name["writes-greeting"].usage.input_tokens == 2 * 51
    assert report.summary.usage.input_tokens == 68 + 51 + 0 + 2 * 51
    shutil.rmtree(tmp_path / "reports")
