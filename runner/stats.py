"""How sure a verdict is when a unit ran more than once: counts, a Wilson interval, pass^k, flakiness, uplift.

Agents are not deterministic, so one PASS says little. These are the numbers promptfoo, Inspect and tau-bench
users ask for, computed one way for every format (docs/repeats.md):

- the pass rate with a 95% **Wilson score interval** (well-behaved at 0/N and N/N, unlike the normal
  approximation);
- **pass^k**: the chance that k independent runs *all* pass, estimated without bias as C(c, k) / C(n, k)
  from c passes in n runs (tau-bench's definition);
- **FLAKY**: a unit that both passed and failed; errored and skipped runs say nothing about the skill, so they
  are left out of the rate and counted on their own;
- **uplift**: the difference of two pass rates (with and without the skill) with Newcombe's hybrid score
  interval, which is built from the two Wilson intervals.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from evalens.runner.verdicts import State, count_passed, unit_state

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal


def wilson_interval(passed: int, runs: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``passed / runs``; (0, 1) when nothing ran (nothing is known)."""
    if runs <= 0:
        return 0.0, 1.0
    if not 0 <= passed <= runs:
        raise ValueError(f"passed={passed} is not within 0..{runs}")
    p = passed / runs
    z2 = z * z
    centre = (p + z2 / (2 * runs)) / (1 + z2 / runs)
    half = z / (1 + z2 / runs) * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs))
    lo = 0.0 if passed == 0 else max(0.0, centre - half)  # exact at the bounds (float noise otherwise)
    hi = 1.0 if passed == runs else min(1.0, centre + half)
    return lo, hi


def pass_hat_k(passed: int, runs: int, k: int) -> float | None:
    """Unbiased estimate that ``k`` fresh runs all pass: C(passed, k) / C(runs, k); None when k > runs."""
    if k < 1 or k > runs:
        return None
    return math.comb(passed, k) / math.comb(runs, k)


def pass_at_k(passed: int, runs: int, k: int) -> float | None:
    """Unbiased estimate that at least one of ``k`` fresh runs passes: 1 - C(runs - passed, k) / C(runs, k)
    (Chen et al. 2021, HumanEval's pass@k); None when k > runs."""
    if k < 1 or k > runs:
        return None
    return 1.0 - math.comb(runs - passed, k) / math.comb(runs, k)


def at_least_k(passed: int, runs: int, k: int) -> float | None:
    """Inspect's ``at_least(k)`` reducer: 1.0 when at least ``k`` of the ``runs`` counted runs passed, else 0.0;
    None when k > runs (fewer counted runs than asked about)."""
    if k < 1 or k > runs:
        return None
    return 1.0 if passed >= k else 0.0


def newcombe_difference(
    a_passed: int, a_runs: int, b_passed: int, b_runs: int, z: float = Z95
) -> tuple[float, float, float]:
    """``rate(a) - rate(b)`` and its 95% interval (Newcombe 1998, method 10: hybrid score from Wilson limits)."""
    if a_runs <= 0 or b_runs <= 0:
        raise ValueError("both sides need at least one counted run")
    p1, p2 = a_passed / a_runs, b_passed / b_runs
    l1, u1 = wilson_interval(a_passed, a_runs, z)
    l2, u2 = wilson_interval(b_passed, b_runs, z)
    d = p1 - p2
    lower = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    upper = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, max(-1.0, lower), min(1.0, upper)


@dataclass(frozen=True)
class Repeats:
    """What N runs of one unit add up to."""

    runs: int
    passed: int
    failed: int
    errored: int
    skipped: int
    budget: int = 0  # runs a budget kept from starting (among the skipped)

    @classmethod
    def of(cls, verdicts: Iterable[str], budget: int = 0) -> Repeats:
        vs = list(verdicts)
        return cls(
            runs=len(vs),
            passed=count_passed(vs),
            failed=vs.count("FAIL"),
            errored=vs.count("ERROR"),
            skipped=vs.count("SKIP"),
            budget=budget,
        )

    @property
    def counted(self) -> int:
        """Runs that said something about the skill: a PASS or a FAIL."""
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.counted if self.counted else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.passed, self.counted) if self.counted else None

    @property
    def pass_hat_k(self) -> float | None:
        """pass^k with k = every run asked for (N): None unless all N runs passed or failed, since a run that
        errored or never started says nothing, and pass^1 of one counted run is no pass^3."""
        return pass_hat_k(self.passed, self.counted, self.runs) if self.counted == self.runs else None

    @property
    def state(self) -> State:
        """The state every face shows, from the one verdict function (:func:`~evalens.runner.verdicts.unit_state`):
        PASS only if every run passed; FLAKY if it both passed and failed with no ERROR; BUDGET when a budget cut
        it short; else FAIL, ERROR or SKIP."""
        return unit_state(
            ["PASS"] * self.passed
            + ["FAIL"] * self.failed
            + ["ERROR"] * self.errored
            + ["SKIP"] * self.skipped,
            self.budget,
        )[1]

    def pass_at(self) -> dict[str, float]:
        """pass@k for k = 1 … counted runs (unbiased, over the runs that passed or failed)."""
        return {
            str(k): round(v, 4)
            for k in range(1, self.counted + 1)
            if (v := pass_at_k(self.passed, self.counted, k)) is not None
        }

    def at_least(self) -> dict[str, float]:
        """at-least-k for k = 1 … counted runs."""
        return {
            str(k): v
            for k in range(1, self.counted + 1)
            if (v := at_least_k(self.passed, self.counted, k)) is not None
        }

    def label(self) -> str:
        """``3/5`` (passes of counted runs), with errored runs named: ``3/5 +1 error``."""
        text = f"{self.passed}/{self.counted}"
        if self.errored:
            text += f" +{self.errored} error" + ("s" if self.errored > 1 else "")
        if self.budget:
            text += f" +{self.budget} not started (budget)"
        return text


def batch_pass_hat_k(units: Iterable[Repeats], k: int) -> float | None:
    """Mean pass^k over the units that have at least ``k`` counted runs (None if none has)."""
    values = [v for u in units if (v := pass_hat_k(u.passed, u.counted, k)) is not None]
    return sum(values) / len(values) if values else None


def exit_state_fails(state: State, flaky: Literal["fail", "pass"] = "fail") -> bool:
    """Does a unit in this state fail the run (``--flaky fail|pass`` decides for FLAKY; BUDGET, like SKIP,
    does not: the user set the budget)?"""
    if state == "FLAKY":
        return flaky == "fail"
    return state in ("FAIL", "ERROR")


# --------------------------------------------------------------------------- paired comparisons (eval diff)


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs (``worse`` passed before and failed after,
    ``better`` the other way) under H0 are Binomial(worse + better, 1/2); p = 2 · P(X ≤ min), capped at 1.
    Concordant pairs say nothing about a change, so they do not enter."""
    if worse < 0 or better < 0:
        raise ValueError("discordant counts cannot be negative")
    n = worse + better
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(worse, better) + 1))
    return min(1.0, 2 * tail / 2**n)


def newcombe_paired_difference(
    both: int, worse: int, better: int, neither: int, z: float = Z95
) -> tuple[float, float, float]:
    """``rate(after) - rate(before)`` of paired binary outcomes and its 95% interval (Newcombe 1998b, method 10:
    square-and-add of the two Wilson intervals, corrected by the pairs' correlation φ). ``both`` passed before
    and after, ``worse`` passed before only, ``better`` after only, ``neither`` failed both times."""
    n = both + worse + better + neither
    if n <= 0:
        raise ValueError("no pairs")
    before, after = both + worse, both + better
    p1, p2 = before / n, after / n
    l1, u1 = wilson_interval(before, n, z)
    l2, u2 = wilson_interval(after, n, z)
    margins = before * (n - before) * after * (n - after)
    phi = 0.0
    if margins:
        cross = both * neither - worse * better
        # Newcombe's continuity-corrected φ: positive products are shrunk by n/2 (not below 0)
        phi = (cross - n / 2 if cross > n / 2 else 0.0 if cross >= 0 else cross) / math.sqrt(margins)
    d = p2 - p1
    lower = d - math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    upper = d + math.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return d, max(-1.0, lower), min(1.0, upper)


def paired_bootstrap(
    pairs: Iterable[tuple[tuple[int, int], tuple[int, int]]],
    *,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """Mean per-unit change of the pass rate and its percentile interval, for units run more than once.

    ``pairs``: per unit ``((passed, counted) before, (passed, counted) after)``. Each resample draws the units
    with replacement (the units are the sample: a suite is a few units, not many runs) and, within each drawn
    unit, each side's rate from its Jeffreys posterior Beta(k + ½, n − k + ½), so a unit's own run-to-run
    uncertainty counts too: 3/3 against 3/3 is not a proof of "no change". Seeded: the same reports give the
    same interval."""
    units = [(b, a) for b, a in pairs]
    if not units:
        raise ValueError("no pairs")
    if any(n <= 0 or m <= 0 for (_, n), (_, m) in units):
        raise ValueError("every pair needs a counted run on both sides")
    observed = sum(a / m - b / n for (b, n), (a, m) in units) / len(units)
    rng = random.Random(seed)
    size = len(units)
    means = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(size):
            (b, n), (a, m) = units[rng.randrange(size)]
            total += rng.betavariate(a + 0.5, m - a + 0.5) - rng.betavariate(b + 0.5, n - b + 0.5)
        means.append(total / size)
    means.sort()
    tail = (1 - level) / 2
    lo = means[max(0, math.floor(tail * resamples))]
    hi = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return observed, max(-1.0, lo), min(1.0, hi)


# --------------------------------------------------------------------------- judge agreement (--judge-repeats)


def flip_rate(labels: Iterable[str]) -> float | None:
    """How often two judgements of the same transcript disagree: the share of unordered pairs of ``labels``
    that differ (0: every judgement agreed; 0.5 for PASS, FAIL; None with fewer than two)."""
    seen = list(labels)
    k = len(seen)
    if k < 2:
        return None
    same = sum(n * (n - 1) for n in (seen.count(v) for v in set(seen)))
    return 1 - same / (k * (k - 1))


def krippendorff_alpha_nominal(units: Iterable[Iterable[str]]) -> float | None:
    """Krippendorff's α for nominal labels (each unit: the labels its judgements gave; a unit may have any
    number, units with fewer than two are left out). 1 is perfect agreement, 0 what chance alone gives. None
    when nothing is pairable or every label is the same (no variation: α is undefined)."""
    coincidence: defaultdict[tuple[str, str], float] = defaultdict(float)
    for unit in units:
        values = list(unit)
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, nc in counts.items():
            for k, nk in counts.items():
                pairs = nc * (nk - 1) if c == k else nc * nk
                coincidence[(c, k)] += pairs / (m - 1)
    totals: defaultdict[str, float] = defaultdict(float)
    for (c, _k), v in coincidence.items():
        totals[c] += v
    n = sum(totals.values())
    if n <= 1:
        return None
    observed = sum(v for (c, k), v in coincidence.items() if c != k)
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k)
    if expected == 0:
        return None
    return 1 - (n - 1) * observed / expected


def flip_fields(judged: Iterable[Iterable[str]]) -> dict[str, Any]:
    """A unit's ``judge_flip_rate`` (the mean flip rate of its repeatedly judged items: a UAAPS case's runs, a
    graded case's statements in each run) and ``judge_verdicts`` (the last item's judgements), for the report's
    case; nothing when no item was judged more than once. One rule for every format."""
    items = [list(j) for j in judged]
    items = [j for j in items if len(j) > 1]
    if not items:
        return {}
    rates = [x for j in items if (x := flip_rate(j)) is not None]
    return {"judge_flip_rate": round(sum(rates) / len(rates), 4), "judge_verdicts": list(items[-1])}


def agreement_fields(judged: Iterable[Iterable[str]], repeats: int) -> dict[str, Any]:
    """The report's ``judge.repeats`` and ``judge.agreement`` (Krippendorff's α over every repeatedly judged item
    of the batch) with ``--judge-repeats K`` above 1; nothing otherwise."""
    if repeats <= 1:
        return {}
    alpha = krippendorff_alpha_nominal([list(j) for j in judged])
    return {"repeats": repeats, "agreement": None if alpha is None else round(alpha, 4)}
