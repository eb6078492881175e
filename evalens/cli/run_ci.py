"""CI flags of ``evalens run FILE`` (every runnable format other than UAAPS cases): ``--shard K/N``,
``--durations``, ``--junit``, ``--annotations``, ``--github-output``, and ``--github-summary`` for the formats
without a summary of their own (skilljack writes its own, as the original tool does)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evalens.cli.ci_flags import add_ci_arguments, emit
from evalens.cli.sandbox_policy import add_sandbox_argument
from evalens.cli.shard import add_shard_arguments, cut_shard, mark_report, write_empty_report
from evalens.core.models.uaaps import ReportConfig, ReportSandbox
from evalens.runner.ci.github import in_actions
from evalens.runner.ci.shard import ShardError
from evalens.runner.report import write_report
from evalens.runner.run_file import prepare
from evalens.runner.sandbox import plan_sandbox
from evalens.runner.session import UsageError

OWN_SUMMARY = ("skilljack",)  # format ids starting with these write their own step summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_shard_arguments(parser)
    add_ci_arguments(parser, github_summary=False)  # `evalens run` has its own --github-summary
    add_sandbox_argument(parser)


def wanted(args: argparse.Namespace) -> bool:
    return bool(
        args.shard
        or args.junit
        or args.github_output
        or args.github_summary
        or args.annotations == "on"
        or (args.annotations == "auto" and in_actions())
    )


def before(
    args: argparse.Namespace, request: Any, format_id: str | None
) -> tuple[Any, Any, Path | None, int | None]:
    """The request narrowed to this shard, the shard's mark, the suite's root, and an exit code when nothing
    is left to run (an empty shard: its empty report is written here)."""
    try:
        suite, units = prepare(request, None, format_id)
    except (UsageError, ValueError):
        return request, None, None, None  # the run itself reports it, the way it always has
    if not args.shard:
        return request, None, suite.root, None

    try:
        mine, mark = cut_shard(
            args.shard,
            {u.id: Path(request.file) for u in units},
            suite.root,
            args.durations,
            getattr(request, "runs", None),
        )
    except ShardError as exc:
        print(f"evalens run: {exc}", file=sys.stderr)
        return request, None, suite.root, 2
    print(
        f"evalens run: shard {mark.index}/{mark.count}: {len(mine)} of {len(units)} unit(s), balanced by "
        f"{mark.balanced_by} (split {mark.split})",
        file=sys.stderr,
    )
    if not mine:
        if request.dry_run:
            print(f"shard {args.shard}: no unit (the suite has {len(units)})")
            return request, mark, suite.root, 0
        report, path = _empty_report(request, suite, mark)
        print(f"evalens run: shard {args.shard} has no unit; empty report: {path}", file=sys.stderr)
        return (
            request,
            mark,
            suite.root,
            emit(args, report, path, suite.root, "evalens run", summary=_own_summary(args, format_id)),
        )
    return request.model_copy(update={"units": mine}), mark, suite.root, None


def after(args: argparse.Namespace, outcome: Any, mark: Any, root: Path | None, format_id: str | None) -> int:
    """Mark the shard in the written report and write the CI outputs; 2 when an output could not be written."""
    if outcome.report is None:
        return 0
    if mark is not None:
        mark_report(outcome.report, outcome.report_path, mark)
    return emit(
        args, outcome.report, outcome.report_path, root, "evalens run", summary=_own_summary(args, format_id)
    )


def record_sandbox(outcome: Any) -> None:
    """A file run's report says whether bubblewrap enforced its sandbox (``sandboxed: true|false``), as a UAAPS
    run's does: the plan the file session made at its start (network off; same process, same environment)."""
    report = outcome.report
    if report is None or getattr(report, "sandbox", None) is not None:
        return

    plan = plan_sandbox(False, None)
    report.sandbox = ReportSandbox(enforced=plan.enforced, method=plan.method, network=plan.network)
    if outcome.report_path is not None:
        write_report(report, outcome.report_path)


def _own_summary(args: argparse.Namespace, format_id: str | None) -> bool:
    """Write evalens's step summary unless the format's suite wrote its own."""
    return bool(args.github_summary) and not (format_id or "").startswith(OWN_SUMMARY)


def _empty_report(request: Any, suite: Any, mark: Any) -> tuple[Any, Path]:
    return write_empty_report(mark, suite.root, request.output, ReportConfig(engine=request.engine))
