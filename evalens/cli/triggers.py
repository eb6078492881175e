"""``evalens triggers optimize SKILL_DIR``: propose description rewrites and accept one only with proof;
``evalens triggers suggest SKILL_DIR``: propose new trigger queries (docs/triggers.md). Both print a diff to
review and never write a file."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from evalens.core.engines import default_engine, engine_names
from evalens.core.workflow_commands import shown
from evalens.runner.judge import JudgeFailed
from evalens.runner.session import UsageError
from evalens.runner.suites.trigger_sets import co_installed
from evalens.runner.trigger_optimize import OptimizeRequest, current_description, find_trigger_set, optimize
from evalens.runner.trigger_suggest import suggest

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalens triggers", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    opt = sub.add_parser("optimize", help="propose and test rewrites of a skill's description")
    opt.add_argument("skill_dir", type=Path, metavar="SKILL_DIR")
    opt.add_argument(
        "--set",
        type=Path,
        dest="trigger_set",
        help="the trigger set (default: SKILL_DIR/evals/trigger*.json)",
    )
    opt.add_argument(
        "--with-installed", nargs="+", type=Path, default=[], metavar="DIR", help="skills installed beside it"
    )
    opt.add_argument("--engine", default=default_engine(), choices=engine_names())
    opt.add_argument("--model", help="agent model")
    opt.add_argument("--judge-model", help="the model that proposes rewrites (`model` or `provider:model`)")
    opt.add_argument("--runs", type=int, default=1, help="runs per query and description (default 1)")
    opt.add_argument("--candidates", type=int, default=3, help="rewrites to ask for (default 3)")
    opt.add_argument("--holdout", type=float, default=0.5, help="share of each label held out (default 0.5)")
    opt.add_argument("--seed", type=int, default=0, help="the split's seed (default 0)")
    opt.add_argument("--timeout", type=float, default=60, help="seconds per agent run (default 60)")
    opt.add_argument("--max-cost", type=float, help="USD the agent runs may spend; the search stops there")
    opt.add_argument("--json", type=Path, dest="json_output", help="also write the whole result as JSON")
    sug = sub.add_parser("suggest", help="propose new should / should-not trigger queries (a diff to review)")
    sug.add_argument("skill_dir", type=Path, metavar="SKILL_DIR")
    sug.add_argument("--set", type=Path, dest="trigger_set", help="the trigger set to extend")
    sug.add_argument(
        "--with-installed",
        nargs="+",
        type=Path,
        default=[],
        metavar="DIR",
        help="skills whose near misses to add",
    )
    sug.add_argument("--count", type=int, default=5, help="new queries of each kind (default 5)")
    sug.add_argument("--engine", default=default_engine(), choices=engine_names())
    sug.add_argument("--model", help="agent model (the judge's default on Codex)")
    sug.add_argument("--judge-model", help="the model that writes queries (`model` or `provider:model`)")
    return parser


def _suggest(args: argparse.Namespace, skill_dir: Path) -> int:
    """The judge's candidate queries as a diff of the trigger set; nothing is written."""
    if args.count < 1:
        print("evalens triggers: --count must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    trigger_set = args.trigger_set or _trigger_set(skill_dir) or skill_dir / "evals" / "trigger-eval.json"
    try:
        others = {
            name: current_description(md.read_text(encoding="utf-8"))
            for name, md in co_installed(list(args.with_installed), skill_dir).items()
        }
        result = asyncio.run(
            suggest(
                skill_dir,
                trigger_set.resolve(),
                others,
                count=args.count,
                engine=args.engine,
                model=args.model,
                judge_model=args.judge_model,
            )
        )
    except (UsageError, ValueError) as exc:
        print(shown(f"evalens triggers: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except JudgeFailed as exc:
        print(shown(f"ERROR: judge error: {exc}"))
        return 1
    for text in result.skipped:
        print(shown(f"already in the set: {text}"))
    if not result.added:
        print("no new query proposed")
        return 0
    wants = sum(w for _, w in result.added)
    print(
        f"{wants} should-trigger and {len(result.added) - wants} should-not-trigger queries proposed (review; nothing was written):"
    )
    print(shown(result.diff), end="")
    return 0


def _trigger_set(skill_dir: Path) -> Path | None:
    return find_trigger_set(skill_dir)


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "optimize" and (args.runs < 1 or args.candidates < 1 or not 0 < args.holdout < 1):
        parser.error("--runs and --candidates must be at least 1, --holdout between 0 and 1")
    if getattr(args, "max_cost", None) is not None and args.max_cost < 0:
        parser.error("--max-cost must be zero or more")
    skill_dir = args.skill_dir.resolve()
    if not ((skill_dir / "SKILL.md").is_file() or (skill_dir / "skill.md").is_file()):
        print(shown(f"evalens triggers: {args.skill_dir}: no SKILL.md"), file=sys.stderr)
        return EXIT_USAGE
    if args.command == "suggest":
        return _suggest(args, skill_dir)
    trigger_set = args.trigger_set or _trigger_set(skill_dir)
    if trigger_set is None or not trigger_set.is_file():
        print(
            shown(
                f"evalens triggers: no trigger set: pass --set FILE (looked for one evals/trigger*.json in {skill_dir})"
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE

    request = OptimizeRequest(
        skill_dir=skill_dir,
        trigger_set=trigger_set.resolve(),
        with_installed=list(args.with_installed),
        engine=args.engine,
        agent_model=args.model,
        judge=args.judge_model,
        runs=args.runs,
        candidates=args.candidates,
        holdout=args.holdout,
        seed=args.seed,
        timeout=args.timeout,
        max_cost=args.max_cost,
    )
    try:
        result = asyncio.run(optimize(request, lambda m: print(shown(m), flush=True)))
    except UsageError as exc:
        print(shown(f"evalens triggers: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if args.json_output:
        args.json_output.write_text(json.dumps(result.to_json(), indent=2), encoding="utf-8")
    cost = f"${result.cost_usd:.4f}" if result.cost_usd else "no cost reported by the agent CLI"
    print(
        f"cost: {result.agent_runs} agent run(s), {result.tokens:,} tokens, {cost}; "
        f"{result.judge_calls} judge call(s) (their cost is not metered)"
    )
    if result.stopped:
        print(shown(f"stopped early: {result.stopped}"))
    if result.error:
        print(shown(f"ERROR: {result.error}"))
        return 1
    if result.winner is None:
        print("no rewrite accepted: the description stays as it is")
        return 0
    print(shown(f"winner: {result.winner.label} (review it; nothing was written)"))
    print(shown(result.diff), end="")
    return 0
