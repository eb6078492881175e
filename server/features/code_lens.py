"""Code lenses: "Run eval" on every runnable case (filled in by the run feature)."""

from __future__ import annotations

from evalens.server.server import EvalensServer


def register(server: EvalensServer) -> None:
    """Registers the lens and run commands when the run feature is available."""
    try:
        from evalens.server.features import run_commands
    except ImportError:
        return
    run_commands.register(server)
