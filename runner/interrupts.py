"""SIGINT, SIGTERM and SIGHUP for ``evalens eval`` and ``evalens run``: the same ending at any moment.

Before and after the event loop a signal raises :class:`Interrupted` (:func:`install`; the CLI prints one line and
exits 128+n). Python swallows an exception raised where nothing can catch it (a weakref callback of the import
machinery, a ``__del__``), so each signal is also remembered, the swallowed one is not printed, and :func:`check`
raises it at the next safe point: the loop's start and the command's end.
While the loop runs, the first signal cancels the command's task, which kills the agents, removes the sandboxes and
writes what it can (``interrupted: true``); later signals only say that cleanup is under way.
"""

from __future__ import annotations

import _signal  # the C module: ``signal`` would import enum first, widening the window before install()
import sys

TYPE_CHECKING = False  # not ``typing``: every millisecond before install() is a window for the default action
if TYPE_CHECKING:
    from collections.abc import Coroutine
    from typing import Any

SIGNALS = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)


class Interrupted(BaseException):  # noqa: N818 - named for what happened, like KeyboardInterrupt
    """A signal arrived outside the event loop; ``exit_code`` is the conventional 128 + signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


_received: list[int] = []  # signals raised by _raise and not yet caught (check() raises the first)


def _raise(signum: int, _frame: Any) -> None:
    _received.append(signum)
    raise Interrupted(signum)


def _unraisable(unraisable: Any, _default: Any = sys.unraisablehook) -> None:
    """An :class:`Interrupted` that Python had to ignore stays in ``_received`` for :func:`check`; no traceback."""
    if isinstance(unraisable.exc_value, Interrupted):
        return
    _default(unraisable)


def install() -> None:
    """From now on each of :data:`SIGNALS` raises :class:`Interrupted` (ignored ones stay ignored: nohup)."""
    sys.unraisablehook = _unraisable
    for sig in SIGNALS:
        if _signal.getsignal(sig) is not _signal.SIG_IGN:
            _signal.signal(sig, _raise)


def caught() -> None:
    """The caller has handled the signal it caught: :func:`check` no longer raises it."""
    _received.clear()


def check() -> None:
    """Raise the signal Python swallowed (see the module's docstring), if any."""
    if _received:
        raise Interrupted(_received[0])


def interrupted_line(command: str, partial: object | None) -> str:
    """What ``evalens eval`` and ``evalens run`` print when a signal cut the batch short: its partial report and
    the command that finishes it (``--resume`` takes the report's folder, where the run log is)."""
    if not partial:
        return f"{command}: interrupted"
    folder = str(partial)[: -len(".json")] if str(partial).endswith(".json") else str(partial)
    return f"{command}: interrupted; partial report: {partial} (finish it: {command} --resume {folder})"


def _quiet_exception_handler(loop: Any, context: dict[str, Any]) -> None:
    """One line instead of asyncio's traceback for a callback failing during shutdown."""
    exc = context.get("exception")
    # lazy: `evalens` imports this module at start, before install(); asyncio costs 40-190 ms (measured)
    import asyncio

    if isinstance(exc, asyncio.CancelledError):
        return
    detail = f": {type(exc).__name__}: {exc}" if exc is not None else ""
    print(f"evalens: {context.get('message', 'error in the event loop')}{detail}", file=sys.stderr)


def run_interruptibly(coro: Coroutine[Any, Any, Any], command: str) -> tuple[Any, int | None]:
    """Run ``coro`` on a fresh loop. Returns ``(result, None)``, or ``(result_or_None, signum)`` when a signal
    arrived: ``None`` if the task was cancelled by it (it has cleaned up), else the finished result."""
    if _received:
        coro.close()  # never started: no "never awaited" warning
        check()
    # lazy: `evalens` imports this module at start, before install(), where every millisecond is a window for
    # the default action; asyncio costs 40-190 ms, signal ~1 ms (measured)
    import asyncio
    import signal

    loop = asyncio.new_event_loop()
    loop.set_exception_handler(_quiet_exception_handler)
    task = loop.create_task(coro)
    received: list[int] = []

    def on_signal(sig: int) -> None:
        if received:  # a second Ctrl-C must not abort the cleanup the first one started
            print(f"{command}: still cleaning up (killing agents, removing sandboxes)…", file=sys.stderr)
            return
        received.append(sig)
        task.cancel()

    installed = []
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    try:
        for sig in SIGNALS:
            if signal.getsignal(sig) is signal.SIG_IGN:
                continue
            try:
                loop.add_signal_handler(sig, on_signal, sig)
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        try:
            result = loop.run_until_complete(task)
        except asyncio.CancelledError:
            return None, received[0] if received else signal.SIGINT
        return result, received[0] if received else None
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous[sig])  # the CLI's raising handler (or whatever a caller had)
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()
