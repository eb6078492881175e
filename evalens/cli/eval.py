"""``evalens eval``: a thin command line over :mod:`evalens.runner.api`.

Exit codes: 0 every case passed (or was skipped), 1 a case failed or errored, 2 usage/config error (nothing
started), 130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP (once the run started, a partial report with
``interrupted: true`` is still written).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from evalens.cli import limits, run_options, sandbox_policy
from evalens.cli.changed import ChangedSinceError, changed_units
from evalens.cli.ci_flags import emit
from evalens.cli.progress import ProgressView, print_summary
from evalens.cli.shard import (
    cut_matrix_shard,
    empty_report,
    find_package,
    mark_report,
    planned_units,
    restrict,
)
from evalens.core.workflow_commands import shown
from evalens.runner.adaptive import parse_runs
from evalens.runner.api import RunError, RunRequest, plan_run, rejudge, run_cases
from evalens.runner.budget import estimate, history
from evalens.runner.ci.gate import EXIT_OK, EXIT_REGRESSION, gate
from evalens.runner.ci.junit import write_junit
from evalens.runner.ci.paired import DEFAULT_MARGIN, paired_gate
from evalens.runner.ci.shard import ShardError
from evalens.runner.comparison import ComparisonError, plan_comparison
from evalens.runner.depends import NextRun
from evalens.runner.interrupts import interrupted_line, run_interruptibly
from evalens.runner.matrix import cells
from evalens.runner.report import diff_reports, load_report, utc_now
from evalens.runner.reselect import case_names, pick
from evalens.runner.results import fails_run
from evalens.runner.run_log import NotARunLog, find_log, read_log

USAGE_EXAMPLES = """examples:
  evalens eval                          run every case in ./evals/cases
  evalens eval extract-text --engine codex --judge openai:gpt-5-mini
  evalens eval --dry-run                show what would run; no agent, no model
  evalens eval diff A.json B.json       pass-rate change and per-case verdict changes
  evalens eval diff main.json pr.json --fail-on regression --threshold 0.05
                                        exit 1 if a case that passed now fails, or the pass rate drops >5 pts
  evalens eval diff main.json pr.json --test paired --margin 0.05
                                        is the drop real? REGRESSION (1), NO-REGRESSION (0), INCONCLUSIVE (3)
  evalens eval --shard 2/3 --junit junit.xml --github-summary
                                        run the second third of the suite (docs/ci.md)
  evalens eval --rejudge evals/reports/2026-02-22T14-30-00Z.json
  evalens eval --resume evals/reports/2026-02-22T14-30-00Z
                                        finish a batch cut short: run only the runs that did not finish
"""


def _parser() -> argparse.ArgumentParser:
    """``evalens run``'s one option set (evalens/cli/run_options.py), under this deprecated face's name."""
    parser: argparse.ArgumentParser = run_options.parser(
        "evalens eval",
        "Deprecated: `evalens run` runs UAAPS cases with the same options. Run UAAPS eval cases on a real "
        "agent CLI.",
        USAGE_EXAMPLES,
    )
    return parser


def _reselect(root: Path, args: Any) -> list[str]:
    """The cases ``--failed`` / ``--stale`` pick (each named on stderr with why), within CASE arguments if any."""
    inputs = NextRun(
        engine=args.engine, agent_model=args.agent_model, judge=args.judge, no_judge=args.no_judge
    )
    names, why = pick(root, "failed" if args.failed else "stale", case_names(root), args.cases, inputs=inputs)
    for name in names:
        print(shown(f"evalens eval: {name}: {why[name]}"), file=sys.stderr)
    return names


def diff(argv: list[str], prog: str = "evalens compare") -> int:
    """``evalens compare`` (and the deprecated ``eval diff``): two reports' verdict changes, or the paired gate."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Compare two eval reports. Exit codes: 0 no regression (or no "
        "--fail-on), 1 --fail-on regression found one, 2 a report is unreadable or the usage is wrong. With "
        "--test paired: 0 NO-REGRESSION, 1 REGRESSION, 3 INCONCLUSIVE (docs/ci.md).",
    )
    p.add_argument("a", type=Path, metavar="BASE")
    p.add_argument("b", type=Path, metavar="NEW")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--fail-on",
        choices=["regression"],
        help="exit 1 when a case that passed in BASE fails (FAIL, FLAKY or ERROR) in NEW, or the pass "
        "rate drops by more than --threshold",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.0,
        metavar="DROP",
        help="pass-rate drop tolerated by --fail-on regression, as a fraction (0.05 = 5 points; default 0)",
    )
    p.add_argument(
        "--test",
        choices=["paired"],
        help="pair units across BASE and NEW by identity and answer REGRESSION / NO-REGRESSION / "
        "INCONCLUSIVE: exact McNemar for single runs, a seeded paired bootstrap for repeats",
    )
    p.add_argument(
        "--margin",
        type=float,
        default=None,
        metavar="DROP",
        help="with --test paired: the drop that does not matter, as a fraction (default 0.05 = 5 points)",
    )
    p.add_argument("--seed", type=int, default=0, help="with --test paired: the bootstrap's seed (default 0)")
    args = p.parse_args(argv)
    if not 0 <= args.threshold <= 1:
        print(f"{prog}: --threshold must be between 0 and 1", file=sys.stderr)
        return 2
    if args.margin is not None and not 0 <= args.margin <= 1:
        print(f"{prog}: --margin must be between 0 and 1", file=sys.stderr)
        return 2
    if args.margin is not None and args.test is None:
        print(f"{prog}: --margin needs --test paired", file=sys.stderr)
        return 2
    if args.test and args.fail_on:
        print(f"{prog}: --test paired is a gate of its own; drop --fail-on", file=sys.stderr)
        return 2

    try:
        base, new = load_report(args.a), load_report(args.b)
    except (OSError, ValueError) as exc:
        print(shown(f"{prog}: {exc}"), file=sys.stderr)
        return 2
    diff = diff_reports(base, new)
    if args.test == "paired":
        return _paired(base, new, diff, args, prog)
    verdict = gate(base, new, threshold=args.threshold) if args.fail_on else None
    status = EXIT_REGRESSION if verdict is not None and verdict.failed else EXIT_OK
    if args.json:
        if verdict is not None:
            diff["gate"] = {
                "failed": verdict.failed,
                "threshold": args.threshold,
                "regressions": [{"name": n, "before": b, "after": a} for n, b, a in verdict.regressions],
                "pass_rate_drop": verdict.rate_drop,
                "vanished": verdict.vanished,
            }
        print(json.dumps(diff, indent=2))
        return status
    print(
        f"pass rate: {diff['pass_rate_before']:.0%} → {diff['pass_rate_after']:.0%} "
        f"({diff['pass_rate_change']:+.0%})"
    )
    if not diff["changes"]:
        print("no verdict changes")
    for change in diff["changes"]:
        print(
            shown(f"  {change['name']}: {change['before'] or '(absent)'} → {change['after'] or '(absent)'}")
        )
    if verdict is not None:
        for line in verdict.lines():
            print(shown(line), file=sys.stderr)
        print(
            f"{prog}: " + ("regression: failing (exit 1)" if verdict.failed else "no regression"),
            file=sys.stderr,
        )
    return status


def _paired(base: Any, new: Any, diff: dict[str, Any], args: argparse.Namespace, prog: str) -> int:
    """``eval diff --test paired``: the paired gate's answer, its interval and the units it left out."""
    margin = DEFAULT_MARGIN if args.margin is None else args.margin
    result = paired_gate(base, new, margin=margin, seed=args.seed)
    if args.json:
        diff["paired"] = result.as_json()
        print(json.dumps(diff, indent=2))
        return result.exit_code
    for line in result.lines():
        print(shown(line))
    print(f"{prog}: {result.answer} (exit {result.exit_code})", file=sys.stderr)
    return result.exit_code


def _print_plan(plan: Any, as_json: bool) -> None:
    if as_json:
        print(plan.model_dump_json(indent=2))
        return
    print(f"package: {plan.package_name} {plan.package_version or ''} ({plan.package_root})")
    print(
        f"engine:  {plan.engine} ({plan.engine_binary or 'binary not found'})"
        + (f", model {plan.agent_model}" if plan.agent_model else "")
    )
    print(
        f"judge:   {plan.judge or 'disabled'}"
        + (f" via {plan.judge_provider}" if plan.judge_provider else "")
    )
    sandbox = plan.sandbox
    print(
        f"sandbox: {sandbox['method']} (enforced: {str(sandbox['enforced']).lower()}), network "
        f"{'on' if sandbox['network'] else 'off'}, writable: {', '.join(sandbox['writable_paths'] or ['workspace'])}"
    )
    print(
        f"timeout: {plan.timeout:g} s per case; runs: {plan.runs}; jobs: {plan.jobs}"
        + (f"; baseline: {plan.baseline} (each case runs {plan.runs} more time(s))" if plan.baseline else "")
    )
    print(f"env passed to the agent: {', '.join(plan.env_passed) or '(none)'}")
    print(f"cases ({len(plan.cases)}):")
    for case in plan.cases:
        print(
            shown(f"  {case.name}  [{case.case_file}]" + (f"  target {case.target}" if case.target else ""))
        )
        if case.files:
            print(shown(f"    files: {', '.join(case.files)}"))
        if case.checks:
            print(shown(f"    checks: {'; '.join(case.checks)}"))
    for warning in plan.warnings:
        print(shown(f"warning: {warning}"))


async def _run(request: Any, view: Any, holder: dict[str, Any]) -> Any:
    def on_progress(event: Any) -> None:
        if event.report_path:
            holder["report_path"] = event.report_path
        if view is not None:
            view(event)

    verbose = view is not None and holder.get("verbose")
    return await run_cases(request, on_progress=on_progress, on_turn=view.turn if verbose else None)


def parse(argv: list[str], prog: str = "evalens eval") -> argparse.Namespace | int:
    """The parsed flags of a UAAPS run, with ``--runs`` read as a count (MAX with ``auto``) and ``runs_auto``,
    the positional paths as the cases, and the deprecated spellings mapped; an exit code when a flag only eval
    files honour was given."""
    parser = _parser()
    parser.prog = prog
    args = parser.parse_args(argv)
    args.prog = prog  # the face that parsed: its messages name it (`evalens rejudge: …`)
    run_options.deprecations(args, prog)
    refused = run_options.refuse_foreign(args, parser.parse_args([]), True, prog)
    if refused is not None:
        return refused
    return uaaps_args(parser, args)


def uaaps_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """``args`` as the UAAPS batch reads them: the paths are its cases, ``--runs`` a count (MAX with auto)."""
    args.cases = list(args.paths)
    try:
        spec = parse_runs(args.runs or "1")
    except ValueError:
        parser.error(f"--runs takes a number or auto[:MAX], not {args.runs!r}")
    args.runs, args.runs_auto = spec.count, spec.auto
    if args.judge_repeats < 1:
        parser.error("--judge-repeats must be at least 1")
    if not 0 <= args.runs_threshold <= 1:
        parser.error("--runs-threshold must be between 0 and 1")
    return args


def _is_matrix(args: argparse.Namespace) -> bool:
    """Several engines or models: a matrix run (``_matrix``)."""
    models = args.agent_model or ""
    return "," in (args.engine or "") or "," in models or "=" in models


def main(argv: list[str]) -> int:
    """``evalens eval``: the deprecated face of ``evalens run`` for UAAPS cases; it says so, then runs."""
    if sys.stderr.isatty():  # a person reads it; a script that parses stderr line by line is not broken by it
        print(
            "evalens eval: deprecated: use `evalens run` (and `evalens compare` for `eval diff`)",
            file=sys.stderr,
        )
    if argv[:1] == ["diff"]:
        return diff(argv[1:], "evalens eval diff")
    parsed = parse(argv)
    if isinstance(parsed, int):
        return parsed
    return execute(parsed)


def execute(args: argparse.Namespace) -> int:
    """Run a UAAPS batch from flags parsed by :func:`_parse` (or by ``evalens run``'s router)."""
    if args.rejudge:
        return _rejudge(args)
    if args.resume is not None:
        resumed = _resume_request(args)
        if isinstance(resumed, int):
            return resumed
        return _run_and_report(resumed, args)
    if _is_matrix(args):  # with --arms too: every cell runs every arm
        return _matrix(args)
    if args.arms:
        # cycle: evalens.cli.arms imports evalens.cli.eval and evalens.cli.run at load (an arms batch runs their pipeline)
        from evalens.cli.arms import run_arms

        return run_arms(args)
    refused = _check_args(args)
    if refused is not None:
        return refused
    request = _request(args)
    if isinstance(request, int):
        return request
    if args.changed_since:
        request = _only_changed(request, args)
        if isinstance(request, int):
            return request
    shard_mark = None
    if args.shard:
        sharded = _only_shard(request, args)
        if isinstance(sharded, int):
            return sharded
        request, shard_mark = sharded
    if args.dry_run:
        return _dry_run(request, args)
    return _run_and_report(request, args, shard_mark)


def _rejudge(args: Any) -> int:
    """``--rejudge REPORT``: judge a past batch again (a package's from its transcripts, an eval file's from its
    run log) and print the new verdicts."""
    prog = getattr(args, "prog", "evalens eval")
    try:
        report, path = asyncio.run(rejudge(args.rejudge, judge=args.judge, output=args.output))
    except RunError as exc:
        print(shown(f"{prog}: {exc}"), file=sys.stderr)
        return exc.exit_code
    except (OSError, ValueError) as exc:
        print(shown(f"{prog}: cannot re-judge {args.rejudge}: {exc}"), file=sys.stderr)
        return 2
    if args.json:
        print(report.model_dump_json(indent=2, by_alias=True, exclude_none=True))
    else:
        for case in report.cases:
            reason = (case.judge_verdict.reason if case.judge_verdict else case.error) or ""
            print(shown(f"{case.verdict:5} {case.name}  {reason}"))
        print(shown(f"report: {path}"))

    reports = path.resolve().parent  # <root>/evals/reports/: the batch's root, whatever its format
    root = reports.parents[1] if args.package is None and reports.parts[-2:] == ("evals", "reports") else None
    if emit(args, report, path, root or find_package(args.package), "evalens eval"):
        return 2
    return 0 if report.summary.failed == 0 and report.summary.errored == 0 else 1


def _check_args(args: Any) -> int | None:
    """The flag values argparse's types do not bound: exit 2 with the reason, else None."""
    if args.jobs < 1 or args.runs < 1:
        print("evalens eval: --jobs and --runs must be at least 1", file=sys.stderr)
        return 2
    if (args.max_cost is not None and args.max_cost < 0) or (
        args.max_tokens is not None and args.max_tokens < 0
    ):
        print("evalens eval: --max-cost and --max-tokens must be zero or more", file=sys.stderr)
        return 2
    return None


def _request(args: Any) -> Any:
    """The batch's request from the flags (``--failed`` / ``--stale`` narrowed to the picked cases); an exit
    code when nothing is picked."""
    if args.failed or args.stale:
        picked = _reselect(find_package(args.package), args)
        if not picked:
            print(
                f"evalens eval: no {'failed' if args.failed else 'stale'} case: nothing to run",
                file=sys.stderr,
            )
            return 0
        args.cases = picked
    return RunRequest(
        package_root=find_package(args.package),
        cases=args.cases,
        target=args.target,
        engine=args.engine,
        judge=args.judge,
        agent_model=args.agent_model,
        timeout=args.timeout,
        no_judge=args.no_judge,
        judge_timeout=args.judge_timeout,
        judge_repeats=args.judge_repeats,
        dry_run=args.dry_run,
        keep_sandbox=args.keep_sandbox,
        jobs=args.jobs,
        runs=args.runs,
        runs_auto=args.runs_auto,
        runs_threshold=args.runs_threshold,
        **limits.limit_fields(args),
        **limits.batch_fields(args),
        extra_env=args.env,
        output=args.output,
    )


def _only_changed(request: Any, args: Any) -> Any:
    """``--changed-since REF``: the request narrowed to the cases changed since REF (each named with why);
    an exit code when none changed or REF cannot be read."""
    try:
        changed = changed_units(
            request.package_root,
            planned_units(request.package_root, request),
            args.changed_since,
            cassettes=bool(args.replay),  # under --replay a changed recording changes the verdict too
        )
    except (ChangedSinceError, RunError) as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    if not changed:
        print(f"evalens eval: no case changed since {args.changed_since}: nothing to run", file=sys.stderr)
        return 0
    for name, why in changed.items():
        print(shown(f"evalens eval: {name}: {why}"), file=sys.stderr)
    every = planned_units(request.package_root, request)
    return request.model_copy(update={"cases": [every[name] for name in changed], "target": None})


def _only_shard(request: Any, args: Any) -> Any:
    """``--shard K/N``: the request narrowed to this shard's units and the shard's mark; an exit code when
    the shard has no unit (an empty report is still written) or the split fails."""
    try:
        request, shard_mark, mine = restrict(request, args.shard, args.durations)
        if mine == 0 and args.dry_run:
            print(f"shard {args.shard}: no unit (the suite has {shard_mark.units})")
            return 0
        if mine == 0:
            report, path = empty_report(request, shard_mark)
            print(
                f"evalens eval: shard {args.shard} has no unit (the suite has {shard_mark.units}); "
                f"empty report: {path}",
                file=sys.stderr,
            )

            return emit(args, report, path, request.package_root, "evalens eval")
    except (RunError, ShardError) as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    print(
        f"evalens eval: shard {shard_mark.index}/{shard_mark.count}: {mine} of {shard_mark.units} unit(s), "
        f"balanced by {shard_mark.balanced_by} (split {shard_mark.split})",
        file=sys.stderr,
    )
    return request, shard_mark


def _dry_run(request: Any, args: Any) -> int:
    """``--dry-run``: print the plan (and the cost estimate from past runs); nothing runs."""
    try:
        ctx = plan_run(request)
    except RunError as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        return exc.exit_code
    _print_plan(ctx.plan, args.json)
    if not args.json:
        names = [c.name for c in ctx.plan.cases]
        print(estimate(names, history(request.package_root), runs=args.runs).describe())
    return 0


# Flags that shape what a batch runs: a resumed batch runs with its own (its run log's), so they are refused.
RESUME_CONFLICTS = (
    "cases",
    "package",
    "engine",
    "judge",
    "agent_model",
    "target",
    "timeout",
    "judge_timeout",
    "output",
    "max_cost",
    "max_tokens",
    "max_turns",
    "max_tokens_per_run",
    "resource_limits",
    "agent_retries",
    "failed",
    "stale",
    "changed_since",
    "baseline",
    "allow_unisolated_baseline",
    "no_judge",
    "keep_sandbox",
    "env",
    "rejudge",
    "shard",
    "dry_run",
)


def _resume_request(args: Any) -> Any:
    """The request that finishes the batch of ``--resume REPORT_DIR``: the batch's own inputs from its run
    log, its units by their files (a case renamed since is still found); an exit code when it cannot be."""
    defaults = uaaps_args(_parser(), _parser().parse_args([]))
    given = [
        "CASE" if name == "cases" else "--" + name.replace("_", "-")
        for name in RESUME_CONFLICTS
        if getattr(args, name, None) != getattr(defaults, name, None)
    ]
    if args.runs != 1:
        given.append("--runs")
    if given:
        print(
            f"evalens eval: --resume runs the rest of the batch with the batch's own inputs; drop {', '.join(given)}",
            file=sys.stderr,
        )
        return 2
    try:
        log = read_log(find_log(args.resume))
    except NotARunLog as exc:
        print(shown(f"evalens eval: cannot resume {args.resume}: {exc}"), file=sys.stderr)
        return 2
    start = log.start
    fields = {**start.inputs, "jobs": args.jobs if args.jobs != 1 else start.inputs.get("jobs", 1)}
    fields["cases"] = [str(log.package_root / u.unit.file) for u in start.units]
    try:
        return RunRequest.model_validate(
            {**fields, "package_root": log.package_root, "resume": Path(start.report)}
        )
    except ValueError as exc:
        print(shown(f"evalens eval: cannot resume {args.resume}: {exc}"), file=sys.stderr)
        return 2


def _matrix(args: argparse.Namespace) -> int:
    """``--engine a,b`` / ``--model A,B``: one batch per (engine, model) cell, each with its own report, then
    the units × cells matrix (runner/matrix.py). The exit code is the worst cell's. With ``--arms`` each cell
    runs every arm, every cell × arm its own cell report, the reference last, its report compared with the
    others'; the matrix has one column per engine · model · arm and each cell's uplift per arm, and the exit
    code is the worst of the cells' reference arms. The plan, the order, the names and the comparison are the
    runner's (runner/comparison.py), which the editors drive too; this face runs each batch with the CLI's
    progress view, checks and exit codes."""
    clashing = [
        flag
        for flag, given in (
            ("--resume", args.resume is not None),
            ("--output", args.output is not None),
            ("--dry-run", args.dry_run),
            ("--baseline", args.baseline),
            ("--changed-since", args.changed_since),
        )
        if given
    ]
    if clashing:
        print(f"evalens eval: a matrix run takes no {', '.join(clashing)}", file=sys.stderr)
        return 2
    if args.arms and args.shard:
        print(
            "evalens eval: --shard cannot split a matrix run with --arms: each cell's arms are compared in its "
            "reference arm's report, which needs every arm's runs of a unit on one machine and which merging "
            "shards does not make; run it unsharded, or shard the matrix without --arms",
            file=sys.stderr,
        )
        return 2
    comparison = _comparison(args)
    if isinstance(comparison, int):
        return comparison
    shards = _matrix_shards(args, comparison.cells) if args.shard else None
    if isinstance(shards, int):
        return shards
    if shards is not None:  # the cells of one shard are one batch: the shard in its reports' names
        comparison.batch += f"-shard-{shards[0][1].index}-of-{shards[0][1].count}"
    # cycle: evalens.cli.arms imports evalens.cli.eval at load (an arms batch runs its pipeline)
    from evalens.cli.arms import compare_all, package_batches

    batch = package_batches(args, comparison, shards)
    return compare_all(args, comparison, batch, prog="evalens eval", pairwise=not args.no_judge, junit=True)


def _comparison(args: argparse.Namespace) -> Any:
    """The run's plan (runner/comparison.py), or exit 2 with the reason: the cells, and every ``--arms`` arm
    resolved before any agent starts."""
    # cycle: evalens.cli.arms imports evalens.cli.eval at load (an arms batch runs its pipeline)
    from evalens.cli.arms import _refuse

    if args.arms:
        refused = _refuse(args)
        if refused is not None:
            print(f"evalens eval: {refused}", file=sys.stderr)
            return 2
    try:
        engine, model = cells(args.engine, args.agent_model)[0]
        first = _request(argparse.Namespace(**{**vars(args), "engine": engine, "agent_model": model}))
        if isinstance(first, int):
            return first
        return plan_comparison(
            first.package_root, args.engine, args.agent_model, args.arms, args.arms_reference, matrix=True
        )
    except (ValueError, ComparisonError) as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        return 2


def matrix_junit(reports: list[Any], labels: list[str], target: Path, paths: list[Path]) -> int:
    """A matrix run's JUnit file: one ``<testsuite>`` per cell in one document; 2 when it cannot be written."""
    root = paths[0].parents[2] if paths else None  # <package>/evals/reports/<cell report>
    base = Path(os.environ.get("GITHUB_WORKSPACE") or Path.cwd())
    try:
        write_junit(reports, target, package_root=root, base=base, cells=labels)
    except OSError as exc:
        print(shown(f"evalens eval: cannot write {target}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    return 0


def _matrix_shards(args: argparse.Namespace, plan: list[tuple[str | None, str | None]]) -> Any:
    """``--shard K/N`` of a matrix run: for each cell, the units shard K runs in it and its report's mark (the
    split is by cell × unit, so one slow cell does not land on one machine whole); an exit code when the
    split cannot be cut."""
    first = _request(argparse.Namespace(**{**vars(args), "engine": plan[0][0], "agent_model": plan[0][1]}))
    if isinstance(first, int):
        return first
    try:
        units = planned_units(first.package_root, first)
        shards = cut_matrix_shard(args.shard, plan, units, first.package_root, args.durations, first.runs)
    except (RunError, ShardError) as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    mark = shards[0][1]
    mine = sum(len(units_k) for units_k, _mark in shards)
    print(
        f"evalens eval: shard {mark.index}/{mark.count}: {mine} of {len(units) * len(plan)} cell × unit "
        f"pair(s), balanced by {mark.balanced_by} (split {mark.split})",
        file=sys.stderr,
    )
    return shards


def _shard_cell(request: Any, shard: tuple[list[str], Any], args: argparse.Namespace) -> Any:
    """One cell of a sharded matrix run: the request narrowed to the units this shard runs in the cell and the
    mark, or (no unit here) the exit code of writing the cell's empty report, which a merge still needs."""
    mine, mark = shard
    try:
        if not mine:
            _report, path = empty_report(request, mark)
            print(
                f"evalens eval: no unit of this cell in shard {args.shard}; empty report: {path}",
                file=sys.stderr,
            )
            return 0
        every = planned_units(request.package_root, request)
    except RunError as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        return exc.exit_code
    return request.model_copy(update={"cases": [every[name] for name in mine], "target": None}), mark


def _write_unrun_cell(request: Any, cell: argparse.Namespace, arm: Any, path: Path, why: str) -> None:
    """The report of a matrix cell that could not start (its CLI missing, a refused setting): every unit it
    would have run ERROR with the reason. Without it the cell vanished: the matrix had one column fewer and
    the JUnit one green suite, though the exit code was 2 (issue 44)."""
    from evalens.core.models.uaaps import (  # lazy: only a matrix cell that cannot start writes a report here
        ReportAgent,
        ReportCase,
        ReportConfig,
        ReportPackage,
    )
    from evalens.runner.report import new_report, write_report  # lazy: as above

    root = request.package_root.resolve()
    try:
        plan = plan_run(request.model_copy(update={"dry_run": True})).plan
    except RunError:
        plan = None

    def relative(file: str) -> str:  # as a cell that ran names it, so the rows match
        try:
            return Path(file).resolve().relative_to(root).as_posix()
        except ValueError:
            return file

    reason = f"the cell did not run: {why}"
    cases = [
        ReportCase(name=c.name, verdict="ERROR", error=reason, case_file=relative(c.case_file))
        for c in (plan.cases if plan is not None else [])
    ] or [ReportCase(name="(cell)", verdict="ERROR", error=reason)]
    report = new_report(
        utc_now(),
        cases,
        ReportConfig(engine=cell.engine or (plan.engine if plan is not None else None) or "claude-code"),
        agent=ReportAgent(runtime=cell.engine, model=cell.agent_model),
        package=ReportPackage(name=plan.package_name, version=plan.package_version) if plan else None,
        arm=arm.source() if arm is not None else None,
    )
    write_report(report, path)


def _run_and_report(request: Any, args: Any, shard_mark: Any = None, refusal: list[str] | None = None) -> int:
    """Run the batch with the progress view, then print, write the CI outputs and choose the exit code.
    ``refusal`` gets the message of a batch that could not start (a matrix cell writes its ERROR report)."""
    sandbox = sandbox_policy.policy(args)
    if sandbox in ("required", "engine"):
        try:
            sandbox_plan = plan_run(request.model_copy(update={"dry_run": True})).sandbox_plan
        except RunError:
            sandbox_plan = None  # the run itself reports it
        if sandbox_plan is not None:
            refused = sandbox_policy.refuse_before(
                sandbox, sandbox_plan.enforced, sandbox_plan.warning, "evalens eval"
            ) or sandbox_policy.refuse_network(
                sandbox, sandbox_plan.network, sandbox_policy.network_allowed(args), "evalens eval"
            )
            if refused is not None:
                return refused

    holder: dict[str, Any] = {"verbose": args.verbose and not args.json}
    view = ProgressView()

    try:
        with view:
            outcome, signum = run_interruptibly(_run(request, view, holder), "evalens eval")
    except RunError as exc:
        print(shown(f"evalens eval: {exc}"), file=sys.stderr)
        (refusal if refusal is not None else []).append(str(exc))
        return exc.exit_code
    if outcome is None:
        print(interrupted_line("evalens eval", holder.get("report_path")), file=sys.stderr)
        return 128 + (signum or signal.SIGINT)
    if shard_mark is not None and outcome.report is not None:
        mark_report(outcome.report, outcome.report_path, shard_mark)
    print_summary(
        outcome.results,
        outcome.report_path,
        baseline=outcome.report.baseline if outcome.report is not None else None,
    )
    for result in outcome.results:
        if result.sandbox_path:
            print(shown(f"kept sandbox for {result.name}: {result.sandbox_path}"), file=sys.stderr)
    if args.json and outcome.report is not None:
        print(outcome.report.model_dump_json(indent=2, by_alias=True, exclude_none=True))
    if signum is not None:  # arrived after the last case finished: the report is complete
        print("evalens eval: interrupted after the run finished", file=sys.stderr)
        return 128 + signum
    if outcome.report is not None:
        if emit(args, outcome.report, outcome.report_path, request.package_root, "evalens eval"):
            return 2
    refused = sandbox_policy.refuse_after(sandbox, outcome.report, "evalens eval")
    if refused is not None:
        return refused

    return 1 if fails_run(outcome.results, args.flaky, args.fail_on_error) else 0
