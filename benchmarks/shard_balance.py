"""How well ``--shard K/N`` balances a suite (issue 15): wall time of the slowest shard, split by count and by
previous durations (greedy LPT), against the lower bound max(total / N, longest unit).

    python benchmarks/shard_balance.py [--seed 7] [--noise 0.3]

Unit durations are drawn log-normal (median ~55 s, a long tail: agent sessions); "noise" re-draws each unit's
real duration within ±noise of the previous report's, since a run never repeats its last timings exactly.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalens.runner.ci.shard import split  # noqa: E402

SUITES = ((12, 3), (50, 5), (200, 4), (200, 10), (1000, 8))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--noise", type=float, default=0.3)
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    print("| units | shards | lower bound | by count | by durations (LPT) | by count, noisy | LPT, noisy |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n_units, n_shards in SUITES:
        units = [f"u{i:04d}" for i in range(n_units)]
        prior = {u: rng.lognormvariate(4.0, 0.8) for u in units}
        real = {u: v * rng.uniform(1 - args.noise, 1 + args.noise) for u, v in prior.items()}
        by_count, by_time = split(units, n_shards), split(units, n_shards, prior)

        def span(cut, durations):
            return max(sum(durations[u] for u in shard) for shard in cut.shards)

        def bound(durations, n=n_shards):
            return max(sum(durations.values()) / n, max(durations.values()))

        lb, lb_real = bound(prior), bound(real)
        print(
            f"| {n_units} | {n_shards} | {lb:.0f} s | {span(by_count, prior) / lb - 1:+.1%} "
            f"| {span(by_time, prior) / lb - 1:+.1%} | {span(by_count, real) / lb_real - 1:+.1%} "
            f"| {span(by_time, real) / lb_real - 1:+.1%} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
