"""Completion from the first character of a new file (issue 45 #7): typing `n` in a new case file offered nothing
from evalens (the lone word is no evidence of a format, so no format claimed the file), and VS Code fell back to
its word completion (`name` without `: `). The keys its path's format has are offered, each inserting `key: `
(with a tab stop for a client that takes snippets) over the typed word."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_diagnose


async def _complete(client: LanguageClient, path: Path, text: str) -> list[types.CompletionItem]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, text)
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, len(text))
        )
    )
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    if found is None:
        return []
    return list(found.items if isinstance(found, types.CompletionList) else found)


async def test_the_first_key_of_a_new_case_file_completes_with_its_colon(
    client: LanguageClient, tmp_path: Path
):
    case = tmp_path / "pkg" / "evals" / "cases" / "01-new.yaml"
    (tmp_path / "pkg" / "evals").mkdir(parents=True)
    (tmp_path / "pkg" / "evals" / "eval-config.json").write_text('{"version": 1}')
    for typed in ("n", "na"):
        items = {i.label: i for i in await _complete(client, case, typed)}
        assert {"name", "target", "input", "judge"} <= set(items), (typed, sorted(items))
        edit = items["name"].text_edit
        assert isinstance(edit, types.TextEdit)
        assert edit.range.start == types.Position(0, 0) and edit.range.end == types.Position(0, len(typed))
        snippet = items["name"].insert_text_format == types.InsertTextFormat.Snippet
        assert edit.new_text == ("name: $1" if snippet else "name: "), edit.new_text
