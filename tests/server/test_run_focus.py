"""The editor's repeats, focused re-runs and budgets without an agent: the ``evalens.run.*`` settings group,
command options, the file-level lenses and one budget per batch (server/features/run_focus.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from evalens.runner.budget import Budget
from evalens.runner.results import UnitResult
from evalens.server.features import run_focus
from evalens.server.features.run_state import Slots, read_args
from evalens.server.settings import Settings
from evalens.server.wire import CaseCommandArgs


def test_run_settings_group_updates_key_by_key():
    s = Settings()
    assert (s.run.repeats, s.run.max_cost, s.run.max_tokens) == (5, None, None)
    errors = s.update({"evalens": {"run": {"repeats": 3, "maxCost": "lots"}, "maxParallelRuns": 3}})
    assert errors == [
        "evalens.run.maxCost: Input should be a valid number, unable to parse string as a number (got 'lots')"
    ]
    assert (s.run.repeats, s.run.max_cost, s.max_parallel_runs) == (3, None, 3)  # the good keys still apply
    assert s.update({"run": {"maxTokens": 1000}}) == [] and (s.run.repeats, s.run.max_tokens) == (3, 1000)
    assert s.update({"run": {"repeats": None}}) == [] and s.run.repeats == 5  # null: that key's default
    assert s.update({"run": {"repeats": -1}})[0].startswith("evalens.run.repeats:") and s.run.repeats == 5
    assert s.update({"run": 7})[0].startswith("evalens.run:") and s.run.max_tokens == 1000
    assert s.update({"run": None}) == [] and s.run.max_tokens is None


def test_options_are_checked():
    """Read as the run commands read them (wire.CaseCommandArgs), each wrong one named."""

    def read(raw: dict) -> CaseCommandArgs:
        return read_args(CaseCommandArgs, (raw,), "evalens.runFile")

    assert (read({}).runs, read({}).select, read({}).batch) == (None, None, None)
    a = read({"runs": 5, "select": "stale", "batch": "b1"})
    assert (a.runs, a.select, a.batch) == (5, "stale", "b1")
    for bad in ({"runs": 0}, {"runs": True}, {"runs": "5"}, {"runs": 101}, {"select": "all"}, {"batch": 3}):
        with pytest.raises(JsonRpcInvalidParams, match=f"`{next(iter(bad))}`"):
            read(bad)


def _record(
    verdict: str, state: str | None = None, stale: list[str] | None = None, report: str | None = "r.json"
) -> SimpleNamespace:
    return SimpleNamespace(
        result=UnitResult(name="x", verdict=verdict, state=state, stale=stale or []), report_path=report
    )


def test_file_lenses_count_failed_and_stale_and_hide_while_running():
    root = Path("/pkg")
    records = {
        "a": _record("PASS"),
        "b": _record("FAIL", "FLAKY"),
        "c": _record("ERROR", stale=["skill x changed"]),
        "d": _record("SKIP"),
        "*": _record("FAIL"),
    }
    found = run_focus.file_lenses("file:///pkg/tasks.yaml", root, records, {})
    assert [(lens.command.title, lens.command.arguments) for lens in found] == [
        ("↻ Run failed (2)", [{"uri": "file:///pkg/tasks.yaml", "select": "failed"}]),
        ("↻ Run stale (1)", [{"uri": "file:///pkg/tasks.yaml", "select": "stale"}]),
    ]
    assert all(lens.range.start.line == 0 for lens in found)
    assert run_focus.file_lenses("u", root, {"a": _record("PASS"), "d": _record("SKIP")}, {}) == []
    assert (
        run_focus.file_lenses("u", root, {"e": _record("ERROR", report=None)}, {}) == []
    )  # refused: no report
    assert run_focus.file_lenses("u", root, records, {("/pkg", "a"): object()}) == []
    assert run_focus.file_lenses("u", root, records, {("/other", "a"): object()}) != []


def test_one_budget_per_batch_named_after_the_settings():
    budgets = run_focus.Budgets()
    s = Settings()
    assert budgets.for_batch(s, None) is None  # no limit set: no budget
    s.update({"run": {"maxCost": 0.01}})
    one = budgets.for_batch(s, "b1")
    assert budgets.for_batch(s, "b1") is one and budgets.for_batch(s, "b2") is not one
    assert budgets.for_batch(s, None) is not budgets.for_batch(s, None)  # a single command is its own batch
    one.spend(0.02, 10)
    assert one.admit("next") == "budget spent: $0.0200 of evalens.run.maxCost $0.0100"
    for i in range(run_focus.Budgets.KEEP + 1):
        budgets.for_batch(s, f"other-{i}")
    assert budgets.for_batch(s, "b1") is not one  # old batches are forgotten
    assert Budget(None, 5).admit("u") is None


def test_slots_take_several_within_the_limit():
    async def main() -> list[int]:
        limit = 3
        slots = Slots(lambda: limit)
        assert await slots.acquire(5) == 3  # a unit repeated 5x with 3 slots runs 3 at a time
        waiting = asyncio.ensure_future(slots.acquire(1))
        await asyncio.sleep(0.01)
        assert not waiting.done()
        await slots.release(3)
        return [await waiting]

    assert asyncio.run(main()) == [1]


def test_run_stale_counts_the_never_run_units_it_also_runs():
    """Issue 27 #8: "Run stale (3)" ran 4 units: --stale runs never-run units too, so the count includes them."""
    records = {"a": _record("PASS", stale=["skill x changed"]), "b": _record("PASS")}
    found = run_focus.file_lenses("u", Path("/pkg"), records, {}, never_ran=2)
    assert [lens.command.title for lens in found] == ["↻ Run stale (3: 1 stale, 2 never ran)"]
    # no stale verdict: no "Run stale" lens, as before (never-run units alone are not stale verdicts)
    assert run_focus.file_lenses("u", Path("/pkg"), {"b": _record("PASS")}, {}, never_ran=2) == []
