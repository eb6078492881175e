"""The quick fix for a missing `judge` over LSP (issue 45 #5): its placeholder travels as a snippet tab stop
(``CodeAction.data.snippets``, which VS Code's middleware applies; LSP 3.18 snippet edits for a client that
declares them), and once inserted it is the ``skeleton-placeholder`` error until the user replaces it; no ignore
is offered, since the runner refuses a placeholder whatever the rule's level."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from evalens.core.placeholders import CRITERIA_FIX, tab_stop
from tests.server.conftest import open_and_diagnose


async def _actions(client: LanguageClient, uri: str, d: types.Diagnostic) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def test_the_judge_skeleton_is_a_tab_stop_then_an_error_until_replaced(
    client: LanguageClient, tmp_path: Path
):
    path = tmp_path / "pkg" / "evals" / "cases" / "01-nojudge.yaml"
    path.parent.mkdir(parents=True)
    text = "name: nojudge\ninput:\n  prompt: hi\n"
    path.write_text(text)
    uri = from_fs_path(str(path))
    missing = next(d for d in await open_and_diagnose(client, uri, text) if d.code == "missing-key")
    fix = next(
        a for a in await _actions(client, uri, missing) if a.title == "Add a `judge.criteria` skeleton"
    )
    assert fix.edit is not None and fix.edit.changes is not None
    (plain,) = fix.edit.changes[uri]
    assert plain.new_text == f"\njudge:\n  criteria: >\n    {CRITERIA_FIX}"
    (snippet,) = fix.data["snippets"]
    assert (
        snippet["uri"] == uri
        and snippet["snippet"] == f"\njudge:\n  criteria: >\n    {tab_stop(CRITERIA_FIX)}"
    )
    assert snippet["range"]["start"] == {
        "line": plain.range.start.line,
        "character": plain.range.start.character,
    }

    fixed = text.rstrip("\n") + plain.new_text + "\n"  # inserted at the end of the last line
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    diags = await open_and_diagnose(client, uri, fixed)
    (left,) = [d for d in diags if d.code == "skeleton-placeholder"]
    assert left.severity == types.DiagnosticSeverity.Error and left.range.start.line == 4
    assert left.code_description is not None and left.code_description.href.endswith("#skeleton-placeholder")
    titles = [a.title for a in await _actions(client, uri, left)]
    assert not any(t.startswith("Ignore `skeleton-placeholder`") for t in titles), (
        titles
    )  # the runner refuses it
