"""The post-pass between the format rules and every output: inline suppressions, then the user's levels.

Format rules stay unaware of it: they emit each problem at the severity the severity policy gives it, and this
pass applies what the user asked for (``docs/configuration.md``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from evalens.core.config import KEEP, ConfigCache, Tuning
from evalens.core.documents import ParsedDocument
from evalens.core.problems import Problem
from evalens.core.rules import is_tunable
from evalens.core.suppress import apply_directives, find_directives, is_own_key

_DEFAULT_CONFIGS = ConfigCache()


def default_tuning(path: str | Path) -> Tuning:
    """The tuning a file gets without an editor or CLI: its nearest config file (cached)."""
    return Tuning(_DEFAULT_CONFIGS.for_file(path))


def tune(
    problems: list[Problem], doc: ParsedDocument | None, format_id: str | None, path: str, tuning: Tuning
) -> list[Problem]:
    """Suppressions and levels applied to one file's problems (a new list; the input is not changed)."""
    if doc is not None:
        if doc.language == "json":
            problems = [p for p in problems if not is_own_key(p)]
        directives = find_directives(doc)
        if directives:
            problems = sorted(apply_directives(problems, directives), key=Problem.sort_key)
    if not (
        tuning.file.rules
        or tuning.file.per_format
        or tuning.file.per_file
        or tuning.overrides
        or tuning.select is not None
    ):
        return list(problems)  # a new list even with nothing to tune: a caller may extend it
    out: list[Problem] = []
    for p in problems:
        if not is_tunable(p.code):
            out.append(p)
            continue
        level = tuning.level(p.code, format_id, path)
        if level is KEEP:
            out.append(p)
        elif level is not None:
            out.append(p if level == p.severity else dataclasses.replace(p, severity=level))
    return out
