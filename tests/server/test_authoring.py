"""End-to-end authoring features over LSP against the real server process, per client profile."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server.conftest import diagnostics_for, open_and_diagnose


def _pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


async def test_broken_case_diagnostics(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "03-broken.yaml"
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, path.read_text())
    by_code = {d.code: d for d in diags}
    assert (
        by_code["unknown-key"].message
        == "`agent-blockd` is not a field of `expected`; did you mean `agent-blocked`?"
    )
    assert by_code["unknown-key"].severity == types.DiagnosticSeverity.Warning
    rng = by_code["unknown-key"].range
    assert (rng.start.line, rng.start.character, rng.end.character) == (9, 2, 14)
    assert by_code["schema-pattern"].range.start == _pos(1, 6)
    assert "fixtures/report.pdf" in by_code["fixture-missing"].message
    assert by_code["path-escape"].severity == types.DiagnosticSeverity.Error
    assert "did you mean `pdf-tools`" in by_code["unknown-target"].message
    assert by_code["vague-criteria"].severity == types.DiagnosticSeverity.Warning


async def test_valid_case_has_no_errors(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "01-extract-text.yaml"
    diags = await open_and_diagnose(client, from_fs_path(str(path)), path.read_text())
    assert [d for d in diags if d.severity == types.DiagnosticSeverity.Error] == []


async def test_utf16_columns(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "04-emoji.yaml"
    text = 'name: "😀😀"\ninput:\n  prompt: "😀 x"\n  bogus: 1\njudge:\n  criteria: The reply contains "x".\n'
    path.write_text(text)
    diags = await open_and_diagnose(client, from_fs_path(str(path)), text)
    name = next(d for d in diags if d.code == "schema-pattern")
    assert (name.range.start.character, name.range.end.character) == (6, 12)  # 2 surrogate pairs + quotes


async def test_change_updates_diagnostics(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "01-extract-text.yaml"
    uri = from_fs_path(str(path))
    text = path.read_text()
    await open_and_diagnose(client, uri, text)
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(
                    text=text.replace("engine", "x").replace("name: extract-text", "name: Extract Text")
                )
            ],
        )
    )
    diags = await diagnostics_for(client, uri)
    assert any(d.code == "schema-pattern" for d in diags)


async def test_lookalike_config_gets_one_hint(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "repo" / "evals" / "eval-config.json"
    path.parent.mkdir(parents=True)
    text = '{"run_modes": ["a"], "grader_model": "x"}'
    path.write_text(text)
    diags = await open_and_diagnose(client, from_fs_path(str(path)), text, "json")
    assert len(diags) == 1 and diags[0].severity == types.DiagnosticSeverity.Hint
    assert "Not a UAAPS eval config" in diags[0].message and diags[0].range.start.line == 0


async def test_reserved_engine_is_an_error(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "eval-config.json"
    text = '{\n  "version": 1,\n  "engine": "copilot"\n}\n'
    diags = await open_and_diagnose(client, from_fs_path(str(path)), text, "json")
    (d,) = [d for d in diags if d.code == "unsupported-engine"]
    assert "reserved" in d.message and d.range.start == _pos(2, 12)


async def test_completion_keys_and_values(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "05-new.yaml"
    text = "name: new-case\ninput:\n  prompt: hi\n  files:\n    - \ntarget: \nexpected:\n  \n"
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, text)
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(7, 2))
    )
    labels = {i.label for i in result.items}
    assert {"contains", "not-contains", "files-created", "agent-blocked"} <= labels
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(5, 8))
    )
    labels = {i.label for i in result.items}
    assert {"skill:pdf-tools", "hook:PreToolUse", "agent:reviewer"} <= labels
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(4, 6))
    )
    assert "fixtures/sample.txt" in {i.label for i in result.items}
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(8, 0))
    )
    top = {i.label: i for i in result.items}
    assert "judge" in top and "name" not in top
    assert "criteria" in top["judge"].text_edit.new_text


async def test_completion_whole_case_in_empty_file(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "06-empty.yaml"
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, "")
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(0, 0))
    )
    (item,) = result.items
    assert "judge:" in item.insert_text and "prompt" in item.insert_text


async def test_hover_field_and_target(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "01-extract-text.yaml"
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, path.read_text())
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(0, 1))
    )
    assert "lowercase letters" in hover.contents.value and "required" in hover.contents.value
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(2, 12))
    )
    assert "Extract text and tables from PDF files" in hover.contents.value


async def test_definition_target_and_fixture(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "01-extract-text.yaml"
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, path.read_text())
    locs = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(2, 12))
    )
    assert locs[0].uri.endswith("skills/pdf-tools/SKILL.md")
    locs = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(6, 10))
    )
    assert locs[0].uri.endswith("evals/fixtures/sample.txt")


async def test_symbols(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "01-extract-text.yaml"
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, path.read_text())
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    (case,) = symbols  # one symbol per case, its keys under it
    assert case.name == "extract-text" and case.kind == types.SymbolKind.Method
    assert [c.name for c in case.children] == ["name", "description", "target", "input", "expected", "judge"]
    assert [c.name for c in case.children[3].children] == ["prompt", "files", "workspace-files"]


async def test_quick_fixes(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "03-broken.yaml"
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, path.read_text())
    titles = []
    for d in diags:
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=d.range,
                context=types.CodeActionContext(diagnostics=[d]),
            )
        )
        titles += [a.title for a in actions or []]
    assert "Rename `agent-blockd` to `agent-blocked`" in titles
    assert "Change to `broken-case`" in titles
    assert "Change to `skill:pdf-tools`" in titles
    text = "name: x\ninput:\n  prompt: hi\n"
    path2 = example_pkg / "evals" / "cases" / "07-nojudge.yaml"
    uri2 = from_fs_path(str(path2))
    diags = await open_and_diagnose(client, uri2, text)
    missing = next(d for d in diags if d.code == "missing-key")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri2),
            range=missing.range,
            context=types.CodeActionContext(diagnostics=[missing]),
        )
    )
    (edit,) = actions[0].edit.changes[uri2]
    assert "criteria:" in edit.new_text
    cfg = example_pkg / "evals" / "eval-config.json"
    uri3 = from_fs_path(str(cfg))
    diags = await open_and_diagnose(client, uri3, '{\n  "engine": "codex"\n}\n', "json")
    missing = next(d for d in diags if d.code == "missing-key")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri3),
            range=missing.range,
            context=types.CodeActionContext(diagnostics=[missing]),
        )
    )
    assert actions[0].edit.changes[uri3][0].new_text == '\n  "version": 1,'


async def test_json_config_completion(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "eval-config.json"
    uri = from_fs_path(str(path))
    text = '{\n  "version": 1,\n  "engine": "",\n  \n}\n'
    await open_and_diagnose(client, uri, text, "json")
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(2, 13))
    )
    assert {"claude-code", "codex"} <= {i.label for i in result.items}
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(3, 2))
    )
    labels = {i.label for i in result.items}
    assert {"timeout", "judge", "sandbox", "env"} <= labels and "version" not in labels
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(2, 4))
    )
    assert "reserved" in hover.contents.value


async def test_repeated_findings_are_one_diagnostic_with_related_information(
    client: LanguageClient, tmp_path: Path
):
    """Object assertions throughout a file (a house convention) are one diagnostic: the others are related
    locations, and one code action converts all of them (issue #9)."""
    import json

    path = tmp_path / "pdf" / "evals" / "evals.json"
    path.parent.mkdir(parents=True)
    (tmp_path / "pdf" / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: PDFs. Use for PDFs.\n---\nBody\n"
    )
    cases = [
        {
            "id": i,
            "prompt": f"Extract table {i} of report.pdf into table{i}.csv",
            "expected_output": "A CSV",
            "assertions": [{"name": "csv", "description": f"Writes table{i}.csv"}],
        }
        for i in range(5)
    ]
    text = json.dumps({"skill_name": "pdf", "evals": cases}, indent=2)
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text, "json")
    (d,) = [d for d in diags if d.code == "object-assertion"]
    assert d.message.startswith("5 assertions are objects")
    assert len(d.related_information) == 4 and all(r.location.uri == uri for r in d.related_information)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    (action,) = [a for a in actions if a.title.startswith("Convert all 5")]
    assert sorted(e.new_text for e in action.edit.changes[uri]) == [
        f'"Writes table{i}.csv"' for i in range(5)
    ]


async def test_skill_md_byte_order_mark(client: LanguageClient, tmp_path: Path):
    path = tmp_path / "skills" / "pdf" / "SKILL.md"
    path.parent.mkdir(parents=True)
    text = "\ufeff---\nname: pdf\ndescription: PDFs. Use for PDFs.\n---\nBody\n"
    path.write_text(text, encoding="utf-8")
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text, "markdown")
    (d,) = diags
    assert d.code == "bom" and d.severity == types.DiagnosticSeverity.Error
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    (edit,) = actions[0].edit.changes[uri]
    assert edit.new_text == "" and (edit.range.start.character, edit.range.end.character) == (0, 1)


async def test_json_completion_falls_back_to_the_last_good_document(
    client: LanguageClient, example_pkg: Path
):
    """Drift (#11): the last-good map is keyed by URI key; looking it up by file path never hit, so a JSON file
    that stopped parsing offered keys it already has."""
    path = example_pkg / "evals" / "eval-config.json"
    uri = from_fs_path(str(path))
    good = '{\n  "version": 1,\n  "engine": "codex",\n  "timeout": 60\n}\n'
    await open_and_diagnose(client, uri, good, "json")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(
                    text='{\n  "version": 1,\n  "engine": "codex",\n  \n'
                )
            ],
        )
    )  # no closing brace: does not parse
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(3, 2))
    )
    labels = {i.label for i in result.items}
    assert "judge" in labels and not {"version", "engine"} & labels
