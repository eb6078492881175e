"""The CLI's comparison runs: ``--arms skill,no-skill,plugin,ref:v1.2,without:references`` (runner/arms.py) and
matrices of ``--engine a,b`` / ``--model A,B``, for a package and an eval file alike. The plan (cells, arms, the
reference last, report names) is the runner's (runner/comparison.py); :func:`compare_all` is the one loop over it,
each face handing it how it runs one batch (:func:`package_batches`, :func:`file_batches`). Each batch writes its
own report; each cell's reference report gets the comparison with the cell's other arms; one cell prints the
units × arms table with the reference's uplift over each arm, a matrix the units × cells matrix. The exit code
is the worst cell's reference arm's."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalens.cli import sandbox_policy
from evalens.cli.eval import (
    _check_args,
    _is_matrix,
    _request,
    _run_and_report,
    _shard_cell,
    _write_unrun_cell,
    matrix_junit,
)
from evalens.cli.run import _exit_code, _print_outcome, _refuse_unsandboxed, _run
from evalens.core.workflow_commands import shown
from evalens.runner.comparison import (
    CellRun,
    ComparisonError,
    batch_request,
    cell_label,
    compare_arms_of,
    plan_comparison,
)
from evalens.runner.matrix import matrix
from evalens.runner.report import load_report, write_report
from evalens.runner.run_file import unrun_report
from evalens.runner.suites import suite_root

CLASHING = (
    ("--baseline", "baseline"),
    ("--shard", "shard"),
    ("--resume", "resume"),
    ("--output", "output"),
    ("--dry-run", "dry_run"),
    ("--changed-since", "changed_since"),
)


def _refuse(args: argparse.Namespace) -> str | None:
    """Why these flags cannot run as arms (None: they can). Several engines or models run every arm in every
    cell (``evalens/cli/eval.py::_matrix``)."""
    clashing = [flag for flag, name in CLASHING if getattr(args, name, None)]
    return f"an --arms run takes no {', '.join(clashing)}" if clashing else None


def run_arms(args: argparse.Namespace) -> int:
    """One cell of a package, every arm (the runner's plan, runner/comparison.py: the reference last), each
    batch run with the CLI's view (:func:`compare_all`); then the comparison and the units × arms table."""
    refused = _refuse(args)
    if refused is not None:
        print(f"evalens eval: {refused}", file=sys.stderr)
        return 2
    checked = _check_args(args)
    request = checked if checked is not None else _request(args)
    if isinstance(request, int):
        return request
    try:
        plan = plan_comparison(
            request.package_root, args.engine, args.agent_model, args.arms, args.arms_reference, matrix=False
        )
    except ComparisonError as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        return 2
    assert plan.reference is not None
    batch = package_batches(args, plan, None, {1: request})
    return compare_all(args, plan, batch, prog="evalens eval", pairwise=not args.no_judge, junit=False)


class StopCell(Exception):
    """A batch that stops its cell: the cell's request cannot be built, or a batch is refused before any agent
    (``code``: the exit code); the comparison goes on with the next cell."""

    def __init__(self, exit_code: int) -> None:
        super().__init__(exit_code)
        self.exit_code = exit_code


Batch = Callable[[CellRun], tuple[int, Path | None]]
"""One batch of the plan run with a face's view: its exit code and its report (None: none was written)."""


def compare_all(
    args: argparse.Namespace, plan: Any, batch: Batch, *, prog: str, pairwise: bool, junit: bool
) -> int:
    """The CLI's one loop over the runner's comparison plan (runner/comparison.py), for a package's cases and an
    eval file's units alike: each cell's batches in the plan's order (the reference arm last), each run by
    ``batch`` (the face's own view, checks and exit code); then each cell's reference report compared with its
    other arms (judged pairwise when ``pairwise``); then, for a matrix, the units × cells matrix and (``junit``)
    one JUnit suite per cell. One cell with arms prints the units × arms table instead (and under ``--json``
    the reference's report with the comparison). The exit code is the worst cell's: its reference arm's, or its
    one batch's; 1 for a cell whose reference wrote no report; a batch interrupted (128+n) ends the run."""
    codes: list[int] = []
    found: dict[int, Path] = {}  # report index → path, every cell × arm
    decides: list[tuple[Path, str]] = []  # per cell, the report its exit code and JUnit suite come from
    for cell in range(1, len(plan.cells) + 1):
        mine: dict[str, Path] = {}
        code = 0
        try:
            for run in plan.cell_runs(cell):
                label = plan.arms[run.arm].label if run.arm and not plan.is_matrix else run.label
                print(shown(f"{prog}: {'cell' if plan.is_matrix else 'arm'} {label}"), file=sys.stderr)
                code, path = batch(run)
                if code >= 128:  # interrupted: no more batches
                    return code
                if path is not None:
                    found[run.index] = mine[str(run.arm)] = path
        except StopCell as stopped:
            codes.append(stopped.exit_code)
            continue
        if plan.reference is not None and plan.reference not in mine:
            codes.append(code or 1)  # a cell whose reference did not run decides nothing
            continue
        codes.append(code)
        deciding = mine.get(str(plan.reference))
        if deciding is not None:
            decides.append((deciding, cell_label(*plan.cells[cell - 1])))
        if (
            plan.reference is not None
        ):  # the reference's report gets the comparison with the cell's other arms
            names = [n for n in plan.names if n]
            if plan.is_matrix:  # the matrix below shows every cell's uplift per arm
                asyncio.run(compare_arms_of(plan.arms, names, plan.reference, mine, judged=pairwise))
            else:
                compared = _compare(plan.arms, names, plan.reference, mine, judged=pairwise)
                if args.json:  # the reference's report with the comparison
                    print(json.dumps(compared.model_dump(mode="json", exclude_none=True), indent=2))
    if plan.is_matrix and found:
        grid = matrix([load_report(found[k]) for k in sorted(found)])
        print(json.dumps(grid.as_json(), indent=2) if args.json else shown(grid.table()))
    if junit and args.junit is not None:  # one suite per cell, in one document
        reports = [load_report(p) for p, _label in decides]
        codes.append(
            matrix_junit(reports, [label for _p, label in decides], args.junit, [p for p, _ in decides])
        )
    return max(codes, default=0)


def package_batches(
    args: argparse.Namespace, plan: Any, shards: Any, requests: dict[int, Any] | None = None
) -> Batch:
    """A package's batches for :func:`compare_all`: each cell's request built once from the flags with the
    cell's engine and model (``requests``: the ones already built, by cell), narrowed to a shard's units
    (``shards``: per cell, the units and the mark), run with the UAAPS progress view. A matrix cell that could
    not start writes its ERROR report, so its column and JUnit suite say so."""
    built: dict[int, Any] = dict(requests or {})

    def batch(run: CellRun) -> tuple[int, Path | None]:
        engine, model = (run.engine, run.model) if plan.is_matrix else (args.engine, args.agent_model)
        # a matrix writes one JUnit file for every cell, at the end: a cell's own would overwrite the one before
        cell = argparse.Namespace(
            **{
                **vars(args),
                "engine": engine,
                "agent_model": model,
                "json": False,
                "junit": None if plan.is_matrix else args.junit,
            }
        )
        if run.cell not in built:
            refused = _check_args(cell)
            built[run.cell] = refused if refused is not None else _request(cell)
        request = built[run.cell]
        if isinstance(request, int):
            raise StopCell(request)
        path = run.report
        one = request.model_copy(update={"output": path, **({"arm": run.arm} if run.arm else {})})
        mark = None
        if shards is not None:
            narrowed = _shard_cell(one, shards[run.cell - 1], cell)
            if isinstance(narrowed, int):
                return narrowed, path if path.is_file() else None
            one, mark = narrowed
        refusal: list[str] = []
        code = _run_and_report(one, cell, mark, refusal)
        if code >= 128:
            return code, None
        if plan.is_matrix and not path.is_file() and refusal:  # the cell never ran: its column says ERROR
            _write_unrun_cell(one, cell, plan.arms[run.arm] if run.arm else None, path, refusal[0])
        return code, path if path.is_file() else None

    return batch


RUN_CLASHING = (
    ("--baseline", "baseline"),
    ("--shard", "shard"),
    ("--resume", "resume"),
    ("--report", "report"),
    ("--dry-run", "dry_run"),
    ("--changed-since", "changed_since"),
)


def is_comparison(args: argparse.Namespace) -> bool:
    """Several engines or models (a matrix: ``cli/eval.py::_is_matrix``, the one test for every format), or
    ``--arms``: a comparison run, one batch per cell × arm."""
    return bool(args.arms) or _is_matrix(args)


def run_file_comparison(args: argparse.Namespace, request: Any, fmt: str | None) -> int:
    """``evalens run FILE --engine a,b --model … --arms …``: what a package's comparison does, for an eval file
    of any other format, from the runner's one plan (runner/comparison.py): one ``run_file`` batch per cell ×
    arm (the arm's install of the skills in every run), each with its own report in the suite's reports folder,
    each cell's reference arm last and its report given the comparison with the cell's other arms. One cell
    prints the units × arms table; a matrix prints the units × cells matrix (each column a cell · arm, with its
    uplift per arm). The exit code is the worst of the cells' reference arms (of the cells, without arms)."""
    several = _is_matrix(args)  # reports named by cell, the matrix printed
    command = "evalens run"
    clashing = [flag for flag, name in RUN_CLASHING if getattr(args, name, None)]
    if several and args.output:
        clashing.append("--output")  # every cell has its own report
    if clashing:
        what = "a matrix run" if several and not args.arms else "an --arms run"
        print(f"{command}: {what} takes no {', '.join(clashing)}", file=sys.stderr)
        return 2
    try:
        plan = plan_comparison(
            suite_root(fmt, request.file_path),
            args.engine,
            args.agent_model,
            args.arms,
            args.arms_reference,
            matrix=several,
        )
    except ComparisonError as exc:
        print(shown(f"{command}: {exc}"), file=sys.stderr)
        return 2
    batch = file_batches(args, request, fmt, plan)
    return compare_all(args, plan, batch, prog=command, pairwise=False, junit=True)


def file_batches(args: argparse.Namespace, request: Any, fmt: str | None, plan: Any) -> Batch:
    """An eval file's batches for :func:`compare_all`: each the file's request on the batch's cell and arm
    (``runner.comparison.batch_request``), held to ``--sandbox`` as a batch of its own is (a refusal stops the
    cell before any agent), run with the file's view; under ``--json`` the batches' lines go to stderr. A
    matrix cell that could not start writes its ERROR report."""
    sandbox = sandbox_policy.policy(args)

    def batch(run: CellRun) -> tuple[int, Path | None]:
        one = batch_request(request, run)
        refused = _refuse_unsandboxed(sandbox, one)  # each batch as a batch of its own is: before any agent
        if refused is not None:
            raise StopCell(refused)
        refusal: list[str] = []
        outcome = _run(one, fmt, args, refusal)
        if isinstance(outcome, int):
            if outcome < 128 and plan.is_matrix and refusal and not run.report.exists():
                write_report(unrun_report(one, refusal[0], fmt), run.report)  # its column and suite say ERROR
                return outcome, run.report
            return outcome, None
        with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
            _print_outcome(outcome)  # under --json, stdout is the one JSON document at the end
        code = sandbox_policy.refuse_after(sandbox, outcome.report, "evalens run") or _exit_code(
            args, outcome
        )
        written = outcome.report_path is not None and Path(outcome.report_path).is_file()
        return code, Path(outcome.report_path) if written else None

    return batch


def _compare(
    arms: dict[str, Any],
    names: list[str],
    reference: str,
    paths: dict[str, Path],
    judged: bool = True,
) -> Any:
    """The runner's comparison of one cell's arms (runner/comparison.py), saying which pairs the judge
    compares; then the units × arms table."""

    def judging(ours: str, theirs: str) -> None:
        print(shown(f"evalens eval: judging {ours} vs {theirs} pairwise"), file=sys.stderr)

    ref = asyncio.run(compare_arms_of(arms, names, reference, paths, judged, on_pairwise=judging))
    reports = {name: load_report(path) for name, path in paths.items()}
    print(shown(table([n for n in names if n in reports], reports, arms, reference)), file=sys.stderr)
    return ref


def table(names: list[str], reports: dict[str, Any], arms: dict[str, Any], reference: str) -> str:
    """One row per unit, one column per arm (state k/N [interval] $cost), then the reference's uplift over
    each other arm per unit; under it the units pooled with the paired interval (runner/matrix.py words all
    of it, as for a matrix run with arms)."""
    grid = matrix([reports[n] for n in names])
    grid.columns = [arms[n].label + (" (reference)" if n == reference else "") for n in names]
    return grid.table()
