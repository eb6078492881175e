"""Agent engines: one adapter per supported CLI, looked up by the UAAPS engine name in the engine registry
(:mod:`evalens.core.engines`)."""

from __future__ import annotations

import importlib

from evalens.core.engines import RESERVED, engine_names, engine_spec
from evalens.runner.engines.base import Engine, EngineNotFound


class UnsupportedEngine(Exception):
    """The engine is reserved (copilot, cursor) or unknown; the message is the user-facing error."""


def get_engine(name: str) -> Engine:
    """The adapter for ``name``; raises :class:`UnsupportedEngine` for reserved or unknown engines."""
    spec = engine_spec(name)
    supported = ", ".join(engine_names())
    if spec is not None:
        module, _, cls = spec.adapter.partition(":")
        adapter: type[Engine] = getattr(importlib.import_module(module), cls)
        return adapter()
    if name in RESERVED:
        raise UnsupportedEngine(
            f"unsupported engine {name!r}: {name} is reserved by the UAAPS spec until it has a headless mode; "
            f"supported engines: {supported}"
        )
    raise UnsupportedEngine(f"unsupported engine {name!r}; supported engines: {supported}")


__all__ = ["Engine", "EngineNotFound", "UnsupportedEngine", "get_engine", "RESERVED"]
