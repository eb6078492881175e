"""Limits of a run record, and the one helper that cuts a value and says so.

A record is read by people and rendered into one HTML page, so no single value may grow without bound: an agent
that prints a megabyte, a tool that returns a whole log, a generated file of 50 MB. Each cut leaves a marker in
the value itself and one sentence in the record's ``bounds`` list.
"""

from __future__ import annotations

import os
from typing import Any

TEXT_LIMIT = 20_000  # assistant text, final output, prompt (characters)
TOOL_LIMIT = 8_000  # one tool input string or result (characters)
HOOK_LIMIT = 2_000  # what one hook printed
MAX_TURNS = 400
MAX_CALLS = 1_000  # tool calls over the whole run
BASELINE_FILE_LIMIT = 256 << 10  # bytes of one workspace file kept to diff against
BASELINE_TOTAL_LIMIT = 16 << 20
DIFF_FILE_LIMIT = 64_000  # characters of one file's diff
DIFF_TOTAL_LIMIT = 1_000_000
MAX_FILES = 300


def _env_scale() -> float:
    """``EVALENS_RECORD_SCALE`` multiplies every limit (tests shrink them; a user may grow them)."""
    try:
        return max(0.001, float(os.environ.get("EVALENS_RECORD_SCALE", "1")))
    except ValueError:
        return 1.0


def limit(value: int) -> int:
    return max(1, int(value * _env_scale()))


class Bounds:
    """Collects what was cut, one sentence per cut (shown at the top of every rendering)."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, sentence: str) -> None:
        if sentence not in self.notes:
            self.notes.append(sentence)

    def text(self, value: Any, cap: int, where: str) -> tuple[str, bool]:
        """``value`` as text cut to ``limit(cap)`` characters, with a visible marker; True if cut."""
        text = value if isinstance(value, str) else ("" if value is None else str(value))
        return self.cut(text, limit(cap), where)

    def cut(self, text: str, cap: int, where: str) -> tuple[str, bool]:
        """``text`` cut to exactly ``cap`` characters (already scaled), with a visible marker; True if cut."""
        if len(text) <= cap:
            return text, False
        cut = len(text) - cap
        self.note(f"{where}: cut to {cap} of {len(text)} characters")
        return f"{text[:cap]}\n… [evalens: {cut} more characters not kept]", True

    def value(self, value: Any, cap: int, where: str) -> tuple[Any, bool]:
        """A JSON value with every string cut to ``cap``; True if anything was cut."""
        cut = False

        def walk(node: Any, depth: int = 0) -> Any:
            nonlocal cut
            if depth > 20:
                cut = True
                return "… [evalens: nested too deeply]"
            if isinstance(node, str):
                text, was = self.text(node, cap, where)
                cut = cut or was
                return text
            if isinstance(node, dict):
                return {str(k): walk(v, depth + 1) for k, v in list(node.items())[:200]}
            if isinstance(node, list):
                return [walk(v, depth + 1) for v in node[:200]]
            return node

        return walk(value), cut
