"""The trigger report's arithmetic (runner/trigger_report.py): runs counted by their first fired skill, ERROR runs
apart, Wilson intervals, stolen-by / stole-from and the lens words."""

from __future__ import annotations

from typing import Any

import pytest

from evalens.runner.trigger_report import query_label, trigger_report


def unit(
    query: str, want: bool, *fired: str | None, errors: int = 0, also: str | None = None
) -> dict[str, Any]:
    runs: list[dict[str, Any]] = [
        {"skill": f, "how": "tool-call" if f else None, "also": [also] if also else []} for f in fired
    ]
    runs += [{"error": "agent error (API status 500): boom"}] * errors
    return {"query": query, "should_trigger": want, "skill": "greeter", "fired": runs}


def test_rates_count_runs_and_leave_errors_out() -> None:
    lab = trigger_report(
        [
            ("0", unit("greet Ann", True, "greeter", "greeter", None)),
            ("1", unit("greet Bob", True, "pdf-tools", "greeter", errors=1)),
            ("2", unit("weather", False, None, "greeter", also="pdf-tools")),
        ]
    )
    assert lab is not None
    assert (lab.recall.hits, lab.recall.of) == (3, 5)
    assert (lab.precision.hits, lab.precision.of) == (3, 4)
    assert lab.errors == 1
    assert lab.recall.interval == pytest.approx((0.2307, 0.8824), abs=1e-3)
    assert [(r.unit, s, n) for r, s, n in lab.stolen_by()] == [("1", "pdf-tools", 1)]
    assert [(r.unit, s, n) for r, s, n in lab.stole_from()] == [("2", "pdf-tools", 1)]
    assert lab.confusion()[0] == ["query", "should", "greeter", "pdf-tools", "(none)", "errors"]
    assert lab.confusion()[2] == ["greet Bob", "fire", "1", "1", "0", "1"]
    assert "1 ERROR run(s) not counted" in lab.summary_lines()[0]


def test_nothing_counted_is_no_rate_and_no_label() -> None:
    lab = trigger_report([("0", unit("greet", True, errors=2))])
    assert lab is not None and lab.recall.value is None and lab.recall.text() == "n/a (no counted runs)"
    assert query_label(unit("greet", True, errors=2)) is None
    assert trigger_report([("0", {"query": "q", "should_trigger": True})]) is None  # no per-run firings


@pytest.mark.parametrize(
    ("details", "label"),
    [
        (unit("q", True, "greeter", "greeter", "pdf-tools"), "✓ fired 2/3"),
        (unit("q", True, "pdf-tools", "pdf-tools", "greeter"), "✗ stolen by pdf-tools 2/3"),
        (unit("q", True, None, None), "✗ not fired 0/2"),
        (unit("q", False, "greeter", None), "✗ fired 1/2 (should not)"),
        (unit("q", False, "pdf-tools", None, None), "✓ not fired 3/3"),
    ],
)
def test_lens_words(details: dict[str, Any], label: str) -> None:
    assert query_label(details) == label
