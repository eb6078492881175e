"""Codex's trace as a :class:`Conversation`: the rollout file, the ``--json`` stream and the hook shim's records.

``codex exec --json`` leaves out calls a hook denied and carries no timestamps (agent-clis.md §3.5), so the
rollout (``$CODEX_HOME/sessions/**/rollout-*.jsonl``: every model item, every tool output, per-response token
usage, all timestamped) is read first; the stream is the fallback when there is no rollout. Hook runs come from
the records of evalens' hook shim (``codex.HOOK_SHIM``), matched to the call whose request and output bracket them.
Codex reports no cost.
"""

from __future__ import annotations

import json
import re
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evalens.core.models.run_record import HookRun, ToolCall, Turn, Usage
from evalens.runner.bounds import Bounds
from evalens.runner.engines.base import Transcript, read_jsonl
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
from evalens.runner.engines.hooks import hook_file_names, read_hook_file
from evalens.runner.live import RESULT_LIMIT, TEXT_LIMIT, EventReader, clip, summarize
from evalens.runner.run_limits import ModelCall
from evalens.runner.trigger_detect import read_skill, shell_commands

INJECTED_SKILL = re.compile(r"\A<skill>\n<name>([^<\n]+)</name>\n<path>([^<\n]+)</path>\n")


def injected_skill(payload: dict[str, Any]) -> tuple[str, str] | None:
    """A ``<skill>`` user message Codex adds after the prompt when the prompt mentions ``$name`` (verified with
    codex-cli 0.169): the skill's name and the SKILL.md path Codex read, else None."""
    if payload.get("type") != "message" or payload.get("role") != "user":
        return None
    for part in payload.get("content") or []:
        if isinstance(part, dict) and part.get("type") == "input_text":
            match = INJECTED_SKILL.match(str(part.get("text") or ""))
            if match:
                return match.group(1).strip(), match.group(2).strip()
    return None


OUTPUT_HEADER = re.compile(
    r"\A(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?(?:Process exited with code (-?\d+)\n)?"
    r"(?:Original token count: [^\n]*\n)?Output:\n",
    re.S,
)


SKILLS_DIR = ".agents/skills"
"""Where Codex finds the skills a run installs (``Codex.skills_dir``)."""

SHELL_CALLS = frozenset({"exec_command", "shell", "local_shell_call", "command_execution", "container.exec"})
"""The tool names Codex's traces give a shell command (the rollout's function calls, the stream's items)."""


def skill_read(call: Any, workspace: str | None) -> tuple[str, str, str] | None:
    """Codex's one sign of a skill firing (agent-clis.md §3.6; ``Codex.skill_evidence``): it has no Skill tool,
    so a shell command (or a code-mode script) that reads an installed SKILL.md with a reading program reads the
    skill. The skill's folder, ``skill-read`` and the command; else None. The reader marks calls with it too."""
    if call.name not in SHELL_CALLS and not isinstance(call.input, str):
        return None
    for command in shell_commands(call.input):
        folder = read_skill(command, SKILLS_DIR, workspace)
        if folder is not None:
            return folder, "skill-read", command
    return None


def _mark_skill(call: Any, workspace: str | None) -> None:
    evidence = skill_read(call, workspace)
    call.skill = evidence[0] if evidence is not None else None


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _output(raw: Any) -> tuple[str, bool]:
    """A tool output without the exec header Codex adds; an error when the command exited non-zero."""
    if isinstance(raw, dict):
        raw = raw.get("content") or raw.get("output") or json.dumps(raw)
    if isinstance(raw, list):
        raw = "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in raw)
    text = str(raw or "")
    match = OUTPUT_HEADER.match(text)
    if match:
        code = match.group(1)
        return text[match.end() :], code is not None and code != "0"
    return text, False


def hook_records(records: Path, bounds: Bounds) -> list[tuple[datetime | None, HookRun]]:
    """Every hook run the shim recorded, oldest first, with when it started (from the record's name)."""
    out: list[tuple[datetime | None, HookRun]] = []
    for name in hook_file_names(records):
        hook = read_hook_file(records, name, 20_000)
        if hook is None:
            continue
        stamp = name.split("-", 1)[0]
        when = datetime.fromtimestamp(int(stamp) / 1e9, UTC) if stamp.isdigit() else None
        event = hook.event or "PreToolUse"
        out.append((when, hook_run(bounds, event, event, hook.code, hook.stdout, hook.stderr)))
    return out


def conversation(
    transcript: Transcript, bounds: Bounds, workspace: str | None = None, hook_dir: Path | None = None
) -> Conversation:
    """Turns, tool calls (with hooks and durations) and token usage from Codex's trace."""
    rollouts = sorted(n for n in transcript.extra_files if n.startswith("codex-rollout"))
    conv, windows = (
        _from_rollout(transcript, rollouts, bounds, workspace)
        if rollouts
        else (_from_stream(transcript, bounds, workspace), [])
    )
    usage = (transcript.usage or {}).get("usage") or {}
    if usage:  # turn.completed's totals
        conv.usage.input_tokens = as_int(usage.get("input_tokens"))
        conv.usage.output_tokens = as_int(usage.get("output_tokens"))
        conv.usage.cache_read_tokens = as_int(usage.get("cached_input_tokens"))
        conv.usage.cache_write_tokens = as_int(usage.get("cache_write_input_tokens"))
    if hook_dir is not None:
        _attach_hooks(conv, windows, hook_records(hook_dir, bounds))
    if workspace:
        relativise(conv, workspace)
    return conv


Window = tuple[ToolCall, datetime | None, datetime | None]  # a call, when it was asked for, when it returned


def _message_text(payload: dict[str, Any]) -> str:
    """An assistant message's text parts, joined."""
    return "\n".join(
        str(p.get("text", ""))
        for p in payload.get("content") or []
        if isinstance(p, dict) and p.get("type") in ("output_text", "text")
    )


def _call_input(item_type: str, payload: dict[str, Any]) -> Any:
    """What a tool call was given: a function call's parsed arguments, a custom tool's input, a shell action."""
    if item_type == "function_call":
        return _arguments(payload.get("arguments"))
    if item_type == "custom_tool_call":
        return payload.get("input")
    return payload.get("action")


def _returned(
    build: Builder,
    payload: dict[str, Any],
    ran: dict[str, tuple[Any, Any]],
    asked: dict[str, datetime | None],
    when: datetime | None,
) -> Window | None:
    """A tool call's output onto its call, with how long it ran (the command's own times, else from asked to
    answered); the call's window, None for an output of no known call."""
    call = build.calls.get(str(payload.get("call_id")))
    if call is None:
        return None
    text, failed = _output(payload.get("output"))
    build.set_result(call, text, is_error=failed)
    start, end = ran.get(call.id or "", (None, None))
    call.duration_ms = (
        millis(parse_time(start), parse_time(end))
        if start and end
        else millis(asked.get(call.id or ""), when)
    )
    return call, asked.get(call.id or ""), when


def _from_rollout(
    transcript: Transcript, names: list[str], bounds: Bounds, workspace: str | None
) -> tuple[Conversation, list[Window]]:
    conv = Conversation(sources=["events.jsonl", *names])
    build = Builder(bounds)
    turn: Turn | None = None
    answered = True  # the current turn got a tool output: the next model item opens a new turn
    asked: dict[str, datetime | None] = {}
    ran: dict[str, tuple[Any, Any]] = {}  # call id -> (started_at_ms, completed_at_ms) of the command
    windows: list[Window] = []
    model_calls = 0
    for name in names:
        for entry in read_jsonl(Path(transcript.extra_files[name])):
            payload = entry.get("payload") or {}
            when = parse_time(entry.get("timestamp"))
            kind, item_type = entry.get("type"), payload.get("type")
            if kind == "token_usage_record":
                model_calls += 1
                turn_tokens(turn, payload.get("usage") or {})
                continue
            if kind == "event_msg" and item_type == "item_completed":
                item = payload.get("item") or {}
                if item.get("id"):
                    ran[str(item["id"])] = (payload.get("started_at_ms"), payload.get("completed_at_ms"))
                continue
            if kind != "response_item":
                continue
            injected = injected_skill(payload)
            if injected is not None:
                conv.injected_skills.append(injected)
                continue
            if item_type in ("message", "function_call", "custom_tool_call", "local_shell_call") and (
                item_type != "message" or payload.get("role") == "assistant"
            ):
                if answered or turn is None:
                    turn = build.new_turn(entry.get("timestamp"))
                    answered = False
            if item_type == "message" and payload.get("role") == "assistant":
                build.add_text(turn, _message_text(payload))
            elif item_type in ("function_call", "custom_tool_call", "local_shell_call"):
                value = _call_input(item_type, payload)
                call = build.add_call(
                    turn,
                    payload.get("call_id") or payload.get("id"),
                    str(payload.get("name") or item_type),
                    value,
                )
                if call is not None:
                    _mark_skill(call, workspace)
                    asked[call.id or ""] = when
            elif item_type in ("function_call_output", "custom_tool_call_output"):
                answered = True
                window = _returned(build, payload, ran, asked, when)
                if window is not None:
                    windows.append(window)
    conv.turns = build.finish()
    conv.usage = Usage(model_calls=model_calls or None)
    return conv, windows


def _from_stream(transcript: Transcript, bounds: Bounds, workspace: str | None) -> Conversation:
    """No rollout (``--ephemeral``, a crash before it was written): the ``--json`` items, one turn each."""
    conv = Conversation(sources=["events.jsonl"])
    build = Builder(bounds)
    for ev in transcript.events:
        item = ev.get("item") or {}
        if ev.get("type") != "item.completed":
            continue
        if item.get("type") == "agent_message":
            build.add_text(build.new_turn(), str(item.get("text", "")))
        elif item.get("type") == "command_execution":
            command = str(item.get("command", ""))
            call = build.add_call(build.new_turn(), item.get("id"), "command_execution", {"command": command})
            if call is not None:
                _mark_skill(call, workspace)
                code = item.get("exit_code")
                build.set_result(call, item.get("aggregated_output", ""), is_error=code not in (0, None))
    conv.turns = build.finish()
    return conv


def _attach_hooks(
    conv: Conversation, windows: list[Window], records: list[tuple[datetime | None, HookRun]]
) -> None:
    """A hook belongs to the call whose request and output bracket its start; others belong to the run."""
    for when, hook in records:
        target = None
        for call, start, end in windows:
            if when is not None and start is not None and end is not None and start <= when <= end:
                target = call
                break
        conv.add_hook(hook, target)


def _unwrap(command: str) -> str:
    """``/bin/bash -lc 'cat x'`` as ``cat x``: the stream wraps every command in the shell that ran it."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return command
    if len(argv) == 3 and argv[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh") and argv[1] in ("-lc", "-c"):
        return argv[2]
    return command


class LiveReader(EventReader):
    """Codex's ``--json`` stream read one event at a time (:mod:`evalens.runner.live`): agent messages, each
    command (when it starts) and its output (when it completes), file changes and other tool items, errors.
    Calls a hook denied are not in this stream (agent-clis.md §3.5); the run record has them."""

    def __init__(self, workspace: str | None = None) -> None:
        super().__init__(workspace)
        self.started: set[str] = set()

    def __call__(self, ev: dict[str, Any]) -> list[dict[str, Any]]:
        kind = ev.get("type")
        raw = ev.get("item")
        item: dict[str, Any] = raw if isinstance(raw, dict) else {}
        item_id = str(item.get("id") or "") or None
        item_type = item.get("type")
        out: list[dict[str, Any]] = []
        if kind in ("item.started", "item.completed") and item_type == "command_execution":
            if item_id not in self.started:
                self.started.add(item_id or "")
                out.append(
                    {
                        "kind": "tool",
                        "tool": "exec_command",
                        "call_id": item_id,
                        "text": self.rel(summarize(_unwrap(str(item.get("command") or "")))),
                    }
                )
            if kind == "item.completed":
                code = item.get("exit_code")
                out.append(
                    {
                        "kind": "result",
                        "tool": "exec_command",
                        "call_id": item_id,
                        "is_error": code not in (0, None),
                        "text": self.rel(clip(item.get("aggregated_output") or "", RESULT_LIMIT)),
                    }
                )
        elif kind == "item.completed" and item_type == "agent_message":
            if str(item.get("text") or "").strip():
                out.append({"kind": "text", "text": self.rel(clip(item.get("text"), TEXT_LIMIT))})
        elif kind == "item.completed" and item_type == "file_change":
            changes = [
                f"{c.get('kind', 'change')} {c.get('path', '')}"
                for c in item.get("changes") or []
                if isinstance(c, dict)
            ]
            out.append(
                {
                    "kind": "tool",
                    "tool": "file_change",
                    "call_id": item_id,
                    "text": self.rel(summarize(", ".join(changes))),
                }
            )
        elif kind == "item.completed" and item_type in ("mcp_tool_call", "web_search"):
            name = str(item.get("tool") or item_type)
            out.append(
                {
                    "kind": "tool",
                    "tool": name,
                    "call_id": item_id,
                    "text": self.rel(summarize(item.get("arguments") or item.get("query") or "")),
                }
            )
        elif kind in ("turn.failed", "error"):
            failure = ev.get("error")
            error: dict[str, Any] = failure if isinstance(failure, dict) else {}
            out.append(
                {
                    "kind": "error",
                    "text": clip(error.get("message") or ev.get("message") or "error", TEXT_LIMIT),
                }
            )
        return out


def stream_usage(ev: dict[str, Any]) -> list[ModelCall]:
    """Codex's ``--json`` reports usage only once, at ``turn.completed``: the run's total, not one call."""
    if ev.get("type") != "turn.completed" or not isinstance(ev.get("usage"), dict):
        return []
    return [ModelCall.from_usage("turn.completed", ev["usage"], total=True)]


class RolloutUsage:
    """The model calls of Codex's rollout as it grows: one ``token_usage_record`` per model response."""

    def __init__(self) -> None:
        self.seen = 0

    def __call__(self, entry: dict[str, Any]) -> list[ModelCall]:
        if entry.get("type") != "token_usage_record":
            return []
        payload = entry.get("payload")
        self.seen += 1
        return [
            ModelCall.from_usage(
                f"rollout-{self.seen}", payload.get("usage") if isinstance(payload, dict) else None
            )
        ]
