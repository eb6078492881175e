"""Per-run limits enforced while the agent runs: ``--max-turns`` and ``--max-tokens-per-run`` (issue 29).

A batch budget (:mod:`evalens.runner.budget`) only decides whether the *next* run may start, so one run could
overshoot it without bound. These limits stop the run itself: every model call the engine reports in its
structured events (Claude Code's stream-json ``assistant`` messages; the ``token_usage_record`` entries of Codex's
rollout, which its ``--json`` stream lacks) is counted as it arrives, and the first call past a limit stops the
agent's process tree. The run is then ERROR, "turn limit" or "token limit", naming the limit; never PASS, since
the agent did not finish. Text the agent prints is never read: only the engine's own events.

A turn is one model call (one response of the model), the unit both engines report; tokens are input + output,
as the batch budget counts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from evalens.runner.engines.base import json_event


@dataclass(frozen=True, slots=True)
class RunLimits:
    """The limits of one agent run; None = no limit."""

    max_turns: int | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        for name, value in (("--max-turns", self.max_turns), ("--max-tokens-per-run", self.max_tokens)):
            if value is not None and value < 1:
                raise ValueError(f"{name} must be 1 or more")

    @property
    def active(self) -> bool:
        return self.max_turns is not None or self.max_tokens is not None


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model call as an engine event reports it. ``key`` ties repeated reports of the same call together
    (Claude Code sends one ``assistant`` event per content block, each with the message's usage so far)."""

    key: str
    input_tokens: int = 0
    output_tokens: int = 0
    total: bool = False  # the engine's own running total of the run (Codex's turn.completed), not one call

    @classmethod
    def from_usage(cls, key: str, usage: object, *, total: bool = False) -> ModelCall:
        """The call's tokens from an engine's usage object: both engines name them ``input_tokens`` /
        ``output_tokens``; anything that is not an object reports none."""
        counts = usage if isinstance(usage, dict) else {}
        return cls(key, as_count(counts.get("input_tokens")), as_count(counts.get("output_tokens")), total)


@dataclass(slots=True)
class Meter:
    """Counts the model calls and tokens of one run and says, once, when a limit is passed."""

    limits: RunLimits
    on_exceeded: Callable[[str], None] = lambda _why: None
    calls: dict[str, ModelCall] = field(default_factory=dict)
    exceeded: str | None = None

    total: int = 0  # the largest running total the engine reported
    bridge: list[ModelCall] = field(default_factory=list)  # every call the model bridge answered (issue 42)

    @property
    def turns(self) -> int:
        """The engine's count of model calls, or the bridge's when it saw more (the agent's shell can call the
        model through the bridge too, and no engine reports that)."""
        return max(len(self.calls), len(self.bridge))

    @property
    def tokens(self) -> int:
        engine = max(self.total, sum(c.input_tokens + c.output_tokens for c in self.calls.values()))
        return max(engine, sum(c.input_tokens + c.output_tokens for c in self.bridge))

    def add_bridge(self, call: ModelCall) -> None:
        """One call the bridge answered, with the provider's own usage."""
        self.bridge.append(call)
        self._check()

    def add(self, calls: list[ModelCall]) -> None:
        """Newer reports of a call replace older ones (usage grows while a message streams)."""
        for call in calls:
            if call.total:
                self.total = max(self.total, call.input_tokens + call.output_tokens)
                continue
            old = self.calls.get(call.key)
            if old is None or call.input_tokens + call.output_tokens >= old.input_tokens + old.output_tokens:
                self.calls[call.key] = call
        self._check()

    def _check(self) -> None:
        if self.exceeded is not None:
            return
        limits = self.limits
        if limits.max_turns is not None and self.turns > limits.max_turns:
            self.exceeded = (
                f"turn limit: the agent made model call {self.turns} with --max-turns {limits.max_turns}; "
                "the run was stopped"
            )
        elif limits.max_tokens is not None and self.tokens > limits.max_tokens:
            self.exceeded = (
                f"token limit: the run used {self.tokens:,} tokens (in + out) with --max-tokens-per-run "
                f"{limits.max_tokens:,}; the run was stopped"
            )
        if self.exceeded is not None:
            self.on_exceeded(self.exceeded)


def as_count(value: object) -> int:
    """A token count from an event: anything that is not a non-negative integer counts 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class JsonlTail:
    """New complete lines of the JSONL files under a folder since the last look (Codex's rollout grows while
    it runs). Only regular files are read; a torn last line waits for its newline. Blocking: call it in a
    worker thread."""

    def __init__(self, folder: Path, pattern: str, cap: int = 1 << 20) -> None:
        self.folder = folder
        self.pattern = pattern
        self.cap = cap  # bytes of one line; longer lines are skipped (a usage record is tiny)
        self.offsets: dict[Path, int] = {}

    def read(self) -> list[dict]:
        out: list[dict] = []
        try:
            files = sorted(self.folder.glob(self.pattern)) if self.folder.is_dir() else []
        except OSError:
            return out
        for path in files:
            try:
                if path.is_symlink() or not path.is_file():
                    continue
                with open(path, "rb") as fh:
                    start = self.offsets.get(path, 0)
                    fh.seek(start)
                    data = fh.read()
            except OSError:
                continue
            end = data.rfind(b"\n")
            if end < 0:
                continue
            self.offsets[path] = start + end + 1
            for raw in data[:end].split(b"\n"):
                if len(raw) <= self.cap and (entry := json_event(raw)) is not None:
                    out.append(entry)
        return out


@dataclass(slots=True)
class UsageSource:
    """Where an engine reports its model calls while it runs: events on its stdout, and/or records in files it
    writes (read by polling). Each reader maps one event or record to the calls it reports."""

    stream: Callable[[dict], list[ModelCall]] | None = None
    files: JsonlTail | None = None
    record: Callable[[dict], list[ModelCall]] | None = None
