"""Every file and wire model is complete once imported: its validator is built then, on one thread.

The server validates documents on worker threads. A model whose validator is built on first use
(``defer_build``) can be first used by two threads at once, and pydantic's rebuild is not thread-safe: with
pydantic 2.13.4, eight threads validating one deferred skill-creator model raised AttributeError in 6 of 15
processes. This keeps the start-up saving it would bring from coming back with that race (issue #22).
"""

from __future__ import annotations

import importlib
import pkgutil

from pydantic import BaseModel

import evalens.core.models as models
from evalens.server import wire


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def test_every_model_is_built_when_imported() -> None:
    for info in pkgutil.iter_modules(models.__path__):
        importlib.import_module(f"{models.__name__}.{info.name}")
    assert wire.Wire in _subclasses(BaseModel)
    ours = [
        m
        for m in _subclasses(BaseModel)
        if m.__module__.startswith(("evalens.core.models", "evalens.server.wire"))
    ]
    assert len(ours) > 50
    deferred = sorted(m.__qualname__ for m in ours if not m.__pydantic_complete__)
    assert not deferred, f"built on first use, racing on worker threads: {deferred}"
