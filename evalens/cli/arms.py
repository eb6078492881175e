"""``evalens eval --arms skill,no-skill,plugin,ref:v1.2,without:references`` (runner/arms.py): one ordinary
batch per arm, each with its own report, the reference arm last (so the editor's newest report is its); then
its report gets the comparison with every other arm and the CLI prints one row per unit and one column per arm,
with the uplift of the reference over each arm. The exit code is the reference arm's."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from evalens.cli.eval import _check_args, _request, _run_and_report
from evalens.cli.run import _exit_code, _print_outcome, _run
from evalens.core.models.baseline import ReportArms
from evalens.core.workflow_commands import shown
from evalens.runner.arms import ArmError, comparison, parse, resolve_arm
from evalens.runner.judge import resolve_judge
from evalens.runner.matrix import matrix
from evalens.runner.pairwise import compare_arms
from evalens.runner.report import load_report, stamp, utc_now, write_report

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
    refused = _refuse(args)
    if refused is not None:
        print(f"evalens eval: {refused}", file=sys.stderr)
        return 2
    checked = _check_args(args)
    request = checked if checked is not None else _request(args)
    if isinstance(request, int):
        return request
    resolved = _arms_of(args, request.package_root.resolve(), "evalens eval")
    if isinstance(resolved, int):
        return resolved
    names, reference, arms = resolved

    batch = stamp(utc_now())
    folder = request.package_root / "evals" / "reports"
    order = [n for n in names if n != reference] + [reference]
    paths: dict[str, Path] = {}
    code = 0
    for i, name in enumerate(order, 1):
        arm = arms[name]
        print(shown(f"evalens eval: arm {arm.label}"), file=sys.stderr)
        path = folder / (f"{batch}-arms.json" if name == reference else f"{batch}-arm-{i}.json")
        one = argparse.Namespace(**{**vars(args), "json": False})
        code = _run_and_report(request.model_copy(update={"output": path, "arm": name}), one)
        if code >= 128:  # interrupted: no more arms
            return code
        if path.is_file():
            paths[name] = path
    if reference not in paths:
        return code or 1
    report = _compare(arms, names, reference, paths, judged=not args.no_judge)
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
    """``--arms`` / ``--arms-reference`` checked and every arm resolved (a ref known) before any agent starts:
    the names in order, the reference, the arms; exit 2 with the reason otherwise."""
    reference = args.arms_reference or "skill"
    try:
        names = parse(args.arms)
        if reference not in names:
            raise ArmError(f"--arms-reference {reference} is not one of --arms {args.arms}")
        return names, reference, {name: resolve_arm(name, where) for name in names}
    except ArmError as exc:
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
    echo: bool = True,
) -> Any:
    """Mark every arm's report with its arm, give the reference's the comparison (``judged``: with the judge's
    pairwise comparison of each unit's outputs too), print the table (``echo``; a matrix run prints one table
    of every cell instead)."""
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
    if judged and ref.judge is not None and ref.judge.model:
        _pairwise(ref, paths, reports, reference)
    write_report(ref, paths[reference])  # written last: the newest report, the one the editor shows
    if echo:
        print(shown(table([n for n in names if n in reports], reports, arms, reference)), file=sys.stderr)
    return ref


def _pairwise(ref: Any, paths: dict[str, Path], reports: dict[str, Any], reference: str) -> None:
    """Each comparison's units judged pairwise by the reference run's judge (runner/pairwise.py): each unit's
    two outputs twice, the order swapped."""
    provider = ref.judge.model_provider or "anthropic"
    spec = resolve_judge(f"{provider}:{ref.judge.model}", default_provider=provider)
    by_label = {report.arm.label: name for name, report in reports.items() if report.arm is not None}
    for compared in ref.arms.comparisons:
        name = by_label.get(compared.arm.label)
        if name is None or name == reference:
            continue
        print(
            shown(f"evalens eval: judging {ref.arm.label} vs {compared.arm.label} pairwise"),
            file=sys.stderr,
        )
        compared.pairwise = asyncio.run(
            compare_arms(spec, (paths[reference], ref), (paths[name], reports[name]))
        )


def table(names: list[str], reports: dict[str, Any], arms: dict[str, Any], reference: str) -> str:
    """One row per unit, one column per arm (state k/N [interval] $cost), then the reference's uplift over
    each other arm per unit; under it the units pooled with the paired interval (runner/matrix.py words all
    of it, as for a matrix run with arms)."""
    grid = matrix([reports[n] for n in names])
    grid.columns = [arms[n].label + (" (reference)" if n == reference else "") for n in names]
    return grid.table()
