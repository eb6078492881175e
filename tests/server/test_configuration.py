"""Rule tuning through the real server: the ``evalens.rules`` setting, config files, inline suppression and
the documentation link of every diagnostic."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities, make_test_lsp_client

from tests.server.conftest import diagnostics_for, open_and_diagnose, pulls

BROKEN = Path("evals") / "cases" / "03-broken.yaml"


async def _start(
    profile: str,
    root: Path,
    options: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
) -> LanguageClient:
    client = make_test_lsp_client()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params):
        return None

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params):
        return None

    if configuration is not None:
        client.set_configuration(configuration, section="evalens")
    await client.start_io(
        *ClientServerConfig(server_command=[sys.executable, "-m", "evalens", "lsp"]).server_command
    )
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(profile),
            root_uri=root.as_uri(),
            initialization_options=options,
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        )
    )
    return client


async def _codes(client: LanguageClient, pkg: Path, text: str | None = None) -> dict[str, types.Diagnostic]:
    path = pkg / BROKEN
    diags = await open_and_diagnose(
        client, from_fs_path(str(path)), text if text is not None else path.read_text()
    )
    return {str(d.code): d for d in diags}


async def _wait(predicate, timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.02)


async def _codes_when(
    client: LanguageClient,
    uri: str,
    settled: Callable[[dict[str, types.Diagnostic]], bool],
    timeout: float = 10,
) -> dict[str, types.Diagnostic]:
    """The document's diagnostics once ``settled`` holds for them (a pulling client pulls again, a pushed one
    waits for the next push), or the last ones seen after ``timeout``: the test asserts on what it gets."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        codes = {str(d.code): d for d in await diagnostics_for(client, uri)}
        if settled(codes) or asyncio.get_running_loop().time() > deadline:
            return codes
        if not pulls(client):
            client.diagnostics.pop(uri, None)
        await asyncio.sleep(0.05)


@pytest.fixture
def pkg(example_pkg: Path) -> Path:
    (example_pkg / ".git").mkdir()
    return example_pkg


async def test_inline_suppression_and_doc_links(client: LanguageClient, example_pkg: Path):
    path = example_pkg / BROKEN
    text = path.read_text().replace(
        "agent-blockd: false", "agent-blockd: false  # evalens: ignore[unknown-key]"
    )
    text = "# evalens: ignore-file[vague-criteria, made-up]\n" + text
    diags = await open_and_diagnose(client, from_fs_path(str(path)), text)
    codes = {d.code: d for d in diags}
    assert "unknown-key" not in codes and "vague-criteria" not in codes
    assert "path-escape" in codes
    hint = codes["unused-suppression"]
    assert hint.severity == types.DiagnosticSeverity.Hint and "`made-up`" in hint.message
    assert hint.range.start.line == 0
    for d in diags:
        assert (
            d.code_description is not None
            and d.code_description.href == f"https://evalens.dev/rules#{d.code}"
        )


@pytest.mark.parametrize("profile", ["visual-studio-code", "neovim@v0.7.0"])
async def test_rules_from_initialization_options(pkg: Path, profile: str):
    client = await _start(
        profile,
        pkg,
        {"evalens": {"rules": {"unknown-key": "off", "vague-criteria": "error", "schema-*": "hint"}}},
    )
    try:
        codes = await _codes(client, pkg)
        assert "unknown-key" not in codes
        assert codes["vague-criteria"].severity == types.DiagnosticSeverity.Error
        assert codes["schema-pattern"].severity == types.DiagnosticSeverity.Hint
        assert codes["path-escape"].severity == types.DiagnosticSeverity.Error  # untouched
    finally:
        await client.shutdown_session()


async def test_rules_from_workspace_configuration_and_change(pkg: Path):
    """VS Code answers workspace/configuration; a didChangeConfiguration makes the server ask again."""
    client = await _start("visual-studio-code", pkg, configuration={"rules": {"path-escape": "off"}})
    try:
        codes = await _codes(client, pkg)
        uri = from_fs_path(str(pkg / BROKEN))
        for _ in range(50):  # documents opened before the configuration arrived are re-validated
            if "path-escape" not in codes:
                break
            await asyncio.sleep(0.1)
            codes = {str(d.code): d for d in await diagnostics_for(client, uri)}
        assert "path-escape" not in codes and "unknown-key" in codes
        client.set_configuration({"rules": {"unknown-key": "off"}}, section="evalens")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        codes = await _codes_when(
            client, uri, lambda found: "path-escape" in found and "unknown-key" not in found
        )
        assert "path-escape" in codes and "unknown-key" not in codes
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize("profile", ["visual-studio-code", "neovim@v0.7.0"])
async def test_config_file_and_its_changes(pkg: Path, profile: str):
    conf = pkg / "evalens.toml"
    conf.write_text('[rules]\nunknown-key = "off"\n')
    client = await _start(profile, pkg)
    try:
        codes = await _codes(client, pkg)
        assert "unknown-key" not in codes and "path-escape" in codes
        conf.write_text('[rules]\npath-escape = "warning"\nunknown-key = "error"\n')
        uri = from_fs_path(str(pkg / BROKEN))
        client.diagnostics.pop(uri, None)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=from_fs_path(str(conf)), type=types.FileChangeType.Changed)]
            )
        )
        codes = await _codes_when(
            client,
            uri,
            lambda found: (
                "unknown-key" in found and found["unknown-key"].severity == types.DiagnosticSeverity.Error
            ),
        )
        assert codes["unknown-key"].severity == types.DiagnosticSeverity.Error
        assert codes["path-escape"].severity == types.DiagnosticSeverity.Warning
    finally:
        await client.shutdown_session()


async def test_editor_setting_beats_the_file_unless_told_otherwise(pkg: Path):
    (pkg / "evalens.toml").write_text('[rules]\nunknown-key = "off"\n')
    client = await _start("neovim@v0.7.0", pkg, {"rules": {"unknown-key": "error"}})
    try:
        codes = await _codes(client, pkg)
        assert codes["unknown-key"].severity == types.DiagnosticSeverity.Error
    finally:
        await client.shutdown_session()
    client = await _start(
        "neovim@v0.7.0",
        pkg,
        {"rules": {"unknown-key": "error"}, "configurationPreference": "filesystemFirst"},
    )
    try:
        assert "unknown-key" not in await _codes(client, pkg)
    finally:
        await client.shutdown_session()


async def test_invalid_configuration_is_one_message_not_a_crash(pkg: Path):
    (pkg / "evalens.toml").write_text('[rules]\nunknown-key = "warn"\npath-escape = "off"\n')
    client = await _start("neovim@v0.7.0", pkg, {"rules": {"vague-criteria": 7}})
    try:
        codes = await _codes(client, pkg)
        assert "path-escape" not in codes  # the valid entries still apply
        assert "unknown-key" in codes and "vague-criteria" in codes
        await _wait(lambda: client.messages)
        warnings = [m for m in client.messages if m.type == types.MessageType.Warning]
        assert len(warnings) == 1
        assert (
            "`unknown-key = 'warn'`" in warnings[0].message and "evalens.rules setting" in warnings[0].message
        )
        await _codes(client, pkg, (pkg / BROKEN).read_text() + "\n")  # another validation: no second message
        await asyncio.sleep(0.3)
        assert len([m for m in client.messages if m.type == types.MessageType.Warning]) == 1
    finally:
        await client.shutdown_session()


async def test_ignore_code_actions_come_after_the_real_fixes(client: LanguageClient, example_pkg: Path):
    path = example_pkg / BROKEN
    uri = from_fs_path(str(path))
    diags = await open_and_diagnose(client, uri, path.read_text())
    unknown = next(d for d in diags if d.code == "unknown-key")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=unknown.range,
            context=types.CodeActionContext(diagnostics=[unknown]),
        )
    )
    titles = [a.title for a in actions]
    assert titles[0] == "Rename `agent-blockd` to `agent-blocked`"
    assert titles[1:] == ["Ignore `unknown-key` on this line", "Ignore `unknown-key` in this file"]
    assert not actions[1].is_preferred
    (edit,) = actions[1].edit.changes[uri]
    assert (
        edit.new_text == "  # evalens: ignore[unknown-key]"
        and edit.range.start.line == unknown.range.start.line
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(
                    text=path.read_text().replace(
                        "agent-blockd: false", "agent-blockd: false  # evalens: ignore[unknown-key]"
                    )
                )
            ],
        )
    )
    client.diagnostics.pop(uri, None)
    assert "unknown-key" not in {d.code for d in await diagnostics_for(client, uri)}


async def test_config_change_re_checks_unopened_files(pkg: Path):
    """Files the start-up scan published (never opened) are re-checked when a config file changes."""
    client = await _start("neovim@v0.7.0", pkg)
    try:
        uri = from_fs_path(str(pkg / BROKEN))
        await _wait(lambda: uri in client.diagnostics, timeout=20)
        assert "unknown-key" in {d.code for d in client.diagnostics[uri]}
        conf = pkg / "evalens.toml"
        conf.write_text('[rules]\nunknown-key = "off"\n')
        client.diagnostics.pop(uri, None)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=from_fs_path(str(conf)), type=types.FileChangeType.Created)]
            )
        )
        await _wait(lambda: uri in client.diagnostics, timeout=20)
        codes = {d.code for d in client.diagnostics[uri]}
        assert "unknown-key" not in codes and "path-escape" in codes
    finally:
        await client.shutdown_session()
