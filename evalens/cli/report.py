"""``evalens report``: work with finished reports.

  evalens report merge A.json B.json … -o all.json [--package DIR]
                                                      merge shard reports into one report
  evalens report ci REPORT [--junit PATH] [--github-summary] [--annotations on] [--github-output]
                                                      CI outputs from any report (e.g. a merged one)
  evalens report comment REPORT [--base BASE] [--key KEY]
                                                      the pull-request comment (Markdown) for a report
  evalens report split --shards N [--durations REPORT|DIR]… [--package DIR]
                                                      print the split every --shard K/N job will use
  evalens report matrix A.json B.json … [--json]      one row per unit, one column per report (engine · model):
                                                      k/N, 95% interval, cost

Exit codes: 0 done; 1 (``ci`` only) a unit did not pass; 2 unreadable input, a refused merge, bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalens.cli.ci_flags import add_ci_arguments, emit
from evalens.core.index import package_of_folder
from evalens.core.workflow_commands import shown
from evalens.runner.ci.merge import MergeError, merge_reports
from evalens.runner.ci.shard import ShardError, durations_from, split
from evalens.runner.matrix import matrix
from evalens.runner.report import NotAReport, load_report, write_report
from evalens.runner.verdicts import passed


def _merge(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="evalens report merge",
        description="Merge shard reports into one report (summary recomputed, "
        "provenance of every shard kept).",
    )
    p.add_argument("reports", nargs="+", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True, help="merged report path")
    p.add_argument(
        "--allow-missing", action="store_true", help="merge even when a shard of the split is absent"
    )
    p.add_argument(
        "--package",
        type=Path,
        help="package root the reports' case files are relative to (default: "
        "<pkg> of <pkg>/evals/reports/, else found from the cwd)",
    )
    add_ci_arguments(p)
    args = p.parse_args(argv)

    try:
        items = [(path, load_report(path)) for path in args.reports]
        merged, warnings = merge_reports(items, args.output, allow_missing=args.allow_missing)
    except (NotAReport, MergeError) as exc:
        print(shown(f"evalens report merge: {exc}"), file=sys.stderr)
        return 2
    for warning in warnings:
        print(shown(f"evalens report merge: warning: {warning}"), file=sys.stderr)
    try:
        write_report(merged, args.output)
    except OSError as exc:
        print(f"evalens report merge: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    s = merged.summary
    print(
        f"merged {len(items)} report(s), {s.total} unit(s): {s.passed} passed, {s.failed} failed, "
        f"{s.errored} errored, {s.skipped} skipped → {args.output}",
        file=sys.stderr,
    )
    return emit(args, merged, args.output, _package_of(args.output, args.package), "evalens report merge")


def _package_of(report_path: Path, explicit: Path | None) -> Path | None:
    """The package root a report's ``case_file`` paths are relative to: given, or ``<pkg>/evals/reports/``."""
    if explicit is not None:
        return explicit
    parent = report_path.resolve().parent
    if parent.name == "reports" and parent.parent.name == "evals":
        return parent.parent.parent

    return package_of_folder(Path.cwd()) or Path.cwd()


def _ci(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="evalens report ci", description="Write CI outputs from a finished report."
    )
    p.add_argument("report", type=Path)
    p.add_argument("--package", type=Path, help="package root the report's case files are relative to")
    add_ci_arguments(p)
    args = p.parse_args(argv)

    try:
        report = load_report(args.report)
    except NotAReport as exc:
        print(shown(f"evalens report ci: {exc}"), file=sys.stderr)
        return 2
    status = emit(args, report, args.report, _package_of(args.report, args.package), "evalens report ci")
    if status:
        return status
    bad = report.interrupted or any(not passed(c.verdict) and c.verdict != "SKIP" for c in report.cases)
    return 1 if bad else 0


def _split(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="evalens report split", description="Show how --shard K/N splits a suite."
    )
    p.add_argument("--shards", type=int, required=True, metavar="N")
    p.add_argument("--package", type=Path, help="package root (default: found from the cwd)")
    p.add_argument(
        "--durations",
        type=Path,
        action="append",
        metavar="REPORT|DIR",
        help="previous report(s) whose durations balance the split (default: the package's evals/reports/)",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)

    # lazy: cli.shard plans a run through evalens.runner.api (~0.3 s of imports); only `report split` needs it
    from evalens.cli.shard import find_package, planned_units
    from evalens.runner.api import RunError

    root = find_package(args.package)
    try:
        units = list(planned_units(root))
        default = root / "evals" / "reports"  # absent on a fresh checkout: then the split is by count
        durations = durations_from(args.durations or ([default] if default.is_dir() else []))
        cut = split(units, args.shards, durations)
    except (ShardError, RunError) as exc:
        print(shown(f"evalens report split: {exc}"), file=sys.stderr)
        return 2
    if args.json:
        print(
            json.dumps(
                {
                    "balanced_by": cut.balanced_by,
                    "split": cut.fingerprint,
                    "loads": cut.loads,
                    "shards": [list(s) for s in cut.shards],
                },
                indent=2,
            )
        )
        return 0
    print(
        f"{len(units)} unit(s) in {args.shards} shard(s), balanced by {cut.balanced_by}, split {cut.fingerprint}"
    )
    for k, (units_k, load) in enumerate(zip(cut.shards, cut.loads, strict=True), start=1):
        weight = f"~{load:.0f} s" if cut.balanced_by == "durations" else f"{len(units_k)} unit(s)"
        print(shown(f"  {k}/{args.shards} ({weight}): {', '.join(units_k) or '(none)'}"))
    return 0


def _comment(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="evalens report comment", description="Print the pull-request comment (Markdown) for a report."
    )
    p.add_argument("report", type=Path)
    p.add_argument("--base", type=Path, help="the base branch's report: what changed against it")
    p.add_argument(
        "--key", default="", help="tells apart the comments of several workflows on one pull request"
    )
    p.add_argument("--url", help="link to the full report (e.g. the run's artifact page)")
    p.add_argument(
        "--margin",
        type=float,
        default=None,
        metavar="DROP",
        help="the paired test's margin, as the gate is given it (`compare --test paired --margin`; default 0.05)",
    )
    args = p.parse_args(argv)
    if args.margin is not None and not 0 <= args.margin <= 1:
        print("evalens report comment: --margin must be between 0 and 1", file=sys.stderr)
        return 2

    try:
        report = load_report(args.report)
        base = load_report(args.base) if args.base is not None and args.base.is_file() else None
    except NotAReport as exc:
        print(shown(f"evalens report comment: {exc}"), file=sys.stderr)
        return 2
    if args.base is not None and base is None:
        print(
            f"evalens report comment: no base report at {args.base}; comparing with nothing", file=sys.stderr
        )
    # lazy: the comment's paired gate matches units across renames through unit_identity, which reads eval
    # files through every format (~0.4 s of imports); `report ci` and `report merge` never need it
    from evalens.runner.ci.comment import pr_comment

    sys.stdout.write(pr_comment(report, base=base, key=args.key, report_url=args.url, margin=args.margin))
    return 0


def _matrix(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="evalens report matrix",
        description="The same suite on several engines or models: one row per unit, one column per report.",
    )
    p.add_argument("reports", nargs="+", type=Path, help="one report per cell (engine · model)")
    p.add_argument("--json", action="store_true", help="print the matrix as JSON")
    args = p.parse_args(argv)

    try:
        reports = [load_report(path) for path in args.reports]
    except (NotAReport, OSError, ValueError) as exc:
        print(shown(f"evalens report matrix: {exc}"), file=sys.stderr)
        return 2
    table = matrix(reports)
    if args.json:
        print(json.dumps(table.as_json(), indent=2))
    else:
        print(shown(table.table()))
    return 0


def main(argv: list[str]) -> int:
    commands = {"merge": _merge, "ci": _ci, "split": _split, "comment": _comment, "matrix": _matrix}
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in commands:
        print(__doc__, file=sys.stdout if argv[:1] in (["-h"], ["--help"]) else sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    return commands[argv[0]](argv[1:])
