"""Document symbols: one symbol per runnable unit (case, task, query), named as the Test Explorer names it.

Under a unit (and in files without units) YAML and Markdown files get their key tree, since editors have no
other YAML outline. JSON files get the units only: editors outline JSON keys themselves, and a second key tree
doubled every key in VS Code's outline.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from evalens.core.labels import case_label
from evalens.server.convert import to_range
from evalens.server.server import EvalensServer

if TYPE_CHECKING:
    from evalens.core.documents import Node, ParsedDocument

MAX_SYMBOLS = 5000
ALL = "*"  # the whole-file unit of some formats: the file itself, not an outline entry


def register(server: EvalensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: EvalensServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        result = ls.validate_uri(params.text_document.uri)
        if result.format is None or result.doc is None or result.doc.root is None:
            return None
        return outline(
            result.doc,
            result.format,
            ls.encoding,
            json=result.path.endswith(".json"),
            unnamed=Path(result.path).parent.name,
        )


def _units(doc: ParsedDocument, fmt: Any) -> list[Any]:
    try:
        return [c for c in fmt.cases(doc) if c.name != ALL] if doc.ok else []
    except Exception:  # noqa: BLE001 - a format that cannot list units still gets its key tree
        return []


def _union(a: Any, b: Any) -> Any:
    """The smallest span holding both (a symbol's range must contain its selection range)."""
    start = min((a.start_line, a.start_col), (b.start_line, b.start_col))
    end = max((a.end_line, a.end_col), (b.end_line, b.end_col))
    return type(a)(start[0], start[1], end[0], end[1])


def outline(
    doc: ParsedDocument, fmt: Any, encoding: str, *, json: bool, unnamed: str = "case"
) -> list[types.DocumentSymbol]:
    """Units with (YAML/Markdown) their keys under them; without units, the key tree (none for JSON).
    ``unnamed`` names a unit without a name (a skilljack task.md without ``id`` is named by its folder)."""
    units = _units(doc, fmt)
    if not units:
        return [] if json else build(doc, encoding)
    budget = [MAX_SYMBOLS]
    out = []
    for case in units:
        node = doc.node_at_path(tuple(case.path)) if case.path else doc.root
        span = node.span if node is not None else case.span
        label = case_label(doc, case) or unnamed
        keys = None if json or node is None else _children(doc, node, encoding, budget) or None
        out.append(
            types.DocumentSymbol(
                name=label,
                kind=types.SymbolKind.Method,
                detail=None if label == case.name or not case.name else f"#{case.name}",
                range=to_range(_union(doc.trim(span), case.name_span), doc.lines, encoding),
                selection_range=to_range(case.name_span, doc.lines, encoding),
                children=keys,
            )
        )
    return out


def _kind(node: Node) -> types.SymbolKind:
    if node.kind == "map":
        return types.SymbolKind.Object
    if node.kind == "seq":
        return types.SymbolKind.Array
    if isinstance(node.value, bool):
        return types.SymbolKind.Boolean
    if isinstance(node.value, int | float):
        return types.SymbolKind.Number
    return types.SymbolKind.String


def build(doc: ParsedDocument, encoding: str) -> list[types.DocumentSymbol]:
    """The key tree of the whole document."""
    return _children(doc, doc.root, encoding, [MAX_SYMBOLS]) if doc.root is not None else []


def _children(
    doc: ParsedDocument, node: Node, encoding: str, budget: list[int]
) -> list[types.DocumentSymbol]:
    def rng(span):
        return to_range(doc.trim(span), doc.lines, encoding)

    out: list[types.DocumentSymbol] = []
    if node.kind == "map":
        for key, kspan, child in node.entries:
            if budget[0] <= 0:
                break
            budget[0] -= 1
            full = type(kspan)(
                kspan.start_line,
                kspan.start_col,
                max(kspan.end_line, child.span.end_line),
                child.span.end_col if child.span.end_line >= kspan.end_line else kspan.end_col,
            )
            detail = str(child.value)[:60] if child.kind == "scalar" and child.value is not None else None
            out.append(
                types.DocumentSymbol(
                    name=key or '""',
                    kind=_kind(child),
                    range=rng(full),
                    selection_range=rng(kspan),
                    detail=detail,
                    children=_children(doc, child, encoding, budget) or None,
                )
            )
    elif node.kind == "seq":
        for i, child in enumerate(node.items):
            if budget[0] <= 0:
                break
            budget[0] -= 1
            label = f"[{i}]"
            if child.kind == "map":
                for name_key in ("name", "id", "query", "text", "criterion"):
                    named = child.get(name_key)
                    if named is not None and named.kind == "scalar" and named.value not in (None, ""):
                        label = f"{named.value}"[:80]
                        break
            elif child.kind == "scalar":
                label = str(child.value)[:80] or label
            out.append(
                types.DocumentSymbol(
                    name=label,
                    kind=_kind(child),
                    range=rng(child.span),
                    selection_range=rng(child.span),
                    children=_children(doc, child, encoding, budget) or None,
                )
            )
    return out
