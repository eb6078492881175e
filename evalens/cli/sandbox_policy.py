"""``--sandbox required|preferred|off``: whether a run may go ahead when its sandbox is not enforced.

In CI (``CI=true``) the default is ``required``: an agent that runs unconfined on a CI runner can read the
workspace, including the checkout token in ``.git/config``, and a warning line on stderr is no defence. So a
required sandbox that bubblewrap cannot enforce stops the run before any agent starts, and a run whose report
says the sandbox was not enforced exits non-zero. ``preferred`` (the default elsewhere) runs with the engine's
own sandbox and says so; ``off`` is ``preferred`` without the warning, for a workflow that opts out knowingly.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

POLICIES = ("required", "engine", "preferred", "off")
#: Exit code of a run refused (or failed after the fact) because its sandbox is not enforced.
EXIT_UNSANDBOXED = 2


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        choices=POLICIES,
        default=None,
        help="required: refuse to run unless bubblewrap enforces the sandbox (default when CI=true "
        "or $EVALENS_SANDBOX=required); engine: the same, but accept the engine's own sandbox, which evalens "
        "configures (macOS, no bubblewrap); preferred: fall back to the engine's own sandbox and say so "
        "(default elsewhere); off: fall back silently",
    )
    parser.add_argument(
        "--allow-agent-network",
        action="store_true",
        default=None,
        help="with a required sandbox, let a package whose eval config says `sandbox.network: true` give the "
        "agent the network (or $EVALENS_ALLOW_AGENT_NETWORK=1); without it such a run is refused, since the "
        "config is the repository's, and a pull request can change it",
    )


def network_allowed(args: argparse.Namespace, env: dict[str, str] | None = None) -> bool:
    """The workflow's own opt-in to an agent with network: the flag or ``$EVALENS_ALLOW_AGENT_NETWORK=1``."""
    env = env if env is not None else dict(os.environ)
    if getattr(args, "allow_agent_network", None):
        return True
    return env.get("EVALENS_ALLOW_AGENT_NETWORK", "").strip().lower() in ("1", "true", "yes")


def refuse_network(chosen: str, network: bool, allowed: bool, prog: str) -> int | None:
    """An exit code when a required sandbox would give the agent the network and the workflow did not opt in by
    name (nothing has run yet), else None. ``sandbox.network: true`` comes from the repository's eval config:
    under ``required`` (CI's default) a pull request must not be able to switch the network on by itself."""
    if chosen not in ("required", "engine") or not network or allowed:
        return None
    print(
        f"{prog}: the eval config asks for `sandbox.network: true`, but the sandbox is required and this "
        "workflow did not opt in to an agent with network: pass --allow-agent-network (the Action's input "
        "`allow-agent-network: true`) if the package really needs it, or set `sandbox.network: false`.",
        file=sys.stderr,
    )
    return EXIT_UNSANDBOXED


def policy(args: argparse.Namespace, env: dict[str, str] | None = None) -> str:
    """The flag, else ``$EVALENS_SANDBOX``, else ``required`` in CI and ``preferred`` elsewhere."""
    env = env if env is not None else dict(os.environ)
    chosen = getattr(args, "sandbox", None) or env.get("EVALENS_SANDBOX", "").strip().lower()
    if chosen in POLICIES:
        return chosen
    return "required" if env.get("CI", "").lower() in ("true", "1") else "preferred"


def refuse_before(chosen: str, enforced: bool, reason: str | None, prog: str) -> int | None:
    """An exit code when a required sandbox will not be enforced (nothing has run yet), else None. ``engine``
    accepts the engine's own sandbox, which evalens configures wherever bubblewrap cannot run."""
    if chosen != "required" or enforced:
        return None
    why = (reason or "").split("sandbox not enforced: ", 1)[-1].split(";", 1)[0] or "bubblewrap is not usable"
    print(
        f"{prog}: the sandbox is required (CI=true or --sandbox required) but would not be enforced: {why}. "
        "Install bubblewrap and socat and allow unprivileged user namespaces (`evalens doctor` says how), "
        "accept the engine's own sandbox with --sandbox engine, or opt out with --sandbox preferred.",
        file=sys.stderr,
    )
    return EXIT_UNSANDBOXED


def refuse_after(chosen: str, report: Any, prog: str) -> int | None:
    """An exit code when a required sandbox was not enforced in the finished run's report, else None."""
    sandbox = getattr(report, "sandbox", None)
    if report is None or sandbox is None or sandbox.enforced or chosen not in ("required", "engine"):
        return None
    if chosen == "engine" and sandbox.sandboxed == "engine":
        return None
    print(
        f"{prog}: the sandbox is required but this run was not sandboxed by bubblewrap "
        f"(sandboxed: {sandbox.sandboxed}); failing the run",
        file=sys.stderr,
    )
    return EXIT_UNSANDBOXED
