"""Plugin, marketplace, hooks and Codex metadata files in the editor (issue #39, item 3): the loader's verdicts as
diagnostics, completion of hook events and manifest keys, hover with what a key means, quick fixes that rename a
misspelt event and make a path `./`-relative, and go to definition from a component path."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_diagnose


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _plugin(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    (root / ".claude-plugin").mkdir()
    (root / "skills" / "hello").mkdir(parents=True)
    (root / "skills" / "hello" / "SKILL.md").write_text("---\nname: hello\ndescription: d\n---\nHi.\n")
    return root


async def _fixes(client: LanguageClient, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=_doc(uri), range=diag.range, context=types.CodeActionContext(diagnostics=[diag])
        )
    )
    return [a for a in actions or [] if isinstance(a, types.CodeAction)]


async def test_hooks_json_completes_events_and_renames_a_misspelt_one(client: LanguageClient, tmp_path: Path):
    root = _plugin(tmp_path)
    path = root / "hooks" / "hooks.json"
    path.parent.mkdir()
    text = '{\n  "hooks": {\n    "PreToolUze": [{"hooks": [{"type": "command", "command": "x"}]}],\n    \n  }\n}\n'
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text, "json")
    (event,) = [d for d in diags if d.code == "hook-unknown-event"]
    assert event.severity == types.DiagnosticSeverity.Warning and "`PreToolUse`" in event.message
    (fix,) = [a for a in await _fixes(client, uri, event) if "Rename" in a.title]
    assert fix.edit is not None
    (edits,) = fix.edit.changes.values()
    assert edits[0].new_text == "PreToolUse"
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=_doc(uri), position=types.Position(line=3, character=4))
    )
    labels = {i.label for i in result.items}
    assert {"PreToolUse", "PostToolUse", "SessionStart", "PermissionRequest"} <= labels


async def test_plugin_json_errors_fixes_hover_and_definition(client: LanguageClient, tmp_path: Path):
    root = _plugin(tmp_path)
    path = root / ".claude-plugin" / "plugin.json"
    text = '{\n  "name": "p",\n  "skills": "skills/hello",\n  "agents": "./agents/"\n}\n'
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text, "json")
    errors = sorted(
        (d.range.start.line, d.code) for d in diags if d.severity == types.DiagnosticSeverity.Error
    )
    assert errors == [(2, "plugin-path"), (3, "plugin-path")]
    (relative,) = [d for d in diags if d.range.start.line == 2 and d.code == "plugin-path"]
    (fix,) = [a for a in await _fixes(client, uri, relative) if a.title.startswith("Write")]
    (edits,) = fix.edit.changes.values()
    assert edits[0].new_text == "./skills/hello"
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=_doc(uri), position=types.Position(line=3, character=5))
    )
    assert hover is not None and "ending `.md`" in hover.contents.value
    other = _plugin(tmp_path / "fixed")
    fixed_path = other / ".claude-plugin" / "plugin.json"
    fixed = text.replace('"skills/hello"', '"./skills/hello"')
    fixed_path.write_text(fixed)
    fixed_uri = from_fs_path(str(fixed_path))
    await open_and_diagnose(client, fixed_uri, fixed, "json")
    locs = await client.text_document_definition_async(
        types.DefinitionParams(text_document=_doc(fixed_uri), position=types.Position(line=2, character=16))
    )
    assert locs and locs[0].uri.endswith("skills/hello/SKILL.md")


async def test_codex_openai_yaml_warns_never_errs(client: LanguageClient, tmp_path: Path):
    skill = tmp_path / "s"
    (skill / "agents").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nHi.\n")
    path = skill / "agents" / "openai.yaml"
    text = "interface:\n  brand_color: blue\n  display_name: 5\npolicy:\n  allow_implicit_invocation: maybe\n"
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text)
    assert diags and {d.severity for d in diags} == {types.DiagnosticSeverity.Warning}
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=_doc(uri), position=types.Position(line=5, character=0))
    )
    assert {"interface", "dependencies", "policy"} & {i.label for i in result.items}
