"""pytest-lsp fixtures: the real ``evalens lsp`` process under real client capability profiles."""

from __future__ import annotations

import asyncio
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

PROFILES = ["visual-studio-code", "neovim@v0.7.0"]


@pytest_lsp.fixture(
    params=PROFILES, config=ClientServerConfig(server_command=[sys.executable, "-m", "evalens", "lsp"])
)
async def client(request, lsp_client: LanguageClient):
    lsp_client.lens_refreshes = 0  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params):  # pytest-lsp has no handler of its own
        lsp_client.lens_refreshes += 1  # type: ignore[attr-defined]
        return None

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params):  # real clients accept dynamic registrations (file watching)
        return None

    lsp_client.scans = []  # type: ignore[attr-defined]

    @lsp_client.feature("evalens/scanComplete")
    def _scanned(params):
        lsp_client.scans.append(params)  # type: ignore[attr-defined]

    root = getattr(request, "root_uri", None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param), root_uri=root, workspace_folders=None
        )
    )
    lsp_client.profile = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def open_and_diagnose(
    client: LanguageClient, uri: str, text: str, language: str = "yaml", timeout: float = 10
) -> list[types.Diagnostic]:
    """Open a document and return its diagnostics, pulling when the profile pulls."""
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        )
    )
    return await diagnostics_for(client, uri, timeout)


def pulls(client: LanguageClient) -> bool:
    caps = client.capabilities
    return bool(caps and caps.text_document and caps.text_document.diagnostic is not None)


async def diagnostics_for(client: LanguageClient, uri: str, timeout: float = 10) -> list[types.Diagnostic]:
    """Pull, or wait for the push (callers pop ``client.diagnostics[uri]`` before the edit)."""
    if pulls(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return list(report.items)
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if uri in client.diagnostics:
            return client.diagnostics[uri]
        await asyncio.sleep(0.02)
    raise TimeoutError(f"no diagnostics for {uri}")
