"""One validation path for the server and ``evalens validate``: detect → parse → schema → rules."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core import item_cache, schema_check
from evalens.core.aggregate import aggregate
from evalens.core.config import Tuning
from evalens.core.documents import ParsedDocument
from evalens.core.formats.base import Format, RuleContext
from evalens.core.formats.registry import candidates, detect, sniffs
from evalens.core.index import IndexCache
from evalens.core.placeholders import placeholder_problems
from evalens.core.problems import Problem, Severity, Span
from evalens.core.regular_files import read_regular
from evalens.core.tuning import default_tuning, tune


@dataclass(slots=True)
class Validation:
    """Everything features need about one document version."""

    path: str
    format: Format | None
    doc: ParsedDocument | None
    problems: list[Problem] = field(default_factory=list)
    lookalike: Format | None = None
    _case_names: tuple[str, ...] | None = None
    # the problems of each unit of the document's list (skilljack's tasks), for the next version's validation
    items: item_cache.ItemResults | None = None

    def case_names(self) -> tuple[str, ...]:
        """Names of the runnable units (computed once per document version)."""
        if self._case_names is None:
            fmt, doc = self.format, self.doc
            self._case_names = (
                tuple(c.name for c in fmt.cases(doc))
                if fmt is not None and doc is not None and doc.ok
                else ()
            )
        return self._case_names


def validate_text(
    path: str,
    text: str,
    indexes: IndexCache | None = None,
    settings: dict[str, Any] | None = None,
    tuning: Tuning | None = None,
    previous: Validation | ParsedDocument | None = None,
) -> Validation:
    """Validate one document; never raises for bad input. ``tuning`` (the user's rule levels; None: the
    nearest config file of ``path``) is applied last. ``previous`` is the document's last validation (or its
    parse): an edit inside one YAML sequence item re-parses that item only (issue 43), the result being the
    full parse's (``documents.reparse_item``), and re-checks that item only, the other items' problems being
    the last validation's (``item_cache``).

    The cyclic garbage collector is paused meanwhile: a 6,500-line file allocates ~30k acyclic nodes, and
    the collections they trigger would rescan every document the server holds (2-3x the validation time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        result = _validate_text(path, text, indexes, settings, previous)
        tuned = tune(
            result.problems,
            result.doc,
            result.format.id if result.format else None,
            path,
            tuning if tuning is not None else default_tuning(path),
        )
        result.problems = aggregate(tuned)  # after tuning: suppressing one occurrence keeps the others
        return result
    except Exception as exc:  # noqa: BLE001 - a bug or a limit hit: one diagnostic says why, never a crash
        return cannot_validate(path, text, exc)
    finally:
        if enabled:
            gc.enable()


def _validate_text(
    path: str,
    text: str,
    indexes: IndexCache | None,
    settings: dict[str, Any] | None,
    previous: Validation | ParsedDocument | None = None,
) -> Validation:
    last, previous_doc = (previous, previous.doc) if isinstance(previous, Validation) else (None, previous)
    detection = detect(path, text, previous_doc)
    fmt, doc = detection.format, detection.doc
    if fmt is None:
        problems: list[Problem] = []
        if detection.lookalike is not None and doc is not None:
            first = doc.lines[0] if doc.lines else ""
            problems.append(
                Problem(
                    Span(0, 0, 0, max(1, len(first))),
                    Severity.HINT,
                    "lookalike",
                    detection.lookalike.lookalike_hint,
                )
            )
        return Validation(path, None, doc, problems, detection.lookalike)
    assert doc is not None
    problems = list(doc.problems)
    items = None
    if not doc.ok:
        problems = fmt.unparsed_problems(doc, rule_context(path, indexes, settings))
    else:
        ctx = rule_context(path, indexes, settings)
        schema = fmt.schema()
        split = fmt.item_rules(doc, ctx) if schema is not None else None
        by_item = (
            item_cache.check(doc, fmt, schema, ctx, split, last.items if last is not None else None)
            if split is not None and schema is not None
            else None
        )
        if by_item is not None:
            found, items = by_item
            problems += found
        else:
            problems += whole_document_problems(doc, fmt, schema, ctx)
    problems.sort(key=Problem.sort_key)
    return Validation(path, fmt, doc, problems, items=items)


def whole_document_problems(
    doc: ParsedDocument, fmt: Format, schema: dict[str, Any] | None, ctx: RuleContext
) -> list[Problem]:
    """Schema, rule and placeholder problems of the whole document at once: formats without ``item_rules``,
    and what the validation by items (``item_cache``) must equal."""
    found = schema_check.check(doc, schema) if schema is not None and doc.data is not None else []
    return fmt.refine(doc, found, ctx) + fmt.rules(doc, ctx) + placeholder_problems(doc, fmt.judged_keys)


def cannot_validate(path: str, text: str, exc: BaseException) -> Validation:
    """The one problem of a document whose validation raised: on its first line, saying why."""
    first = text.split("\n", 1)[0] if isinstance(text, str) else ""
    reason = f"{type(exc).__name__}: {exc}"[:300]
    return Validation(
        path,
        None,
        None,
        [
            Problem(
                Span(0, 0, 0, max(1, min(len(first), 200))),
                Severity.ERROR,
                "internal",
                f"evalens could not validate this file ({reason}).",
            )
        ],
    )


def rule_context(
    path: str, indexes: IndexCache | None, settings: dict[str, Any] | None = None
) -> RuleContext:
    index = indexes.for_file(Path(path)) if indexes is not None else None
    return RuleContext(path, index, settings or {})


def read_source(path: Path) -> tuple[str | None, Problem | None]:
    """Read a file as UTF-8; undecodable bytes become a problem at their position.

    A byte order mark stays in the text (U+FEFF), as an editor may send it: the parsers read through it and
    the formats that care (SKILL.md) can see it."""
    try:
        raw = read_regular(path)  # a FIFO is never waited on, /dev/zero never read
    except OSError as exc:
        return None, Problem(Span.point(0), Severity.ERROR, "unreadable", f"Cannot read file: {exc.strerror}")
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8", errors="replace")
        line = before.count("\n")
        col = len(before) - (before.rfind("\n") + 1)
        return None, Problem(
            Span(line, col, line, col + 1),
            Severity.ERROR,
            "encoding",
            f"File is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}).",
        )


SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", "build", "dist", ".tools"}


def iter_candidate_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Files under ``paths`` that some format claims by path (folders are walked)."""
    for path in paths:
        if path.is_file() or (path.exists() and not path.is_dir()):  # a FIFO named here: said, never read
            yield path
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                if candidates(full) or sniffs(full):
                    yield Path(full)


def validate_file(
    path: Path,
    indexes: IndexCache | None = None,
    settings: dict[str, Any] | None = None,
    tuning: Tuning | None = None,
) -> Validation:
    text, problem = read_source(path)
    if text is None:  # unreadable / not UTF-8: nothing a user can tune
        fmts = candidates(str(path))
        return Validation(str(path), fmts[0] if fmts else None, None, [problem] if problem else [])
    return validate_text(str(path), text, indexes, settings, tuning)
