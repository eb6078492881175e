"""Document symbols: the key tree, with runnable cases named by their case name."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalens.core.documents import Node, ParsedDocument
from evalens.server.convert import to_range
from evalens.server.server import EvalensServer
from lsprotocol import types

MAX_SYMBOLS = 5000


def register(server: EvalensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: EvalensServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        result = ls.validate_uri(params.text_document.uri)
        if result.format is None or result.doc is None or result.doc.root is None:
            return None
        return build(result.doc, ls.encoding)


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
    budget = [MAX_SYMBOLS]

    def rng(span):
        return to_range(doc.trim(span), doc.lines, encoding)

    def children(node: Node) -> list[types.DocumentSymbol]:
        out: list[types.DocumentSymbol] = []
        if node.kind == "map":
            for key, kspan, child in node.entries:
                if budget[0] <= 0:
                    break
                budget[0] -= 1
                full = type(kspan)(kspan.start_line, kspan.start_col, max(kspan.end_line, child.span.end_line),
                                   child.span.end_col if child.span.end_line >= kspan.end_line else kspan.end_col)
                detail = str(child.value)[:60] if child.kind == "scalar" and child.value is not None else None
                out.append(types.DocumentSymbol(name=key or '""', kind=_kind(child), range=rng(full),
                                                selection_range=rng(kspan), detail=detail,
                                                children=children(child) or None))
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
                out.append(types.DocumentSymbol(name=label, kind=_kind(child), range=rng(child.span),
                                                selection_range=rng(child.span), children=children(child) or None))
        return out

    return children(doc.root) if doc.root is not None else []
