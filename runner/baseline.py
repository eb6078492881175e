"""Does the skill help? ``--baseline no-skill | REF`` runs every unit a second time, the same number of times,
without the package (``no-skill``: no skill, hooks, rules or agents copied into the sandbox; everything else
identical) or with the package as it was at a git ref (``REF``: through a temporary ``git worktree add
--detach``, removed afterwards, also on error or cancel). The uplift of each unit is its pass rate with the
package minus the baseline's, with Newcombe's 95% interval (:func:`~evalens.runner.stats.newcombe_difference`),
and the cost of both sides. Baseline runs never decide a verdict or the exit code (docs/baseline.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evalens.core.models.baseline import BaselineSource, Uplift
from evalens.core.models.run_record import Usage, sum_usage
from evalens.core.models.uaaps import ReportBaseline
from evalens.runner.git_repo import GitRefError, add_worktree, ref_commit, remove_worktree
from evalens.runner.install import PackageError, read_package
from evalens.runner.record import attach_records, unit_folder_name
from evalens.runner.report import artifacts_root, summarize
from evalens.runner.results import apply_repeats
from evalens.runner.scheduling import Admission, Refused
from evalens.runner.stats import Repeats, newcombe_difference
from evalens.runner.verdicts import counted

NO_SKILL = "no-skill"
FOLDER = (
    "_baseline"  # the baseline units' artifacts, inside the report's folder (unit names never start with _)
)


class BaselineError(Exception):
    """``--baseline`` cannot be honoured (not a git repository, unknown ref, package absent at the ref, no
    enforced sandbox); one line a user can act on. Raised before any agent starts."""


UNISOLATED = (
    "--baseline needs an enforced sandbox: without bubblewrap the baseline agent can read the package "
    "from the host (its SKILL.md is one `find /` away), which inflates the baseline and understates the "
    "uplift. Make bubblewrap usable (`evalens doctor` says how), or pass --allow-unisolated-baseline to "
    "run it anyway; the report then marks the uplift as unisolated"
)


def require_isolation(plan: BaselinePlan | None, enforced: bool, allowed: bool) -> bool:
    """Refuse a baseline the sandbox cannot isolate from the package (:class:`BaselineError`), unless
    ``allowed``; returns whether the baseline is isolated (False: the report says so)."""
    if plan is None or enforced:
        return True
    if not allowed:
        raise BaselineError(UNISOLATED)
    return False


@dataclass
class BaselinePlan:
    """What the baseline runs install instead of the package."""

    kind: Literal["no-skill", "ref"]  # NO_SKILL or a git ref
    ref: str | None = None
    commit: str | None = None
    repo: Path | None = None  # top level of the git repository holding the package
    worktree: Path | None = None  # the checkout at ``commit`` while the batch runs

    @property
    def label(self) -> str:
        """``no skill`` or ``v1.0 (3f9a0c1)``: how every face names the baseline."""
        if self.kind == NO_SKILL:
            return "no skill"
        return f"{self.ref} ({(self.commit or '')[:7]})"

    def source(self) -> BaselineSource:
        return BaselineSource(kind=self.kind, ref=self.ref, commit=self.commit)

    def at_ref(self, path: Path) -> Path | None:
        """Where ``path`` (inside the repository) is in the checkout at the ref; None when it is outside the
        repository or did not exist then."""
        if self.worktree is None or self.repo is None:
            return None
        try:
            rel = path.resolve().relative_to(self.repo)
        except ValueError:
            return None
        mapped = self.worktree / rel
        return mapped if mapped.exists() else None

    def skills(self, skills: dict[str, Path]) -> dict[str, Path]:
        """The skills a baseline run installs (name → SKILL.md): none, or each as it was at the ref (a skill that
        did not exist then is left out)."""
        if self.kind == NO_SKILL:
            return {}
        out: dict[str, Path] = {}
        for name, skill_md in skills.items():
            mapped = self.at_ref(skill_md)
            if mapped is not None and mapped.is_file():
                out[name] = mapped
        return out


def resolve(value: str | None, where: Path) -> BaselinePlan | None:
    """``--baseline`` as a plan (None without one). Blocking (runs git): call it off the event loop.
    Raises :class:`BaselineError` when ``where`` is in no git repository or the ref is unknown."""
    if not value:
        return None
    if value == NO_SKILL:
        return BaselinePlan("no-skill")
    if value.startswith("-"):
        raise BaselineError(f"--baseline {value}: not a git ref (use `no-skill` or a branch, tag or commit)")
    try:
        repo, commit = ref_commit(
            f"--baseline {value}",
            value,
            where if where.is_dir() else where.parent,
            git_for=" (needed to check out the ref)",
        )
    except GitRefError as exc:
        raise BaselineError(str(exc)) from None
    return BaselinePlan("ref", ref=value, commit=commit, repo=repo)


def _add_worktree(plan: BaselinePlan) -> Path:
    """The checkout at the plan's ref (:func:`~evalens.runner.git_repo.add_worktree`), or a :class:`BaselineError`."""
    assert plan.repo is not None and plan.commit is not None
    try:
        return add_worktree(plan.repo, plan.commit, "evalens-baseline-")
    except GitRefError as exc:
        raise BaselineError(f"--baseline {plan.ref}: cannot check out {plan.commit[:7]}: {exc}") from None


@contextlib.asynccontextmanager
async def checked_out(plan: BaselinePlan | None) -> AsyncIterator[BaselinePlan | None]:
    """The plan with its checkout at the ref while the batch runs (nothing to check out for ``no-skill``)."""
    if plan is None or plan.kind == NO_SKILL:
        yield plan
        return
    tree = await asyncio.to_thread(_add_worktree, plan)
    plan.worktree = tree
    try:
        yield plan
    finally:
        plan.worktree = None
        assert plan.repo is not None
        try:
            await asyncio.shield(asyncio.to_thread(remove_worktree, plan.repo, tree))
        except asyncio.CancelledError:  # cancelled while removing: finish it here, then go on cancelling
            remove_worktree(plan.repo, tree)
            raise


# --------------------------------------------------------------------------- the uplift


def _counts(result: Any) -> tuple[int, int, int]:
    """(passed, counted, errored) over a result's runs; a trigger query counts its runs that did what its label
    wants; any other result without run verdicts counts as one run."""
    details = getattr(result, "details", None) or {}
    rate, want, runs = details.get("trigger_rate"), details.get("should_trigger"), getattr(result, "runs", 1)
    if isinstance(want, bool) and isinstance(rate, int | float) and counted(result.verdict) and runs:
        hits = round(rate * runs)
        return (hits if want else runs - hits), runs, 0

    rep = Repeats.of(list(getattr(result, "run_verdicts", None) or []) or [result.verdict])
    return rep.passed, rep.counted, rep.errored


def _tokens(usage: Usage | None) -> int | None:
    if usage is None or (usage.input_tokens is None and usage.output_tokens is None):
        return None
    return (usage.input_tokens or 0) + (usage.output_tokens or 0)


def uplift_of(
    counts: tuple[int, int],
    base: tuple[int, int, int],
    label: str,
    usage: Usage | None = None,
    base_usage: Usage | None = None,
) -> Uplift:
    """The uplift from (passed, counted) with the package and (passed, counted, errored) without."""
    difference = interval = None
    if counts[1] and base[1]:
        d, lo, hi = newcombe_difference(counts[0], counts[1], base[0], base[1])
        difference, interval = round(d, 4), [round(lo, 4), round(hi, 4)]
    return Uplift(
        against=label,
        passed=counts[0],
        counted=counts[1],
        baseline_passed=base[0],
        baseline_counted=base[1],
        baseline_errored=base[2],
        difference=difference,
        interval=interval,
        cost_usd=usage.cost_usd if usage else None,
        baseline_cost_usd=base_usage.cost_usd if base_usage else None,
        tokens=_tokens(usage),
        baseline_tokens=_tokens(base_usage),
    )


def unit_uplift(result: Any, base: Any, label: str) -> Uplift:
    passed, counted, _ = _counts(result)
    return uplift_of((passed, counted), _counts(base), label, result.usage, base.usage)


def batch_uplift(results: Iterable[Any], bases: Iterable[Any], label: str) -> Uplift:
    """Every unit's runs pooled, with and without."""
    results, bases = list(results), list(bases)
    mine = [_counts(r) for r in results]
    theirs = [_counts(b) for b in bases]
    return uplift_of(
        (sum(c[0] for c in mine), sum(c[1] for c in mine)),
        (sum(c[0] for c in theirs), sum(c[1] for c in theirs), sum(c[2] for c in theirs)),
        label,
        sum_usage([r.usage for r in results]),
        sum_usage([b.usage for b in bases]),
    )


def attach(results: list[Any], bases: list[Any], label: str) -> None:
    """Give each result its uplift against the baseline result of the same name (results without one keep
    none). Baseline results are marked as such; their verdicts are never the unit's."""
    by_name = {b.name: b for b in bases}
    for result in results:
        base = by_name.get(result.name)
        if base is not None:
            result.uplift = unit_uplift(result, base, label)


# --------------------------------------------------------------------------- the batch's two sides


def variant(ctx: Any, plan: BaselinePlan) -> Any:
    """The UAAPS run context of the baseline side: the same cases, engine, judge and budget; the package not
    installed (``no-skill``) or read from the checkout at the ref; its own run records and artifacts folder;
    its progress events name the baseline (``greet [no skill]``). Blocking (reads the package)."""
    package = None
    if plan.kind != NO_SKILL:
        root = plan.at_ref(ctx.request.package_root.resolve())
        if root is None:
            raise BaselineError(
                f"--baseline {plan.ref}: the package {ctx.request.package_root} did not exist at {plan.label}"
            )
        try:
            package = read_package(root)
        except PackageError as exc:
            raise BaselineError(f"--baseline {plan.ref}: {exc}") from None
    forward = ctx.on_progress

    def renamed(event: Any) -> None:
        if forward is not None and event.case_name is not None:
            forward(event.model_copy(update={"case_name": f"{event.case_name} [{plan.label}]"}))

    return dataclasses.replace(
        ctx,
        package=package,
        records={},
        on_progress=renamed,
        side=plan.label,
        artifacts_dir=ctx.artifacts_dir / FOLDER if ctx.artifacts_dir is not None else None,
    )


def report_section(
    plan: BaselinePlan,
    results: list[Any],
    bases: list[Any],
    base_cases: list[Any],
    report_cases: list[Any] | None = None,
    metrics: dict[str, Any] | None = None,
    isolated: bool = True,
) -> Any:
    """The report's ``baseline`` section; each result (and its report case) gets its uplift (marked
    ``isolated: false`` when the baseline ran without an enforced sandbox)."""
    attach(results, bases, plan.label)
    if not isolated:
        for result in results:
            if result.uplift is not None:
                result.uplift.isolated = False
    by_name = {r.name: r for r in results}
    for case in report_cases or []:
        result = by_name.get(case.name)
        if result is not None:
            case.uplift = result.uplift
    for case in base_cases:
        case.baseline = True
        case.fingerprint = None  # describes the package as it is now, which these runs did not install
    summary = summarize(base_cases, usage=sum_usage([c.usage for c in base_cases]))
    pooled = batch_uplift(results, bases, plan.label)
    if not isolated:
        pooled.isolated = False
    return ReportBaseline(
        source=plan.source(),
        label=plan.label,
        cases=base_cases,
        summary=summary,
        uplift=pooled,
        metrics=metrics or {},
    )


def add_to(report: Any, section: Any) -> None:
    """Put the baseline section into the report, its pooled uplift into the report's summary."""
    report.baseline = section
    if section is not None:
        report.summary.uplift = section.uplift


async def run_side(
    suite: Any,
    session: Any,
    unit: Any,
    plan: BaselinePlan,
    admission: Admission,
    records: list[tuple[str, Any]],
    kept: dict[int, Any] | None = None,
    hooks: Any = None,
) -> Any:
    """One unit's baseline runs in a file suite (the same session, the skills swapped by ``plan``); its run
    records move to ``records``, marked. The suite writes none of its own result files for them. ``admission``:
    the batch's scheduler (:mod:`evalens.runner.scheduling`), whose slots and budget both sides share; ``kept``
    and ``hooks``: the runs a resumed batch keeps, and the run log's ears (``Suite.run_unit``)."""
    first = len(session.records)
    was = suite.baseline  # --jobs: the phase of baseline sides has set it already (runner/run_file.py)
    session.unit, session.install, session.side, suite.baseline = unit.id, plan.skills, plan.label, plan.label
    try:
        result = await suite.run_unit(
            session, unit, kept, hooks, admission.gate(unit.id, suite.request.agent_model)
        )
    except Refused as refused:  # the budget was spent before this side's first run
        return suite.skipped(unit, refused.reason)
    finally:
        session.install, session.side, suite.baseline = None, None, was
        taken = session.records[first:]
        del session.records[first:]
        for _, record in taken:
            record.baseline = plan.label
        records.extend(taken)
    return apply_repeats(result)


def attach_baseline_records(section: Any, report_path: Path, records: list[tuple[str, Any]]) -> None:
    """Write the baseline runs' records under ``<report>/_baseline/<unit>/`` and point their units there."""
    by_unit: dict[str, list[Any]] = {}
    for unit, record in records:
        by_unit.setdefault(unit, []).append(record)
    root = artifacts_root(report_path) / FOLDER
    for case in section.cases:
        if case.name in by_unit and not case.artifacts:
            case.artifacts = os.path.relpath(root / unit_folder_name(case.name), report_path.parent)
    attach_records(section, report_path, by_unit)
