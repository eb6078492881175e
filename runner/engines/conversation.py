"""What an engine's trace says the agent did, engine-neutral: turns, tool calls, hooks, usage.

Each engine reads its own trace files into a :class:`Conversation` (``Engine.conversation``); the run record
(:mod:`evalens.runner.record`) adds the workspace diff, the verdict and the timings. Only structured events are
read, never text the agent could print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from evalens.core.models.run_record import HookRun, ToolCall, Turn, Usage
from evalens.runner.bounds import HOOK_LIMIT, MAX_CALLS, MAX_TURNS, TEXT_LIMIT, TOOL_LIMIT, Bounds, limit
from evalens.runner.engines.hooks import hook_denial


@dataclass(slots=True)
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    hooks: list[HookRun] = field(default_factory=list)  # hooks not tied to a tool call
    usage: Usage = field(default_factory=Usage)
    api_seconds: float | None = None
    sources: list[str] = field(default_factory=list)
    # skills the engine itself put into the input (Codex resolves a `$name` mention into a `<skill>` message):
    # (name, SKILL.md path) as the engine wrote them, for trigger detection (runner/trigger_detect.py)
    injected_skills: list[tuple[str, str]] = field(default_factory=list)

    def add_hook(self, hook: HookRun, call: ToolCall | None) -> None:
        """A hook run onto the call it ran for (a hook that blocked blocks the call), else onto the run: each
        engine decides which call that is from its own trace."""
        if call is None:
            self.hooks.append(hook)
        else:
            call.hooks.append(hook)
            call.blocked = call.blocked or hook.blocked


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 timestamp (``2026-02-22T14:30:01.120Z``) or epoch milliseconds, else None."""
    if isinstance(value, int | float) and value > 0:
        return datetime.fromtimestamp(value / 1000, UTC)
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def millis(start: datetime | None, end: datetime | None) -> int | None:
    if start is None or end is None:
        return None
    delta = (end - start).total_seconds() * 1000
    return int(round(delta)) if delta >= 0 else None


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def turn_tokens(turn: Turn | None, usage: dict[str, Any]) -> None:
    """A turn's tokens: those of the first model call reported while it is open (both engines' usage objects
    name them ``input_tokens`` / ``output_tokens``)."""
    if turn is not None and turn.input_tokens is None:
        turn.input_tokens = as_int(usage.get("input_tokens"))
        turn.output_tokens = as_int(usage.get("output_tokens"))


class Builder:
    """Assembles turns within the record's bounds (turn and call counts, text lengths)."""

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self.turns: list[Turn] = []
        self.calls: dict[str, ToolCall] = {}
        self.call_count = 0
        self.dropped_turns = 0
        self.dropped_calls = 0

    def new_turn(self, started_at: str | None = None) -> Turn | None:
        if len(self.turns) >= limit(MAX_TURNS):
            self.dropped_turns += 1
            return None
        turn = Turn(index=len(self.turns), started_at=started_at)
        self.turns.append(turn)
        return turn

    def add_text(self, turn: Turn | None, text: str) -> None:
        if turn is None or not text:
            return
        joined = f"{turn.text}\n{text}" if turn.text else text
        turn.text, _ = self.bounds.text(joined, TEXT_LIMIT, f"turn {turn.index}: text")

    def add_call(self, turn: Turn | None, call_id: str | None, name: str, value: Any) -> ToolCall | None:
        if turn is None:
            return None
        if self.call_count >= limit(MAX_CALLS):
            self.dropped_calls += 1
            return None
        self.call_count += 1
        clipped, cut = self.bounds.value(value, TOOL_LIMIT, f"turn {turn.index}: {name} input")
        call = ToolCall(id=call_id, name=name, input=clipped, truncated=cut)
        turn.tool_calls.append(call)
        if call_id:
            self.calls[call_id] = call
        return call

    def set_result(self, call: ToolCall, text: Any, *, is_error: bool = False) -> None:
        call.result, cut = self.bounds.text(
            text, TOOL_LIMIT, f"{call.name} call {call.id or ''}".strip() + ": result"
        )
        call.truncated = call.truncated or cut
        call.is_error = is_error

    def finish(self) -> list[Turn]:
        if self.dropped_turns:
            self.bounds.note(f"turns: {self.dropped_turns} later turns not kept (limit {limit(MAX_TURNS)})")
        if self.dropped_calls:
            self.bounds.note(
                f"tool calls: {self.dropped_calls} later calls not kept (limit {limit(MAX_CALLS)})"
            )
        return self.turns


def hook_run(
    bounds: Bounds, event: str, name: str | None, exit_code: Any, stdout: Any, stderr: Any
) -> HookRun:
    """One hook run; ``blocked`` by the same rule the verdict uses (blocking events only)."""
    reason = hook_denial(event, exit_code, stdout, stderr)
    printed = "\n".join(str(s) for s in (stdout, stderr) if s)
    output, _ = bounds.text(printed, HOOK_LIMIT, f"{name or event} hook output")
    return HookRun(
        event=event,
        name=name,
        exit_code=as_int(exit_code),
        blocked=reason is not None,
        reason=reason,
        output=output or None,
    )


def relativise(conv: Conversation, workspace: str) -> None:
    """Show workspace paths as the user wrote them (``output/x``), not as the sandbox's absolute path."""
    prefix = workspace.rstrip("/") + "/"

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(prefix, "")
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value

    for turn in conv.turns:
        turn.text = fix(turn.text)
        for call in turn.tool_calls:
            call.input = fix(call.input)
            call.result = fix(call.result)
            for hook in call.hooks:
                hook.output, hook.reason = fix(hook.output), fix(hook.reason)
