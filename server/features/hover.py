"""Hover: the field's documentation (type, default, required, example) and, on values that point
somewhere (a target, a skill name), what they point to."""

from __future__ import annotations

from lsprotocol import types

from evalens.core.schema_check import dotted, subschema
from evalens.core.validate import rule_context
from evalens.server.convert import from_position, to_range
from evalens.server.server import EvalensServer


def register(server: EvalensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: EvalensServer, params: types.HoverParams) -> types.Hover | None:
        return await ls.off_loop(hover_at, ls, params.text_document.uri, params.position)


def hover_at(ls: EvalensServer, uri: str, position: types.Position) -> types.Hover | None:
    result = ls.validate_uri(uri)
    if result.format is None or result.doc is None or not result.doc.ok:
        return None
    doc = result.doc
    line, col = from_position(doc.lines, position, ls.encoding)
    path, on_key, node = doc.path_at(line, col)
    if not path:
        return None
    parts: list[str] = []
    extra = ls.runs.hover(uri, result, path) if ls.runs is not None else None  # the unit's last result
    if extra:
        parts.append(extra)
    schema = result.format.schema()
    field = subschema(schema, path) if schema else None
    if schema and field:
        parent = subschema(schema, path[:-1]) or {}
        required = isinstance(path[-1], str) and path[-1] in parent.get("required", [])
        title = f"**`{dotted(path)}`**" + (" · required" if required else "")
        body = field.get("markdownDescription") or field.get("description") or ""
        parts.append(f"{title}\n\n{body}")
        if "default" in field and "Default" not in body:
            parts.append(f"Default: `{field['default']}`")
    if node is not None and node.kind == "scalar" and not on_key:
        ctx = rule_context(result.path, ls.indexes, ls.settings.rule_settings())
        ctx.doc = doc  # the open (possibly unsaved) text, not the file on disk
        about = result.format.hover_value(path, node.value, ctx)
        if about:
            parts.append(about)
    if not parts:
        return None
    span = doc.key_span_at_path(path) if on_key else (node.span if node is not None else None)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
        range=to_range(doc.trim(span), doc.lines, ls.encoding) if span else None,
    )
