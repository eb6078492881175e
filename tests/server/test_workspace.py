"""Workspace-level behaviour: start-up scan, watched files, pull diagnostics."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.conftest import EXAMPLE
from tests.server.conftest import diagnostics_for, open_and_diagnose


async def _start(profile: str, root: Path) -> LanguageClient:
    from pytest_lsp import make_test_lsp_client

    config = ClientServerConfig(server_command=[sys.executable, "-m", "evalens", "lsp"])
    client = make_test_lsp_client()
    client.scans = []  # type: ignore[attr-defined]

    @client.feature("evalens/scanComplete")
    def _scanned(params):
        client.scans.append(params)  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params):
        client.registrations = params  # type: ignore[attr-defined]

    await client.start_io(*config.server_command)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(profile),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        )
    )
    return client


async def _wait(predicate, timeout: float = 15) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.02)


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    dest = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, dest)
    return dest


async def test_startup_scan_publishes_unopened_files(pkg: Path):
    client = await _start("visual-studio-code", pkg)
    try:
        broken = from_fs_path(str(pkg / "evals" / "cases" / "03-broken.yaml"))
        await _wait(lambda: client.scans)
        assert client.scans[0].files >= 4
        await _wait(lambda: broken in client.diagnostics)
        assert any(d.code == "unknown-key" for d in client.diagnostics[broken])
        valid = from_fs_path(str(pkg / "evals" / "cases" / "01-extract-text.yaml"))
        assert valid not in client.diagnostics  # nothing to report, nothing published
    finally:
        await client.shutdown_session()


async def test_watched_files_update_open_documents(pkg: Path):
    client = await _start("visual-studio-code", pkg)
    try:
        await _wait(lambda: hasattr(client, "registrations"))
        assert client.registrations.registrations[0].method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        path = pkg / "evals" / "cases" / "03-broken.yaml"
        uri = from_fs_path(str(path))
        diags = await open_and_diagnose(client, uri, path.read_text())
        assert any(d.code == "fixture-missing" for d in diags)
        fixture = pkg / "evals" / "fixtures" / "report.pdf"
        fixture.write_text("pdf")
        skill = pkg / "skills" / "pdf-tool" / "SKILL.md"
        skill.parent.mkdir()
        skill.write_text("---\nname: pdf-tool\ndescription: x\n---\n")
        client.diagnostics.pop(uri, None)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(uri=from_fs_path(str(fixture)), type=types.FileChangeType.Created),
                    types.FileEvent(uri=from_fs_path(str(skill)), type=types.FileChangeType.Created),
                ]
            )
        )
        diags = await diagnostics_for(client, uri)
        codes = {d.code for d in diags}
        assert "fixture-missing" not in codes and "unknown-target" not in codes
        fixture.unlink()
        client.diagnostics.pop(uri, None)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=from_fs_path(str(fixture)), type=types.FileChangeType.Deleted)]
            )
        )
        diags = await diagnostics_for(client, uri)
        assert "fixture-missing" in {d.code for d in diags}
    finally:
        await client.shutdown_session()


async def test_pull_diagnostics_for_pulling_clients(pkg: Path):
    client = await _start("neovim@v0.11.0", pkg)
    try:
        path = pkg / "evals" / "cases" / "03-broken.yaml"
        uri = from_fs_path(str(path))
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="yaml", version=1, text=path.read_text()
                )
            )
        )
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert any(d.code == "path-escape" for d in report.items)
        await asyncio.sleep(0.3)
        assert not client.diagnostics.get(uri)  # a pulling client gets its problems by pull, not push
        await _wait(lambda: client.scans)
        ws = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
        assert all(item.uri != uri for item in ws.items)  # open documents are pulled per document
    finally:
        await client.shutdown_session()


async def test_duplicate_names_update_across_open_files(pkg: Path):
    client = await _start("visual-studio-code", pkg)
    try:
        one = pkg / "evals" / "cases" / "01-extract-text.yaml"
        uri1 = from_fs_path(str(one))
        await open_and_diagnose(client, uri1, one.read_text())
        new = pkg / "evals" / "cases" / "08-dup.yaml"
        new.write_text('name: other\ninput:\n  prompt: x\njudge:\n  criteria: contains "x"\n')
        uri2 = from_fs_path(str(new))
        await open_and_diagnose(client, uri2, new.read_text())
        client.diagnostics.pop(uri1, None)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri2, version=2),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(
                        text=new.read_text().replace("name: other", "name: extract-text")
                    )
                ],
            )
        )
        diags = await diagnostics_for(client, uri1)
        assert any(d.code == "duplicate-case-name" and "08-dup.yaml" in d.message for d in diags)
    finally:
        await client.shutdown_session()
