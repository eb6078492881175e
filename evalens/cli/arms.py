"""``evalens eval --arms skill,no-skill,plugin,ref:v1.2,without:references`` (runner/arms.py): one ordinary
batch per arm, each with its own report, the reference arm last (so the editor's newest report is its); then
its report gets the comparison with every other arm and the CLI prints one row per unit and one column per arm,
with the uplift of the reference over each arm. The exit code is the reference arm's."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from evalens.cli import sandbox_policy
from evalens.cli.eval import _check_args, _is_matrix, _request, _run_and_report, matrix_junit
from evalens.cli.run import _exit_code, _print_outcome, _refuse_unsandboxed, _run
from evalens.core.workflow_commands import shown
from evalens.runner.comparison import (
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
    """One cell, every arm (the runner's plan, runner/comparison.py: the reference last), each batch run with
    the CLI's view; then the comparison and the units × arms table."""
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
    paths: dict[str, Path] = {}
    code = 0
    for run in plan.cell_runs(1):
        assert run.arm is not None
        print(shown(f"evalens eval: arm {plan.arms[run.arm].label}"), file=sys.stderr)
        one = argparse.Namespace(**{**vars(args), "json": False})
        code = _run_and_report(request.model_copy(update={"output": run.report, "arm": run.arm}), one)
        if code >= 128:  # interrupted: no more arms
            return code
        if run.report.is_file():
            paths[run.arm] = run.report
    if plan.reference not in paths:
        return code or 1
    names = [n for n in plan.names if n]
    report = _compare(plan.arms, names, plan.reference, paths, judged=not args.no_judge)
    if args.json:
        print(json.dumps(report.model_dump(mode="json", exclude_none=True), indent=2))
    return code


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
    codes: list[int] = []
    found: dict[int, Path] = {}
    decides: list[tuple[Path, str]] = []  # per cell, the report its exit code and JUnit suite come from
    for cell in range(1, len(plan.cells) + 1):
        code, mine = _file_cell(args, request, fmt, plan, cell, found)
        if code >= 128:  # interrupted: no more batches
            return code
        codes.append(code)
        deciding = mine.get(str(plan.reference))
        if deciding is not None:
            decides.append((deciding, cell_label(*plan.cells[cell - 1])))
        if plan.reference is not None and plan.reference in mine:
            names = [n for n in plan.names if n]
            if plan.is_matrix:  # the matrix below shows every cell's uplift per arm
                asyncio.run(compare_arms_of(plan.arms, names, plan.reference, mine, judged=False))
            else:
                compared = _compare(plan.arms, names, plan.reference, mine, judged=False)
                if args.json:  # the reference's report with the comparison, as for a package's arms
                    print(json.dumps(compared.model_dump(mode="json", exclude_none=True), indent=2))
    if plan.is_matrix and found:
        grid = matrix([load_report(found[k]) for k in sorted(found)])
        print(json.dumps(grid.as_json(), indent=2) if args.json else shown(grid.table()))
    if args.junit is not None:  # one suite per cell, as for a package's matrix
        reports = [load_report(p) for p, _label in decides]
        codes.append(
            matrix_junit(reports, [label for _p, label in decides], args.junit, [p for p, _ in decides])
        )
    return max(codes, default=0)


def _file_cell(
    args: argparse.Namespace, request: Any, fmt: str | None, plan: Any, cell: int, found: dict[int, Path]
) -> tuple[int, dict[str, Path]]:
    """One cell of a file's comparison: each batch of the plan (the reference arm last) run with the CLI's
    view, its report kept in ``found`` by its index. Returns the cell's exit code (its reference arm's, or its
    one batch's; 1 when the reference wrote no report) and the cell's reports by arm."""
    mine: dict[str, Path] = {}
    code = 0
    sandbox = sandbox_policy.policy(args)
    for run in plan.cell_runs(cell):
        label = plan.arms[run.arm].label if run.arm and not plan.is_matrix else run.label
        print(shown(f"evalens run: {'cell' if plan.is_matrix else 'arm'} {label}"), file=sys.stderr)
        one = batch_request(request, run)
        refused = _refuse_unsandboxed(sandbox, one)  # each batch as a batch of its own is: before any agent
        if refused is not None:
            return refused, mine
        refusal: list[str] = []
        outcome = _run(one, fmt, args, refusal)
        if isinstance(outcome, int):
            if outcome >= 128:  # interrupted: no more batches
                return outcome, mine
            code = outcome
            if plan.is_matrix and refusal and not run.report.exists():  # its column and suite say ERROR
                write_report(unrun_report(one, refusal[0], fmt), run.report)
                found[run.index] = mine[str(run.arm)] = run.report
            continue
        with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
            _print_outcome(outcome)  # under --json, stdout is the one JSON document at the end
        code = sandbox_policy.refuse_after(sandbox, outcome.report, "evalens run") or _exit_code(
            args, outcome
        )
        if outcome.report_path is not None and Path(outcome.report_path).is_file():
            found[run.index] = mine[str(run.arm)] = Path(outcome.report_path)
    if plan.reference is not None and plan.reference not in mine:
        return code or 1, mine
    return code, mine


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
