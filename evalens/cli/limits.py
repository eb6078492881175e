"""The per-run limits' flags, shared by ``evalens eval`` and ``evalens run`` so both spell and check them alike."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    """argparse type: an integer of 1 or more (a limit of 0 would stop every run before it starts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


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
        type=int,
        metavar="N",
        help="run an agent run again from scratch when it meets a transient model API error (429, 5xx), at "
        "most N times, within its timeout (default 2, or $EVALENS_AGENT_RETRIES)",
    )
    from evalens.runner.resource_limits import parse_limit

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
