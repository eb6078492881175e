"""Pairwise arm-vs-arm judging (runner/pairwise.py, issue #25) against the fake judge: each unit's two outputs are
judged twice with the order swapped, so a judge that always prefers the first answer it reads (position bias)
gives a tie, never a win, and a judge that prefers the same output in both orders gives a win (or a loss)."""

from __future__ import annotations

import pytest

from evalens.runner.judge import resolve_judge
from evalens.runner.pairwise import judge_pair, tally

JUDGES = ["claude-judge", "openai:gpt-judge"]
GOOD, BAD = "DONE GREETING-OK: the greeting is written", "nothing useful"


@pytest.mark.parametrize("judge", JUDGES)
async def test_position_bias_is_a_tie_and_a_consistent_preference_a_win(model_env, judge: str) -> None:
    spec = resolve_judge(judge, default_provider="anthropic")
    biased = await judge_pair(spec, "The agent greeted. JUDGE=prefer-a", "greet", GOOD, BAD)
    # reference shown as A: "A" (the reference); swapped: "A" again (now the other arm): the orders disagree
    assert (biased.first, biased.second, biased.result) == ("A", "A", "tie"), biased
    consistent = await judge_pair(spec, "The agent greeted. JUDGE=pass", "greet", GOOD, BAD)
    assert (consistent.first, consistent.second, consistent.result) == ("A", "B", "win"), consistent
    worse = await judge_pair(spec, "The agent greeted. JUDGE=pass", "greet", BAD, GOOD)
    assert (worse.first, worse.second, worse.result) == ("B", "A", "loss"), worse
    even = await judge_pair(spec, "The agent greeted. JUDGE=pass", "greet", GOOD, GOOD)
    assert (even.first, even.second, even.result) == ("TIE", "TIE", "tie"), even
    broken = await judge_pair(spec, "The agent greeted. JUDGE=err500", "greet", GOOD, BAD, deadline=5)
    assert broken.result == "ERROR" and broken.first is None, broken  # no judgement: ERROR, not a tie
    counted = tally({"a": consistent, "b": biased, "c": worse, "d": even, "e": broken}, spec.model)
    assert (counted.wins, counted.ties, counted.losses, counted.errors) == (1, 2, 1, 1)
