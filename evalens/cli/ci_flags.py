"""The CI flags every command that produces a report shares (``--junit``, ``--github-summary``,
``--annotations``, ``--github-output``) and the one function that honours them."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from evalens.runner.ci import github
from evalens.runner.ci.junit import write_junit


def add_ci_arguments(parser: argparse.ArgumentParser, *, github_summary: bool = True) -> None:
    """``github_summary=False``: the command already has its own ``--github-summary``."""
    group = parser.add_argument_group("CI outputs")
    group.add_argument(
        "--junit", type=Path, metavar="PATH", help="also write JUnit XML here (one testcase per unit)"
    )
    if github_summary:
        group.add_argument(
            "--github-summary",
            action="store_true",
            help="append a Markdown summary to the file $GITHUB_STEP_SUMMARY names",
        )
    group.add_argument(
        "--annotations",
        choices=["auto", "on", "off"],
        default="auto",
        help="print GitHub `::error file=…,line=…::` lines for units that did not pass "
        "(auto: when GITHUB_ACTIONS=true)",
    )
    group.add_argument(
        "--github-output",
        action="store_true",
        help="append pass-rate, verdict counts and paths to the file $GITHUB_OUTPUT names",
    )


def emit(
    args: argparse.Namespace,
    report: Any,
    report_path: Path | None,
    package_root: Path | None,
    prog: str,
    *,
    summary: bool | None = None,
) -> int:
    """Write what the flags ask for (``summary`` overrides ``--github-summary``); returns 2 when a requested
    output could not be written, else 0."""
    base = Path(os.environ.get("GITHUB_WORKSPACE") or Path.cwd())
    status = 0
    as_json = getattr(args, "json", False)  # stdout carries JSON then: only an explicit `on` adds annotations
    if args.annotations == "on" or (args.annotations == "auto" and github.in_actions() and not as_json):
        for line in github.annotation_lines(report, package_root=package_root, base=base):
            print(line)
    if args.junit is not None:
        try:
            write_junit(report, args.junit, package_root=package_root, base=base)
        except OSError as exc:
            print(f"{prog}: cannot write {args.junit}: {exc.strerror or exc}", file=sys.stderr)
            status = 2
    if args.github_summary if summary is None else summary:
        try:
            if (
                github.append("GITHUB_STEP_SUMMARY", github.step_summary(report, report_path=report_path))
                is None
            ):
                print(
                    f"{prog}: --github-summary: GITHUB_STEP_SUMMARY is not set; no summary written",
                    file=sys.stderr,
                )
        except OSError as exc:
            print(f"{prog}: cannot write the step summary: {exc.strerror or exc}", file=sys.stderr)
            status = 2
    if args.github_output:
        values = github.outputs(report, report_path=report_path, junit_path=args.junit)
        try:
            if github.append("GITHUB_OUTPUT", github.output_lines(values)) is None:
                print(
                    f"{prog}: --github-output: GITHUB_OUTPUT is not set; no outputs written", file=sys.stderr
                )
        except OSError as exc:
            print(f"{prog}: cannot write the step outputs: {exc.strerror or exc}", file=sys.stderr)
            status = 2
    return status
