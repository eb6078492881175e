"""Code lenses: "Run eval" on every runnable case (filled in by the run feature)."""

from __future__ import annotations

from evalens.server.features import run_commands
from evalens.server.server import EvalensServer


def register(server: EvalensServer) -> None:
    """Registers the lens and run commands. An import error here fails loudly: it used to be swallowed, which
    silently removed every lens."""
    run_commands.register(server)
