"""A unit with validation errors is not run: its lens reads "✗ N errors: fix to run" and every way of running
it (the lens, the Test Explorer, Run all) answers SKIP with that reason instead of starting an agent.

Running a case the schema rejects only ever ended in a raw pydantic message and an "Errored 0.0ms" row, so the
editor says what to fix first. Only errors count (the user's rule levels apply: a rule turned into a warning
no longer blocks); an error belongs to a unit when it lies inside the unit's node, and errors outside every
unit (the file's own fields) belong to all of them.
"""

from __future__ import annotations

from typing import Any

from evalens.core.problems import Problem, Severity, Span
from evalens.server.wire import CaseResult


def _inside(span: Span, region: Span) -> bool:
    return (region.start_line, region.start_col) <= (span.start_line, span.start_col) and (
        span.end_line,
        span.end_col,
    ) <= (region.end_line, region.end_col)


def _region(doc: Any, case: Any) -> Span | None:
    """The span of a unit's node (None: the unit is the whole file)."""
    if not case.path:
        return None
    node = doc.node_at_path(tuple(case.path))
    return node.span if node is not None else None


def unit_errors(validation: Any, case: Any, cases: list[Any]) -> list[Problem]:
    """The error-level problems that stop ``case`` from running, in document order."""
    if validation is None:
        return []
    errors = [p for p in validation.problems if p.severity == Severity.ERROR]
    if not errors:
        return []
    doc = validation.doc
    own = _region(doc, case) if doc is not None and doc.ok and case is not None else None
    if own is None:  # the whole file (a UAAPS case, the `*` unit, a file that does not parse): every error
        return sorted(errors, key=Problem.sort_key)
    regions = [r for r in (_region(doc, c) for c in cases if c.path) if r is not None]
    return sorted(
        (p for p in errors if _inside(p.span, own) or not any(_inside(p.span, r) for r in regions)),
        key=Problem.sort_key,
    )


def lens_title(count: int) -> str:
    """``✗ 2 errors: fix to run``: it counts the errors that stop the unit, and says so; the Problems panel also
    lists warnings and hints (issue 45 #8: "✗ 2 problems" beside four Problems entries read as a wrong count)."""
    return f"✗ {count} error{'s' if count != 1 else ''}: fix to run"


def reason(errors: list[Problem]) -> str:
    """One line for the SKIP answer: how many, and the first one with its line."""
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return (
        f"not run: {len(errors)} error{'s' if len(errors) != 1 else ''} to fix first: "
        f"line {first.span.start_line + 1}: {first.message}{more}"
    )


def skipped_answer(uri: str, name: str, errors: list[Problem], dry_run: bool = False) -> CaseResult:
    """The ``evalens.runCase`` answer for a unit that was not run (``CaseResult.problems``)."""
    answer = CaseResult(
        uri=uri,
        name=name,
        verdict="SKIP",
        state="SKIP",
        reason=reason(errors),
        duration_seconds=0.0,
        failed_checks=[],
        problems=len(errors),
    )
    if dry_run:
        answer.dry_run = True
    return answer
