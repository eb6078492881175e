"""The optimizer's pure parts (runner/trigger_optimize.py): the split, the paired interval, the description
rewrite of SKILL.md."""

from __future__ import annotations

import asyncio

import pytest
import yaml

from evalens.runner import stats
from evalens.runner.trigger_optimize import (
    Candidate,
    Measured,
    OptimizeResult,
    _judge_candidate,
    current_description,
    paired_difference,
    split,
    with_description,
)


def test_split_is_per_label_seeded_and_keeps_both_sides() -> None:
    labels = [True] * 6 + [False] * 2
    held = split(labels, 0.6, 0)
    assert held == split(labels, 0.6, 0)  # the same seed, the same split
    assert sum(h for h, w in zip(held, labels, strict=True) if w) == 4
    assert sum(h for h, w in zip(held, labels, strict=True) if not w) == 1
    assert sum(split([True, True], 0.99, 3)) == 1 and sum(split([True, True], 0.01, 3)) == 1
    assert any(split(labels, 0.5, s) != split(labels, 0.5, 0) for s in range(1, 10))


def test_paired_difference_excludes_zero_only_with_enough_paired_wins() -> None:
    d, lo, hi = paired_difference([(True, False)] * 4 + [(True, True)])
    assert d == pytest.approx(0.8) and lo > 0 and hi <= 1
    d, lo, hi = paired_difference([(True, True)] * 3 + [(False, False)] * 2)  # no change
    assert d == 0 and lo < 0 < hi
    d, lo, hi = paired_difference([(True, False), (True, True), (True, True)])  # one win of three
    assert d == pytest.approx(1 / 3) and lo < 0
    d, lo, hi = paired_difference([(False, True)] * 5)
    assert d == -1 and hi < 0
    with pytest.raises(ValueError):
        paired_difference([])


def test_paired_difference_is_newcombes_method_10_as_published() -> None:
    # Newcombe (1998b), table II, example (a): 36 pairs right both times, 12 right only after, 2 only before,
    # 0 neither (n = 50): θ = +0.2, method 10: 0.0569 to 0.3404
    pairs = [(True, True)] * 36 + [(True, False)] * 12 + [(False, True)] * 2
    assert tuple(round(x, 4) for x in paired_difference(pairs)) == (0.2, 0.0569, 0.3404)
    # issue 44's optimizer case, 6 held-out pairs: 2 right with both, 3 won by the rewrite, 1 wrong with both.
    # Method 10 gives [−0.040, +0.773]; the former copy without the φ correction said [+0.05, +0.73]
    pairs = [(True, True)] * 2 + [(True, False)] * 3 + [(False, False)]
    d, lo, hi = paired_difference(pairs)
    assert (round(d, 3), round(lo, 3), round(hi, 3)) == (0.5, -0.040, 0.773)
    # one statistic: the same numbers as stats.newcombe_paired_difference (both, worse, better, neither)
    assert (d, lo, hi) == stats.newcombe_paired_difference(2, 0, 3, 1)


class _ScriptedOptimizer:
    """Stands in for Optimizer.measure: what fired per query for each description, no agent."""

    skill = "greeter"

    def __init__(self, fired: dict[str, list[str]]) -> None:
        self.fired = fired

    async def measure(self, description: str, queries: list[tuple[str, bool]]) -> Measured:
        runs = self.fired[f"{description}:{len(queries)}"]
        return Measured(queries=list(queries), fired=[[f] for f in runs])


def test_optimize_rejects_a_rewrite_whose_held_out_interval_contains_zero() -> None:
    train = [(f"t{i}", True) for i in range(2)]
    held = [(f"h{i}", True) for i in range(6)]
    current = Candidate("current", "old")
    current.train = Measured(train, [[""], [""]])
    current.held = Measured(held, [["greeter"], ["greeter"], [""], [""], [""], [""]])
    result = OptimizeResult(skill="greeter", train=train, held=held, current=current)

    def judged(held_fired: list[str]) -> Candidate:
        opt = _ScriptedOptimizer({"new:2": ["greeter", "greeter"], "new:6": held_fired})
        cand = Candidate("rewrite 1", "new")
        asyncio.run(_judge_candidate(opt, result, cand))  # type: ignore[arg-type]
        return cand

    # 3 held-out wins, no loss: [−0.040, +0.773] contains 0, so no acceptance
    cand = judged(["greeter"] * 5 + [""])
    assert not cand.accepted and cand.difference == (0.5, -0.0403, 0.7732)
    assert "does not exclude 0" in cand.why
    # 4 wins (all six right): [+0.07, +0.87] lies above 0, accepted
    cand = judged(["greeter"] * 6)
    assert cand.accepted and cand.difference is not None and cand.difference[1] > 0, cand.why


def test_with_description_replaces_only_the_description() -> None:
    text = "---\nname: greeter\ndescription: >\n  Writes\n  greetings.\nlicense: MIT\n---\n# Body: description: x\n"
    new = with_description(text, 'Writes "greetings": for people.')
    assert new.endswith("---\n# Body: description: x\n")
    data = yaml.safe_load(new.split("---\n")[1])
    assert data == {"name": "greeter", "description": 'Writes "greetings": for people.', "license": "MIT"}
    assert current_description(new) == 'Writes "greetings": for people.'
    assert current_description(text) == "Writes greetings.\n"
    with pytest.raises(ValueError):
        with_description("no frontmatter", "x")


def test_pairs_and_what_other_skills_fired() -> None:
    from evalens.runner.trigger_optimize import Measured, pairs_of

    queries = [("greet", True), ("merge pdfs", False), ("weather", False)]
    old = Measured(queries, [["pdf-tools", "greeter"], ["pdf-tools", "pdf-tools"], ["", None]])
    new = Measured(queries, [["greeter", "greeter"], ["greeter", "pdf-tools"], ["", ""]])
    # (new right, old right) per query and run; the run that errored on the old side is dropped
    assert pairs_of(new, old, "greeter") == [
        (True, False),
        (True, True),
        (False, True),
        (True, True),
        (True, True),
    ]
    assert old.others_fired("greeter") == {"pdf-tools": 2} and new.others_fired("greeter") == {"pdf-tools": 1}
    assert old.score("greeter") == (4, 5) and new.score("greeter") == (5, 6)
