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
