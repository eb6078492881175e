"""The bundled JSON Schemas (generated from evalens' pydantic models; shipped in the wheel)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load_schema(file_name: str) -> dict[str, Any]:
    """Read one bundled schema by file name, e.g. ``uaaps-eval-case.schema.json``."""
    return json.loads(resources.files(__name__).joinpath(file_name).read_text(encoding="utf-8"))


def schema_names() -> list[str]:
    """File names of every bundled schema."""
    return sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith(".schema.json"))
