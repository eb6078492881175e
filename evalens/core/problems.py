"""Problems found in eval files, independent of LSP: positions are 0-based lines and code-point columns.

The server converts them to LSP diagnostics (UTF-16 columns); ``evalens validate`` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


class Severity(IntEnum):
    """Same numbering as LSP's DiagnosticSeverity."""

    ERROR = 1
    WARNING = 2
    INFO = 3
    HINT = 4

    @property
    def label(self) -> str:
        return {1: "error", 2: "warning", 3: "info", 4: "hint"}[int(self)]


@dataclass(slots=True, unsafe_hash=True)
class Span:
    """A range in a document: 0-based lines, code-point columns, end exclusive. Treat as immutable
    (not frozen only because frozen dataclasses are slow to create, and a document has thousands)."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def contains(self, line: int, col: int) -> bool:
        if (line, col) < (self.start_line, self.start_col):
            return False
        return (line, col) <= (self.end_line, self.end_col)

    @staticmethod
    def point(line: int, col: int = 0, length: int = 1) -> Span:
        return Span(line, col, line, col + length)


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``span`` with ``text`` (an insertion when the span is empty)."""

    span: Span
    text: str
    uri: str | None = None  # None: the same document
    # The same text as an LSP snippet, for editors that insert one: a placeholder the user must replace is a tab
    # stop (``evalens.core.placeholders.tab_stop``), selected on insertion. None: plain text only.
    snippet: str | None = None


@dataclass(frozen=True, slots=True)
class Fix:
    """A quick fix: a titled set of edits."""

    title: str
    edits: tuple[Edit, ...]
    preferred: bool = True


@dataclass(slots=True)
class Problem:
    """One problem in one document, in plain words, with a stable code and an optional fix."""

    span: Span
    severity: Severity
    code: str
    message: str
    fixes: list[Fix] = field(default_factory=list)
    data: dict[str, Any] | None = None

    def sort_key(self) -> tuple[int, int, int]:
        return (self.span.start_line, self.span.start_col, int(self.severity))


def duplicate_key(span: Span, key: str, first: Span) -> Problem:
    """A mapping key given twice (YAML or JSON): the last value wins, as every loader does."""
    return Problem(
        span,
        Severity.ERROR,
        "duplicate-key",
        f"Duplicate key `{key}` (first defined on line {first.start_line + 1}); the last one wins.",
    )
