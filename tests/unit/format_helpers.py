"""Helpers shared by the per-format rule tests: validate a file, pick problems, apply a fix's edits."""

from __future__ import annotations

from pathlib import Path

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
