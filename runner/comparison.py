"""A comparison run: every (engine, model) cell of a matrix times every ``--arms`` arm, one ordinary batch each,
of any format: a package's cases or an eval file's units (each batch goes through :func:`evalens.runner.api.run`).

The plan (which batches, in which order, each report's name and label), the per-cell comparison of the arms
(the reference's report gets every other arm's uplift, and the judge's pairwise verdicts) and the run itself
live here, behind the run API, so that every face starts the same comparison (issue 41): the CLI
(``evalens run [FILE] --engine a,b --arms skill,no-skill``) drives :meth:`Comparison.cell_runs` with its own
progress view and exit codes, and the language server's ``evalens.runComparison`` awaits :func:`run_comparison`.

Order and names are part of the contract the views read back: within a cell the reference arm runs last (so
its report is the newest, the one an editor shows), a matrix run names its reports by cell
(``<batch>-cell-<k>.json``, ``k`` in ``--arms`` order within each cell: the matrix's columns), and a run of one
cell with arms names them by arm (``<batch>-arm-<i>.json``, the reference ``<batch>-arms.json``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core.models.baseline import ReportArms
from evalens.runner.arms import Arm, ArmError, comparison, parse, resolve_arm
from evalens.runner.matrix import cell_report_name, cells
from evalens.runner.report import load_report, stamp, utc_now, write_report


class ComparisonError(ValueError):
    """The comparison cannot be planned (a model bound to an engine not asked for, an unknown arm or ref);
    one line, said before any agent starts."""


def cell_label(engine: str | None, model: str | None) -> str:
    """``codex · gpt-5``: a matrix cell as asked for (the default engine or model named so)."""
    return f"{engine or 'default engine'} · {model or 'default model'}"


@dataclass(frozen=True, slots=True)
class CellRun:
    """One batch of a comparison: a cell (engine, model) and an arm (None: a matrix run without arms)."""

    index: int
    """The report's number: cell-major, ``--arms`` order within a cell (the matrix's column order)."""
    cell: int
    """The cell's number, from 1."""
    engine: str | None
    model: str | None
    arm: str | None
    label: str
    """``claude-code · default model · no skill``: what the progress says this batch is."""
    report: Path


@dataclass(slots=True)
class Comparison:
    """The plan of a comparison run (:func:`plan_comparison`)."""

    cells: list[tuple[str | None, str | None]]
    names: list[str | None]
    """The arms in ``--arms`` order; ``[None]`` without arms."""
    reference: str | None
    arms: dict[str, Arm]
    batch: str
    reports: Path
    """The reports folder of the package, or of the eval file's suite (``<root>/evals/reports``)."""
    is_matrix: bool
    """Reports named by cell (several cells, or a cell asked for by ``ENGINE=MODEL``), else by arm."""

    def cell_runs(self, cell: int) -> list[CellRun]:
        """The batches of cell ``cell`` (from 1) in run order: the arms in ``--arms`` order, the reference last."""
        engine, model = self.cells[cell - 1]
        reference = self.reference
        order = (
            [n for n in self.names if n != reference] + [reference] if reference is not None else self.names
        )
        out = []
        for position, arm in enumerate(order, 1):
            index = (cell - 1) * len(self.names) + self.names.index(arm) + 1
            if self.is_matrix or arm is None:
                name = cell_report_name(self.batch, index)
            else:
                name = f"{self.batch}-arms.json" if arm == reference else f"{self.batch}-arm-{position}.json"
            label = cell_label(engine, model) + (f" · {self.arms[arm].label}" if arm else "")
            out.append(CellRun(index, cell, engine, model, arm, label, self.reports / name))
        return out

    def runs(self) -> list[CellRun]:
        """Every batch, cell by cell."""
        return [run for cell in range(1, len(self.cells) + 1) for run in self.cell_runs(cell)]


def resolve_arms(arms: str, arms_reference: str | None, where: Path) -> tuple[list[str], str, dict[str, Arm]]:
    """``--arms`` / ``--arms-reference`` checked and every arm resolved (a ref known, from the repository
    holding ``where``): the names in order, the reference (default ``skill``), the arms. Blocking (a ref arm
    runs git). Raises :class:`ComparisonError`."""
    reference = arms_reference or "skill"
    try:
        names = parse(arms)
        if reference not in names:
            raise ArmError(f"--arms-reference {reference} is not one of --arms {arms}")
        return names, reference, {name: resolve_arm(name, where.resolve()) for name in names}
    except ArmError as exc:
        raise ComparisonError(str(exc)) from None


def plan_comparison(
    root: Path,
    engines: str | None,
    models: str | None,
    arms: str | None = None,
    arms_reference: str | None = None,
    batch: str | None = None,
    matrix: bool | None = None,
) -> Comparison:
    """The cells of ``engines`` × ``models`` (runner/matrix.py's :func:`cells`) and every arm of ``arms``
    resolved (a ref known) before any agent starts; ``matrix`` (default: several cells) names the reports by
    cell. ``root``: where the batches' reports go, a package root or an eval file's suite root
    (:attr:`~evalens.runner.suites.base.Suite.root`), the same folder a single batch of it reports to.
    Blocking (a ref arm runs git). Raises :class:`ComparisonError`."""
    try:
        plan = cells(engines, models)
    except ValueError as exc:
        raise ComparisonError(str(exc)) from None
    names: list[str | None] = [None]
    reference: str | None = None
    resolved: dict[str, Arm] = {}
    if arms:
        listed, reference, resolved = resolve_arms(arms, arms_reference, root)
        names = list(listed)
    return Comparison(
        plan,
        names,
        reference,
        resolved,
        batch or stamp(utc_now()),
        root / "evals" / "reports",
        len(plan) > 1 if matrix is None else matrix,
    )


def _marked(
    arms: dict[str, Any], names: list[str], reference: str, paths: dict[str, Path]
) -> tuple[Any, dict[str, Any]]:
    """Every arm's report marked with its arm (the others written back), and the reference's report with the
    comparison, not yet written. Blocking."""
    reports = {name: load_report(path) for name, path in paths.items()}
    for name, report in reports.items():
        if name != reference:
            report.arm = arms[name].source()
            write_report(report, paths[name])
    ref = reports[reference]
    ref.arm = arms[reference].source()
    ref.arms = ReportArms(
        reference=ref.arm,
        comparisons=[
            comparison(ref, reports[n], arms[n].source(), os.path.relpath(paths[n], paths[reference].parent))
            for n in names
            if n != reference and n in reports
        ],
    )
    return ref, reports


async def compare_arms_of(
    arms: dict[str, Any],
    names: list[str],
    reference: str,
    paths: dict[str, Path],
    judged: bool = True,
    on_pairwise: Callable[[str, str], None] | None = None,
) -> Any:
    """Mark every arm's report with its arm and give the reference's the comparison with each other arm
    (``judged``: the judge's pairwise verdict on each unit's two outputs too, ``on_pairwise`` told which pair
    it judges). The reference's report is written last: the newest, the one an editor shows. The files are
    read and written off the event loop."""
    ref, reports = await asyncio.to_thread(_marked, arms, names, reference, paths)
    if judged and ref.judge is not None and ref.judge.model:
        await _pairwise(ref, paths, reports, reference, on_pairwise)
    await asyncio.to_thread(write_report, ref, paths[reference])
    return ref


async def _pairwise(
    ref: Any,
    paths: dict[str, Path],
    reports: dict[str, Any],
    reference: str,
    on_pairwise: Callable[[str, str], None] | None,
) -> None:
    """Each comparison's units judged pairwise by the reference run's judge (runner/pairwise.py): each unit's
    two outputs twice, the order swapped."""
    from evalens.runner.judge import resolve_judge  # lazy: the judge SDKs load only for a judged comparison
    from evalens.runner.pairwise import compare_arms  # lazy: as above

    provider = ref.judge.model_provider or "anthropic"
    spec = resolve_judge(f"{provider}:{ref.judge.model}", default_provider=provider)
    by_label = {report.arm.label: name for name, report in reports.items() if report.arm is not None}
    for compared in ref.arms.comparisons:
        name = by_label.get(compared.arm.label)
        if name is None or name == reference:
            continue
        if on_pairwise is not None:
            on_pairwise(ref.arm.label, compared.arm.label)
        compared.pairwise = await compare_arms(spec, (paths[reference], ref), (paths[name], reports[name]))


def batch_request(base: Any, run: CellRun) -> Any:
    """The request of one batch of a comparison: ``base`` on the cell's engine (a cell that names none keeps
    ``base``'s) with the cell's model (none: that engine's default), as the arm installs the skills, reporting
    to the batch's own report."""
    update: dict[str, Any] = {"output": run.report, "agent_model": run.model}
    if run.engine is not None:
        update["engine"] = run.engine
    if run.arm is not None:
        update["arm"] = run.arm
    return base.model_copy(update=update)


@dataclass(slots=True)
class PlannedRuns:
    """What a comparison would start, counted before it starts: its batches, the units a batch runs (the most
    any of them does) and each unit's runs, and the agent runs in all (the spend an editor asks about)."""

    batches: int
    units: int
    runs: int
    agent_runs: int


def planned_runs(base: Any, plan: Comparison, format_id: str | None = None) -> PlannedRuns:
    """Count every batch of ``plan`` from ``base`` as :func:`run_comparison` would run it (each batch's own
    dry run: the units it selects × its runs; ``--runs auto`` counts its maximum). Nothing runs. Blocking.
    Raises the batch's :class:`~evalens.runner.api_types.RunError` / ``UsageError``."""
    from evalens.runner.api import unit_count  # lazy: api loads every suite

    batches = plan.runs()
    units = [
        unit_count(batch_request(base, run), format_id) for run in batches
    ]  # every batch runs base.runs each
    return PlannedRuns(len(batches), max(units, default=0), base.runs, sum(units) * base.runs)


@dataclass(slots=True)
class ComparisonOutcome:
    """What a comparison run wrote: every batch's report (in index order) and, per cell, the report that
    decides it (the reference arm's, or the cell's one batch)."""

    reports: list[Path] = field(default_factory=list)
    deciding: list[tuple[Path, str]] = field(default_factory=list)
    interrupted: bool = False


async def run_comparison(
    base: Any,
    plan: Comparison,
    on_run: Callable[[CellRun], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    format_id: str | None = None,
) -> ComparisonOutcome:
    """Run every batch of ``plan`` from the request ``base`` (a :class:`~evalens.runner.api_types.RunRequest`
    of a package's cases or of an eval file's units, ``format_id`` the file's format when the caller knows it:
    each batch is ``base`` with the cell's engine and model, the arm and the report path), one after another,
    each through :func:`evalens.runner.api.run`, whatever the format; each cell's arms compared once its
    reference has run. ``on_run`` is told each batch as it starts. A batch that cannot start (its CLI missing)
    raises the run's :class:`~evalens.runner.api_types.RunError`; cancelling stops the batch running and the
    rest."""
    from evalens.runner.api import run as run_batch  # lazy: api loads every suite

    outcome = ComparisonOutcome()
    found: dict[int, Path] = {}
    for cell in range(1, len(plan.cells) + 1):
        mine: dict[str, Path] = {}
        last: Path | None = None
        for run in plan.cell_runs(cell):
            if on_run is not None:
                on_run(run)
            result = await run_batch(batch_request(base, run), on_progress=on_progress, format_id=format_id)
            if await asyncio.to_thread(run.report.is_file):
                found[run.index], mine[str(run.arm)], last = run.report, run.report, run.report
            if result.interrupted:
                outcome.interrupted = True
                break
        if plan.reference is not None:  # a cell whose reference did not run decides nothing
            last = mine.get(plan.reference)
            if last is not None and not outcome.interrupted:
                names = [n for n in plan.names if n]
                await compare_arms_of(plan.arms, names, plan.reference, mine, judged=not base.no_judge)
        if last is not None:
            outcome.deciding.append((last, cell_label(*plan.cells[cell - 1])))
        if outcome.interrupted:
            break
    outcome.reports = [found[k] for k in sorted(found)]
    return outcome
