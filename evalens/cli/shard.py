"""``--shard K/N`` on the command line: which units this job runs, and the shard's mark on its report.

The units come from the run's own plan (the selection after CASE arguments and ``--target``), so every job
of a matrix that runs the same command sees the same list; the split itself is :mod:`evalens.runner.ci.shard`.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalens.core.index import package_of_folder
from evalens.core.models.uaaps import ReportConfig, ReportPackage, ReportShard
from evalens.runner.api import RunRequest, plan_run
from evalens.runner.ci.shard import (
    cases_fingerprint,
    commit_of,
    config_fingerprint,
    durations_from,
    parse_spec,
    split,
    split_fingerprint,
)
from evalens.runner.comparison import cell_label
from evalens.runner.matrix import shard_pairs
from evalens.runner.report import allocate_report_path, batch_id, new_report, utc_now, write_report


def add_shard_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sharding (one suite across N machines)")
    group.add_argument("--shard", metavar="K/N", help="run only shard K of N (1-based; deterministic split)")
    group.add_argument(
        "--durations",
        type=Path,
        action="append",
        metavar="REPORT|DIR",
        help="previous report(s) whose unit durations balance the split (repeatable; default: "
        "the package's evals/reports/ when it has reports)",
    )


def find_package(explicit: Path | None) -> Path:
    """The package a command works on: ``--package``, else the working folder when it holds ``evals/``, else
    the package root around it."""
    if explicit is not None:
        return explicit
    cwd = Path.cwd()
    return package_of_folder(cwd) or cwd


def planned_units(root: Path, request: Any = None) -> dict[str, str]:
    """Unit name → case file, in the run's order, as a dry run of ``request`` (default: every case) plans it."""
    request = request or RunRequest(package_root=root)
    ctx = plan_run(request.model_copy(update={"dry_run": True}))
    return {case.name: case.case_file for case in ctx.plan.cases}


def cut_shard(
    spec: str,
    case_files: Mapping[str, str | Path],
    root: Path,
    durations: list[Path] | None,
    runs: int | None,
) -> tuple[list[str], Any]:
    """Shard K's units of ``case_files`` (unit → its file) and the report's ``shard`` mark, balanced by the
    durations in ``durations`` (else the suite's own past reports). Raises ``ShardError``."""
    index, count = parse_spec(spec)
    default = root / "evals" / "reports"
    sources = durations if durations else ([default] if default.is_dir() else [])
    cut = split(list(case_files), count, durations_from(sources) if sources else None)
    mark = ReportShard(
        index=index,
        count=count,
        units=len(case_files),
        balanced_by=cut.balanced_by,  # type: ignore[arg-type]
        split=cut.fingerprint,
        commit=commit_of(root),
        runs=runs,
        config=config_fingerprint(root / "evals" / "eval-config.json"),
        cases=cases_fingerprint(case_files, root),
    )
    return cut.units(index), mark


def _of_cell(engine: str | None, model: str | None) -> Any:
    """Which past reports a cell's durations come from: its engine's (and its model's, when one is asked)."""

    def keep(report: Any) -> bool:
        ran = report.agent.model if report.agent is not None else None
        return (engine is None or report.config.engine == engine) and (model is None or ran == model)

    return keep


def cut_matrix_shard(
    spec: str,
    cells: list[tuple[str | None, str | None]],
    case_files: Mapping[str, str | Path],
    root: Path,
    durations: list[Path] | None,
    runs: int | None,
) -> list[tuple[list[str], Any]]:
    """A matrix run's shard K, split by cell × unit (:func:`evalens.runner.matrix.shard_pairs`): for each cell,
    in order, the units this shard runs in it and the cell report's ``shard`` mark (the same split fingerprint
    in every cell report of every shard, and the cell's label, so a merge takes one cell's shards only).
    Balanced by each pair's past duration from its engine's and model's reports, else by count. Raises
    ``ShardError``."""
    index, count = parse_spec(spec)
    labels = [cell_label(engine, model) for engine, model in cells]
    units = list(case_files)
    default = root / "evals" / "reports"
    sources = durations if durations else ([default] if default.is_dir() else [])
    known = {
        (i, unit): seconds
        for i, (engine, model) in enumerate(cells)
        for unit, seconds in (durations_from(sources, _of_cell(engine, model)) if sources else {}).items()
        if unit in case_files
    }
    shards = shard_pairs(labels, units, count, known or None)
    fingerprint = split_fingerprint([[f"{i}\x1f{unit}" for i, unit in shard] for shard in shards])
    mark = ReportShard(
        index=index,
        count=count,
        units=len(units),
        balanced_by="durations" if known else "count",
        split=fingerprint,
        commit=commit_of(root),
        runs=runs,
        config=config_fingerprint(root / "evals" / "eval-config.json"),
        cases=cases_fingerprint(case_files, root),
    )
    mine = shards[index - 1]
    return [
        ([unit for cell, unit in mine if cell == i], mark.model_copy(update={"cell": label}))
        for i, label in enumerate(labels)
    ]


def restrict(request: Any, spec: str, durations: list[Path] | None) -> tuple[Any, Any, int]:
    """``request`` narrowed to shard K's units, the report's ``shard`` mark, and K's unit count (may be 0).

    Raises ``ShardError`` / ``RunError`` with one line for the user."""
    root = request.package_root
    units = planned_units(root, request)
    mine, mark = cut_shard(spec, units, root, durations, request.runs)
    narrowed = request.model_copy(update={"cases": [units[name] for name in mine], "target": None})
    return narrowed, mark, len(mine)


def empty_report(request: Any, mark: Any) -> tuple[Any, Path]:
    """The report of a shard that got no unit (N larger than the suite): valid, mergeable, all zeros."""
    plan = plan_run(request.model_copy(update={"dry_run": True, "cases": []})).plan
    return write_empty_report(
        mark,
        request.package_root.resolve(),
        request.output,
        ReportConfig(engine=plan.engine, judge=plan.judge, timeout=plan.timeout),
        ReportPackage(name=plan.package_name, version=plan.package_version),
    )


def write_empty_report(
    mark: Any, root: Path, output: Path | None, config: Any, package: Any = None
) -> tuple[Any, Path]:
    """Write the all-zeros report of an empty shard under ``root`` (or at ``output``)."""
    started = utc_now()
    report = new_report(
        started, [], config, report_id=batch_id(started) + _shard_suffix(mark), package=package, shard=mark
    )
    return report, write_report(report, allocate_report_path(root, started, output))


def _shard_suffix(mark: Any) -> str:
    """What a shard adds to its report's id: ``-shard-K-of-N``."""
    return f"-shard-{mark.index}-of-{mark.count}"


def mark_report(report: Any, path: Path | None, mark: Any) -> None:
    """Record the shard in the report the run wrote (rewritten atomically)."""
    report.shard = mark
    report.id += _shard_suffix(mark)
    if path is not None:
        write_report(report, path)
