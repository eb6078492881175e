"""Authoring shortcuts over LSP against the real server (both client profiles): the lens of a unit with
validation errors, the quick fix that creates a missing fixture, skill-creator labels and dry runs."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.conftest import open_and_diagnose
from tests.server.run_fixtures import lens_titles, lenses, run_lens


async def _actions(client: LanguageClient, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def _command(client: LanguageClient, command: str, arg: dict) -> object:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[arg])
    )


async def test_invalid_case_lens_refuses_to_run(client: LanguageClient, example_pkg: Path):
    """03-broken.yaml has five errors: its lens says so, and running it answers SKIP without an agent."""
    path = example_pkg / "evals" / "cases" / "03-broken.yaml"
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, path.read_text())
    errors = [d for d in diags if d.severity == types.DiagnosticSeverity.Error]
    found = await lenses(client, uri)
    assert lens_titles(found) == [f"✗ {len(errors)} errors: fix to run"], lens_titles(found)
    assert found[0].command.command == "evalens.showProblems"
    assert list(found[0].command.arguments) == [{"uri": uri, "name": "Broken Case"}]

    shown = await run_lens(client, found[0], timeout=30)
    first = min(errors, key=lambda d: (d.range.start.line, d.range.start.character))
    assert shown["problems"] == len(errors) and shown["range"]["start"]["line"] == first.range.start.line

    for arg in ({"uri": uri, "name": "Broken Case"}, {"uri": uri, "name": "Broken Case", "dryRun": True}):
        answer = await _command(client, "evalens.runCase", arg)
        assert answer["verdict"] == "SKIP" and answer["problems"] == len(errors), answer
        assert answer["reason"].startswith(f"not run: {len(errors)} errors to fix first: line ")
        assert "pydantic" not in answer["reason"] and "validation error" not in answer["reason"]
    (whole,) = await _command(client, "evalens.runFile", {"uri": uri})
    assert whole["verdict"] == "SKIP" and whole["problems"] == len(errors)
    assert not (example_pkg / "evals" / "reports").exists() or not list(
        (example_pkg / "evals" / "reports").iterdir()
    )

    # fixed in the buffer: the lens is ▶ Run eval again, no restart needed
    fixed = "name: broken-case\ntarget: skill:pdf-tools\ninput:\n  prompt: hi\njudge:\n  criteria: The reply says hi.\n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert lens_titles(await lenses(client, uri)) == ["▶ Run eval", "Dry run", "Run 5×"]


async def test_warnings_do_not_block(client: LanguageClient, example_pkg: Path):
    path = example_pkg / "evals" / "cases" / "05-vague.yaml"
    text = (
        "name: vague\ntarget: skill:pdf-tools\ninput:\n  prompt: hi\njudge:\n  criteria: The reply is good.\n"
    )
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text)
    assert any(d.code == "vague-criteria" for d in diags)
    assert lens_titles(await lenses(client, uri)) == ["▶ Run eval", "Dry run", "Run 5×"]


async def test_one_bad_unit_blocks_only_itself(client: LanguageClient, tmp_path: Path):
    """A skill-creator evals.json: the eval whose file is missing is blocked, its neighbour runs, `*` none."""
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets people. Use when asked.\n---\nHi\n"
    )
    path = skill / "evals" / "evals.json"
    text = (
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Say hello to the new team member",
                        "expected_output": "a greeting",
                        "assertions": ["The reply says hello"],
                    },
                    {
                        "id": 2,
                        "prompt": "Summarise the notes",
                        "expected_output": "a summary",
                        "files": ["evals/notes.md"],
                        "assertions": ["The reply summarises the notes"],
                    },
                ],
            },
            indent=2,
        )
        + "\n"
    )
    path.write_text(text)
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, text, "json")
    (missing,) = [d for d in diags if d.code == "file-missing"]
    found = await lenses(client, uri)
    by_line: dict[int, list[str]] = {}
    for lens in found:
        by_line.setdefault(lens.range.start.line, []).append(lens.command.title)
    assert [
        "▶ Run: Say hello to the new team member",
        "Dry run",
        "Run 5×",
    ] in by_line.values()  # eval 1, named by its prompt
    assert ["✗ 1 error: fix to run"] in by_line.values()  # eval 2
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
    done = await _command(
        client, "evalens.createFile", {"uri": uri, "path": str(skill / "evals" / "notes.md")}
    )
    assert done["created"] is True and (skill / "evals" / "notes.md").read_text() == ""
    titles = lens_titles(await lenses(client, uri))
    assert "✗ 1 error: fix to run" not in titles and sum(t.startswith("▶ Run: ") for t in titles) == 2


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
    (skill / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets people. Use when asked.\n---\nHi\n"
    )
    path = skill / "evals" / "evals.json"
    long_prompt = (
        "Say hello to the new team member who joined the platform group this morning and ask about lunch"
    )
    text = (
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": long_prompt,
                        "expected_output": "a greeting",
                        "assertions": ["The reply says hello", "The reply mentions lunch"],
                    }
                ],
            },
            indent=2,
        )
        + "\n"
    )
    path.write_text(text)
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, text, "json")
    (entry,) = await _command(client, "evalens.discoverCases", {"uri": uri})
    assert entry["name"] == "1" and entry["label"].startswith("Say hello to the new team member")
    assert entry["label"].endswith("…") and len(entry["label"]) <= 60
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert entry["label"] in [s.name for s in symbols]

    found = await lenses(client, uri)
    run, *rest = lens_titles(found)
    assert (
        rest == ["Dry run", "Run 5×"]
        and run.startswith("▶ Run: Say hello to the new team")
        and run.endswith("…")
    )
    dry = next(lens for lens in found if lens.command.title == "Dry run")
    answer = await run_lens(client, dry, timeout=60)
    assert answer["dryRun"] is True and answer["verdict"] == "SKIP", answer
    assert "2 statement(s)" in answer["reason"]
    message = next(m.message for m in client.messages if m.message.startswith("Dry run of "))
    assert message.startswith(f"Dry run of {entry['label']}: engine ")
    assert not (skill / "evals" / "reports").exists() and not (skill.parent / "greeting-workspace").exists()


def _report(root: Path, stamp: str, cases: dict[str, str]) -> None:
    """An evalens report as the runner writes it, holding ``cases`` (name → verdict)."""
    from evalens.core.models.uaaps import (
        DeterministicChecks,
        EvalReport,
        ReportAgent,
        ReportCase,
        ReportConfig,
        ReportEnvironment,
        ReportJudge,
        ReportPackage,
        ReportSummary,
    )
    from evalens.runner.report import write_report

    found = [
        ReportCase(
            name=name,
            verdict=verdict,
            duration_seconds=2.0,
            case_file="evals/cases/x.yaml",
            deterministic_checks=DeterministicChecks(contains=verdict),
            error=None if verdict == "PASS" else "output does not contain 'TEXT'",
        )
        for name, verdict in cases.items()
    ]
    write_report(
        EvalReport(
            version=1,
            id=f"eval-run-{stamp}",
            timestamp=stamp.replace("-00-00Z", ":00:00Z"),
            config=ReportConfig(engine="claude-code"),
            agent=ReportAgent(),
            judge=ReportJudge(),
            environment=ReportEnvironment(),
            package=ReportPackage(name="pdf-tools"),
            cases=found,
            summary=ReportSummary(total=len(found), passed=0, failed=0, skipped=0, pass_rate=0.0),
        ),
        root / "evals" / "reports" / f"{stamp}.json",
    )


async def test_verdict_follows_a_rename(client: LanguageClient, example_pkg: Path):
    """Renaming a case in the editor keeps its verdict on the renamed case; Run all's summary counts it once,
    also after a run of the renamed case wrote a new report (the old name is still in the old report)."""
    _report(example_pkg, "2026-01-01T00-00-00Z", {"extract-text": "FAIL", "block-secrets": "PASS"})
    config = example_pkg / "evals" / "eval-config.json"
    config_uri = from_fs_path(str(config))
    await open_and_diagnose(client, config_uri, config.read_text(), "json")
    assert lens_titles(await lenses(client, config_uri)) == [
        "▶ Run all evals",
        "✓ 1 pass · ✗ 1 fail",
        "↻ Run failed (1)",
    ]
    path = example_pkg / "evals" / "cases" / "01-extract-text.yaml"
    uri = from_fs_path(str(path))
    text = path.read_text()
    await open_and_diagnose(client, uri, text)
    before = lens_titles(await lenses(client, uri))
    assert before[:3] == ["▶ Run eval", "Dry run", "Run 5×"] and before[-1].startswith("✗ FAIL"), before

    for version, name in enumerate(("extract-tex", "extract-text-v2"), start=2):  # typed over two versions
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(
                        text=text.replace("name: extract-text", f"name: {name}", 1)
                    )
                ],
            )
        )
        after = lens_titles(await lenses(client, uri))
        assert after == before, after  # the verdict stays on the renamed case
    found = await _command(client, "evalens.discoverCases", {"uri": uri})
    assert [(c["name"], c.get("lastVerdict")) for c in found] == [("extract-text-v2", "FAIL")]
    assert lens_titles(await lenses(client, config_uri)) == [
        "▶ Run all evals",
        "✓ 1 pass · ✗ 1 fail",
        "↻ Run failed (1)",
    ]

    _report(example_pkg, "2026-01-02T00-00-00Z", {"extract-text-v2": "PASS"})  # the renamed case ran
    assert lens_titles(await lenses(client, config_uri)) == ["▶ Run all evals", "✓ 2 pass"]


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (ASCII text: columns are characters) the way an editor does."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = offsets[edit.range.start.line] + edit.range.start.character
        end = offsets[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    return text


def _editor(client: LanguageClient) -> dict[str, list]:
    """Answer workspace/applyEdit and window/showDocument like an editor, remembering what was asked."""
    seen: dict[str, list] = {"edits": [], "shown": client.shown_documents}  # pytest-lsp answers showDocument

    def _apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        seen["edits"].append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    client.on_apply_edit = _apply_edit  # type: ignore[attr-defined]  # the conftest's handler calls it
    return seen


async def _new_case_offered(client: LanguageClient, skill_md: Path) -> str:
    """Open a SKILL.md: its lens and its code action both run evalens.newCase."""
    uri = from_fs_path(str(skill_md))
    await open_and_diagnose(client, uri, skill_md.read_text(), "markdown")
    found = await lenses(client, uri)
    new = [lens for lens in found if lens.command.command == "evalens.newCase"]
    assert [lens.command.title for lens in new] == ["＋ New eval case"] and new[0].range.start.line == 0
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=3, character=0), end=types.Position(line=3, character=0)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (action,) = [a for a in actions or [] if a.title == "New eval case for this skill"]
    # lsprotocol (client side) reads any object with a `command` member as a Command, the CodeAction's
    # command object ending up as its string: what the server sent is still there to check
    assert "'command': 'evalens.newCase'" in str(action.command), action
    return uri


async def test_new_case_in_a_uaaps_package(client: LanguageClient, example_pkg: Path):
    """A UAAPS package: a new evals/cases/04-….yaml (numbered like its siblings) targeting the skill."""
    seen = _editor(client)
    uri = await _new_case_offered(client, example_pkg / "skills" / "pdf-tools" / "SKILL.md")
    answer = await _command(client, "evalens.newCase", {"uri": uri})
    target = example_pkg / "evals" / "cases" / "04-pdf-tools-new-case.yaml"
    assert answer["uri"] == from_fs_path(str(target)) and answer["format"] == "uaaps-case"
    assert answer["position"] == {"line": 3, "character": 11}
    (edit,) = seen["edits"]
    create, write = edit.document_changes
    assert isinstance(create, types.CreateFile) and create.uri == answer["uri"]
    text = write.edits[0].new_text
    assert text.splitlines() == [
        "name: pdf-tools-new-case",
        "target: skill:pdf-tools",
        "input:",
        '  prompt: ""',
        "judge:",
        '  criteria: ""',
    ]
    assert text.splitlines()[3][:11] == '  prompt: "'  # the cursor: between the prompt's quotes
    if client.profile == "visual-studio-code":  # it supports window/showDocument: the prompt is shown
        (shown,) = seen["shown"]
        assert shown.uri == answer["uri"] and shown.selection.start == types.Position(line=3, character=11)
    else:
        assert seen["shown"] == []
    # an editor that puts the cursor itself (VS Code's middleware, Neovim's command) asks for no showDocument
    target.write_text(text)
    await _command(client, "evalens.newCase", {"uri": uri, "reveal": False})
    assert len(seen["shown"]) == (1 if client.profile == "visual-studio-code" else 0)
    assert seen["edits"][-1].document_changes[0].uri.endswith("05-pdf-tools-new-case-2.yaml")


async def test_new_case_in_evals_json(client: LanguageClient, tmp_path: Path):
    """skill-creator: a new entry at the end of `evals`, the next id, the file's own list name, `skill_name`
    kept; without any evals file: a new evals/evals.json in the skill-creator format."""
    seen = _editor(client)
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets people. Use when asked.\n---\n\nHi\n"
    )
    path = skill / "evals" / "evals.json"
    before = (
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 3,
                        "prompt": "Say hello",
                        "expected_output": "a greeting",
                        "expectations": ["It says hello"],
                    }
                ],
            },
            indent=2,
        )
        + "\n"
    )
    path.write_text(before)
    uri = await _new_case_offered(client, skill / "SKILL.md")
    answer = await _command(client, "evalens.newCase", {"uri": uri, "reveal": False})
    assert answer["uri"] == from_fs_path(str(path)) and answer["format"] == "skill-creator-evals"
    (edit,) = seen["edits"]
    after = _apply(before, edit.changes[answer["uri"]])
    data = json.loads(after)
    assert data["skill_name"] == "greeting"
    assert data["evals"][1] == {"id": 4, "prompt": "", "expected_output": "", "expectations": []}
    line = after.splitlines()[answer["position"]["line"]]
    assert line[: answer["position"]["character"]].endswith('"prompt": "') and line.strip() == '"prompt": "",'

    # no evals file at all: the skill-creator format, per agentskills.io
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "SKILL.md").write_text(
        "---\nname: bare\ndescription: Does bare things. Use when asked.\n---\n\nHi\n"
    )
    uri = await _new_case_offered(client, bare / "SKILL.md")
    answer = await _command(client, "evalens.newCase", {"uri": uri, "reveal": False})
    assert answer["uri"] == from_fs_path(str(bare / "evals" / "evals.json"))
    create, write = seen["edits"][-1].document_changes
    assert isinstance(create, types.CreateFile)
    assert json.loads(write.edits[0].new_text) == {
        "skill_name": "bare",
        "evals": [{"id": 1, "prompt": "", "expected_output": "", "assertions": []}],
    }


def test_clients_without_create_file(example_pkg: Path, tmp_path: Path):
    """A client without `create` in workspaceEdit.resourceOperations (VS Code's capabilities minus it, and no
    showDocument): the quick fix runs the server's evalens.createFile instead of a CreateFile edit, and a new
    case file is written by the server (the answer still says where the prompt is). Raw JSON here: lsprotocol
    reads a CodeAction that carries a command as a Command."""
    from lsprotocol.converters import get_converter

    from tests.server.raw_client import RawServer

    caps = client_capabilities("visual-studio-code")
    caps.workspace.workspace_edit.resource_operations = [types.ResourceOperationKind.Rename]
    caps.window.show_document = None
    path = example_pkg / "evals" / "cases" / "03-broken.yaml"
    with RawServer() as s:
        s.initialize(capabilities=get_converter().unstructure(caps))
        s.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": path.as_uri(),
                    "languageId": "yaml",
                    "version": 1,
                    "text": path.read_text(),
                }
            },
        )
        line = path.read_text().splitlines().index("    - fixtures/report.pdf")
        found = s.call(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": path.as_uri()},
                "range": {"start": {"line": line, "character": 6}, "end": {"line": line, "character": 6}},
                "context": {"diagnostics": []},
            },
        )["result"]
        (create,) = [a for a in found if a["title"] == "Create empty `report.pdf`"]
        assert "edit" not in create and create["command"]["command"] == "evalens.createFile"
        done = s.call(
            "workspace/executeCommand",
            {"command": "evalens.createFile", "arguments": create["command"]["arguments"]},
        )["result"]
        assert done["created"] is True and (example_pkg / "evals" / "fixtures" / "report.pdf").is_file()

        bare = tmp_path / "bare"
        bare.mkdir()
        skill_md = bare / "SKILL.md"
        skill_md.write_text("---\nname: bare\ndescription: Does bare things. Use when asked.\n---\n\nHi\n")
        s.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": skill_md.as_uri(),
                    "languageId": "markdown",
                    "version": 1,
                    "text": skill_md.read_text(),
                }
            },
        )
        answer = s.call(
            "workspace/executeCommand",
            {"command": "evalens.newCase", "arguments": [{"uri": skill_md.as_uri()}]},
        )["result"]
        written = bare / "evals" / "evals.json"
        assert answer["uri"] == written.as_uri(), answer
        assert not [
            m for m in s.received if m.get("method") in ("workspace/applyEdit", "window/showDocument")
        ]
        assert json.loads(written.read_text())["evals"][0]["prompt"] == ""
        text = written.read_text().splitlines()[answer["position"]["line"]]
        assert text[: answer["position"]["character"]].endswith('"prompt": "')
