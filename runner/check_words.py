"""How a check is written in the case's ``expected`` block (``agent-blocked: true``), for every face that shows
one: the run view, the report pages, the editor's lenses and diagnostics. Reports keep the snake_case kinds."""

from __future__ import annotations

from typing import Any

#: Report check kinds → the key of the case's ``expected`` block they come from.
CHECK_KEYS = {
    "contains": "contains",
    "not_contains": "not-contains",
    "files_created": "files-created",
    "agent_blocked": "agent-blocked",
}


def check_key(kind: str) -> str:
    return CHECK_KEYS.get(kind, kind)


def failure_sentence(check: Any) -> str:
    """The one sentence a failed check is told in, on every screen (the diagnostic on its line, the Test Results
    message and the failure VS Code draws inline, the hover, Neovim): its key as the case writes it, then why it
    failed. Computed here, once, and sent to editors as data (``FailedCheck.sentence``), so no face builds its own
    (VS Code had drawn ``✗ != output/summary.md`` from the diff while the others said the file was not created)."""
    key = check_key(check.kind)
    why = (check.detail or "").strip() or f"{yaml_value(check.value)} failed"
    return f"{key}: {why}"


def yaml_value(value: Any) -> str:
    """A check's value as YAML spells it: ``true``, not Python's ``True``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)
