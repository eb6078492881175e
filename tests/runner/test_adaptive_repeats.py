"""Adaptive repeats (issue #25): the stop rule by hand from Wilson intervals, ``--runs`` parsing, and the
scripted-suite comparison against fixed ``--runs MAX`` (benchmarks/adaptive_repeats.py)."""

from __future__ import annotations

import pytest

from benchmarks.adaptive_repeats import simulate
from evalens.runner import adaptive
from evalens.runner.stats import wilson_interval


def test_parse_runs() -> None:
    assert adaptive.parse_runs("5") == adaptive.RunsSpec(5)
    assert adaptive.parse_runs("auto") == adaptive.RunsSpec(adaptive.DEFAULT_MAX, auto=True)
    assert adaptive.parse_runs("AUTO:12") == adaptive.RunsSpec(12, auto=True)
    assert str(adaptive.parse_runs("auto:7")) == "auto:7"
    for bad in ("0", "auto:0", "auto:x", "many", "-1"):
        with pytest.raises(ValueError):
            adaptive.parse_runs(bad)


def test_stop_rule_follows_the_wilson_interval() -> None:
    # by hand: 3/3 → Wilson 0.4385..1 (straddles 0.5: go on); 4/4 → 0.5101..1 (wholly above: decided)
    assert round(wilson_interval(3, 3)[0], 4) == 0.4385 and round(wilson_interval(4, 4)[0], 4) == 0.5101
    assert adaptive.stop_reason(3, 3, 3, 20) is None
    assert adaptive.stop_reason(4, 4, 4, 20) == "decided-pass"
    assert adaptive.stop_reason(0, 4, 4, 20) == "decided-fail"  # 0/4 → 0..0.4899
    assert adaptive.stop_reason(2, 4, 4, 20) is None
    assert adaptive.stop_reason(2, 4, 4, 4) == "max-reached"
    # ERROR runs count towards MAX, not into the interval: 4 made, 3 counted
    assert adaptive.stop_reason(3, 3, 4, 20) is None
    assert adaptive.stop_reason(0, 0, 5, 5) == "max-reached"
    # a higher threshold needs more evidence: 9/10 → 0.5958..0.9821, not above 0.6
    assert adaptive.stop_reason(9, 10, 10, 20, threshold=0.6) is None
    assert adaptive.stop_reason(9, 10, 10, 20, threshold=0.5) == "decided-pass"


def test_decided_above() -> None:
    assert adaptive.decided_above(4, 4, "decided-pass", 0.5) is True
    assert adaptive.decided_above(0, 4, "decided-fail", 0.5) is False
    assert adaptive.decided_above(3, 5, "max-reached", 0.5) is True
    assert adaptive.decided_above(0, 0, "budget", 0.5) is None


def test_scripted_suite_uses_fewer_runs_at_the_same_accuracy() -> None:
    row = simulate(units=1000, most=10, seed=3)
    assert row.fixed_runs == 10_000
    assert row.auto_runs < 0.7 * row.fixed_runs  # steady units stop after 4 runs
    assert abs(row.auto_correct - row.fixed_correct) <= 0.01 * row.units
    assert sum(row.stops.values()) == row.units and set(row.stops) <= set(adaptive.STOP_REASONS)
    assert simulate(units=200, most=10, seed=3) == simulate(units=200, most=10, seed=3)


def test_leftover_budget_goes_to_units_still_flaky_after_max() -> None:
    # only a unit that reached MAX undecided and both passed and failed gets runs from the budget left
    assert adaptive.wants_leftover(["PASS", "FAIL", "PASS", "PASS"], "max-reached")
    assert not adaptive.wants_leftover(["PASS", "PASS", "PASS"], "max-reached")  # 3/3 at MAX 3: not FLAKY
    assert not adaptive.wants_leftover(["FAIL", "ERROR", "FAIL"], "max-reached")
    assert not adaptive.wants_leftover(["PASS", "FAIL"] * 2, "decided-fail")
    assert not adaptive.wants_leftover(["PASS", "FAIL"] * 2, "budget")
    # by hand: P F P P at MAX 4 (3/4), then passes: 6/7 → Wilson 0.4869..0.9743, still in doubt; 7/8 →
    # 0.5291..0.9776, wholly above 0.5: decided (MAX no longer stops it, the budget does)
    assert round(wilson_interval(6, 7)[0], 4) == 0.4869 and round(wilson_interval(7, 8)[0], 4) == 0.5291
    assert adaptive.decided(6, 7, 7) is None
    assert adaptive.decided(7, 8, 8) == "decided-pass"
    assert adaptive.decided(1, 8, 8) == "decided-fail"  # 1/8 → 0.0224..0.4709
    assert round(wilson_interval(1, 8)[1], 4) == 0.4709
