"""``evalens.runner.engines.hooks``: which hook runs deny a tool call (exit 2 or a JSON decision, blocking
events only) and the hook runs the Codex shim records as ``<name>.event/.out/.err/.rc`` files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.runner.engines.hooks import (
    BLOCKING_EVENTS,
    HookFile,
    hook_denial,
    hook_denials,
    hook_file_names,
    read_hook_file,
)


def _record(folder: Path, name: str, event: str | None, rc: str | None, out: str = "", err: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if event is not None:
        (folder / f"{name}.event").write_text(event + "\n", encoding="utf-8")
    (folder / f"{name}.out").write_text(out, encoding="utf-8")
    (folder / f"{name}.err").write_text(err, encoding="utf-8")
    if rc is not None:
        (folder / f"{name}.rc").write_text(rc, encoding="utf-8")


# --- hook_denial ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("event", BLOCKING_EVENTS)
def test_exit_2_denies_with_stderr(event: str) -> None:
    assert hook_denial(event, 2, "", "  BLOCKED: no writes\n") == "BLOCKED: no writes"


def test_exit_2_without_stderr_says_so() -> None:
    assert hook_denial("PreToolUse", 2, None, None) == "hook exited with status 2"


def test_exit_2_reason_is_capped() -> None:
    assert len(hook_denial("PreToolUse", 2, "", "x" * 1000) or "") == 300


@pytest.mark.parametrize("event", ["PostToolUse", "Stop", "SessionStart", ""])
def test_events_that_cannot_deny_never_do(event: str) -> None:
    deny = json.dumps({"hookSpecificOutput": {"permissionDecision": "deny"}})
    assert hook_denial(event, 2, deny, "no") is None
    assert hook_denial(event, 0, deny, "") is None


def test_other_exit_codes_and_plain_output_allow() -> None:
    assert hook_denial("PreToolUse", 0, "", "") is None
    assert hook_denial("PreToolUse", 1, "some text, not JSON", "err") is None
    assert hook_denial("PreToolUse", 0, "[1, 2]", "") is None
    assert hook_denial("PreToolUse", 0, json.dumps({"decision": "approve"}), "") is None
    assert hook_denial("PreToolUse", "2", "", "string exit code") is None  # only the integer 2 is status 2


def test_permission_decision_deny_with_its_reason() -> None:
    out = json.dumps(
        {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "secrets"}}
    )
    assert hook_denial("PreToolUse", 0, out, "") == "secrets"


def test_decision_block_with_its_reason() -> None:
    assert hook_denial("PreToolUse", 0, json.dumps({"decision": "block", "reason": "policy"}), "") == "policy"


def test_permission_request_behaviour_deny() -> None:
    out = json.dumps({"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "not here"}}})
    assert hook_denial("PermissionRequest", 0, out, "") == "not here"
    allow = json.dumps({"hookSpecificOutput": {"decision": {"behavior": "allow"}}})
    assert hook_denial("PermissionRequest", 0, allow, "") is None


def test_a_deny_without_a_reason_gets_a_default() -> None:
    out = json.dumps({"hookSpecificOutput": {"permissionDecision": "deny"}})
    assert hook_denial("PreToolUse", 0, out, "") == "the hook denied the tool call"


def test_malformed_decisions_are_no_denial() -> None:
    # untrusted shapes: hookSpecificOutput is not a mapping, decision is not a mapping
    assert hook_denial("PreToolUse", 0, json.dumps({"hookSpecificOutput": "deny"}), "") is None
    assert (
        hook_denial("PermissionRequest", 0, json.dumps({"hookSpecificOutput": {"decision": "x"}}), "") is None
    )


# --- hook files ----------------------------------------------------------------------------------------------


def test_read_hook_file_reads_every_part(tmp_path: Path) -> None:
    _record(tmp_path, "100-a", "PreToolUse", "2\n", out="o", err="e")
    assert read_hook_file(tmp_path, "100-a") == HookFile("100-a", "PreToolUse", 2, "o", "e")


def test_read_hook_file_waits_for_the_exit_code(tmp_path: Path) -> None:
    _record(tmp_path, "100-a", "PreToolUse", None)
    assert read_hook_file(tmp_path, "100-a") is None
    (tmp_path / "100-a.rc").write_text("", encoding="utf-8")  # created, not yet written
    assert read_hook_file(tmp_path, "100-a") is None


def test_read_hook_file_without_event_or_output(tmp_path: Path) -> None:
    tmp_path.joinpath("1.rc").write_text("0", encoding="utf-8")
    assert read_hook_file(tmp_path, "1") == HookFile("1", "", 0, "", "")


def test_read_hook_file_limit(tmp_path: Path) -> None:
    _record(tmp_path, "1", "PreToolUse", "0", out="abcdef", err="123456")
    hook = read_hook_file(tmp_path, "1", limit=3)
    assert hook is not None
    assert (hook.stdout, hook.stderr) == ("abc", "123")


def test_hook_file_names_sorted_and_only_finished(tmp_path: Path) -> None:
    _record(tmp_path, "300", "PreToolUse", "0")
    _record(tmp_path, "100", "PreToolUse", "0")
    _record(tmp_path, "200", "PreToolUse", None)  # still running
    assert hook_file_names(tmp_path) == ["100", "300"]
    assert hook_file_names(tmp_path / "missing") == []
    file = tmp_path / "a-file"
    file.write_text("", encoding="utf-8")
    assert hook_file_names(file) == []


def test_hook_denials_oldest_first_blocking_only(tmp_path: Path) -> None:
    _record(tmp_path, "300", "PreToolUse", "2", err="third")
    _record(tmp_path, "100", "PreToolUse", "0", out=json.dumps({"decision": "block", "reason": "first"}))
    _record(tmp_path, "150", "PostToolUse", "2", err="after the fact")
    _record(tmp_path, "200", "PreToolUse", "0", out="")
    _record(tmp_path, "250", "PreToolUse", None, err="unfinished")
    assert hook_denials(tmp_path) == ["PreToolUse hook: first", "PreToolUse hook: third"]
    assert hook_denials(tmp_path / "none") == []
