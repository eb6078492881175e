"""``evalens run [PATH…]``: run any eval format with the real agent CLIs, one verb and one option set.

A UAAPS package (its folder, its ``evals/``, case files or case names; nothing given: the package around the
working folder) runs as a UAAPS batch (evalens/cli/eval.py, :func:`evalens.runner.api.run_cases`). One eval file
runs through its format's suite (:func:`evalens.runner.api.run_file`): a skilljack suite (``tasks.yaml`` or a
``task.md`` package), a skill-creator or writing-skills ``evals.json``, a trigger eval set, or a skilljack results
JSON to re-score; a skill folder holding one such file runs that file.

Scoring follows formats.md §3.8 (skilljack), §4.4 (writing-skills grading) and §5.2/§5.3 (skill-creator grading,
trigger precision/recall). Every run writes the format's own result files and one evalens report
(``evals/reports/<stamp>.json`` under the suite's folder). Exit codes: 0 passed, 1 a unit failed or errored (or
skilljack's thresholds failed), 2 usage error (nothing started), 128+n interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial as bind
from pathlib import Path
from typing import Any

from evalens.cli import limits, run_ci, run_options, sandbox_policy
from evalens.cli.changed import ChangedSinceError, changed_file_units
from evalens.cli.progress import turn_text
from evalens.core.engines import default_engine, engine_names
from evalens.core.formats.registry import detect
from evalens.core.index import find_package_root
from evalens.core.validate import read_source, validate_file
from evalens.core.workflow_commands import in_actions, shown
from evalens.runner.adaptive import parse_runs
from evalens.runner.api import UsageError, run_file
from evalens.runner.api_types import RunRequest
from evalens.runner.depends import NextRun
from evalens.runner.interrupts import interrupted_line, run_interruptibly
from evalens.runner.matrix import cells
from evalens.runner.reselect import pick
from evalens.runner.results import fails_run, repeat_label
from evalens.runner.run_file import InvalidFile, prepare
from evalens.runner.run_log import NotARunLog, find_log, read_log
from evalens.runner.sandbox import plan_sandbox
from evalens.runner.suites import FILE_FORMATS, PACKAGE_FORMAT, names_per_file
from evalens.runner.suites.skilljack_files import create_eval, rescore, skilljack_config
from evalens.runner.uplift_words import describe
from evalens.runner.verdicts import passed

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    """The one option set of ``evalens run`` (evalens/cli/run_options.py), for every format."""
    parser: argparse.ArgumentParser = run_options.parser("evalens run", __doc__)
    return parser


def _config(args: argparse.Namespace, file: Path) -> Path | None:
    """``--config``; else the suite's own ``eval.config.yaml``; else the working directory's."""
    if args.config:
        return Path(args.config)
    return skilljack_config(file) or Path.cwd() / "eval.config.yaml"


def _create_eval(args: argparse.Namespace) -> int:
    try:
        text = create_eval(Path(args.create_eval), args.count)
    except UsageError as exc:
        print(shown(f"evalens run: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return EXIT_OK


def _rescore(file: Path, args: argparse.Namespace) -> int:
    report, md = rescore(
        file,
        config=_config(args, file),
        threshold_discovery=args.threshold_discovery,
        threshold_score=args.threshold_score,
        json_output=Path(args.results_json) if args.results_json else None,
        github_summary=args.github_summary,
    )
    if args.output:
        args.output.write_text(md, encoding="utf-8")
    else:
        print(md, end="")
    return EXIT_OK if report["passed"] else EXIT_FAILED


def request_from_args(file: Path, args: argparse.Namespace) -> RunRequest:
    """The file's request from the parsed flags; with several engines or models (a matrix) on the first cell's,
    which each batch of the comparison replaces with its own (runner/comparison.py's ``batch_request``)."""
    try:
        engine, model = cells(args.engine, args.agent_model)[0]
    except ValueError:  # a model bound to an engine not asked for: the comparison's plan refuses it by name
        engine, model = args.engine, None
    return RunRequest(
        file=file,
        units=[t for t in (args.tasks or "").split(",") if t.strip()],
        runs=args.runs,
        runs_auto=args.runs_auto,
        runs_threshold=args.runs_threshold,
        jobs=args.jobs,
        engine=engine,
        agent_model=model,
        judge=args.judge,
        judge_repeats=args.judge_repeats,
        no_judge=args.no_judge,
        no_deterministic=args.no_deterministic,
        timeout=args.timeout,
        judge_timeout=args.judge_timeout,
        config=_config(args, file),
        output_dir=Path(args.output_dir) if args.output_dir else None,
        json_output=Path(args.results_json) if args.results_json else None,
        skills_dir=Path(args.skills_dir) if args.skills_dir else None,
        skill=Path(args.skill) if args.skill else None,
        with_installed=[Path(d) for d in args.with_installed],
        threshold_discovery=args.threshold_discovery,
        threshold_score=args.threshold_score,
        ablation=args.ablation,
        github_summary=args.github_summary,
        keep_sandbox=args.keep_sandbox,
        extra_env=list(args.env),
        output=args.output,
        dry_run=args.dry_run,
        **limits.limit_fields(args),
        **limits.batch_fields(args),
    )


def _reselect(request: Any, fmt: str | None, args: Any) -> list[str] | None:
    """The units ``--failed`` / ``--stale`` pick (each named on stderr with why), within ``--tasks`` if given."""
    try:
        suite, units = prepare(request.model_copy(update={"units": []}), None, fmt)
    except UsageError as exc:
        print(shown(f"evalens run: {exc}"), file=sys.stderr)
        return None

    inputs = NextRun(
        engine=request.engine, agent_model=request.agent_model, judge=request.judge, no_judge=request.no_judge
    )
    names, why = pick(
        suite.root,
        "failed" if args.failed else "stale",
        [u.id for u in units],
        request.units,
        file=request.file,
        inputs=inputs,
    )
    for name in names:
        print(shown(f"evalens run: {name}: {why[name]}"), file=sys.stderr)
    return names


def main(argv: list[str]) -> int:
    """``evalens run PATH…``: a UAAPS package or its cases go to the UAAPS batch (evalens/cli/eval.py), an eval
    file to its suite; one parse, one option set (evalens/cli/run_options.py)."""
    parser = _parser()
    args = parser.parse_args(argv)
    run_options.deprecations(args, "evalens run")
    uaaps = _routed_to_uaaps(args)
    if not isinstance(uaaps, bool):  # an exit code (a bool is an int too: test the bool)
        return uaaps
    refused = run_options.refuse_foreign(args, parser.parse_args([]), uaaps, "evalens run")
    if refused is not None:
        return refused
    if uaaps:
        # lazy: the UAAPS face is loaded only for a UAAPS target (evalens.cli.eval does not import this module)
        from evalens.cli import eval as uaaps_cli

        return uaaps_cli.execute(uaaps_cli.uaaps_args(parser, args))
    if args.resume is not None:  # before the flags are given their defaults: it refuses any flag given
        resumed = _resume_request(args)
        if isinstance(resumed, int):
            return resumed
        return _finish(resumed, None, args)
    _check_args(parser, args)
    if args.create_eval:
        return _create_eval(args)
    return _run_file(parser, args)


def _routed_to_uaaps(args: argparse.Namespace) -> bool | int:
    """Whether the run is a UAAPS batch (else ``args.file`` is the eval file, or None); an exit code when the
    paths cannot run. ``--resume`` goes where its run log's batch came from; ``--create-eval`` is a file mode."""
    if args.resume is not None and not args.paths:
        try:
            log = read_log(find_log(args.resume))
        except NotARunLog:
            log = None  # the resume itself says why, in the face that reads it
        units = log.start.units if log is not None else []
        args.file = None
        return bool(units) and not names_per_file(units[0].unit.format)
    if args.rejudge is not None:  # a finished batch of any format, judged again (runner.api.rejudge)
        if args.paths:
            print("evalens run: --rejudge REPORT takes no PATH (evalens rejudge REPORT)", file=sys.stderr)
            return EXIT_USAGE
        return True
    if args.package is not None:
        return True  # `--package DIR`: that package's cases; the paths are its case names or files
    target = route(args.paths, args) if not args.create_eval else None
    if isinstance(target, str):
        print(shown(f"evalens run: {target}"), file=sys.stderr)
        return EXIT_USAGE
    args.file = target if isinstance(target, Path) else None
    return target is UAAPS


def _run_file(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """One eval file's batch: validated, narrowed (``--failed`` / ``--stale``, a shard), run and reported."""
    file = args.file
    if file is None:
        parser.error("PATH is required (or --create-eval SKILL_DIR)")
    if not file.is_file():
        print(f"evalens run: {file}: no such file", file=sys.stderr)
        return EXIT_USAGE
    fmt, errors = _validated(file)
    if fmt == "skilljack-results":
        return _rescore(file, args)
    request = request_from_args(file, args)
    if args.failed or args.stale:
        early = _narrow_to_picked(request, fmt, args)
        if early is not None:
            return early
    if args.changed_since and fmt is not None:
        early = _narrow_to_changed(request, fmt, args.changed_since)
        if early is not None:
            return early
    # cycle: evalens.cli.arms imports evalens.cli.eval and evalens.cli.run at load (an arms batch runs their pipeline)
    from evalens.cli.arms import is_comparison, run_file_comparison

    if is_comparison(args):  # a matrix of engines / models, or --arms: one batch per cell × arm
        return run_file_comparison(args, request, fmt if not errors else None)

    shard_mark, suite_root = None, None
    if run_ci.wanted(args) and not errors:
        request, shard_mark, suite_root, early = run_ci.before(args, request, fmt)
        if early is not None:
            return early

    return _finish(request, fmt if not errors else None, args, shard_mark, suite_root)


def _finish(request: Any, fmt: str | None, args: Any, shard_mark: Any = None, suite_root: Any = None) -> int:
    """Run the request (sandbox policy before and after), print the outcome and choose the exit code."""
    sandbox = sandbox_policy.policy(args)
    refused = _refuse_unsandboxed(sandbox, request)
    if refused is not None:
        return refused
    ran = _run(request, fmt, args)
    if isinstance(ran, int):
        return ran
    outcome = ran
    if outcome.dry_run:
        print("\n".join(outcome.dry_run))
        return EXIT_OK
    if args.json:  # the report on stdout, as for a UAAPS batch; the lines would break a JSON reader
        if outcome.report is not None:
            print(outcome.report.model_dump_json(indent=2, by_alias=True, exclude_none=True))
    else:
        _print_outcome(outcome)
    run_ci.record_sandbox(outcome)
    if run_ci.wanted(args) and run_ci.after(args, outcome, shard_mark, suite_root, fmt):
        return EXIT_USAGE
    refused = sandbox_policy.refuse_after(sandbox, outcome.report, "evalens run")
    if refused is not None:
        return refused
    return _exit_code(args, outcome)


# Flags that shape what a batch runs: a resumed batch runs with its own (its run log's), so they are refused.
RESUME_CONFLICTS = (
    "paths",
    "engine",
    "agent_model",
    "judge",
    "config",
    "runs",
    "tasks",
    "timeout",
    "judge_timeout",
    "judge_repeats",
    "output_dir",
    "results_json",
    "output",
    "skills_dir",
    "skill",
    "with_installed",
    "threshold_discovery",
    "threshold_score",
    "ablation",
    "no_judge",
    "no_deterministic",
    "keep_sandbox",
    "dry_run",
    "failed",
    "stale",
    "changed_since",
    "baseline",
    "max_cost",
    "max_tokens",
    "max_turns",
    "max_tokens_per_run",
)


def _resume_request(args: Any) -> RunRequest | int:
    """The request that finishes the batch of ``--resume REPORT_DIR``: the batch's own inputs from its run log,
    every unit of its file (the run narrows them to the batch's units by identity: one renamed since is still
    found); an exit code when it cannot be."""
    defaults = _parser().parse_args([])
    given = [
        "PATH" if name == "paths" else "--" + name.replace("_", "-")
        for name in RESUME_CONFLICTS
        if getattr(args, name, None) != getattr(defaults, name, None)
    ]
    if given:
        print(
            f"evalens run: --resume runs the rest of the batch with the batch's own inputs; drop {', '.join(given)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        log = read_log(find_log(args.resume))
    except NotARunLog as exc:
        print(shown(f"evalens run: cannot resume {args.resume}: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    start = log.start
    if not start.units or not names_per_file(start.units[0].unit.format):
        print(
            shown(
                f"evalens run: {args.resume} is not an eval file's batch (a UAAPS batch, or no unit): resume it "
                "with `evalens resume DIR` alone"
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        return RunRequest.model_validate({**start.inputs, "units": [], "resume": Path(start.report)})
    except ValueError as exc:
        print(shown(f"evalens run: cannot resume {args.resume}: {exc}"), file=sys.stderr)
        return EXIT_USAGE


def _check_args(parser: argparse.ArgumentParser, args: Any) -> None:
    """The flag values argparse's types do not bound (a usage error, exit 2)."""
    if args.engine is None:
        args.engine = default_engine()
    else:  # several (a matrix): each must be one evalens drives
        unknown = [e for e in (n.strip() for n in args.engine.split(",")) if e and e not in engine_names()]
        if unknown or not args.engine.strip(", "):
            parser.error(f"--engine {args.engine!r}: not one of {', '.join(engine_names())}")
    try:
        spec = parse_runs(args.runs or "3")
    except ValueError:
        parser.error(f"--runs takes a number or auto[:MAX], not {args.runs!r}")
    args.runs, args.runs_auto = spec.count, spec.auto
    if not 0 <= args.runs_threshold <= 1:
        parser.error("--runs-threshold must be between 0 and 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.judge_repeats < 1:
        parser.error("--judge-repeats must be at least 1")
    if (args.max_cost is not None and args.max_cost < 0) or (
        args.max_tokens is not None and args.max_tokens < 0
    ):
        parser.error("--max-cost and --max-tokens must be zero or more")


def _validated(file: Path) -> tuple[str | None, list[Any]]:
    """The file's format id and its validation errors, each printed to stderr as ``file:line:col: error``."""
    checked = validate_file(file)
    errors = [p for p in checked.problems if p.severity == 1]
    for p in errors:
        print(
            shown(f"{file}:{p.span.start_line + 1}:{p.span.start_col + 1}: error: {p.message} [{p.code}]"),
            file=sys.stderr,
        )
    return (checked.format.id if checked.format else None), errors


def _narrow_to_picked(request: Any, fmt: str | None, args: Any) -> int | None:
    """``--failed`` / ``--stale``: narrow the request to the picked units; an exit code when nothing runs."""
    picked = _reselect(request, fmt, args)
    if picked is None:
        return EXIT_USAGE
    if not picked:
        print(f"evalens run: no {'failed' if args.failed else 'stale'} unit: nothing to run", file=sys.stderr)
        return EXIT_OK
    request.units = picked
    return None


def _narrow_to_changed(request: Any, fmt: str, ref: str) -> int | None:
    """``--changed-since REF``: narrow the request to the units whose inputs changed since REF (each named with
    why, within ``--tasks`` if given); an exit code when none changed or REF cannot be read."""
    try:
        changed = changed_file_units(request.file, fmt, ref)
    except ChangedSinceError as exc:
        print(shown(f"evalens run: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    names = [n for n in changed if not request.units or n in request.units]
    if not names:
        print(f"evalens run: no unit changed since {ref}: nothing to run", file=sys.stderr)
        return EXIT_OK
    for name in names:
        print(shown(f"evalens run: {name}: {changed[name]}"), file=sys.stderr)
    request.units = names
    return None


def _refuse_unsandboxed(sandbox: str, request: Any) -> int | None:
    """``--sandbox required``: refuse before any agent starts when the file session could not isolate it."""
    if sandbox != "required" or request.dry_run:
        return None

    planned = plan_sandbox(False, None)  # what the file session will plan (network off)
    return sandbox_policy.refuse_before(sandbox, planned.enforced, planned.warning, "evalens run")


def _progress(event: object, partial: list[Path] | None = None) -> None:
    """A run's outcome line goes to stdout (graded formats, trigger queries); notes to stderr; an interrupted
    batch's partial report is kept in ``partial`` (the interrupted line names it)."""
    report_path = getattr(event, "report_path", None)
    if report_path is not None and partial is not None:
        partial.append(report_path)
        return
    message = getattr(event, "message", "")
    print(shown(message), file=sys.stdout if getattr(event, "outcome", False) else sys.stderr, flush=True)


def _run(request: Any, fmt: str | None, args: Any, refusal: list[str] | None = None) -> Any:
    """Run the file's units; the outcome, or the exit code of a usage error or an interrupt. ``refusal`` gets
    the message of a batch that could not start (a comparison's cell writes its ERROR report from it)."""
    partial: list[Path] = []
    try:
        outcome, signum = run_interruptibly(
            run_file(
                request, bind(_progress, partial=partial), fmt, on_turn=_print_turn if args.verbose else None
            ),
            "evalens run",
        )
    except (InvalidFile, UsageError) as exc:
        print(shown(f"evalens run: {exc}"), file=sys.stderr)
        (refusal if refusal is not None else []).append(str(exc))
        return EXIT_USAGE
    if signum is not None:  # the agents are dead and their sandboxes gone; a partial report was written
        print(interrupted_line("evalens run", partial[-1] if partial else None), file=sys.stderr)
        return 128 + signum
    return outcome


def _print_outcome(outcome: Any) -> None:
    """The summary, one line per unit (repeats, reason, uplift) and where the results were written."""
    for line in outcome.summary:
        print(shown(line))

    for r in outcome.results:
        label = repeat_label(r) if r.runs > 1 else ""
        why = r.details.get("stopped")  # --runs auto: why the unit made no more runs
        label += f" ({why})" if why else ""
        print(
            shown(
                f"{r.shown_state:5} {r.name}"
                + (f"  {label}" if label else "")
                + (f"  {r.reason}" if not passed(r.verdict) else "")
                + (f"  {describe(r.uplift)}" if r.uplift else "")
            )
        )
    base = outcome.report.baseline if outcome.report is not None else None
    if base is not None and base.uplift is not None:
        print(f"uplift (all units): {describe(base.uplift)}; baseline runs never fail the command")
    if outcome.result_file is not None:
        print(f"results: {outcome.result_file}")
    if outcome.report_path is not None:
        print(f"report: {outcome.report_path}")
    if os.environ.get("EVALENS_RUN_JSON"):  # machine-readable results for scripts
        print(json.dumps([r.model_dump(mode="json") for r in outcome.results]))


def _exit_code(args: Any, outcome: Any) -> int:
    """The batch's exit code, with only forgiven FLAKY units or errors within ``--fail-on-error`` passing."""
    if (
        outcome.exit_code == 1
        and (args.flaky == "pass" or args.fail_on_error is not None)
        and not outcome.summary_failed
        and not fails_run(outcome.results, args.flaky, args.fail_on_error)
    ):
        return EXIT_OK  # only forgiven FLAKY units, or errored units within --fail-on-error
    return int(outcome.exit_code)


def _print_turn(turn: object) -> None:
    print(turn_text(turn, ci=in_actions()), file=sys.stderr, flush=True)


class _Uaaps:
    """The router's answer for a UAAPS target (its cases and package are set on ``args`` by :func:`route`)."""


UAAPS = _Uaaps()


def route(paths: list[str], args: argparse.Namespace | None = None) -> _Uaaps | Path | None | str:
    """What ``evalens run PATH…`` runs: :data:`UAAPS` (a package folder, its ``evals/``, case files or names; the
    package is put in ``args.package``), one eval file's path, None (nothing given: ``--create-eval`` /
    ``--resume`` or the package around the working folder), or why the paths cannot run together.

    Why by evidence: a path's format is the core registry's detection, the same that validates it, so a file
    runs as what the editor shows it to be."""
    if not paths:
        return UAAPS if find_package_root(Path.cwd()) or (Path.cwd() / "evals").is_dir() else None
    kinds = [_kind(Path(p)) for p in paths]
    files = [k for k in kinds if isinstance(k, Path)]
    if files and len(paths) > 1:
        return "one eval file per run, with no other path (give the others their own run)"
    if files:
        return files[0]
    errors = [k for k in kinds if isinstance(k, str)]
    if errors:
        return errors[0]
    roots = {k[1] for k in kinds if isinstance(k, tuple) and k[1] is not None}
    if len(roots) > 1:
        return "the cases belong to different packages: " + ", ".join(sorted(str(r) for r in roots))
    if args is not None:
        if roots and args.package is None:
            args.package = roots.pop()
        args.paths = [p for p, k in zip(paths, kinds, strict=True) if not (isinstance(k, tuple) and k[0])]
    return UAAPS


def _kind(path: Path) -> Path | str | tuple[bool, Path | None]:
    """One path: an eval file (its path), a UAAPS package (``(True, root)``: the folder names the whole
    package), a UAAPS case (``(False, root)``; a bare name is a case of the package around the cwd), or why it
    cannot run."""
    if path.is_dir():
        resolved = path.resolve()
        for root in (resolved, resolved.parent, resolved.parent.parent):
            if (root / "evals" / "cases").is_dir() and resolved in {
                root,
                root / "evals",
                root / "evals" / "cases",
            }:
                return True, root
        found = [f for f in _runnable_files(resolved)]
        if len(found) == 1:
            return found[0]
        if found:
            return f"{path}: holds {len(found)} eval files; name one: " + ", ".join(str(f) for f in found)
        return f"{path}: no UAAPS package (evals/cases/) and no eval file here"
    if not path.exists():
        return False, None  # a case name, resolved by the UAAPS planner
    fmt = _format_of(path)
    if fmt == PACKAGE_FORMAT:
        return False, find_package_root(path.resolve())
    if fmt is None:
        return f"{path}: not an eval file evalens can run"
    return path


def _runnable_files(folder: Path) -> list[Path]:
    """The eval files a folder (a skill, a suite) holds at its top or in its ``evals/``: the files the format
    registry detects as a runnable format (one parse each, no validation), whatever they are named."""
    found = []
    for where in (folder, folder / "evals"):
        try:
            entries = sorted(where.iterdir())
        except OSError:
            continue
        found += [f for f in entries if f.is_file() and not f.is_symlink() and _format_of(f) in FILE_FORMATS]
    return found


def _format_of(path: Path) -> str | None:
    """The file's format id as the core registry detects it, from one parse and no validation (a file it cannot
    read or decode has none): what the editor shows the file to be."""
    text, _problem = read_source(path)
    if text is None:
        return None
    fmt = detect(str(path), text).format
    return fmt.id if fmt is not None else None
