"""The run feature's small types: bounded parallelism, a run in flight, a resolved target, the refusal a
command answers with, and the one way command arguments are read (and a command on one file is offered)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from evalens.runner.suites import PACKAGE_FORMAT
from evalens.server import uris
from evalens.server.wire import Wire

if TYPE_CHECKING:
    from evalens.server.server import EvalensServer

ArgsT = TypeVar("ArgsT", bound=Wire)

PACKAGE = PACKAGE_FORMAT  # a run is a package's case unless it says otherwise


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

    def limit(self) -> int:
        return max(1, int(self._limit() or 1))

    async def acquire(self, n: int = 1) -> int:
        """Take ``n`` slots (at most the limit: a unit repeated 5× with 2 slots runs 2 at a time); how many."""
        cond = self._condition()
        async with cond:
            n = max(1, min(n, self.limit()))
            await cond.wait_for(lambda: self._active + n <= self.limit())
            self._active += n
            return n

    async def release(self, n: int = 1) -> None:
        cond = self._condition()
        async with cond:
            self._active -= n
            cond.notify_all()

    @contextlib.asynccontextmanager
    async def take(self, n: int) -> AsyncIterator[int]:
        """``async with slots.take(n) as taken``: :meth:`acquire` and :meth:`release` around a block."""
        taken = await self.acquire(n)
        try:
            yield taken
        finally:
            await self.release(taken)

    async def __aenter__(self) -> None:
        await self.acquire(1)

    async def __aexit__(self, *exc: object) -> None:
        await self.release(1)


@dataclass(eq=False)
class RunHandle:
    """One case run in flight (queued or running)."""

    root: Path
    name: str
    uri: str
    case_file: Path
    format_id: str = PACKAGE
    task: asyncio.Task | None = None
    stage: str = "queued"
    token: str | None = None
    cancelled: bool = False
    started: float = field(default_factory=time.monotonic)
    runs: int = 1  # repeats of the unit (the "Run N×" lens and Test Explorer profile)
    current_run: int = 0  # which of the ``runs`` the agent is in (its turns say), for "run k/N" in the lens
    budget: Any = None  # the runner.budget.Budget of the editor batch it belongs to
    settings: Any = (
        None  # the settings with the batch's overrides (engine, model, maxCost); None: the editor's
    )
    arm: str | None = None  # --arms: what the run installs of the package (a matrix cell item's arm)


@dataclass(slots=True)
class RunTarget:
    """A case resolved from a command's ``{uri, name}``."""

    uri: str
    root: Path
    name: str
    case_file: Path
    validation: Any
    case: Any  # CaseInfo or None when the file no longer parses
    format_id: str = PACKAGE
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
        raise JsonRpcInvalidParams('the command needs {"uri": ...} (the eval file)')
    if out.get("uri") and uris.usable_path(out["uri"]) is None:
        raise CommandRefused(f"not a usable file URI: {out['uri'][:200]}")
    return out


def read_args(model: type[ArgsT], raw: tuple[Any, ...], command: str, *, uri: bool = False) -> ArgsT:
    """A command's one argument as its declared model (``command_arg``'s reading first); a wrong field is
    invalid params that names it."""
    try:
        return model.model_validate(command_arg(raw, uri=uri))
    except ValidationError as exc:
        wrong = "; ".join(f"`{'.'.join(map(str, e['loc']))}`: {e['msg']}" for e in exc.errors())
        raise JsonRpcInvalidParams(f"{command}: {wrong}") from None


Answer = Wire | Sequence[Wire] | None
"""What a command handler returns: its declared answer model, a list of them, or nothing (null)."""


def typed_command(
    server: EvalensServer,
    name: str,
    args: type[ArgsT],
    handler: Callable[[EvalensServer, ArgsT], Answer | Awaitable[Answer]],
    *,
    uri: bool | None = None,
) -> None:
    """Register ``handler`` as command ``name``, the one way every command is registered: its one argument is
    read as ``args`` (anything else is invalid params, worded by field; ``uri``: the file must be named, by
    default when the model requires it) and its answer is sent as its model declares, so the generated
    TypeScript is what travels. The handler may be a coroutine function or a plain one."""
    needs_uri = (
        uri if uri is not None else "uri" in args.model_fields and args.model_fields["uri"].is_required()
    )

    # ``ls: Any``: pygls resolves the handler's annotations at run time, where EvalensServer is not imported
    async def command(ls: Any, *raw: Any) -> Any:
        answer = handler(ls, read_args(args, raw, name, uri=needs_uri))
        return sent(await answer if inspect.isawaitable(answer) else answer)

    server.command(name)(command)


def sent(answer: Answer) -> Any:
    """An answer as it travels: each model as its wire JSON."""
    if answer is None:
        return None
    if isinstance(answer, Wire):
        return answer.wire()
    return [a.wire() for a in answer]


def uri_command(title: str, command: str, uri: str) -> types.Command:
    """A command on one file: its one argument ``{"uri": uri}`` is what ``command_arg(args, uri=True)`` reads."""
    return types.Command(title=title, command=command, arguments=[{"uri": uri}])


def uri_action(title: str, kind: types.CodeActionKind, command: str, uri: str) -> types.CodeAction:
    """``uri_command`` offered as a code action of the same title (the light bulb lists it by ``kind``)."""
    return types.CodeAction(title=title, kind=kind, command=uri_command(title, command, uri))
