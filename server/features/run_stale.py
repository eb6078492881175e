"""Stale verdicts: a remembered result whose inputs changed since it ran (a SKILL.md edit, a new hook, another
engine version) is shown as stale, with what changed (docs/repeats.md).

Comparing fingerprints reads and hashes files, so it never runs on the event loop: each lens request schedules
at most one check in the worker threads (file hashes are cached by mtime and size, so a check of an unchanged
package costs a few ``stat`` calls), and the editor is asked to refresh its lenses only when a verdict's
staleness changed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from evalens.server.features.run_focus import next_run
from evalens.server.wire import NOTIFICATIONS

log = logging.getLogger("evalens.server.run")

MIN_INTERVAL = 1.0  # seconds between two checks


class StaleChecker:
    """Keeps ``result.stale`` of every remembered record current, off the loop."""

    def __init__(self) -> None:
        self._pending: asyncio.Task[None] | None = None
        self._last = 0.0

    def check_soon(self, ls: Any, memory: Any) -> None:
        """Schedule a check unless one is pending or one finished less than a second ago."""
        if self._pending is not None and not self._pending.done():
            return
        if time.monotonic() - self._last < MIN_INTERVAL:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._pending = loop.create_task(self._check(ls, memory))

    async def _check(self, ls: Any, memory: Any) -> None:
        try:
            updates = await asyncio.get_running_loop().run_in_executor(
                ls.thread_pool, recheck, memory.records(), next_run(ls.settings)
            )
        except Exception:  # noqa: BLE001 - a failed check leaves the verdicts as they were
            log.debug("stale check failed", exc_info=True)
            return
        finally:
            self._last = time.monotonic()
        changed = apply(updates)
        if changed:  # the Test Explorer dims stale results: it asks discovery again (`last_stale`)
            try:
                ls.protocol.notify(NOTIFICATIONS["staleChanged"], {})
            except Exception:  # noqa: BLE001
                log.debug("staleChanged notification failed", exc_info=True)
        if changed and ls.cap("workspace.code_lens.refresh_support", False):
            try:
                ls.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001
                log.debug("code lens refresh failed", exc_info=True)


def recheck(records: list[Any], inputs: Any = None) -> list[tuple[Any, list[Any]]]:
    """What changed for each record against the next run's ``inputs``: the results whose staleness differs,
    with their new staleness. Blocking; changes nothing, so the loop never sees half a check."""
    # lazy: evalens.runner.depends ~0.6 s to import; the server starts without it
    from evalens.runner.depends import staleness

    updates = []
    for record in records:
        now = staleness(record.result, inputs)
        if now != list(record.result.stale):
            updates.append((record.result, now))
    return updates


def apply(updates: list[tuple[Any, list[Any]]]) -> bool:
    """Set every result's new staleness at once, on the loop (a lens that counts stale verdicts sees all of a
    check or none of it); True when anything changed."""
    for result, now in updates:
        result.stale = now
    return bool(updates)
