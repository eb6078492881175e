"""`claude plugin eval` cases in the editor (issue 38): diagnostics as the loader decides, completion of the
frontmatter keys and grader kinds with what each means, hover, and go to definition from case.yaml to its files."""

from __future__ import annotations

import shutil
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_diagnose

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "plugin_eval" / "demo"


def _pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_a_grader_file_completes_its_kinds_and_hovers_its_options(
    client: LanguageClient, tmp_path: Path
):
    plugin = tmp_path / "demo"
    shutil.copytree(DEMO, plugin)
    path = plugin / "evals" / "good-md" / "graders" / "new.md"
    text = "---\ntype: \nweight: 1\n---\n\nThe reply says DONE.\n"
    path.write_text(text)
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, text)
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=_doc(uri), position=_pos(1, 6))
    )
    labels = {i.label for i in result.items}
    assert {"regex", "tool_used", "tool_order", "file_exists", "llm", "baseline"} <= labels
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=_doc(uri), position=_pos(2, 1))
    )
    assert hover is not None and "Relative weight" in hover.contents.value


async def test_a_prompt_md_gets_the_loaders_errors_and_key_completion(client: LanguageClient, tmp_path: Path):
    plugin = tmp_path / "demo"
    shutil.copytree(DEMO, plugin)
    path = plugin / "evals" / "good-md" / "prompt.md"
    text = "---\nmax_turn: 4\n\n---\nSCENARIO=done Greet me.\n"
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text)
    (key,) = [d for d in diags if d.code == "unknown-key"]
    assert key.severity == types.DiagnosticSeverity.Error and "did you mean `max_turns`" in key.message
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=_doc(uri), position=_pos(2, 0))
    )
    labels = {i.label for i in result.items}
    assert {"allowed_tools", "timeout_seconds", "runs", "env"} <= labels


async def test_case_yaml_goes_to_its_scaffold_script(client: LanguageClient, tmp_path: Path):
    case = tmp_path / "demo" / "evals" / "scaffolded"
    case.mkdir(parents=True)
    (case / "fixture.sh").write_text("echo hi > seed.txt\n")
    text = (
        'schema_version: "1.1"\nname: scaffolded\ncontext:\n  scaffold_script: fixture.sh\nexecution:\n'
        "  prompt: Read seed.txt.\ngraders:\n  - {name: says, type: regex, pattern: hi}\n"
    )
    path = case / "case.yaml"
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text)
    assert [d for d in diags if d.severity == types.DiagnosticSeverity.Error] == []
    locs = await client.text_document_definition_async(
        types.DefinitionParams(text_document=_doc(uri), position=_pos(3, 22))
    )
    assert locs and locs[0].uri.endswith("scaffolded/fixture.sh")
