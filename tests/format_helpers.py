"""Helpers shared by the per-format rule tests: validate a file, pick problems, apply a fix's edits, and mutate a
parsed document without copying all of it (the robustness and schema fast-path tests)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from evalens.core.index import IndexCache
from evalens.core.problems import Edit, Problem
from evalens.core.validate import Validation, validate_text


def check(path: Path, text: str | None = None) -> Validation:
    """Validate ``path`` (or ``text`` as if it were that file) with a fresh package index."""
    return validate_text(str(path), path.read_text(encoding="utf-8") if text is None else text, IndexCache())


def codes(v: Validation) -> list[str]:
    return [p.code for p in v.problems]


def only(v: Validation, code: str) -> Problem:
    """The one problem with ``code`` (fails listing every problem otherwise)."""
    found = [p for p in v.problems if p.code == code]
    assert len(found) == 1, [(p.code, p.message) for p in v.problems]
    return found[0]


def apply(text: str, edits: tuple[Edit, ...]) -> str:
    """``text`` after a quick fix, the way an editor applies it (last edit first)."""
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.span.start_line, e.span.start_col), reverse=True):
        s = e.span
        before = lines[s.start_line][: s.start_col]
        after = lines[s.end_line][s.end_col :] if s.end_line < len(lines) else ""
        lines[s.start_line : s.end_line + 1] = (before + e.text + after).split("\n")
    return "\n".join(lines)


def value_paths(value: Any, items: int, prefix: tuple = ()) -> list[tuple]:
    """Every path into ``value``: each key of a mapping, the first ``items`` entries of each list."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += value_paths(v, items, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:items]):
            out += value_paths(v, items, (*prefix, i))
    return out


def replaced(data: Any, path: tuple, new: Any) -> Any:
    """``data`` with the value at ``path`` replaced and ``data`` itself untouched: only the containers on the path
    are copied, the rest is shared (#22: a deep copy of the whole document per mutation was most of the time).
    A test that validates the result checks afterwards that the shared document is as it was."""
    if not path:
        return new
    root = copy.copy(data)
    holder = root
    for part in path[:-1]:
        holder[part] = copy.copy(holder[part])
        holder = holder[part]
    holder[path[-1]] = new
    return root
