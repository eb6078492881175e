"""Repeated findings of one kind in one file become one diagnostic with related locations.

A file that follows one convention throughout (object assertions, a missing field in every case) would
otherwise get one diagnostic per occurrence: hundreds of identical lines that bury everything else. The
first occurrence carries the diagnostic; the others become related locations (LSP ``relatedInformation``,
``related`` in ``evalens validate --format json``), and their quick fixes are offered as one action.
"""

from __future__ import annotations

import dataclasses

from evalens.core.problems import Fix, Problem, Severity

AT_LEAST = {Severity.ERROR: 4, Severity.WARNING: 4, Severity.INFO: 2, Severity.HINT: 2}
"""How many findings of one code in one file collapse. Advice (hints) collapses from the second one, so style
advice never outnumbers real findings; a few real errors stay separate, each with its own range."""


def related_of(problem: Problem) -> list[dict]:
    """The related locations a problem carries: ``[{"span": [l, c, el, ec], "message": str}]``."""
    related = (problem.data or {}).get("related")
    return related if isinstance(related, list) else []


def with_related(main: Problem, others: list[Problem]) -> Problem:
    """``main`` with ``others`` as its related locations."""
    data = dict(main.data or {})
    data["related"] = related_of(main) + [
        {"span": [p.span.start_line, p.span.start_col, p.span.end_line, p.span.end_col], "message": p.message}
        for p in others
    ]
    main.data = data
    return main


def aggregate(problems: list[Problem]) -> list[Problem]:
    """Collapse each code's findings in one file when there are at least ``AT_LEAST`` of them."""
    groups: dict[tuple[str, str], list[Problem]] = {}
    for p in problems:  # one kind: the same code (and, for missing fields, the same field)
        groups.setdefault((p.code, str((p.data or {}).get("missing", ""))), []).append(p)
    out: list[Problem] = []
    for group in groups.values():
        severity = min(p.severity for p in group)
        if len(group) < AT_LEAST[Severity(severity)]:
            out += group
            continue
        group.sort(key=Problem.sort_key)
        # a copy: the first finding may be shared with the last validation (its parse's problems, the problems of
        # an unchanged task: issue 43), which must not gain a second "more like this"
        main, rest = dataclasses.replace(group[0]), group[1:]
        main.severity = Severity(severity)
        main.message += f" ({len(rest)} more like this in this file: see the related locations.)"
        fix_all = _fix_all(group)
        with_related(main, rest)
        if fix_all is not None:
            main.fixes = [fix_all, *[Fix(f.title, f.edits, preferred=False) for f in main.fixes]]
        out.append(main)
    out.sort(key=Problem.sort_key)
    return out


def _fix_all(group: list[Problem]) -> Fix | None:
    """One action applying every finding's first quick fix, when each has one and no two edits overlap."""
    if not all(p.fixes for p in group):
        return None
    edits = [e for p in group for e in p.fixes[0].edits]
    if any(e.uri is not None for e in edits):
        return None
    ordered = sorted(edits, key=lambda e: (e.span.start_line, e.span.start_col))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if (b.span.start_line, b.span.start_col) < (a.span.end_line, a.span.end_col):
            return None
    return Fix(f"Apply the quick fix of each of the {len(group)} findings", tuple(edits))
