"""The batch's scheduler, one for every format (issue 41): at most ``--jobs`` agent runs at once and one budget.

A package's cases (``runner/suites/uaaps.py``) and a file's units (``runner/run_file.py``) go through the same
:class:`Admission`: a run waits for a free slot, so ``--jobs N`` means N agent runs in flight whatever the format,
a unit's repeats included. What differs is only the unit the budget admits. A case's run is admitted on its own
(its SKIP stands beside its other runs); a file unit is admitted whole when its first run gets a slot, because a
file's format decides a unit over all its runs (skilljack's mean scores, a query's trigger rate) and has no rule
for a unit half run. Either way a run already in flight may spend past the budget; no new one starts once it is
spent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Iterable
from contextlib import asynccontextmanager
from typing import Any

from evalens.runner.budget import Budget


class Refused(Exception):
    """The budget was spent before a unit's first run could start: every run of it is SKIP with ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Admission:
    """A batch's slots (``jobs`` agent runs at once) and its budget, shared by every unit and both sides of a
    ``--baseline`` batch."""

    def __init__(self, jobs: int, budget: Budget | None = None) -> None:
        self.jobs = max(1, jobs)
        self.slots = asyncio.Semaphore(self.jobs)
        self.budget = budget if budget is not None else Budget(None, None)

    def gate(self, unit: str, model: str | None = None) -> Gate:
        """The way into a slot for the runs of file unit ``unit`` (``model``: the model its spending is priced at
        when a run's record names none)."""
        return Gate(self, unit, model)


class Gate:
    """One file unit's runs through the batch's :class:`Admission`. Each run waits for a slot; the first to get
    one decides by the budget whether the unit runs at all (:class:`Refused` for it and every later run of it).
    Each run's spending is counted as soon as it finishes, so the next unit waiting for a slot sees it."""

    def __init__(self, admission: Admission, unit: str, model: str | None) -> None:
        self.admission, self.unit, self.model = admission, unit, model
        self._decided = False
        self._refused: str | None = None

    @property
    def parallel(self) -> bool:
        """Whether the unit's runs may go at once (``--jobs`` above 1)."""
        return self.admission.jobs > 1

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Hold a slot for one run of the unit; raises :class:`Refused` when the budget kept the unit out."""
        async with self.admission.slots:
            if not self._decided:
                self._decided = True
                self._refused = self.admission.budget.admit(self.unit)
            if self._refused is not None:
                raise Refused(self._refused)
            yield

    def spend(self, records: Iterable[Any]) -> None:
        """Count what a run's agent records report (a resumed batch's kept run counts as well)."""
        for record in records:
            self.admission.budget.spend_usage(record.usage, getattr(record, "model", None) or self.model)


async def all_of(work: Iterable[Awaitable[None]]) -> None:
    """Run every one of ``work`` as a task and wait for all. Cancelled, or one failed: the others are cancelled
    and waited for (each removes its sandbox) before this raises the first failure."""
    tasks = [asyncio.ensure_future(step) for step in work]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
