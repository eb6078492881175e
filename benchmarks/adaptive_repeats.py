"""Adaptive repeats against fixed ``--runs MAX`` on a scripted suite (issue #25): runs used, decision accuracy.

    python benchmarks/adaptive_repeats.py [--units 2000] [--seed 25] [--threshold 0.5] [--max 5,10,20]

Each simulated unit has a true pass rate drawn from a mix that looks like real suites (most units nearly always
pass or nearly always fail, some are flaky). A decision is correct when it puts the unit on the right side of
the threshold. Fixed ``--runs MAX`` reads each unit by its observed rate after MAX runs; ``--runs auto:MAX`` stops
a unit by ``runner/adaptive.py::stop_reason`` and reads it by :func:`decided_above`. Both see the same run
outcomes (the same random stream per unit), so the comparison is paired.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evalens.runner.adaptive import decided_above, stop_reason  # noqa: E402

#: (weight, true pass rate): a suite's units, most steady, some flaky
MIX = ((0.35, 1.0), (0.15, 0.95), (0.1, 0.8), (0.1, 0.65), (0.1, 0.3), (0.05, 0.1), (0.15, 0.0))


@dataclass(frozen=True)
class Row:
    most: int
    units: int
    fixed_runs: int
    fixed_correct: int
    auto_runs: int
    auto_correct: int
    stops: dict[str, int]

    @property
    def saved(self) -> float:
        return 1 - self.auto_runs / self.fixed_runs


def simulate(units: int, most: int, threshold: float = 0.5, seed: int = 25) -> Row:
    """Fixed MAX runs against ``auto:MAX`` on ``units`` scripted units. Pure given the seed."""
    rng = random.Random(seed)
    rates = rng.choices([p for _, p in MIX], weights=[w for w, _ in MIX], k=units)
    fixed_correct = auto_correct = auto_runs = 0
    stops: dict[str, int] = {}
    for p in rates:
        outcomes = [rng.random() < p for _ in range(most)]  # the same runs for both policies
        truth = p > threshold
        fixed_correct += (sum(outcomes) / most > threshold) == truth
        passed = made = 0
        reason = None
        while reason is None:
            passed += outcomes[made]
            made += 1
            reason = stop_reason(passed, made, made, most, threshold)
        auto_runs += made
        stops[reason] = stops.get(reason, 0) + 1
        auto_correct += decided_above(passed, made, reason, threshold) == truth
    return Row(most, units, units * most, fixed_correct, auto_runs, auto_correct, stops)


def table(rows: list[Row]) -> str:
    lines = [
        "| MAX | units | runs, fixed MAX | runs, auto:MAX | saved | accuracy, fixed | accuracy, auto | "
        "auto stops (pass / fail / max) |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.most} | {r.units} | {r.fixed_runs} | {r.auto_runs} | {r.saved:.0%} | "
            f"{r.fixed_correct / r.units:.1%} | {r.auto_correct / r.units:.1%} | "
            f"{r.stops.get('decided-pass', 0)} / {r.stops.get('decided-fail', 0)} / {r.stops.get('max-reached', 0)} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--max", default="5,10,20")
    args = parser.parse_args()
    rows = [simulate(args.units, int(m), args.threshold, args.seed) for m in args.max.split(",")]
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
