"""The run feature's small types: bounded parallelism, a run in flight, a resolved target, the refusal a
command answers with, and the one way command arguments are read."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.server import uris
from lsprotocol import types  # noqa: F401 - re-exported for type hints of features
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

RUNNABLE = "uaaps-case"  # the format runner.api.run_cases runs; CLI_FORMATS run through runner.api.run_file


class Slots:
    """Bounded parallelism that follows the ``maxParallelRuns`` setting as it changes."""

    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit
        self._active = 0
        self._cond: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    async def __aenter__(self) -> None:
        cond = self._condition()
        async with cond:
            await cond.wait_for(lambda: self._active < max(1, int(self._limit() or 1)))
            self._active += 1

    async def __aexit__(self, *exc: object) -> None:
        cond = self._condition()
        async with cond:
            self._active -= 1
            cond.notify_all()


@dataclass(eq=False)
class RunHandle:
    """One case run in flight (queued or running)."""

    root: Path
    name: str
    uri: str
    case_file: Path
    format_id: str = RUNNABLE
    task: asyncio.Task | None = None
    stage: str = "queued"
    token: str | None = None
    cancelled: bool = False
    started: float = field(default_factory=time.monotonic)


@dataclass(slots=True)
class Target:
    """A case resolved from a command's ``{uri, name}``."""

    uri: str
    root: Path
    name: str
    case_file: Path
    validation: Any
    case: Any  # CaseInfo or None when the file no longer parses
    format_id: str = RUNNABLE
    package_root: Path | None = None  # what the Test Explorer groups by (``root`` keys memory and runs)


class CommandRefused(JsonRpcException, ValueError):
    """A command that cannot run on what it was given: LSP ``RequestFailed``, one log line, no traceback."""

    CODE = -32803


def command_arg(args: tuple[Any, ...], *, uri: bool = False) -> dict[str, Any]:
    """Commands take ONE dict argument; ``[uri, name]`` positional is tolerated for hand-written clients.
    ``uri`` and ``name`` must be strings (``uri=True``: and ``uri`` must be there)."""
    if args and isinstance(args[0], dict):
        out = dict(args[0])
    else:
        out = dict(zip(("uri", "name"), args, strict=False))
    for key in ("uri", "name"):
        if out.get(key) is not None and not isinstance(out[key], str):
            raise JsonRpcInvalidParams(f"`{key}` must be a string, not {type(out[key]).__name__}")
    if uri and not out.get("uri"):
        raise JsonRpcInvalidParams("the command needs {\"uri\": ...} (the eval file)")
    if out.get("uri") and uris.usable_path(out["uri"]) is None:
        raise CommandRefused(f"not a usable file URI: {out['uri'][:200]}")
    return out
