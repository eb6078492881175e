"""``evalens eval --arms skill,no-skill,plugin,ref:v1.2,without:references`` (runner/arms.py): one ordinary
batch per arm, each with its own report, the reference arm last (so the editor's newest report is its); then
its report gets the comparison with every other arm and the CLI prints one row per unit and one column per arm,
with the uplift of the reference over each arm. The exit code is the reference arm's."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from evalens.cli.eval import _check_args, _request, _run_and_report
from evalens.cli.run import _exit_code, _print_outcome, _run
from evalens.core.workflow_commands import shown
from evalens.runner.comparison import ComparisonError, compare_arms_of, plan_comparison, resolve_arms
from evalens.runner.matrix import matrix
from evalens.runner.report import load_report

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
)


def _arms_of(
    args: argparse.Namespace, where: Path, command: str
) -> tuple[list[str], str, dict[str, Any]] | int:
    """``--arms`` / ``--arms-reference`` resolved before any agent starts (runner/comparison.py): the names in
    order, the reference, the arms; exit 2 with the reason otherwise."""
    try:
        return resolve_arms(args.arms, args.arms_reference, where)
    except ComparisonError as exc:
        print(shown(f"{command}: {exc}"), file=sys.stderr)
        return 2


def run_file_arms(args: argparse.Namespace, request: Any, fmt: str | None) -> int:
    """``evalens run FILE --arms …``: what ``evalens eval --arms`` does, for the other formats: one ``run_file``
    batch per arm (the arm's install of the skills in every run), each with its own report, the reference last;
    its report gets the comparison and the CLI the units × arms table. The exit code is the reference arm's."""
    clashing = [flag for flag, name in RUN_CLASHING if getattr(args, name, None)]
    if clashing:
        print(f"evalens run: an --arms run takes no {', '.join(clashing)}", file=sys.stderr)
        return 2
    resolved = _arms_of(args, request.file.resolve().parent, "evalens run")
    if isinstance(resolved, int):
        return resolved
    names, reference, arms = resolved
    order = [n for n in names if n != reference] + [reference]
    paths: dict[str, Path] = {}
    code = 0
    for name in order:
        print(shown(f"evalens run: arm {arms[name].label}"), file=sys.stderr)
        outcome = _run(request.model_copy(update={"arm": name}), fmt, args)
        if isinstance(outcome, int):
            if outcome >= 128:  # interrupted: no more arms
                return outcome
            code = outcome
            continue
        _print_outcome(outcome)
        code = _exit_code(args, outcome)
        if outcome.report_path is not None and Path(outcome.report_path).is_file():
            paths[name] = Path(outcome.report_path)
    if reference not in paths:
        return code or 1
    _compare(arms, names, reference, paths, judged=False)
    return code


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
