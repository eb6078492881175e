"""Claude Code's trace as a :class:`Conversation`: the stream-json events, timed by the session transcript.

The stream (agent-clis.md §2.8) holds every assistant message, tool result, hook response (``--include-hook-events``)
and the closing ``result`` with usage and cost. Assistant events carry no timestamp; the session file
``projects/*/<session>.jsonl`` has one for every entry under the same ``uuid``, so tool durations come from there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalens.core.models.run_record import ToolCall, Turn, Usage
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
from evalens.runner.engines.hooks import hook_denial
from evalens.runner.live import RESULT_LIMIT, TEXT_LIMIT, EventReader, clip, summarize
from evalens.runner.run_limits import ModelCall


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "image":
                parts.append("[image]")
            elif block.get("type") == "tool_reference":  # ToolSearch's answer: a deferred tool now loaded
                parts.append(f"[tool {block.get('tool_name')}]")
            else:  # a block a newer CLI added: named, never dropped without a trace
                parts.append(f"[{block.get('type')}]")
    return "\n".join(parts)


def _session_times(transcript: Transcript) -> dict[str, str]:
    session = transcript.extra_files.get("claude-session.jsonl")
    if session is None:
        return {}
    return {
        str(e["uuid"]): str(e["timestamp"])
        for e in read_jsonl(Path(session))
        if e.get("uuid") and e.get("timestamp")
    }


def conversation(transcript: Transcript, bounds: Bounds, workspace: str | None = None) -> Conversation:
    """Turns, tool calls (with hooks and durations), usage and cost from Claude Code's trace."""
    trace = _Trace(transcript, bounds)
    for ev in transcript.events:
        kind = ev.get("type")
        if kind == "assistant":
            trace.assistant(ev)
        elif kind == "user":
            trace.tool_results(ev)
        elif kind == "system" and ev.get("subtype") == "hook_response":
            trace.hook(ev)
        elif kind == "result":
            trace.result(ev)
    conv = trace.conv
    for call_id in trace.denied:  # the engine's own record of denied calls (a JSON-decision hook, a rule)
        if call_id in trace.build.calls:
            trace.build.calls[call_id].blocked = True
    conv.turns = trace.build.finish()
    if workspace:
        relativise(conv, workspace)
    return conv


class _Trace:
    """What reading Claude Code's events so far has built: one method per event kind."""

    def __init__(self, transcript: Transcript, bounds: Bounds) -> None:
        self.bounds = bounds
        self.times = _session_times(transcript)
        self.conv = Conversation(sources=["events.jsonl"] + (["claude-session.jsonl"] if self.times else []))
        self.build = Builder(bounds)
        self.turn: Turn | None = None
        self.turn_message: str | None = None
        self.asked_at: dict[str, str] = {}  # tool_use id -> when the model asked for it
        self.by_message: dict[str, Turn] = {}
        self.pending: list[ToolCall] = []  # calls without a result yet, oldest first
        self.recent: list[ToolCall] = []
        self.denied: set[str] = set()
        self.results = 0  # result events read so far (one per turn of the session)

    def assistant(self, ev: dict[str, Any]) -> None:
        """A model message (one event per content block): its turn, text and tool calls."""
        message = ev.get("message") or {}
        msg_id = str(message.get("id") or ev.get("uuid") or "")
        when = self.times.get(str(ev.get("uuid")))
        if msg_id in self.by_message:
            self.turn = self.by_message[msg_id]
        elif msg_id != self.turn_message or self.turn is None:
            self.turn = self.build.new_turn(when)
            if self.turn is not None:
                self.by_message[msg_id] = self.turn
                turn_tokens(self.turn, message.get("usage") or {})
        self.turn_message = msg_id
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                self.build.add_text(self.turn, str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                self.tool_call(block, when)

    def tool_call(self, block: dict[str, Any], when: str | None) -> None:
        name = str(block.get("name") or "tool")
        call = self.build.add_call(self.turn, block.get("id"), name, block.get("input"))
        if call is None:
            return
        if name == "Skill" and isinstance(block.get("input"), dict):
            call.skill = str(block["input"].get("skill") or "") or None
        if when and call.id:
            self.asked_at[call.id] = when
        self.pending.append(call)
        self.recent.append(call)

    def tool_results(self, ev: dict[str, Any]) -> None:
        content = (ev.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            call = self.build.calls.get(str(block.get("tool_use_id")))
            if call is None:
                continue
            self.build.set_result(
                call, _result_text(block.get("content")), is_error=bool(block.get("is_error"))
            )
            done = ev.get("timestamp") or self.times.get(str(ev.get("uuid")))
            call.duration_ms = millis(parse_time(self.asked_at.get(call.id or "")), parse_time(done))
            if call in self.pending:
                self.pending.remove(call)

    def hook(self, ev: dict[str, Any]) -> None:
        name = str(ev.get("hook_name") or "") or None
        event = str(ev.get("hook_event") or (name or "").split(":", 1)[0])
        hook = hook_run(self.bounds, event, name, ev.get("exit_code"), ev.get("stdout"), ev.get("stderr"))
        self.conv.add_hook(hook, _hook_target(name, self.pending, self.recent))

    def result(self, ev: dict[str, Any]) -> None:
        """A turn's ``result``. Claude Code 2.1.3xx writes one per turn of the session (a background task's
        notification wakes it for another): each turn's tokens and API time add up, the cost is the session's
        total so far."""
        for denial in ev.get("permission_denials") or []:
            if isinstance(denial, dict) and denial.get("tool_use_id"):
                self.denied.add(str(denial["tool_use_id"]))
        usage = ev.get("usage") or {}
        cost = ev.get("total_cost_usd")
        before = self.conv.usage if self.results else Usage()
        self.results += 1

        def add(old: int | None, key: str) -> int | None:
            new = as_int(usage.get(key))
            return old if new is None else (old or 0) + new

        costs = [
            c
            for c in (before.cost_usd, float(cost) if isinstance(cost, int | float) else None)
            if c is not None
        ]
        self.conv.usage = Usage(
            input_tokens=add(before.input_tokens, "input_tokens"),
            output_tokens=add(before.output_tokens, "output_tokens"),
            cache_read_tokens=add(before.cache_read_tokens, "cache_read_input_tokens"),
            cache_write_tokens=add(before.cache_write_tokens, "cache_creation_input_tokens"),
            cost_usd=max(costs) if costs else None,
            model_calls=len(self.by_message) or None,
        )
        api_ms = ev.get("duration_api_ms")
        if isinstance(api_ms, int | float):
            self.conv.api_seconds = round((self.conv.api_seconds or 0) + api_ms / 1000, 3)


def _hook_target(name: str | None, pending: list[ToolCall], recent: list[ToolCall]) -> ToolCall | None:
    """The call a hook ran for: ``PreToolUse:Write`` runs before the oldest pending Write; ``PostToolUse:Write``
    after the newest Write. Hooks without a tool (SessionStart, Stop) belong to the run."""
    if not name or ":" not in name:
        return None
    tool = name.split(":", 1)[1]
    for call in pending:
        if call.name == tool:
            return call
    for call in reversed(recent):
        if call.name == tool:
            return call
    return None


class LiveReader(EventReader):
    """Claude Code's stream-json read one event at a time (:mod:`evalens.runner.live`): assistant text, each
    tool call and its result, hooks that blocked or failed, an error result."""

    def __init__(self, workspace: str | None = None) -> None:
        super().__init__(workspace)
        self.tools: dict[str, str] = {}  # tool_use id -> tool name

    def __call__(self, ev: dict[str, Any]) -> list[dict[str, Any]]:
        kind = ev.get("type")
        out: list[dict[str, Any]] = []
        if kind == "assistant":
            for block in (ev.get("message") or {}).get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and str(block.get("text") or "").strip():
                    out.append({"kind": "text", "text": self.rel(clip(block.get("text"), TEXT_LIMIT))})
                elif block.get("type") == "tool_use":
                    name = str(block.get("name") or "tool")
                    call_id = str(block.get("id") or "") or None
                    if call_id:
                        self.tools[call_id] = name
                    out.append(
                        {
                            "kind": "tool",
                            "tool": name,
                            "call_id": call_id,
                            "text": self.rel(summarize(block.get("input"))),
                        }
                    )
        elif kind == "user":
            content = (ev.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    call_id = str(block.get("tool_use_id") or "") or None
                    out.append(
                        {
                            "kind": "result",
                            "call_id": call_id,
                            "tool": self.tools.get(call_id or ""),
                            "is_error": bool(block.get("is_error")),
                            "text": self.rel(clip(_result_text(block.get("content")), RESULT_LIMIT)),
                        }
                    )
        elif kind == "system" and ev.get("subtype") == "hook_response":
            hook_name = str(ev.get("hook_name") or "") or None
            event = str(ev.get("hook_event") or (hook_name or "").split(":", 1)[0])
            reason = hook_denial(event, ev.get("exit_code"), ev.get("stdout"), ev.get("stderr"))
            if reason is not None or ev.get("exit_code") not in (0, None):
                printed = reason or str(ev.get("stderr") or ev.get("stdout") or "")
                out.append(
                    {
                        "kind": "hook",
                        "tool": hook_name,
                        "blocked": reason is not None,
                        "text": self.rel(clip(printed.strip(), RESULT_LIMIT)),
                    }
                )
        elif kind == "result" and ev.get("is_error"):
            out.append(
                {"kind": "error", "text": clip(ev.get("result") or ev.get("subtype") or "error", TEXT_LIMIT)}
            )
        return out


class UsageReader:
    """The model calls Claude Code's stream-json reports as they happen: each ``assistant`` event carries its
    message's id and usage so far (:mod:`evalens.runner.run_limits`). Subagents' messages count too: they are
    model calls of the same run."""

    def __init__(self) -> None:
        self.anonymous = 0

    def __call__(self, ev: dict[str, Any]) -> list[ModelCall]:
        if ev.get("type") != "assistant":
            return []
        message = ev.get("message")
        if not isinstance(message, dict):
            return []
        key = message.get("id")
        if not isinstance(key, str) or not key:
            self.anonymous += 1
            key = f"anonymous-{self.anonymous}"
        return [ModelCall.from_usage(key, message.get("usage"))]
