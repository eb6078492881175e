"""The canary's table and its reading of two CLIs' streams (tests/runner/canary.py; docs/cli-tracks.md), without
running any CLI: a JUnit file as pytest writes it under xdist, and the committed streams of two Claude Code
versions."""

from __future__ import annotations

import json
from pathlib import Path

from tests.runner import canary
from tests.runner.test_stream_readers_units import STREAMS

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.runner.test_agents_record" name="test_a[claude-code]" time="1"/>
<testcase classname="tests.runner.test_agents_record" name="test_a[codex]" time="1">
  <failure message="AssertionError: the turns differ&#10;second line">trace</failure></testcase>
<testcase classname="tests.runner.test_agents_sandbox" name="test_s" time="1"><skipped message="no bwrap"/></testcase>
<testcase classname="tests.runner.test_agents_replay" name="test_r" time="1"/>
<testcase classname="tests.runner.test_agents_replay" name="test_x" time="1"><skipped message="same"/></testcase>
<testcase classname="tests.unit.test_other" name="test_o" time="1"><error message="boom"/></testcase>
</testsuite></testsuites>
"""


def test_each_module_is_pass_fail_or_skip_with_the_first_failure_named(tmp_path: Path) -> None:
    junit = tmp_path / "pinned.xml"
    junit.write_text(JUNIT)
    modules = ("test_agents_record", "test_agents_sandbox", "test_agents_replay", "test_agents_triggers")
    assert canary._results(junit, modules) == {
        "test_agents_record": ("fail", "test_a[codex]: AssertionError: the turns differ"),
        "test_agents_sandbox": ("skip", "no bwrap"),
        "test_agents_replay": ("pass", "1 skipped"),
        "test_agents_triggers": ("not run", ""),
    }
    assert canary._results(tmp_path / "missing.xml", modules[:1]) == {"test_agents_record": ("not run", "")}


def test_what_a_newer_claude_code_changed_in_its_stream() -> None:
    """2.1.197 against 2.1.332, read from the committed captures: the tools, events and fields the canary names."""

    def kinds(version: str) -> dict[str, set[str]]:
        path = STREAMS / f"claude-code-{version}.jsonl"
        return canary._kinds([json.loads(line) for line in path.read_text().splitlines() if line.strip()])

    old, new = kinds("2.1.197"), kinds("2.1.332")
    assert {"ToolSearch", "Monitor", "ListAgents"} <= new["tools"] - old["tools"]
    assert {"TaskCreate", "TaskList"} <= old["tools"] - new["tools"]
    assert "system/task_notification" in new["event kinds"] - old["event kinds"]
    assert {"messaging_socket_path", "sandbox_enabled"} <= new["init fields"] - old["init fields"]
    assert "result_index" in new["result fields"] - old["result fields"]
