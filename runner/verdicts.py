"""The verdict rules of ``docs/verdicts.md``, in one place for every format and every face.

* :func:`unit_verdict`: one run of one unit, from what really happened (agent error, failed checks, judge).
* :func:`combine_runs`: repeated runs of one unit (rule 5).
* :func:`unit_state`: the verdict and the state (FLAKY, BUDGET) of repeated runs: every face derives both from it.
* :func:`combine_judgements`: one transcript judged several times (``--judge-repeats``).
* :func:`combine_units`: the units of one file, for its ``*`` unit.
* :func:`graded_verdict`: units graded statement by statement (skill-creator, writing-skills; rule 3).
* :func:`scored_verdict`: units scored over repeated runs against thresholds (skilljack, live and restored).
* :func:`check_status`, :func:`held`, :func:`passed`, :func:`count_passed`, :func:`counted`, :func:`read_verdict`: the words
  themselves. No other module compares to ``"PASS"`` to decide anything (``tests/core/test_verdict_module.py``
  greps for it); faces that only display a verdict are allow-listed there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evalens.core.models.verdict import CheckStatus, JudgeRuling, State, Verdict

VERDICTS: tuple[Verdict, ...] = ("PASS", "FAIL", "ERROR", "SKIP")


@dataclass(frozen=True, slots=True)
class Judged:
    """A judge's outcome, typed: it passed the unit, failed it, or could not judge (``passed`` None: ERROR)."""

    passed: bool | None
    reason: str

    @classmethod
    def of(cls, verdict: str, reason: str) -> Judged:
        """From a judge's answer word (``judge.JudgeOutcome.verdict``): anything but PASS / FAIL is no verdict."""
        return cls(True if verdict == "PASS" else False if verdict == "FAIL" else None, reason)


def check_status(ok: bool) -> CheckStatus:
    """A check's status from whether it held."""
    return "PASS" if ok else "FAIL"


def decided(ok: bool) -> Verdict:
    """The verdict of a run that happened and was ruled on either way (a trigger run fired as it should)."""
    return "PASS" if ok else "FAIL"


def held(status: str | None) -> bool:
    """Whether a check (or a judge answer) with this status held."""
    return status == "PASS"


def passed(verdict: str | None) -> bool:
    """Whether a unit's verdict (or state) is a pass: only PASS is; FLAKY, SKIP and ERROR never are."""
    return verdict == "PASS"


def count_passed(verdicts: Iterable[str]) -> int:
    """How many verdicts are passes (summaries count with this, never by comparing words)."""
    return sum(1 for v in verdicts if v == "PASS")


def read_verdict(word: object, unknown: Verdict = "ERROR") -> Verdict:
    """A verdict word read from a file or a reply (case-insensitive); anything else is ``unknown`` (ERROR: a word
    this version does not know must never read as a pass)."""
    text = str(word or "").upper()
    return next((v for v in VERDICTS if v == text), unknown)


def counted(verdict: str) -> bool:
    """Whether a run's verdict says something about the skill (a PASS or a FAIL; an ERROR or SKIP does not)."""
    return verdict in ("PASS", "FAIL")


def known_verdict(word: object) -> bool:
    """Whether ``word`` is exactly one of the four verdicts."""
    return word in VERDICTS


def unit_verdict(
    *,
    agent_error: str | None,
    failed_check: str | None,
    judged: Judged | tuple[str, str] | None,
    checked: bool,
    judge_used: bool,
    nothing_to_check: str = "judge disabled and the unit declares no deterministic checks",
    checks_only: str = "all deterministic checks passed (judge disabled)",
) -> tuple[Verdict, str]:
    """One run: a failed agent is ERROR whatever was expected (rule 1); a failed check is FAIL; a judge that
    failed is ERROR (rule 2); nothing to check is SKIP (rule 3); else the judge (or the checks alone) decide."""
    if agent_error:
        return "ERROR", agent_error
    if failed_check is not None:
        return "FAIL", failed_check
    if not judge_used:
        return ("PASS", checks_only) if checked else ("SKIP", nothing_to_check)
    if judged is None:
        return "ERROR", "the judge gave no verdict"
    outcome = judged if isinstance(judged, Judged) else Judged.of(*judged)
    if outcome.passed is None:
        return "ERROR", outcome.reason
    return ("PASS" if outcome.passed else "FAIL"), outcome.reason


def combine_runs(verdicts: Iterable[str], budget_stopped: int = 0) -> Verdict:
    """Repeated runs: any FAIL fails; else any ERROR errors; else runs a budget kept from starting make it
    SKIP (state BUDGET: nothing is known of those runs); else PASS only if every run passed, SKIP if every run
    was skipped, and ERROR for passes beside runs that never happened for another reason (an interruption)."""
    return unit_state(verdicts, budget_stopped)[0]


def unit_state(verdicts: Iterable[str], budget_stopped: int = 0) -> tuple[Verdict, State]:
    """The verdict and the state of a unit from its runs' verdicts and how many of its runs a budget kept from
    starting (those runs are among the SKIPs). The state is the verdict, except FLAKY (passes and fails and no
    ERROR: an ERROR is the harness's fault and is never forgiven as flakiness) and BUDGET (cut short by a
    budget, with no FAIL or ERROR among the runs that happened). Derived, never stored on its own."""
    seen = list(verdicts)
    if "FAIL" in seen:
        flaky = "PASS" in seen and "ERROR" not in seen
        return "FAIL", "FLAKY" if flaky else "FAIL"
    if "ERROR" in seen:
        return "ERROR", "ERROR"
    if budget_stopped > 0:
        return "SKIP", "BUDGET"
    if seen and all(v == "PASS" for v in seen):
        return "PASS", "PASS"
    if all(v == "SKIP" for v in seen):
        return "SKIP", "SKIP"
    return "ERROR", "ERROR"


def combine_judgements(verdicts: Iterable[str]) -> JudgeRuling:
    """One transcript judged several times (``--judge-repeats``): any ERROR errs (a judge that could not answer
    once is not trusted the other times), else any FAIL fails, else PASS: every judgement must pass it."""
    seen = list(verdicts)
    if not seen or "ERROR" in seen or any(v not in ("PASS", "FAIL") for v in seen):
        return "ERROR"
    return "FAIL" if "FAIL" in seen else "PASS"


def combine_units(verdicts: Iterable[str]) -> Verdict:
    """A whole file: FAIL if any unit failed, else ERROR if any errored (nothing failed, but something could not
    be judged), else PASS if any passed (skipped units are not failures), else SKIP."""
    seen = list(verdicts)
    if "FAIL" in seen:
        return "FAIL"
    if "ERROR" in seen or not seen:
        return "ERROR"
    return "PASS" if "PASS" in seen else "SKIP"


def graded_verdict(error: str | None, total: int, passed: bool, summary: str) -> tuple[Verdict, str]:
    """Units graded statement by statement: a failed agent or grader is ERROR, nothing to grade is SKIP, else
    the grade decides."""
    if error:
        return "ERROR", error
    if total == 0:
        return "SKIP", "nothing to grade: the case declares no statements (the agent ran; its output is kept)"
    return ("PASS" if passed else "FAIL"), summary


def scored_verdict(
    *, failed_check: str | None, run_error: str | None, below: str | None, reason: str
) -> tuple[Verdict, str]:
    """A unit scored over repeated runs (skilljack): a check that failed in a run that did run is FAIL (earned,
    rule 5: any FAIL fails); else a run that did not run or was not judged makes it ERROR (never PASS from the
    other runs); else the format's score rule (``below``: a threshold missed) is FAIL; else PASS."""
    if failed_check is not None:
        return "FAIL", failed_check
    if run_error is not None:
        return "ERROR", run_error
    if below is not None:
        return "FAIL", below
    return "PASS", reason
