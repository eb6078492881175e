"""What a runnable unit is called in an editor (outline, Test Explorer).

Some formats name their units with bare numbers or indexes (skill-creator ``"id": 1``, trigger-set queries
``0``, ``should_trigger[2]``). Twenty cases called "1" … "20" say nothing, so those units are labelled by
their prompt or query, unless the entry carries a ``name`` of its own (skill-creator evals often do); a unit
with a real name (a UAAPS case, a skilljack task id) keeps it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

OPAQUE = re.compile(r"^(\d+|[A-Za-z_]+\[\d+\])$")
TEXT_KEYS = ("prompt", "query", "text", "description")
MAX_LABEL = 60
PLUGIN_EVAL_FORMATS = ("plugin-eval-prompt", "plugin-eval-case")


def one_line(text: str, limit: int = MAX_LABEL) -> str:
    line = re.sub(r"\s+", " ", text).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def unit_text(doc: Any, path: tuple) -> str | None:
    """The prompt (or query) of the unit at ``path``: the unit itself when it is a string, else its first
    text key."""
    node = doc.node_at_path(path) if path else None
    if node is None:
        return None
    if node.kind == "scalar":
        return node.value if isinstance(node.value, str) and node.value.strip() else None
    if node.kind == "map":
        for key in TEXT_KEYS:
            child = node.get(key)
            if (
                child is not None
                and child.kind == "scalar"
                and isinstance(child.value, str)
                and child.value.strip()
            ):
                return child.value
    return None


def _own_name(doc: Any, path: tuple) -> str | None:
    """The unit entry's ``name`` key, when it is a non-empty string."""
    node = doc.node_at_path(path) if path else None
    child = node.get("name") if node is not None and node.kind == "map" else None
    if child is not None and child.kind == "scalar" and isinstance(child.value, str) and child.value.strip():
        return child.value
    return None


def case_label(doc: Any, case: Any) -> str:
    """``case.name`` unless it is a bare number or index; then the entry's own ``name``, else its prompt or
    query, on one line."""
    if not OPAQUE.match(case.name or ""):
        return case.name
    text = _own_name(doc, tuple(case.path)) or unit_text(doc, tuple(case.path))
    return one_line(text) if text else case.name


def _text(node: Any, key: str) -> str | None:
    child = node.get(key) if node is not None and node.kind == "map" else None
    if child is not None and child.kind == "scalar" and isinstance(child.value, str) and child.value.strip():
        return child.value.strip()
    return None


def unit_skill(doc: Any, case: Any) -> str | None:
    """The skill a unit exercises, for the editor's tags: a UAAPS ``target: skill:<name>``, else the file's
    ``skill_name`` / ``skill`` (skill-creator evals, trigger sets); None when the file does not say."""
    node = doc.node_at_path(tuple(case.path)) if case.path else doc.root  # a UAAPS case is its whole file
    target = _text(node, "target")
    if target is not None:
        return target.removeprefix("skill:") if target.startswith("skill:") else None
    return _text(doc.root, "skill_name") or _text(doc.root, "skill")


def unit_cases(fmt: Any, doc: Any, file: str) -> list[Any]:
    """``fmt.cases(doc)`` named as the runner names its units. A file may leave a unit's name to its folder: a
    skilljack task.md without `id` is named after its folder, a `claude plugin eval` case by
    :func:`~evalens.core.formats.plugin_eval.case_name` (`prompt.md`'s `name`, else `case.yaml`'s, else the
    folder's: neither file knows the other's). The server's lenses and the units' identities (a verdict
    restored from a report, the run log) read this one list, so they agree on a name: a report's ``greets``
    was read back as a unit called "" and its lens showed no verdict after a reload."""
    cases = list(fmt.cases(doc))
    if fmt.id == "skilljack-task":
        return [c if c.name else replace(c, name=Path(file).parent.name) for c in cases]
    if fmt.id in PLUGIN_EVAL_FORMATS and any(not c.name for c in cases):
        # lazy: importing a format module registers it, and the server loads the formats only after its
        # `initialize` answer (issue 43); by the time a unit is named, they are loaded
        from evalens.core.formats.plugin_eval import case_name

        return [c if c.name else replace(c, name=case_name(Path(file).parent)) for c in cases]
    return cases
