"""The one option set of ``evalens run`` (issue 41): every flag is declared here once, so it is spelled, typed and
worded the same for every format.

Why one parser: ``evalens eval`` (UAAPS) and ``evalens run FILE`` (the other formats) grew two parsers in which
four shared flags meant different things (``--timeout`` was seconds on one and milliseconds on the other; ``--json``,
``-o`` and ``--report`` differed too). Now both faces parse with :func:`parser`, and a flag that only one kind of
target can honour yet is refused with that reason (:func:`refuse_foreign`) instead of being silently ignored.

The old spellings stay as deprecated aliases that say so on stderr (:func:`deprecations`): ``--timeout-ms`` for
skilljack's milliseconds, ``--json PATH`` for the format's own JSON results (now ``--results-json PATH``),
``--report PATH`` for ``-o PATH``, and a bare ``--report``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from evalens.cli import limits
from evalens.cli.ci_flags import add_ci_arguments
from evalens.cli.sandbox_policy import add_sandbox_argument
from evalens.cli.shard import add_shard_arguments
from evalens.core.engines import engine_names

#: What the help calls one runnable thing, whatever the format (a UAAPS case, a skilljack task, an eval).
UNIT = "unit"

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$")
_SCALE = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def duration_seconds(text: str) -> float:
    """argparse type: a duration in seconds; a unit may follow (``90``, ``90s``, ``1500ms``, ``2m``, ``1h``).

    Why a unit is accepted: skilljack's own CLI takes milliseconds, and a user who types ``120000ms`` is
    understood rather than given a 33-hour timeout."""
    match = _DURATION.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (seconds, or 90s, 1500ms, 2m)")
    seconds = float(match.group(1)) * _SCALE[match.group(2)]
    if seconds <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return seconds


#: Options only a UAAPS package honours today (dest → flag), and only the other formats (issue 41 item 2 moves
#: them onto the shared scheduler; until then each is refused where it would be ignored).
UAAPS_ONLY = {
    "package": "--package",
    "target": "--target",
}
FILE_ONLY = {
    "tasks": "--tasks",
    "config": "--config",
    "output_dir": "--output-dir",
    "results_json": "--results-json",
    "skills_dir": "--skills-dir",
    "skill": "--skill",
    "with_installed": "--with-installed",
    "threshold_discovery": "--threshold-discovery",
    "threshold_score": "--threshold-score",
    "ablation": "--ablation",
    "no_deterministic": "--no-deterministic",
    "create_eval": "--create-eval",
}


def parser(prog: str = "evalens run", description: str | None = None, epilog: str | None = None) -> Any:
    """The whole option set; ``prog`` is the face that parses (``evalens run``, or the deprecated ``eval``)."""
    p = argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="what to run: a UAAPS package (its folder or evals/), case names or case files, or one eval file "
        "(tasks.yaml, task.md, evals.json, a trigger eval set, a skilljack results JSON to re-score); "
        "default: the UAAPS package around the working folder",
    )
    p.add_argument(
        "--engine",
        help=f"{' or '.join(engine_names())} (default: the package's eval-config.json, else claude-code); "
        f"several ({','.join(engine_names())}) run every unit on each and print the matrix",
    )
    p.add_argument(
        "--model",
        dest="agent_model",
        help="model the agent uses (default: the config's, else the engine's); several (A,B, or ENGINE=MODEL "
        "for one engine only) run every unit with each and print the matrix",
    )
    p.add_argument(
        "--judge",
        "--judge-model",
        dest="judge",
        help="judge / grader model, `model` or `provider:model` (default: the config's)",
    )
    p.add_argument(
        "--runs",
        default=None,
        metavar="N|auto[:MAX]",
        help="runs per unit (default: the format's: 1 for UAAPS cases, 3 for the others); reports each unit's "
        "pass rate. auto[:MAX] (MAX default 20): run a unit again only while the 95%% interval of its pass "
        "rate straddles --runs-threshold (docs/repeats.md)",
    )
    p.add_argument(
        "--runs-threshold",
        type=float,
        default=0.5,
        metavar="RATE",
        help="with --runs auto: the pass rate a unit is decided against (default 0.5)",
    )
    p.add_argument(
        "--judge-repeats",
        type=int,
        default=1,
        metavar="K",
        help="judge each run K times, whatever the format's judge (a case's judge, a grader, skilljack's "
        "scorer): any FAIL fails, any ERROR errs; the report gives each unit's flip rate and the batch's "
        "agreement (Krippendorff's alpha). Refused, with the reason, where no judge evalens asks can be asked "
        "again (a trigger set; a plugin's eval on Claude Code)",
    )
    p.add_argument(
        "--rejudge",
        type=Path,
        metavar="REPORT",
        help="judge a finished batch again, no agent run (a package's from its transcripts, an eval file's from "
        "its run log; refused, with the reason, where no judge evalens asks can be asked again); also: "
        "evalens rejudge REPORT",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="agent runs in flight at once (default 1), a unit's repeats among them, whatever the format (one "
        "after another under --runs auto)",
    )
    p.add_argument(
        "--timeout",
        type=duration_seconds,
        metavar="SECONDS",
        help="time each agent run of a unit may take, in seconds (a unit may follow: 90s, 1500ms, 2m; "
        "default: the config's, else 120 s for UAAPS and the format's own for the others)",
    )
    p.add_argument(
        "--timeout-ms",
        type=float,
        metavar="MS",
        help="deprecated: --timeout in milliseconds, skilljack's spelling (use --timeout SECONDS)",
    )
    limits.add_judge_timeout_argument(p, "run", UNIT)
    p.add_argument("--no-judge", action="store_true", help="verdicts from deterministic checks only")
    p.add_argument("--dry-run", action="store_true", help="print what would run; start no agent and no model")
    p.add_argument("--keep-sandbox", action="store_true", help="keep each sandbox folder for inspection")
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME",
        help="pass this environment variable of yours through to the agent (repeatable; a name, never a value)",
    )
    p.add_argument(
        "--json",
        nargs="?",
        const=True,
        default=False,
        metavar="PATH",
        help="print the report (or plan) as JSON on stdout (`--json PATH` is the deprecated spelling of "
        "--results-json PATH)",
    )
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="PATH",
        help="the evalens report's path (default: evals/reports/<stamp>.json under the suite's folder); with "
        "--create-eval or a results JSON: where that command's text goes",
    )
    p.add_argument(
        "--report",
        nargs="?",
        const=True,
        default=None,
        metavar="PATH",
        help="deprecated: the report is always written; `--report PATH` is -o PATH",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the agent's turns (text, tool calls, results, blocking hooks) as they happen",
    )
    p.add_argument(
        "--resume",
        type=Path,
        metavar="REPORT_DIR",
        help="finish a batch that was cut short (killed, interrupted), from its run log (its report's folder, "
        "the report or the run-log.jsonl): runs that finished are kept, the rest run with the batch's own "
        "inputs; refused (exit 2) when an input changed since (also: evalens resume DIR)",
    )
    limits.add_arms_arguments(p, UNIT)
    limits.add_limit_arguments(p)
    limits.add_batch_arguments(p, unit=UNIT)
    again = limits.add_reselect_arguments(
        p,
        UNIT,
        "stale (its file, the skill, hooks, fixtures, engine or judge changed since) or that never ran",
    )

    uaaps = p.add_argument_group("UAAPS packages only (for now)")
    uaaps.add_argument(
        "--package", type=Path, help="package root holding evals/ (default: found from the cwd)"
    )
    uaaps.add_argument("--target", help="only cases with this target, e.g. skill:pdf-tools")
    again.add_argument(
        "--changed-since",
        metavar="REF",
        help="run only the units whose inputs (the unit, the skills, hooks, rules and fixtures it installs, the "
        "eval config; under --replay its cassettes) differ from git ref REF, e.g. the pull request's base branch",
    )

    files = p.add_argument_group("eval files only (skilljack, skill-creator, writing-skills, trigger sets)")
    files.add_argument("--tasks", help="comma-separated task / case / eval ids")
    files.add_argument(
        "--config", help="eval.config.yaml (default: beside the file, else ./eval.config.yaml)"
    )
    files.add_argument(
        "--output-dir", help="where the format's own results go (default: output.dir, ./results)"
    )
    files.add_argument("--results-json", metavar="PATH", help="also write the format's own JSON results here")
    files.add_argument("--skills-dir", help="skills folder (default: skills/ next to tasks.yaml)")
    files.add_argument("--skill", help="skill directory for trigger sets (default: inferred)")
    files.add_argument(
        "--with-installed",
        nargs="+",
        default=[],
        metavar="DIR",
        help="trigger sets: install these skills beside the one under test (a skill folder, a plugin, or a "
        "folder of skills), so queries can be stolen; the report says which skill fired (docs/triggers.md)",
    )
    files.add_argument("--threshold-discovery", type=float, help="skilljack: the discovery rate that passes")
    files.add_argument(
        "--threshold-score",
        type=float,
        help="skilljack: the mean score that passes; claude plugin eval cases: the run score (0-1, default 1)",
    )
    files.add_argument(
        "--ablation",
        choices=("with-without", "none"),
        help="claude plugin eval cases: with-without (default) runs each case again without the plugin and "
        "leaves its with-only graders unscored; none runs one arm (docs/plugin-evals.md)",
    )
    files.add_argument(
        "--no-deterministic", action="store_true", help="skip skilljack's deterministic checks"
    )
    files.add_argument("--create-eval", metavar="SKILL_DIR", help="write a tasks.yaml template for a skill")
    files.add_argument("-n", "--count", type=int, default=10, help="tasks in the --create-eval template")

    add_shard_arguments(p)
    add_ci_arguments(p)
    add_sandbox_argument(p)
    return p


def deprecations(args: argparse.Namespace, prog: str) -> None:
    """Map the deprecated spellings onto the current ones, saying so once on stderr for each.

    ``--json`` and ``--report`` take an optional value for the old forms, so a value that is really the run's
    target (``--json evals.json`` with no other path, a case name after ``--report``) is put back."""
    notes: list[str] = []
    if args.timeout_ms is not None:
        if args.timeout is None:
            args.timeout = args.timeout_ms / 1000
        notes.append("--timeout-ms is deprecated: use --timeout SECONDS (90, 90s or 1500ms)")
    elif args.timeout is not None and args.timeout >= 1000:  # most likely milliseconds, typed as before
        notes.append(
            f"--timeout is in seconds: {args.timeout:g} s is {args.timeout / 3600:.1f} h "
            "(milliseconds are --timeout-ms, or write 1500ms)"
        )
    if isinstance(args.json, str):
        value, args.json = args.json, True
        if not args.paths and Path(value).exists():
            args.paths = [value]  # `--json evals.json`: the run's target, JSON on stdout
        elif not value.endswith(".json"):
            args.paths = [*args.paths, value]  # `--json case-a`: a case name after the flag
        else:
            args.json = False
            if args.results_json is None:
                args.results_json = value
            notes.append(f"--json PATH is deprecated: use --results-json {value}")
    if isinstance(args.report, str):
        value = args.report
        if not value.endswith(".json"):
            args.paths = [*args.paths, value]
        else:
            args.output = args.output or Path(value)
            notes.append(f"--report PATH is deprecated: use -o {value}")
    if args.report is True:
        notes.append("--report is deprecated: the report is always written")
    args.report = None
    for note in notes:
        print(f"{prog}: {note}", file=sys.stderr)


def refuse_foreign(
    args: argparse.Namespace, defaults: argparse.Namespace, uaaps: bool, prog: str
) -> int | None:
    """Exit 2 naming each given flag the target's kind cannot honour yet (it would otherwise be ignored)."""
    foreign = FILE_ONLY if uaaps else UAAPS_ONLY
    given = [flag for dest, flag in foreign.items() if getattr(args, dest) != getattr(defaults, dest)]
    if not given:
        return None
    kind = "a UAAPS package" if uaaps else "an eval file"
    other = "eval files" if uaaps else "UAAPS packages"
    print(f"{prog}: {', '.join(given)} applies to {other} only; {kind} does not use it yet", file=sys.stderr)
    return 2
