"""Go to definition: from a value to what it names (a skill's SKILL.md, a hook, an agent, a fixture)."""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import from_fs_path

from evalens.core.validate import rule_context
from evalens.server.convert import from_position
from evalens.server.server import EvalensServer


def register(server: EvalensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: EvalensServer, params: types.DefinitionParams) -> list[types.Location] | None:
        return await ls.off_loop(definition_at, ls, params)


def definition_at(ls: EvalensServer, params: types.DefinitionParams) -> list[types.Location] | None:
    """The targets of the value at the cursor (reads the index and the files it names: a worker thread)."""
    result = ls.validate_uri(params.text_document.uri)
    if result.format is None or result.doc is None or not result.doc.ok:
        return None
    doc = result.doc
    line, col = from_position(doc.lines, params.position, ls.encoding)
    path, on_key, node = doc.path_at(line, col)
    if node is None or node.kind != "scalar":
        return None
    ctx = rule_context(result.path, ls.indexes, ls.settings.rule_settings())
    ctx.doc = doc  # the open (possibly unsaved) text, not the file on disk
    targets = result.format.definition(doc, path, node.value, ctx)
    out = []
    for t in targets:
        uri = from_fs_path(t.path)
        if not uri:
            continue
        start = (
            types.Position(line=t.span.start_line, character=t.span.start_col)
            if t.span
            else types.Position(line=0, character=0)
        )
        out.append(types.Location(uri=uri, range=types.Range(start=start, end=start)))
    return out or None
