"""Adaptive repeats: ``--runs auto[:MAX]`` runs a unit again only while its verdict is still in doubt.

A unit stops as soon as the 95% Wilson interval of its pass rate (:func:`stats.wilson_interval`, over the runs
that passed or failed) lies wholly above the threshold (**decided-pass**: it passes more often than that, with
95% confidence) or wholly below it (**decided-fail**), or when MAX runs were made (**max-reached**), or when a
budget kept the next run from starting (**budget**). With a budget (``--max-cost`` / ``--max-tokens``), what is
left of it once every unit stopped goes to the units still FLAKY after MAX runs (:func:`wants_leftover`): one
more run of each per round, until each is decided or the budget is spent (then its reason is **budget**). The
unit's verdict and state stay the strict ones of
``runner/verdicts.py`` (a unit that passed 9 of 10 runs is FLAKY even when it was decided above the
threshold); the stop reason says why no more runs were made. An ERROR run counts towards MAX but not into the
interval: it says nothing about the skill.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from evalens.runner.stats import wilson_interval
from evalens.runner.verdicts import count_passed, counted

StopReason = Literal["decided-pass", "decided-fail", "max-reached", "budget"]
STOP_REASONS: tuple[StopReason, ...] = ("decided-pass", "decided-fail", "max-reached", "budget")

DEFAULT_MAX = 20
DEFAULT_THRESHOLD = 0.5


@dataclass(frozen=True, slots=True)
class RunsSpec:
    """``--runs``: a fixed count, or ``auto`` with a most."""

    count: int  # the fixed count; with auto, MAX
    auto: bool = False

    def __str__(self) -> str:
        return f"auto:{self.count}" if self.auto else str(self.count)


def parse_runs(text: str) -> RunsSpec:
    """``5`` → 5 runs; ``auto`` → adaptive up to 20; ``auto:12`` → adaptive up to 12 (ValueError otherwise)."""
    word = text.strip().lower()
    if word == "auto":
        return RunsSpec(DEFAULT_MAX, auto=True)
    if word.startswith("auto:"):
        most = int(word[5:])
        if most < 1:
            raise ValueError("auto:MAX needs MAX of at least 1")
        return RunsSpec(most, auto=True)
    count = int(word)
    if count < 1:
        raise ValueError("--runs must be at least 1")
    return RunsSpec(count)


def stop_reason(
    passed: int, counted: int, made: int, most: int, threshold: float = DEFAULT_THRESHOLD
) -> StopReason | None:
    """Why no further run should start after ``made`` runs (``passed`` of the ``counted`` PASS/FAIL ones), or
    None to run again. Pure."""
    if counted:
        lo, hi = wilson_interval(passed, counted)
        if lo > threshold:
            return "decided-pass"
        if hi < threshold:
            return "decided-fail"
    if made >= most:
        return "max-reached"
    return None


def stop_after(
    verdicts: Sequence[str], made: int, most: int, threshold: float = DEFAULT_THRESHOLD
) -> StopReason | None:
    """:func:`stop_reason` over a unit's run verdicts so far (PASS and FAIL counted, an ERROR not): the one
    reading both pipelines stop a unit's runs by (a package's case, a file's unit)."""
    return stop_reason(count_passed(verdicts), sum(1 for v in verdicts if counted(v)), made, most, threshold)


def decided_above(passed: int, counted: int, reason: StopReason | None, threshold: float) -> bool | None:
    """What the runs say of the unit: its pass rate above the threshold (True), below (False); a unit that was
    not decided is read by its observed rate (None when nothing was counted)."""
    if reason == "decided-pass":
        return True
    if reason == "decided-fail":
        return False
    return passed / counted > threshold if counted else None


def wants_leftover(verdicts: Sequence[str], reason: str | None) -> bool:
    """Whether a unit gets more runs from the budget left: it reached MAX undecided and is still FLAKY (it both
    passed and failed); a unit that only passed, only failed or errored has nothing a further run would settle
    that MAX did not. Pure."""
    return reason == "max-reached" and "PASS" in verdicts and "FAIL" in verdicts


def decided(passed: int, counted: int, made: int, threshold: float = DEFAULT_THRESHOLD) -> StopReason | None:
    """After a leftover run: decided-pass / decided-fail when the interval now clears the threshold, else None
    (MAX no longer stops it; the budget does)."""
    return stop_reason(passed, counted, made, made + 1, threshold)
