"""The scheduler every format's batch shares (runner/scheduling.py): slots bound the runs in flight, a file unit is
admitted by the budget once (at its first run) and each run's spending counts as it finishes."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from evalens.runner.budget import Budget
from evalens.runner.scheduling import Admission, Refused, all_of


def _usage(tokens: int) -> SimpleNamespace:
    return SimpleNamespace(
        usage=SimpleNamespace(input_tokens=tokens, output_tokens=0, cost_usd=None), model=None
    )


async def test_the_slots_bound_the_runs_in_flight_across_units() -> None:
    admission = Admission(2)
    flying, most = 0, 0

    async def run(unit: str) -> None:
        nonlocal flying, most
        async with admission.gate(unit).run():
            flying += 1
            most = max(most, flying)
            await asyncio.sleep(0.01)
            flying -= 1

    await all_of(run(u) for u in "abcde")
    assert most == 2


async def test_a_unit_is_admitted_once_and_every_later_run_of_it_follows() -> None:
    """The first run to get a slot decides; a unit admitted keeps running past the budget (its other runs), a unit
    refused is refused for every run."""
    budget = Budget(None, 10)
    admission = Admission(1, budget)
    first = admission.gate("first")
    async with first.run():
        first.spend([_usage(10)])  # the budget is spent by the first run
    async with first.run():  # the same unit's next run still goes
        pass
    late = admission.gate("late")
    for _ in range(2):
        with pytest.raises(Refused) as refused:
            async with late.run():
                pytest.fail("a refused unit never runs")
        assert "budget spent" in refused.value.reason
    assert budget.started == 1 and budget.refused == ["late"]


def test_only_more_than_one_job_runs_a_units_repeats_at_once() -> None:
    assert not Admission(1).gate("u").parallel
    assert Admission(3).gate("u").parallel
    assert not Admission(0).gate("u").parallel  # never fewer than one slot


async def test_one_failure_cancels_the_others_and_is_raised() -> None:
    cancelled: list[str] = []

    async def slow(name: str) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(name)
            raise

    async def boom() -> None:
        await asyncio.sleep(0)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await all_of([slow("a"), boom(), slow("b")])
    assert sorted(cancelled) == ["a", "b"]
