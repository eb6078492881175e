"""The verdict rules of ``docs/verdicts.md``, in one place for every format and every face.

* :func:`unit_verdict`: one run of one unit, from what really happened (agent error, failed checks, judge).
* :func:`combine_runs`: repeated runs of one unit (rule 5).
* :func:`unit_state`: the verdict and the state (FLAKY, BUDGET) of repeated runs: every face derives both from it.
* :func:`combine_units`: the units of one file, for its ``*`` unit.
* :func:`graded_verdict`: units graded statement by statement (skill-creator, writing-skills; rule 3).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Verdict = Literal["PASS", "FAIL", "SKIP", "ERROR"]
State = Literal["PASS", "FAIL", "FLAKY", "SKIP", "ERROR", "BUDGET"]


def unit_verdict(
    *,
    agent_error: str | None,
    failed_check: str | None,
    judged: tuple[str, str] | None,
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
    verdict, reason = judged
    if verdict not in ("PASS", "FAIL"):
        return "ERROR", reason
    return ("PASS" if verdict == "PASS" else "FAIL"), reason


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
