"""Completion: keys valid at the cursor (with required children), enum values, workspace values
(skills, hooks, agents, fixtures), a whole-file skeleton in an empty file, and the keys of a new file from its
first character."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from evalens.core.formats.base import Format
from evalens.core.formats.registry import detect
from evalens.core.schema_check import subschema
from evalens.core.validate import rule_context
from evalens.server import uris
from evalens.server.convert import col_to_client, from_position
from evalens.server.features.context import CursorContext, json_context, yaml_context
from evalens.server.server import EvalensServer


def register(server: EvalensServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[":", " ", "-", '"', "/"])
    )
    async def completion(ls: EvalensServer, params: types.CompletionParams) -> types.CompletionList | None:
        return await ls.off_loop(complete, ls, params.text_document.uri, params.position)


_FIRST_WORD = re.compile(r"\s*[A-Za-z_][\w-]*\s*")


def first_key_format(path: str, source: str) -> Format | None:
    """The format of a new file whose first key is being typed (``n``, ``na``: one bare word, issue 45 #7): the
    format its path claims when empty, since the word alone is no evidence of any format; else None. YAML only: a
    word is a key there, where Markdown needs its frontmatter first and JSON its braces."""
    if not _FIRST_WORD.fullmatch(source):
        return None
    fmt = detect(path, "").format
    return fmt if fmt is not None and fmt.language == "yaml" else None


def complete(ls: EvalensServer, uri: str, position: types.Position) -> types.CompletionList | None:
    result = ls.validate_uri(uri)
    text_doc = ls.open_doc(uri)
    source = text_doc.source if text_doc is not None else (result.doc.text if result.doc is not None else "")
    fmt = result.format or first_key_format(result.path, source)
    if fmt is None:
        return None
    lines = result.doc.lines if result.doc is not None else source.split("\n")
    line, col = from_position(lines, position, ls.encoding)
    snippets = ls.snippets
    if not source.strip() or all(not s.strip() or s.lstrip().startswith("#") for s in lines):
        skeleton = fmt.skeleton(snippets)
        if skeleton:
            return types.CompletionList(
                is_incomplete=False,
                items=[
                    types.CompletionItem(
                        label=f"{fmt.title} skeleton",
                        kind=types.CompletionItemKind.Snippet,
                        detail=f"A whole {fmt.title}",
                        insert_text=skeleton,
                        insert_text_format=types.InsertTextFormat.Snippet
                        if snippets
                        else types.InsertTextFormat.PlainText,
                    )
                ],
            )
    schema = fmt.schema()
    if fmt.language == "json":
        good = ls.last_good.get(uris.key(uri))  # keyed by URI key, like every per-document map
        ctx = json_context(good.doc if good else None, lines, line, col)
    else:
        ctx = yaml_context(lines, line, col)
    if ctx is None:
        return None
    rctx = rule_context(result.path, ls.indexes, ls.settings.rule_settings())
    items: list[types.CompletionItem] = []
    edit_range = types.Range(
        start=types.Position(
            line=line,
            character=col_to_client(lines[line] if line < len(lines) else "", ctx.start_col, ls.encoding),
        ),
        end=position,
    )
    if ctx.mode == "key":
        items = key_items(ls, result, schema, ctx, fmt.language, edit_range, snippets) if schema else []
    else:
        items = value_items(schema, ctx, fmt, rctx, edit_range, fmt.language)
    return types.CompletionList(is_incomplete=False, items=items)


def _existing_keys(ls: EvalensServer, result: Any, path: tuple) -> set[str]:
    doc = result.doc if result.doc is not None and result.doc.ok else None
    if doc is None:
        uri = uris.uri_of(result.path)
        good = ls.last_good.get(uris.key(uri)) if uri else None
        doc = good.doc if good else None
    node = doc.node_at_path(path) if doc is not None else None
    return {k for k, _, _ in node.entries} if node is not None and node.kind == "map" else set()


def _md(schema: dict[str, Any]) -> types.MarkupContent | None:
    text = schema.get("markdownDescription") or schema.get("description")
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text) if text else None


def key_items(
    ls: EvalensServer,
    result: Any,
    schema: dict[str, Any],
    ctx: CursorContext,
    language: str,
    edit_range: types.Range,
    snippets: bool,
) -> list[types.CompletionItem]:
    parent = subschema(schema, ctx.parent)
    if not parent or not isinstance(parent.get("properties"), dict):
        return []
    required = set(parent.get("required", []))
    present = _existing_keys(ls, result, ctx.parent)
    items = []
    for i, (key, prop) in enumerate(parent["properties"].items()):
        if key in present:
            continue
        resolved = subschema(schema, (*ctx.parent, key)) or prop
        text = (
            _yaml_insert(schema, (*ctx.parent, key), resolved, ctx.indent, snippets)
            if language == "yaml"
            else _json_insert(key, resolved, snippets)
        )
        items.append(
            types.CompletionItem(
                label=key,
                kind=types.CompletionItemKind.Property,
                detail=("required · " if key in required else "") + str(resolved.get("type", "")),
                documentation=_md(resolved),
                sort_text=f"{0 if key in required else 1}{i:03d}",
                filter_text=key,
                text_edit=types.TextEdit(range=edit_range, new_text=text),
                insert_text_format=types.InsertTextFormat.Snippet
                if snippets
                else types.InsertTextFormat.PlainText,
            )
        )
    return items


def _yaml_insert(root: dict[str, Any], path: tuple, prop: dict[str, Any], indent: int, snippets: bool) -> str:
    """``key: `` plus the required children of an object, so one accept yields a valid skeleton."""
    key = path[-1]
    kind = prop.get("type")
    pad = " " * (indent + 2)
    if kind == "object" and prop.get("required"):
        lines = [f"{key}:"]
        for n, child in enumerate(prop["required"], start=1):
            lines.append(f"{pad}{child}: " + (f"${{{n}}}" if snippets else ""))
        return "\n".join(lines)
    if kind == "object":
        return f"{key}:\n{pad}"
    if kind == "array":
        return f"{key}:\n{pad}- " + ("$1" if snippets else "")
    if kind == "boolean":
        return f"{key}: " + ("${1|true,false|}" if snippets else "")
    enum = prop.get("enum")
    if enum and snippets:
        return f"{key}: ${{1|{','.join(str(e) for e in enum)}|}}"
    if kind == "string" and prop.get("markdownDescription", "").count("criteria"):
        return f"{key}: >\n{pad}" + ("$1" if snippets else "")
    return f"{key}: " + ("$1" if snippets else "")


def _json_insert(key: str, prop: dict[str, Any], snippets: bool) -> str:
    kind = prop.get("type")
    body = {"object": "{$1}", "array": "[$1]", "string": '"$1"', "boolean": "${1|true,false|}"}.get(
        str(kind), "$1"
    )
    if not snippets:
        body = {"object": "{}", "array": "[]", "string": '""', "boolean": "false"}.get(str(kind), "")
    return f'"{key}": {body}'


def value_items(
    schema: dict[str, Any] | None,
    ctx: CursorContext,
    fmt: Any,
    rctx: Any,
    edit_range: types.Range,
    language: str,
) -> list[types.CompletionItem]:
    items: list[types.CompletionItem] = []
    prop = subschema(schema, ctx.parent) if schema else None
    seen: set[str] = set()
    quote = language == "json" and ctx.mode == "item"

    def add(
        value: str, detail: str = "", doc: str | None = None, kind=types.CompletionItemKind.Value
    ) -> None:
        if value in seen:
            return
        seen.add(value)
        items.append(
            types.CompletionItem(
                label=value,
                kind=kind,
                detail=detail or None,
                documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=doc) if doc else None,
                text_edit=types.TextEdit(range=edit_range, new_text=f'"{value}"' if quote else value),
            )
        )

    for choice in fmt.value_choices(ctx.parent, rctx):
        add(
            choice.value,
            choice.detail,
            choice.documentation or None,
            types.CompletionItemKind.File
            if "fixture" in choice.detail
            else types.CompletionItemKind.EnumMember,
        )
    if prop:
        for value in prop.get("enum", []):
            add(str(value), "enum")
        if "const" in prop:
            add(str(prop["const"]), "const")
        if prop.get("type") == "boolean":
            add("true", "boolean")
            add("false", "boolean")
    return items
