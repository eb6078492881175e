"""Agent engines: one adapter per supported CLI, looked up by the UAAPS engine name."""

from __future__ import annotations

from evalens.runner.engines.base import Engine, EngineNotFound

SUPPORTED = ("claude-code", "codex")
RESERVED = ("copilot", "cursor")


class UnsupportedEngine(Exception):
    """The engine is reserved (copilot, cursor) or unknown; the message is the user-facing error."""


def get_engine(name: str) -> Engine:
    """The adapter for ``name``; raises :class:`UnsupportedEngine` for reserved or unknown engines."""
    if name == "claude-code":
        from evalens.runner.engines.claude_code import ClaudeCode

        return ClaudeCode()
    if name == "codex":
        from evalens.runner.engines.codex import Codex

        return Codex()
    if name in RESERVED:
        raise UnsupportedEngine(
            f"unsupported engine {name!r}: {name} is reserved by the UAAPS spec until it has a headless mode; "
            f"supported engines: {', '.join(SUPPORTED)}"
        )
    raise UnsupportedEngine(f"unsupported engine {name!r}; supported engines: {', '.join(SUPPORTED)}")


__all__ = ["Engine", "EngineNotFound", "UnsupportedEngine", "get_engine", "SUPPORTED", "RESERVED"]
