"""The flags ``evalens eval`` and ``evalens run`` share (limits, budgets, what fails the command, baselines), declared
once so both spell, word and check them alike."""

from __future__ import annotations

import argparse
import os
from typing import Any

from evalens.runner.resource_limits import parse_limit
from evalens.runner.results import error_rate_arg


def _at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {low} or more")
    return value


def positive(text: str) -> int:
    """argparse type: an integer of 1 or more (a limit of 0 would stop every run before it starts)."""
    return _at_least(text, 1)


def non_negative(text: str) -> int:
    """argparse type: an integer of 0 or more (0 retries is the old behaviour, not an error)."""
    return _at_least(text, 0)


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-turns",
        type=positive,
        metavar="N",
        help="model calls one agent run may make; past it the run is stopped and is ERROR (turn limit)",
    )
    parser.add_argument(
        "--max-tokens-per-run",
        type=positive,
        metavar="N",
        help="tokens (in + out) one agent run may use, counted from the engine's events while it runs; "
        "past it the run is stopped and is ERROR (token limit)",
    )
    parser.add_argument(
        "--agent-retries",
        type=non_negative,
        metavar="N",
        help="run an agent run again from scratch when it meets a transient model API error (429, 5xx), at "
        "most N times, within its timeout (default 2, or $EVALENS_AGENT_RETRIES)",
    )

    parser.add_argument(
        "--limit",
        dest="resource_limits",
        action="append",
        type=parse_limit,
        default=[],
        metavar="NAME=N",
        help="a resource limit of each agent run (repeatable): pids, memory-mb, cpu-seconds, file-mb, "
        "workspace-mb; meeting one is ERROR naming it (docs/sandbox.md#resource-limits)",
    )


def add_batch_arguments(parser: argparse.ArgumentParser, unit: str) -> None:
    """The batch's budget, what fails the command, and the baseline; ``unit`` is what the command calls one
    runnable thing (``case`` for UAAPS, ``unit`` for the other formats)."""
    parser.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop starting runs once the batch spent this much (as the CLI reports it); the rest SKIP",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="stop starting runs once the batch used this many tokens (in + out); the rest SKIP",
    )
    parser.add_argument(
        "--allow-unpriced",
        action="store_true",
        help="with --max-cost, start even when the agent's runs cannot be priced (Codex with a model the "
        "price table lacks, or its default): those runs count $0",
    )
    parser.add_argument(
        "--fail-on-error",
        type=error_rate_arg,
        metavar="RATE",
        default=None,
        help=f"errored {unit}s fail the command only when more than this share of the {unit}s errored "
        "(0.05 = 5%%; default: any ERROR fails)",
    )
    parser.add_argument(
        "--flaky",
        choices=["fail", "pass"],
        default="fail",
        help=f"whether a {unit} that both passed and failed over its --runs fails the command (default: fail)",
    )
    parser.add_argument(
        "--baseline",
        metavar="no-skill|REF",
        help=f"also run each {unit} (as often as --runs) without the skill, or with it as it was at git ref "
        "REF, and show the uplift; baseline runs never fail the command",
    )
    cassettes = parser.add_mutually_exclusive_group()
    cassettes.add_argument(
        "--record",
        action="store_true",
        help=f"store each {unit} run's model traffic (agent and judge) as a cassette in evals/cassettes/ "
        "(docs/replay.md)",
    )
    cassettes.add_argument(
        "--replay",
        nargs="?",
        const="strict",
        choices=["strict", "new"],
        metavar="strict|new",
        help="answer the model from the cassettes, with no network and no key: strict (default; a request that "
        "differs from the recording is ERROR naming it) or new (live and recorded from the first request "
        "that differs)",
    )
    parser.add_argument(
        "--replay-base",
        metavar="REF",
        default=None,
        help="with --replay, trust only the cassettes as they are at git ref REF (a pull request's base): a "
        "cassette this change added or edited never answers, so a replayed verdict cannot be forged by the "
        "change itself (strict: those units are ERROR; new: they run live)",
    )
    parser.add_argument(
        "--allow-unisolated-baseline",
        action="store_true",
        help="run --baseline even without an enforced sandbox (its agent can read the skill from the host); "
        "the uplift is marked unisolated",
    )


def add_arms_arguments(parser: argparse.ArgumentParser, unit: str) -> None:
    """``--arms`` / ``--arms-reference``: one batch per arm, compared with the reference (evalens/cli/arms.py)."""
    parser.add_argument(
        "--arms",
        metavar="ARM,ARM…",
        help=f"run every {unit} once per arm and compare: skill, no-skill, plugin, ref:REF, "
        "without:references|scripts|hooks (docs/baseline.md#ablation-arms)",
    )
    parser.add_argument(
        "--arms-reference",
        metavar="ARM",
        help="the arm the others are compared with and whose verdicts decide the exit code (default: skill)",
    )


def add_judge_timeout_argument(parser: argparse.ArgumentParser, run: str, unit: str) -> None:
    """``--judge-timeout``: ``run`` is what one judged run is called, ``unit`` whose timeout it halves."""
    parser.add_argument(
        "--judge-timeout",
        type=float,
        metavar="SECONDS",
        help=f"total seconds the judge may take per {run} (default: $EVALENS_JUDGE_TIMEOUT, else half "
        f"the {unit} timeout, 10-60 s); then the {unit} is ERROR",
    )


REPLAY_PLACEHOLDER_KEY = "evalens-replay-no-key"


def add_reselect_arguments(parser: argparse.ArgumentParser, unit: str, stale: str) -> Any:
    """``--failed`` / ``--stale`` (one or the other): the group, for more ways to pick what runs."""
    again = parser.add_mutually_exclusive_group()
    again.add_argument(
        "--failed",
        action="store_true",
        help=f"run only the {unit}s whose last verdict was FAIL, FLAKY or ERROR (like pytest --lf)",
    )
    again.add_argument(
        "--stale", action="store_true", help=f"run only the {unit}s whose last verdict is {stale}"
    )
    return again


def limit_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The request fields of the flags :func:`add_limit_arguments` declares."""
    return {
        "max_turns": args.max_turns,
        "max_tokens_per_run": args.max_tokens_per_run,
        "resource_limits": dict(args.resource_limits),
        "agent_retries": args.agent_retries,
    }


def batch_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The request fields of the flags :func:`add_batch_arguments` declares (the budget, the baseline, the
    cassettes)."""
    return {
        "max_cost": args.max_cost,
        "max_tokens": args.max_tokens,
        "allow_unpriced": bool(getattr(args, "allow_unpriced", False)),
        "baseline": args.baseline,
        "allow_unisolated_baseline": args.allow_unisolated_baseline,
        **replay_fields(args),
    }


def replay_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The request fields of ``--record`` / ``--replay``. A replay needs no key: a provider key that is not set
    gets a placeholder the cassette proxy never sends anywhere in strict mode (``new`` going live without a
    real key meets the provider's 401, an honest ERROR)."""
    if args.replay:
        for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            os.environ.setdefault(var, REPLAY_PLACEHOLDER_KEY)
    return {
        "record": bool(args.record),
        "replay": args.replay,
        "replay_base": getattr(args, "replay_base", None) if args.replay else None,
    }
