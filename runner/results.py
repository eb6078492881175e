"""The one result type of every run, whatever the format: :class:`UnitResult` with its :class:`UnitCheck` s.

The CLI, the code lens and the Test Explorer all read these; a check knows where it is written in the eval
file (``location``: keys and indexes from the file's root), so no face ever parses a message to find it.
:func:`result_from_report_case` is the one way back from an evalens report to a result.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, Field

from evalens.core.models.baseline import Uplift
from evalens.core.models.cassette import CaseReplay
from evalens.core.models.run_record import Usage
from evalens.core.models.uaaps import DeterministicChecks, EvalReport, JudgeVerdict, ReportCase, ReportCheck
from evalens.core.models.verdict import CheckStatus, State, Verdict
from evalens.runner.stats import Repeats, exit_state_fails, flip_fields
from evalens.runner.suites import PACKAGE_FORMAT
from evalens.runner.verdicts import known_verdict, unit_state

Location = list[str | int]
UAAPS_FORMAT = PACKAGE_FORMAT


class UnitCheck(BaseModel):
    """One declared check or graded statement and whether it held."""

    kind: str = Field(
        description="Check kind: UAAPS `contains`, `not_contains`, `files_created`, "
        "`agent_blocked`; skilljack `skill_activation`, `marker`, `tool_calls`, `no_tool_calls`, "
        "`contains`, `not_contains`, `regex`, `javascript`, `file_exists`; graded `assertion`, "
        "`expectation`; trigger sets `trigger`."
    )
    value: str | bool = Field(
        description="The exact entry: the substring, the path, the statement, the boolean."
    )
    status: CheckStatus = Field(description="Whether this entry held.")
    detail: str = Field(
        default="", description="Why it failed (or what was seen), in words a user can act on."
    )
    location: Location | None = Field(
        default=None,
        description="Where the entry is written in the eval file: "
        "keys and indexes from the file's root (None: nowhere in particular).",
    )


CheckResult = UnitCheck  # the name the UAAPS runner and its callers have always used


class UnitResult(BaseModel):
    """The typed outcome of one unit (a UAAPS case, a skilljack task, an evals.json case, a trigger query),
    aggregated over its runs."""

    name: str = Field(
        description="The unit's id: case name, task id, eval id, query index, or `*` for a file."
    )
    format: str = Field(
        default=UAAPS_FORMAT,
        description="Format id of the eval file (`uaaps-case`, "
        "`skilljack-tasks`, `skill-creator-evals`, ...).",
    )
    case_file: str | None = Field(default=None, description="The eval file the unit is written in.")
    location: Location | None = Field(default=None, description="Where the unit is written in `case_file`.")
    target: str | None = None
    verdict: Verdict
    reason: str = Field(
        default="", description="Why: the first failing check, the judge's reason, or the error."
    )
    duration_seconds: float = 0.0
    agent_seconds: float = Field(default=0.0, description="Time spent in the agent process (all runs).")
    checks: list[UnitCheck] = Field(default_factory=list)
    judge_verdict: str | None = None
    judge_reason: str | None = None
    judge_model: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    agent_model: str | None = None
    output_snippet: str | None = None
    error: str | None = None
    exit_code: int | None = Field(default=None, description="The agent's exit status (last run), when known.")
    runs: int = 1
    pass_rate: float | None = None
    run_verdicts: list[Verdict] = Field(default_factory=list)
    artifacts: str | None = Field(
        default=None, description="Absolute folder with transcript and captured files."
    )
    sandbox_path: str | None = Field(default=None, description="Kept sandbox (with keep_sandbox).")
    result_file: str | None = Field(
        default=None,
        description="The format's own result file for this unit "
        "(skilljack results JSON, grading.json), absolute.",
    )
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="Format-specific figures (scores, trigger rate, the query and its label).",
    )
    usage: Usage | None = Field(
        default=None, description="Tokens and cost of the agent runs, summed over runs."
    )
    judgements: list[list[str]] = Field(
        default_factory=list,
        description="With `--judge-repeats K`: each repeatedly judged item's K verdicts, run after run (a graded "
        "case's statements, a skilljack run, a plugin eval's judged grader); the report's flip rate and the "
        "batch's agreement are derived from them.",
    )
    budget_stopped: int = Field(
        default=0,
        description="Runs of this unit a budget kept from starting (SKIP runs whose state is BUDGET).",
    )
    replay: CaseReplay | None = Field(
        default=None,
        description="How the verdict came about under --record / --replay (docs/replay.md); None: a live run.",
    )
    state: State | None = Field(
        default=None,
        description="The verdict over repeated runs, derived by "
        "runner.verdicts.unit_state: FLAKY when the unit both passed and failed with no "
        "ERROR, BUDGET when a budget cut it short (docs/repeats.md); None for a single run "
        "that a budget did not stop.",
    )
    interval: list[float] | None = Field(default=None, description="95% Wilson interval of the pass rate.")
    pass_hat_k: float | None = Field(
        default=None, description="pass^k, k = the runs asked for (None unless every run passed or failed)."
    )
    pass_at_k: dict[str, float] | None = Field(
        default=None,
        description="Unbiased pass@k (at least one of k fresh runs passes) for k = 1 … the counted runs.",
    )
    at_least_k: dict[str, float] | None = Field(
        default=None,
        description="at-least-k (1.0 when at least k of the "
        "counted runs passed) for k = 1 … the counted runs.",
    )
    fingerprint: dict[str, str] | None = Field(default=None, description="What the verdict depended on.")
    stale: list[str] = Field(
        default_factory=list,
        description="What changed since this verdict (restored results only; empty: current).",
    )
    uplift: Uplift | None = Field(
        default=None,
        description="With --baseline: pass rate with the package against "
        "the baseline runs, the difference and its interval (docs/baseline.md).",
    )

    @property
    def shown_state(self) -> State:
        """The state faces show: FLAKY over repeats, else the verdict."""
        return self.state or self.verdict


CaseResult = UnitResult  # the UAAPS name; one type for every format


def is_interrupted(case: ReportCase, report: EvalReport) -> bool:
    """A unit cut short by a cancel says nothing about the unit: restoring keeps the verdict before it."""
    return bool(report.interrupted) and (case.error or "").startswith(("interrupted", "not run"))


def result_from_report_case(
    case: ReportCase, report: EvalReport, report_path: Path, package_root: Path | None = None
) -> UnitResult:
    """A report's unit as a :class:`UnitResult`: the one conversion (the CLI's ``load_last_results`` and the
    server's verdict memory both use it). ``case_file``, ``artifacts`` and ``result_file`` come back absolute
    when ``package_root`` (for ``case_file``) and the report's folder (for the others) allow."""
    checks = [
        UnitCheck(
            kind=c.kind,
            value=c.value,
            status=c.status,
            detail=c.detail or "",
            location=list(c.location) if c.location is not None else None,
        )
        for c in case.checks
    ]
    judge = case.judge_verdict
    reason = (
        case.reason
        or (judge.reason if judge and case.verdict != "ERROR" else None)
        or case.error
        or (judge.reason if judge else None)
        or ""
    )
    case_file = case.case_file
    if case_file and package_root is not None and not os.path.isabs(case_file):
        case_file = str((package_root / case_file).resolve())

    def beside(rel: str | None) -> str | None:
        return str((report_path.parent / rel).resolve()) if rel else None

    scored = case.details.get("judge") if judge is None else None  # a skilljack score line
    judge_fields: dict[str, Any]
    if isinstance(scored, dict):
        judge_fields = {
            "judge_verdict": scored.get("summary"),
            "judge_reason": scored.get("reason"),
            "judge_model": scored.get("model"),
        }
    else:
        judge_fields = {
            "judge_verdict": judge.result if judge else None,
            "judge_reason": judge.reason if judge else None,
            "judge_model": judge.model if judge else None,
        }
    return apply_repeats(
        UnitResult(  # the state is derived again, never trusted from the file
            name=case.name,
            format=case.format or UAAPS_FORMAT,
            case_file=case_file,
            location=list(case.location) if case.location is not None else None,
            target=case.target,
            verdict=case.verdict,
            reason=reason,
            duration_seconds=case.duration_seconds or 0.0,
            checks=checks,
            **judge_fields,
            engine=report.config.engine,
            engine_version=report.config.engine_version,
            agent_model=report.agent.model,
            output_snippet=case.agent_output_snippet,
            error=case.error,
            replay=case.replay,
            runs=case.runs or 1,
            pass_rate=case.pass_rate,
            run_verdicts=list(case.run_verdicts),
            artifacts=beside(case.artifacts),
            result_file=beside(case.result_file),
            details=dict(case.details),
            usage=case.usage,
            state=case.state,
            interval=list(case.pass_rate_interval) if case.pass_rate_interval else None,
            pass_hat_k=case.pass_hat_k,
            fingerprint=dict(case.fingerprint) if case.fingerprint else None,
            uplift=case.uplift,
            budget_stopped=case.budget_stopped or 0,
        )
    )


def report_checks(checks: Iterable[Any]) -> list[ReportCheck]:
    """Checks as the report and the run log store them (an empty detail left out)."""
    return [
        ReportCheck(kind=c.kind, value=c.value, status=c.status, detail=c.detail or None, location=c.location)
        for c in checks
    ]


def report_case_from_result(result: UnitResult, report_path: Path | None, root: Path) -> ReportCase:
    """A result as a report's unit: the one conversion the other way (paths relative to ``root`` and to the
    report's folder)."""

    def rel(path: str | None, base: Path | None) -> str | None:
        if not path or base is None:
            return path
        try:
            return os.path.relpath(path, base)
        except ValueError:
            return path

    judge = (
        JudgeVerdict(
            result=cast(Verdict, result.judge_verdict),
            reason=result.judge_reason or "",
            model=result.judge_model,
        )
        if known_verdict(result.judge_verdict)
        else None
    )
    uaaps = result.format == UAAPS_FORMAT
    summary: dict[str, Any] = {}
    for c in result.checks if uaaps else []:
        if summary.get(c.kind) != "FAIL":
            summary[c.kind] = c.status
    details = dict(result.details)
    if result.judge_verdict and judge is None:  # a score line (skilljack), not a verdict
        details.setdefault(
            "judge",
            {"summary": result.judge_verdict, "reason": result.judge_reason, "model": result.judge_model},
        )
    return ReportCase(
        name=result.name,
        target=result.target,
        verdict=result.verdict,
        duration_seconds=result.duration_seconds,
        deterministic_checks=DeterministicChecks(**summary),
        judge_verdict=judge,
        agent_output_snippet=result.output_snippet,
        error=result.error
        if result.verdict in ("ERROR", "SKIP")
        else (result.error or result.reason if result.verdict == "FAIL" else None),
        checks=report_checks(result.checks),
        runs=result.runs if result.runs > 1 else None,
        pass_rate=result.pass_rate,
        run_verdicts=list(result.run_verdicts) if result.runs > 1 else [],
        case_file=rel(result.case_file, root),
        format=result.format,
        location=result.location,
        reason=result.reason or None,
        artifacts=rel(result.artifacts, report_path.parent if report_path else None),
        result_file=rel(result.result_file, report_path.parent if report_path else None),
        details=details,
        usage=result.usage,
        state=result.state if result.runs > 1 or result.state == "BUDGET" else None,
        pass_rate_interval=result.interval,
        pass_hat_k=result.pass_hat_k,
        fingerprint=result.fingerprint,
        uplift=result.uplift,
        budget_stopped=result.budget_stopped or None,
        replay=result.replay,
        pass_at_k=result.pass_at_k,
        **flip_fields(result.judgements),
        at_least_k=result.at_least_k,
    )


def apply_repeats(result: UnitResult) -> UnitResult:
    """Derive a result's verdict, state and repeat figures from its run verdicts through the one verdict function
    (:func:`~evalens.runner.verdicts.unit_state`; docs/repeats.md): the state (FLAKY, BUDGET), the pass rate over
    counted runs, its Wilson interval and pass^k. Every producer calls it: a run, re-judging, restoring."""
    verdicts = list(result.run_verdicts) or [result.verdict]
    rep = Repeats.of(verdicts, result.budget_stopped)
    if len(verdicts) < 2:
        result.state = "BUDGET" if rep.state == "BUDGET" else None
        if result.state == "BUDGET" and "budget" not in result.reason:
            result.reason = "budget: not started" + (f"; {result.reason}" if result.reason else "")
        return result
    result.verdict, result.state = unit_state(verdicts, result.budget_stopped or 0)
    result.pass_rate = round(rep.pass_rate, 4) if rep.pass_rate is not None else None
    result.interval = [round(x, 4) for x in rep.interval] if rep.interval else None
    result.pass_hat_k = rep.pass_hat_k
    result.pass_at_k = rep.pass_at() or None
    result.at_least_k = rep.at_least() or None
    if result.state == "FLAKY" and not result.reason.startswith("flaky"):
        result.reason = f"flaky: passed {rep.label()} runs" + (f"; {result.reason}" if result.reason else "")
    if result.state == "BUDGET" and not result.reason.startswith("budget: "):
        result.reason = (
            f"budget: {rep.budget} of {rep.runs} runs not started ({rep.passed} passed before)"
            + (f"; {result.reason}" if result.reason else "")
        )
    return result


def rederive_report_case(case: ReportCase) -> ReportCase:
    """A report unit whose run verdicts changed (re-judged, merged) gets its verdict, state and figures again
    from the one verdict function, so a stored ``state`` can never contradict ``run_verdicts``."""
    verdicts = list(case.run_verdicts) or [case.verdict]
    budget = case.budget_stopped or 0
    verdict, state = unit_state(verdicts, budget)
    case.verdict = verdict
    if len(verdicts) < 2:
        case.state = "BUDGET" if state == "BUDGET" else None
        return case
    rep = Repeats.of(verdicts, budget)
    case.state = state
    case.pass_rate = round(rep.pass_rate, 4) if rep.pass_rate is not None else None
    case.pass_rate_interval = [round(x, 4) for x in rep.interval] if rep.interval else None
    case.pass_hat_k = rep.pass_hat_k
    case.pass_at_k = rep.pass_at() or None
    case.at_least_k = rep.at_least() or None
    reason = (
        (case.reason or "").split("; ", 1)[-1]
        if (case.reason or "").startswith(("flaky: ", "budget: "))
        else case.reason or ""
    )
    if state == "FLAKY":
        reason = f"flaky: passed {rep.label()} runs" + (f"; {reason}" if reason else "")
    case.reason = reason or None
    return case


def fails_run(
    results: list[UnitResult], flaky: Literal["fail", "pass"] = "fail", error_rate: float | None = None
) -> bool:
    """Does this batch fail the command (exit 1)? A FAIL does; a FLAKY unit does unless ``--flaky pass``; an
    ERROR does, unless ``--fail-on-error RATE`` tolerates errored units up to that share of the batch (a few
    infrastructure errors in a large batch)."""
    states = [r.shown_state for r in results]
    if any(exit_state_fails(s, flaky) for s in states if s != "ERROR"):
        return True
    errors = states.count("ERROR")
    return bool(errors) and (error_rate is None or errors / len(states) > error_rate)


def error_rate_arg(text: str) -> float:
    """``--fail-on-error RATE``: a share of the batch's units, 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number between 0 and 1") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1 (a share of the units, 0.05 = 5%)")
    return value


def repeat_label(result: UnitResult) -> str:
    """``2/3 (21–94%)`` for repeated runs: passes of counted runs and the 95% interval; '' for one run."""
    runs, verdicts = getattr(result, "runs", 1), getattr(result, "run_verdicts", None)
    if runs < 2 or not verdicts:
        return f"{result.pass_rate:.0%}" if getattr(result, "pass_rate", None) is not None else ""
    rep = Repeats.of(verdicts)
    text = rep.label()
    interval = getattr(result, "interval", None)
    if interval:
        text += f" ({interval[0]:.0%}–{interval[1]:.0%})"
    return text
