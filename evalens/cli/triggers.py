"""``evalens triggers optimize SKILL_DIR``: propose description rewrites and accept one only with proof
(docs/triggers.md). It prints the winner as a diff to review and never writes the SKILL.md."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

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
    opt.add_argument("--engine", default="claude-code", choices=("claude-code", "codex"))
    opt.add_argument("--model", help="agent model")
    opt.add_argument("--judge-model", help="the model that proposes rewrites (`model` or `provider:model`)")
    opt.add_argument("--runs", type=int, default=1, help="runs per query and description (default 1)")
    opt.add_argument("--candidates", type=int, default=3, help="rewrites to ask for (default 3)")
    opt.add_argument("--holdout", type=float, default=0.5, help="share of each label held out (default 0.5)")
    opt.add_argument("--seed", type=int, default=0, help="the split's seed (default 0)")
    opt.add_argument("--timeout", type=float, default=60, help="seconds per agent run (default 60)")
    opt.add_argument("--max-cost", type=float, help="USD the agent runs may spend; the search stops there")
    opt.add_argument("--json", type=Path, dest="json_output", help="also write the whole result as JSON")
    return parser


def _trigger_set(skill_dir: Path) -> Path | None:
    found = sorted((skill_dir / "evals").glob("trigger*.json")) if (skill_dir / "evals").is_dir() else []
    return found[0] if len(found) == 1 else None


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.runs < 1 or args.candidates < 1 or not 0 < args.holdout < 1:
        parser.error("--runs and --candidates must be at least 1, --holdout between 0 and 1")
    if args.max_cost is not None and args.max_cost < 0:
        parser.error("--max-cost must be zero or more")
    skill_dir = args.skill_dir.resolve()
    if not ((skill_dir / "SKILL.md").is_file() or (skill_dir / "skill.md").is_file()):
        print(f"evalens triggers: {args.skill_dir}: no SKILL.md", file=sys.stderr)
        return EXIT_USAGE
    trigger_set = args.trigger_set or _trigger_set(skill_dir)
    if trigger_set is None or not trigger_set.is_file():
        print(
            f"evalens triggers: no trigger set: pass --set FILE (looked for one evals/trigger*.json in {skill_dir})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from evalens.runner.session import UsageError
    from evalens.runner.trigger_optimize import OptimizeRequest, optimize

    request = OptimizeRequest(
        skill_dir=skill_dir,
        trigger_set=trigger_set.resolve(),
        with_installed=list(args.with_installed),
        engine=args.engine,
        model=args.model,
        judge_model=args.judge_model,
        runs=args.runs,
        candidates=args.candidates,
        holdout=args.holdout,
        seed=args.seed,
        timeout_seconds=args.timeout,
        max_cost=args.max_cost,
    )
    try:
        result = asyncio.run(optimize(request, lambda m: print(m, flush=True)))
    except UsageError as exc:
        print(f"evalens triggers: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json_output:
        args.json_output.write_text(json.dumps(result.to_json(), indent=2), encoding="utf-8")
    cost = f"${result.cost_usd:.4f}" if result.cost_usd else "no cost reported by the agent CLI"
    print(
        f"cost: {result.agent_runs} agent run(s), {result.tokens:,} tokens, {cost}; "
        f"{result.judge_calls} judge call(s) (their cost is not metered)"
    )
    if result.stopped:
        print(f"stopped early: {result.stopped}")
    if result.error:
        print(f"ERROR: {result.error}")
        return 1
    if result.winner is None:
        print("no rewrite accepted: the description stays as it is")
        return 0
    print(f"winner: {result.winner.label} (review it; nothing was written)")
    print(result.diff, end="")
    return 0
