"""Authoring shortcuts over LSP against the real server (both client profiles): the lens of a unit with
validation errors, the quick fix that creates a missing fixture, skill-creator labels and dry runs."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_and_diagnose
from tests.lsp.run_fixtures import lens_titles, lenses, run_lens


async def _actions(client: LanguageClient, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def _command(client: LanguageClient, command: str, arg: dict) -> object:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command=command,
                                                                                   arguments=[arg]))


async def test_invalid_case_lens_refuses_to_run(client: LanguageClient, example_pkg: Path):
    """03-broken.yaml has five errors: its lens says so, and running it answers SKIP without an agent."""
    path = example_pkg / "evals" / "cases" / "03-broken.yaml"
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, path.read_text())
    errors = [d for d in diags if d.severity == types.DiagnosticSeverity.Error]
    found = await lenses(client, uri)
    assert lens_titles(found) == [f"✗ {len(errors)} problems: fix to run"], lens_titles(found)
    assert found[0].command.command == "evalens.showProblems"
    assert list(found[0].command.arguments) == [{"uri": uri, "name": "Broken Case"}]

    shown = await run_lens(client, found[0], timeout=30)
    first = min(errors, key=lambda d: (d.range.start.line, d.range.start.character))
    assert shown["problems"] == len(errors) and shown["range"]["start"]["line"] == first.range.start.line

    for arg in ({"uri": uri, "name": "Broken Case"}, {"uri": uri, "name": "Broken Case", "dryRun": True}):
        answer = await _command(client, "evalens.runCase", arg)
        assert answer["verdict"] == "SKIP" and answer["problems"] == len(errors), answer
        assert answer["reason"].startswith(f"not run: {len(errors)} problems to fix first: line ")
        assert "pydantic" not in answer["reason"] and "validation error" not in answer["reason"]
    (whole,) = await _command(client, "evalens.runFile", {"uri": uri})
    assert whole["verdict"] == "SKIP" and whole["problems"] == len(errors)
    assert not (example_pkg / "evals" / "reports").exists() or not list((example_pkg / "evals" / "reports").iterdir())

    # fixed in the buffer: the lens is ▶ Run eval again, no restart needed
    fixed = "name: broken-case\ntarget: skill:pdf-tools\ninput:\n  prompt: hi\njudge:\n  criteria: The reply says hi.\n"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    assert lens_titles(await lenses(client, uri)) == ["▶ Run eval", "Dry run"]


async def test_warnings_do_not_block(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "05-vague.yaml"
    text = "name: vague\ntarget: skill:pdf-tools\ninput:\n  prompt: hi\njudge:\n  criteria: The reply is good.\n"
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text)
    assert any(d.code == "vague-criteria" for d in diags)
    assert lens_titles(await lenses(client, uri)) == ["▶ Run eval", "Dry run"]


async def test_one_bad_unit_blocks_only_itself(client: LanguageClient, tmp_path: Path):
    """A skill-creator evals.json: the eval whose file is missing is blocked, its neighbour runs, `*` none."""
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greeting\ndescription: Greets people. Use when asked.\n---\nHi\n")
    path = skill / "evals" / "evals.json"
    text = json.dumps({"skill_name": "greeting", "evals": [
        {"id": 1, "prompt": "Say hello to the new team member", "expected_output": "a greeting",
         "assertions": ["The reply says hello"]},
        {"id": 2, "prompt": "Summarise the notes", "expected_output": "a summary", "files": ["evals/notes.md"],
         "assertions": ["The reply summarises the notes"]}]}, indent=2) + "\n"
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text, "json")
    (missing,) = [d for d in diags if d.code == "file-missing"]
    found = await lenses(client, uri)
    by_line: dict[int, list[str]] = {}
    for lens in found:
        by_line.setdefault(lens.range.start.line, []).append(lens.command.title)
    assert ["▶ Run", "Dry run"] in by_line.values()  # eval 1
    assert ["✗ 1 problem: fix to run"] in by_line.values()  # eval 2
    answer = await _command(client, "evalens.runCase", {"uri": uri, "name": "2"})
    assert answer["verdict"] == "SKIP" and "file does not exist: evals/notes.md" in answer["reason"]

    # the quick fix creates the missing file; then eval 2 runs again
    actions = await _actions(client, uri, missing)
    create = next(a for a in actions if a.title == "Create empty `notes.md`")
    if client.profile == "visual-studio-code" or create.edit is not None:
        (op,) = create.edit.document_changes
        assert isinstance(op, types.CreateFile) and op.uri == from_fs_path(str(skill / "evals" / "notes.md"))
        assert op.options.ignore_if_exists is True
    titles = [a.title for a in actions]
    assert titles.index(create.title) < min(i for i, t in enumerate(titles) if t.startswith("Ignore"))
    done = await _command(client, "evalens.createFile", {"uri": uri, "path": str(skill / "evals" / "notes.md")})
    assert done["created"] is True and (skill / "evals" / "notes.md").read_text() == ""
    titles = lens_titles(await lenses(client, uri))
    assert "✗ 1 problem: fix to run" not in titles and titles.count("▶ Run") == 2


async def test_create_missing_fixture(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "03-broken.yaml"
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, path.read_text())
    missing = next(d for d in diags if d.code == "fixture-missing")
    actions = await _actions(client, uri, missing)
    create = next(a for a in actions if a.title == "Create empty `report.pdf`")
    target = example_pkg / "evals" / "fixtures" / "report.pdf"
    assert create.edit is not None  # both profiles list `create` in workspaceEdit.resourceOperations
    (op,) = create.edit.document_changes
    assert op.uri == from_fs_path(str(target))
    # the escaping `../../secrets.txt` gets no create action (path-escape, not fixture-missing)
    escape = next(d for d in diags if d.code == "path-escape")
    assert not any(a.title.startswith("Create") for a in await _actions(client, uri, escape))

    # a JSON fixture starts as `{}` (an empty file is not JSON)
    text = path.read_text().replace("fixtures/report.pdf\n", "fixtures/data.json\n", 1)
    path2 = example_pkg / "evals" / "cases" / "04-json.yaml"
    path2.write_text(text)
    uri2 = from_fs_path(str(path2))
    diags = await open_and_diagnose(client, uri2, text)
    missing = next(d for d in diags if d.code == "fixture-missing" and "data.json" in d.message)
    create = next(a for a in await _actions(client, uri2, missing) if a.title == "Create `data.json`")
    create_op, write = create.edit.document_changes
    assert isinstance(create_op, types.CreateFile) and write.edits[0].new_text == "{}\n"

    # the server-side fallback (clients without CreateFile): only a file a problem names, never any path
    done = await _command(client, "evalens.createFile", {"uri": uri, "path": str(target)})
    assert done == {"created": True, "path": str(target)} and target.read_bytes() == b""
    try:
        await _command(client, "evalens.createFile", {"uri": uri, "path": str(example_pkg / "evil.txt")})
        raise AssertionError("created a file no problem names")
    except Exception as exc:  # noqa: BLE001 - the server refuses with RequestFailed
        assert "no missing file" in str(exc)
    assert not (example_pkg / "evil.txt").exists()


async def test_skill_creator_labels_and_dry_run(client: LanguageClient, tmp_path: Path):
    """skill-creator evals are called by their prompt (outline, Test Explorer, messages) and dry-run like the
    other formats: the suite's plan, no agent, nothing written."""
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greeting\ndescription: Greets people. Use when asked.\n---\nHi\n")
    path = skill / "evals" / "evals.json"
    long_prompt = "Say hello to the new team member who joined the platform group this morning and ask about lunch"
    text = json.dumps({"skill_name": "greeting", "evals": [
        {"id": 1, "prompt": long_prompt, "expected_output": "a greeting",
         "assertions": ["The reply says hello", "The reply mentions lunch"]}]}, indent=2) + "\n"
    path.write_text(text)
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, text, "json")
    (entry,) = await _command(client, "evalens.discoverCases", {"uri": uri})
    assert entry["name"] == "1" and entry["label"].startswith("Say hello to the new team member")
    assert entry["label"].endswith("…") and len(entry["label"]) <= 60
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert entry["label"] in [s.name for s in symbols]

    found = await lenses(client, uri)
    assert lens_titles(found) == ["▶ Run", "Dry run"]
    dry = next(lens for lens in found if lens.command.title == "Dry run")
    answer = await run_lens(client, dry, timeout=60)
    assert answer["dryRun"] is True and answer["verdict"] == "SKIP", answer
    assert "2 statement(s)" in answer["reason"]
    message = next(m.message for m in client.messages if m.message.startswith("Dry run of "))
    assert message.startswith(f"Dry run of {entry['label']}: engine ")
    assert not (skill / "evals" / "reports").exists() and not (skill.parent / "greeting-workspace").exists()
