"""One cancellable work-done progress ($/progress) for a run, as every run face of the server shows it: the lens's
run of a unit (``run.py``) and a whole comparison (``comparison_run.py``). Progress is a nicety: a client without
it, or one that does not answer the create request in time, gets none, and the work goes on."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from lsprotocol import types


async def begin(ls: Any, title: str, message: str, cancel: Callable[[], Any]) -> str | None:
    """Create and begin a progress titled ``title``; the editor's Cancel calls ``cancel`` on the loop. Its token,
    or None when the client has no work-done progress."""
    if not ls.cap("window.work_done_progress", False):
        return None
    token = f"evalens-run-{uuid.uuid4()}"
    try:
        await asyncio.wait_for(ls.work_done_progress.create_async(token), 10)
    except Exception:  # noqa: BLE001 - progress is a nicety; the run goes on without it
        return None
    ls.work_done_progress.begin(
        token, types.WorkDoneProgressBegin(title=title, message=message, cancellable=True, percentage=0)
    )
    future = ls.work_done_progress.tokens.get(token)
    if future is not None:
        loop = asyncio.get_running_loop()
        future.add_done_callback(lambda f: f.cancelled() and loop.call_soon_threadsafe(cancel))
    return token


def report(ls: Any, token: str | None, message: str, percentage: int) -> None:
    if token is not None:
        ls.work_done_progress.report(
            token, types.WorkDoneProgressReport(message=message, percentage=percentage)
        )


def end(ls: Any, token: str | None, message: str | None = None) -> None:
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        ls.work_done_progress.tokens.pop(token, None)
