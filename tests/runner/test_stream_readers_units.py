"""The stream readers against what the real CLIs printed (issue 40 item 2), and the verified version range.

``tests/data/streams/<engine>-<version>.jsonl`` are the stdout lines of the pinned and the newest Claude Code and
Codex, captured against the fake model by ``tests/runner/capture_streams.py`` (a skill, a write, a write a hook
denies; on Claude Code also ToolSearch and a background subagent through the Agent tool, which makes 2.1.332 end
its session with two ``result`` events). Each is read as the runner reads it; then the same lines are changed the
way a future CLI might change them, and the reader must either read them or fail naming the CLI, never answer.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from evalens.runner.bounds import Bounds
from evalens.runner.engines import get_engine
from evalens.runner.engines.base import SandboxPaths, Transcript, version_tuple
from evalens.runner.preflight import engine_checks

REPO = Path(__file__).resolve().parents[2]
STREAMS = REPO / "tests" / "data" / "streams"
CAPTURED = sorted(STREAMS.glob("*.jsonl"))
VERSION_LINE = {"claude-code": "{} (Claude Code)", "codex": "codex-cli {}"}
ENV = {"claude-code": "EVALENS_CLAUDE_BIN", "codex": "EVALENS_CODEX_BIN"}


def _engine_of(path: Path) -> tuple[str, str]:
    engine, _, version = path.stem.rpartition("-")
    return engine, version


def _cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str, version: str) -> Any:
    """The engine with a stand-in binary that reports ``version`` (the readers name it in their errors)."""
    binary = tmp_path / f"{engine}-{version}-bin"
    binary.write_text(f"#!/bin/sh\necho '{VERSION_LINE[engine].format(version)}'\n")
    binary.chmod(0o755)
    monkeypatch.setenv(ENV[engine], str(binary))
    return get_engine(engine)


def _parse(tmp_path: Path, eng: Any, lines: list[dict[str, Any]] | str) -> Transcript:
    root = tmp_path / "run"
    paths = SandboxPaths(root, root / "ws", root / "home", root / "config", root / "logs")
    for p in (paths.workspace, paths.home, paths.config_home, paths.logs):
        p.mkdir(parents=True, exist_ok=True)
    stdout = paths.logs / "stdout.jsonl"
    text = lines if isinstance(lines, str) else "".join(json.dumps(e) + "\n" for e in lines)
    stdout.write_text(text)
    (paths.logs / "stderr.txt").write_text("")
    return eng.parse(paths, stdout, paths.logs / "stderr.txt", 0)


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_pinned_and_newest_cli_has_a_captured_stream() -> None:
    """The streams cover each engine's verified range: its oldest verified version and its pin."""
    have = {_engine_of(p) for p in CAPTURED}
    for engine in ("claude-code", "codex"):
        low, high = get_engine(engine).verified_versions
        assert {(engine, low), (engine, high)} <= have, (engine, sorted(have))


@pytest.mark.parametrize("path", CAPTURED, ids=lambda p: p.stem)
def test_a_captured_stream_is_read_whole(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer, the tool calls, the skill, the hook's denial and the usage; no shape left unread."""
    engine, version = _engine_of(path)
    eng = _cli(tmp_path, monkeypatch, engine, version)
    t = _parse(tmp_path, eng, path.read_text())
    newer = engine == "claude-code" and version_tuple(version) >= (2, 1, 332)
    # Claude Code before 2.1.332 offers no ToolSearch to a base URL of its own: the fake then says so and stops
    answer = "DONE GREETING-OK" if engine == "codex" or newer else "fake model: tool 'ToolSearch' not offered"
    assert t.error is None and t.output == answer, t.error
    assert t.unread == {}, t.unread
    tools = [c["tool"] for c in t.tool_calls]
    if engine == "claude-code":
        assert tools[:3] == ["Skill", "Write", "Write"] and t.skills_activated == ["greeter"]
        assert t.blocked and "BLOCKED_BY_POLICY" in " ".join(t.blocked_reasons)
        conv = eng.conversation(
            t, SandboxPaths(*(tmp_path / "run" / n for n in ("", "ws", "h", "c", "l"))), Bounds()
        )
        calls = [c for turn in conv.turns for c in turn.tool_calls]
        results = {c.name: c.result for c in calls}
        if newer:
            # ToolSearch answers with a tool_reference block; the Agent tool starts a background subagent, whose
            # notification wakes the session for a second turn and a second result event
            assert tools[3:] == ["ToolSearch", "Agent"] and results["ToolSearch"] == "[tool Monitor]"
            results_seen = [e for e in t.events if e.get("type") == "result"]
            assert len(results_seen) == 2
            per_turn = [e["usage"]["input_tokens"] for e in results_seen]
            assert t.usage["usage"]["input_tokens"] == conv.usage.input_tokens == sum(per_turn)
            assert t.usage["num_turns"] == sum(e["num_turns"] for e in results_seen)
        else:
            assert conv.usage.input_tokens == t.usage["usage"]["input_tokens"]
    else:
        assert tools == ["Bash", "Bash", "Bash"] and "SKILL.md" in str(t.tool_calls[0]["input"])
        assert t.usage["usage"]["input_tokens"] > 0


def _newest(engine: str) -> Path:
    return max(
        (p for p in CAPTURED if _engine_of(p)[0] == engine), key=lambda p: version_tuple(_engine_of(p)[1])
    )


def _claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[dict[str, Any]], str]:
    path = _newest("claude-code")
    version = _engine_of(path)[1]
    return _cli(tmp_path, monkeypatch, "claude-code", version), _events(path), version


def test_claude_code_tolerates_new_events_blocks_and_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new event type, a new system subtype, a new assistant block and new fields: the run is read as before,
    and what was skipped is noted."""
    eng, events, _ = _claude(tmp_path, monkeypatch)
    for ev in events:
        ev["a_field_from_the_future"] = {"x": 1}
    events.insert(1, {"type": "workflow_progress", "step": 1})
    events.insert(2, {"type": "system", "subtype": "wakeup_scheduled", "at": "later"})
    first = next(e for e in events if e.get("type") == "assistant")
    first["message"]["content"].insert(0, {"type": "citation_card", "ref": "x"})
    # tools the newest CLI offers that the fake never scripts: read as any tool call, by name
    for name, args in (("Workflow", {"steps": ["a"]}), ("ScheduleWakeup", {"delay_seconds": 60})):
        first["message"]["content"].append(
            {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": args}
        )
    t = _parse(tmp_path, eng, events)
    assert t.error is None and t.output == "DONE GREETING-OK"
    assert set(t.unread) == {
        "event 'workflow_progress'",
        "system/wakeup_scheduled",
        "assistant block 'citation_card'",
    }
    assert {"Workflow", "ScheduleWakeup"} <= {c["tool"] for c in t.tool_calls}
    paths = SandboxPaths(*(tmp_path / "run" / n for n in ("", "ws", "h", "c", "l")))
    calls = {c.name: c for turn in eng.conversation(t, paths, Bounds()).turns for c in turn.tool_calls}
    assert calls["ScheduleWakeup"].input == {"delay_seconds": 60} and calls["Workflow"].input == {
        "steps": ["a"]
    }


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda r: r.update(subtype="paused_for_review"), "subtype 'paused_for_review'"),
        (
            lambda r: r.update(result=[{"type": "text", "text": "DONE GREETING-OK"}]),
            "a result evalens cannot read (list",
        ),
        (lambda r: r.update(is_error="no"), "an is_error evalens cannot read (str"),
        (lambda r: r.update(subtype="error_during_execution", is_error=False), "agent error"),
    ],
    ids=["unknown-subtype", "result-not-text", "is-error-not-bool", "error-subtype"],
)
def test_claude_code_fails_loudly_on_a_result_it_cannot_read(
    change: Any, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The result event decides the run: one evalens cannot read is the run's error, naming the CLI and its
    verified range, even when its text would pass every check."""
    eng, events, version = _claude(tmp_path, monkeypatch)
    change([e for e in events if e.get("type") == "result"][-1])
    t = _parse(tmp_path, eng, events)
    assert t.error is not None and says in t.error, t.error
    if "agent error" not in says:
        assert f"claude {version}, verified {eng.verified_range()}" in t.error


def test_claude_code_without_a_result_names_the_cli_and_what_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CLI that renamed its events: no result to read, so an error naming the version and the unread shapes."""
    eng, events, version = _claude(tmp_path, monkeypatch)
    renamed = [{**e, "type": f"v2.{e['type']}"} for e in events]
    t = _parse(tmp_path, eng, renamed)
    assert t.error is not None and f"no result event (claude {version}" in t.error, t.error
    assert "event 'v2.result' ×2" in t.error and "event 'v2.assistant'" in t.error


def _codex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[dict[str, Any]], str]:
    path = _newest("codex")
    version = _engine_of(path)[1]
    return _cli(tmp_path, monkeypatch, "codex", version), _events(path), version


def test_codex_keeps_an_unknown_item_as_a_tool_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new item type is a tool call under its own name (so "no tool ran" cannot pass on it) and noted; new event
    types and fields are tolerated."""
    eng, events, _ = _codex(tmp_path, monkeypatch)
    events.insert(
        -1, {"type": "item.completed", "item": {"id": "item_9", "type": "collab_tool_call", "tool": ""}}
    )
    events.insert(-1, {"type": "turn.progress", "pct": 50})
    for ev in events:
        ev["new_field"] = True
    t = _parse(tmp_path, eng, events)
    assert t.error is None and t.output == "DONE GREETING-OK"
    assert [c["tool"] for c in t.tool_calls][-1] == "collab_tool_call"
    assert set(t.unread) == {"item 'collab_tool_call'", "event 'turn.progress'"}


def test_codex_fails_loudly_without_its_turn_end_or_with_an_unreadable_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    eng, events, version = _codex(tmp_path, monkeypatch)
    renamed = [{**e, "type": "turn.done"} if e.get("type") == "turn.completed" else e for e in events]
    t = _parse(tmp_path, eng, renamed)
    assert t.error is not None and f"did not complete its turn (codex {version}" in t.error, t.error
    assert "event 'turn.done'" in t.error

    answer = next(e for e in events if (e.get("item") or {}).get("type") == "agent_message")
    answer["item"]["text"] = {"parts": ["DONE GREETING-OK"]}
    t = _parse(tmp_path, eng, events)
    assert t.error is not None and "agent_message whose text evalens cannot read (dict" in t.error, t.error
    assert f"codex {version}" in t.error


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_doctor_shows_the_installed_cli_against_the_verified_range(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the range: ok, and the range shown; past it: a warning naming the range and how to install the pin."""
    low, high = get_engine(engine).verified_versions
    assert version_tuple(low) <= version_tuple(high)
    inside = engine_checks(_cli(tmp_path, monkeypatch, engine, high), env={})[0]
    assert inside.status == "ok" and f"verified {low}–{high}" in inside.detail, inside
    major, minor, patch = version_tuple(high)
    newer = f"{major}.{minor}.{patch + 1}"
    outside = engine_checks(_cli(tmp_path, monkeypatch, engine, newer), env={})[0]
    assert (
        outside.status == "warn"
        and f"outside the versions this evalens was verified with ({low}–{high})" in (outside.detail)
    ), outside
    assert outside.fix.endswith(f"@{high}") and not outside.failed


def test_the_pins_are_the_engines_and_the_committed_cassettes_were_recorded_with_them() -> None:
    """One place holds the pin (``verified_versions``): .ci/install-agents.sh installs it, the action installs it
    by default, versions.json names it."""
    out = subprocess.run(
        ["bash", str(REPO / ".ci" / "install-agents.sh"), "--pins"],
        capture_output=True,
        text=True,
        check=True,
    )
    pins = dict(line.split() for line in out.stdout.splitlines())
    recorded = json.loads((REPO / "tests" / "data" / "cassettes" / "versions.json").read_text())
    action = (REPO / "action.yml").read_text()
    for engine in ("claude-code", "codex"):
        pin = get_engine(engine).verified_versions[1]
        assert pins[engine] == pin
        assert f"npm_pkg={get_engine(engine).npm_package}; verified={pin} ;;" in action, engine
        assert recorded[engine] == VERSION_LINE[engine].format(pin), (engine, recorded[engine], pin)
