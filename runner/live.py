"""The agent's turns as they happen: read incrementally from the engine's structured event stream.

While a unit runs, the agent's stdout (Claude Code's stream-json, Codex's ``--json``) is split into lines as it
arrives and each event becomes zero or more :class:`LiveTurn` s (assistant text, a tool call with a short summary
of its input, its result, a hook that blocked) for whoever asked for them (``on_turn`` of
:func:`evalens.runner.api.run_cases` / ``run_file``: the language server's ``evalens/runTurn``, ``evalens eval
--verbose``). Only structured events are read, never text the agent printed; the complete record is still read
from the finished trace (``engines/*_record.py``). Everything here is bounded: one line, one turn's text, and the
number of turns one run streams.

The consumer is found through a context variable set by the API entry points, so the suites and the session need
no new parameter: tasks a run starts inherit it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from evalens.runner.engines.base import json_event
from evalens.runner.engines.hooks import hook_denial, hook_file_names, read_hook_file

log = logging.getLogger(__name__)

LiveKind = Literal["text", "tool", "result", "hook", "error", "note"]
TEXT_LIMIT = 2_000  # characters of one streamed assistant text or error
SUMMARY_LIMIT = 200  # characters of a tool call's input summary
RESULT_LIMIT = 500  # characters of a tool result
LINE_LIMIT = 1 << 20  # bytes of one event line parsed live (longer lines are skipped and said so)
MAX_LIVE_TURNS = 300  # turns one agent run streams; then one note


class LiveTurn(BaseModel):
    """One step of the agent, as it happened."""

    unit: str = Field(description="The unit (case, task, eval, query) being run.")
    run: int = Field(default=1, description="1-based run of the unit (`--runs N`).")
    seq: int = Field(default=0, description="0-based position of this turn in the run's stream.")
    kind: LiveKind = Field(description="text | tool | result | hook | error | note.")
    text: str = Field(
        default="", description="Assistant text, a tool input summary, a result, a hook's reason."
    )
    tool: str | None = Field(default=None, description="The tool (tool, result) or hook name (hook).")
    call_id: str | None = Field(default=None, description="Ties a result to its tool call.")
    is_error: bool = Field(default=False, description="A result the tool reported as failed.")
    blocked: bool = Field(default=False, description="A hook that denied the call.")


TurnCallback = Callable[[LiveTurn], None]
Part = dict[str, Any]  # the fields of a LiveTurn an engine reader produces (kind, text, tool, ...)

_SINK: ContextVar[TurnCallback | None] = ContextVar("evalens_live_turns", default=None)


class EventReader(ABC):
    """An engine's live reader (``engines/*_record.py``): one event of its stream in, the parts of the turns it
    holds out, with workspace paths shown as the user wrote them (``output/x``), as the record shows them."""

    def __init__(self, workspace: str | None = None) -> None:
        self.prefix = workspace.rstrip("/") + "/" if workspace else None

    def rel(self, text: str) -> str:
        return text.replace(self.prefix, "") if self.prefix else text

    @abstractmethod
    def __call__(self, ev: dict[str, Any]) -> list[Part]:
        """The parts of the turns ``ev`` holds (none for an event that shows nothing)."""


@contextlib.contextmanager
def streaming(on_turn: TurnCallback | None) -> Iterator[None]:
    """Send the turns of every agent run started inside (and in tasks it creates) to ``on_turn``."""
    token = _SINK.set(on_turn)
    try:
        yield
    finally:
        _SINK.reset(token)


def clip(text: Any, cap: int) -> str:
    value = text if isinstance(text, str) else ("" if text is None else str(text))
    return value if len(value) <= cap else f"{value[:cap]}… [{len(value) - cap} more characters]"


def one_line(text: str, cap: int = SUMMARY_LIMIT) -> str:
    return clip(" ".join(text.split()), cap)


SUMMARY_KEYS = (
    "command",
    "cmd",
    "file_path",
    "path",
    "pattern",
    "skill",
    "url",
    "query",
    "description",
    "prompt",
)


def summarize(value: Any) -> str:
    """A tool input in one short line: the field that says what the call does, else compact JSON."""
    if isinstance(value, dict):
        for key in SUMMARY_KEYS:
            found = value.get(key)
            if isinstance(found, list):
                found = " ".join(str(x) for x in found)
            if isinstance(found, str) and found.strip():
                return one_line(found)
    if isinstance(value, str):
        return one_line(value)
    try:
        return one_line(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return one_line(str(value))


class EventLines:
    """Bytes of the agent's stdout in, one parsed event per complete line out, to each consumer (synchronously,
    on the caller's loop). The one splitter of an engine's stream while it runs: the live turns and the per-run
    limits (:mod:`evalens.runner.run_limits`) read the same events. Lines that are not a JSON object (a warning
    the CLI printed) are never events; lines over ``LINE_LIMIT`` are skipped and ``on_oversize`` is told."""

    def __init__(
        self, consumers: list[Callable[[dict[str, Any]], None]], on_oversize: Callable[[], None] | None = None
    ) -> None:
        self.consumers = consumers
        self.on_oversize = on_oversize
        self.buffer = bytearray()
        self.skipping = False  # inside a line longer than LINE_LIMIT

    def __call__(self, data: bytes) -> None:
        """More of the stream; every complete line is read as one event."""
        while data:
            cut = data.find(b"\n")
            piece, data = (data, b"") if cut < 0 else (data[:cut], data[cut + 1 :])
            if not self.skipping:
                self.buffer += piece
                if len(self.buffer) > LINE_LIMIT:
                    self.buffer.clear()
                    self.skipping = True
                    if self.on_oversize is not None:
                        self.on_oversize()
            if cut >= 0:
                if not self.skipping:
                    self.line(bytes(self.buffer))
                self.buffer.clear()
                self.skipping = False

    def close(self) -> None:
        """The stream ended: a last line without a newline is read too."""
        if self.buffer and not self.skipping:
            self.line(bytes(self.buffer))
        self.buffer.clear()

    def line(self, raw: bytes) -> None:
        event = json_event(raw)
        if event is None:
            return  # not an event (a warning the CLI printed): never read as the agent's words
        for consumer in self.consumers:
            try:
                consumer(event)
            except Exception:  # noqa: BLE001 - an odd event must not break the run; the record is read later
                log.debug("stream event consumer failed", exc_info=True)


class LiveFeed:
    """Events in, :class:`LiveTurn` s out, through the engine's live reader."""

    def __init__(
        self, reader: Callable[[dict[str, Any]], list[Part]], sink: TurnCallback, unit: str, run: int
    ) -> None:
        self.reader = reader
        self.sink = sink
        self.unit = unit
        self.run = run
        self.seq = 0
        self.stopped = False
        self.lines = EventLines([self.event], self.oversize)

    def __call__(self, data: bytes) -> None:
        """Bytes of the stream, when this feed is the only reader of it."""
        if not self.stopped:
            self.lines(data)

    def close(self) -> None:
        self.lines.close()

    def oversize(self) -> None:
        self.emit(
            {
                "kind": "note",
                "text": f"an event of over {LINE_LIMIT >> 20} MiB was not streamed (the run record has it)",
            }
        )

    def event(self, event: dict[str, Any]) -> None:
        if self.stopped:
            return
        try:
            parts = self.reader(event)
        except Exception:  # noqa: BLE001 - an odd event must not break the run; the record is read later
            log.debug("live turn reader failed", exc_info=True)
            return
        for part in parts:
            self.emit(part)

    def emit(self, part: Part) -> None:
        if self.stopped:
            return
        if self.seq >= MAX_LIVE_TURNS:
            self.stopped = True
            part = {
                "kind": "note",
                "text": f"later turns are not streamed (limit {MAX_LIVE_TURNS}); the run record has them all",
            }
        try:
            turn = LiveTurn(unit=self.unit, run=self.run, seq=self.seq, **part)
        except Exception:  # noqa: BLE001 - a malformed part is dropped, not the run
            log.debug("bad live turn %r", part, exc_info=True)
            return
        self.seq += 1
        try:
            self.sink(turn)
        except Exception:  # noqa: BLE001 - a broken consumer must not break the run
            log.debug("live turn consumer failed", exc_info=True)


def feed(engine: Any, paths: Any, unit: str, run: int) -> LiveFeed | None:
    """A feed for one agent run of ``unit`` when someone asked for turns (:func:`streaming`), else None."""
    sink = _SINK.get()
    if sink is None:
        return None
    reader = engine.live_reader(paths)
    if reader is None:
        return None
    return LiveFeed(reader, sink, unit, run)


def new_hook_runs(folder: Path, seen: set[str]) -> list[Part]:
    """Hook runs recorded in ``folder`` since the last look (``<stamp>.rc`` is written last): those that
    blocked or failed. Blocking: call it in a worker thread."""
    out: list[Part] = []
    for name in hook_file_names(folder):
        if name in seen:
            continue
        seen.add(name)
        hook = read_hook_file(folder, name, 4_000)
        if hook is None:
            continue
        event = hook.event or "PreToolUse"
        reason = hook_denial(event, hook.code, hook.stdout, hook.stderr)
        if reason is not None or hook.code != 0:
            out.append(
                {
                    "kind": "hook",
                    "tool": event,
                    "blocked": reason is not None,
                    "text": clip((reason or hook.stderr or hook.stdout).strip(), RESULT_LIMIT),
                }
            )
    return out


async def watch_hooks(live: LiveFeed, folder: Path, interval: float = 0.3) -> None:
    """Stream the hook runs an engine records in files (Codex: its ``--json`` omits hooks) until cancelled."""
    seen: set[str] = set()
    try:
        while True:
            await asyncio.sleep(interval)
            for part in await asyncio.to_thread(new_hook_runs, folder, seen):
                live.emit(part)
    except asyncio.CancelledError:
        for part in await asyncio.to_thread(
            new_hook_runs, folder, seen
        ):  # the last ones, once the agent ended
            live.emit(part)
        raise
