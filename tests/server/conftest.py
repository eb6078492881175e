"""pytest-lsp fixtures: the real ``evalens lsp`` process under real client capability profiles.

One server per client profile per test module (issue #22: start-up and shutdown were 90% of the authoring
tests' time). A test that uses ``client`` runs in its module's event loop, the server's (marked so at
collection, below). Sharing is safe because every test opens documents under its own ``tmp_path``, and the
``client`` fixture closes what the test opened, checks that the server holds no open document afterwards and
resets what the client records per test.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

PROFILES = ["visual-studio-code", "neovim@v0.7.0"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test of the shared server must run in the event loop the server's connection lives in."""
    for item in items:
        if _uses_shared_client(item) and item.get_closest_marker("asyncio"):
            item.add_marker(pytest.mark.asyncio(loop_scope="module"), append=False)


def _uses_shared_client(item: pytest.Item) -> bool:
    """The test's ``client`` is the one below, not a test module's own: moved into the module's loop, a test
    whose own client lives in its function's loop waits on a connection nobody reads (its requests went
    unanswered until teardown, issue 23)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.get("client") if info is not None else None
    return bool(defs) and getattr(defs[-1].func, "__module__", None) == __name__


@pytest_lsp.fixture(
    scope="module",
    params=PROFILES,
    config=ClientServerConfig(server_command=[sys.executable, "-m", "evalens", "lsp"]),
)
async def lsp_server(request, lsp_client: LanguageClient):
    """The module's server for one profile; tests use ``client``, which cleans up after each of them."""
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

    lsp_client.on_apply_edit = None  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def _apply_edit(params: types.ApplyWorkspaceEditParams) -> Any:
        """A test answers workspace/applyEdit by setting ``client.on_apply_edit`` (a feature can be registered
        only once per client, and the client outlives the test); without one, the method is unknown as it is
        to pytest-lsp's own client."""
        handler: Callable[[types.ApplyWorkspaceEditParams], Any] | None = lsp_client.on_apply_edit  # type: ignore[attr-defined]
        if handler is None:
            raise JsonRpcMethodNotFound.of(types.WORKSPACE_APPLY_EDIT)
        return handler(params)

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param), root_uri=None, workspace_folders=None
        )
    )
    lsp_client.profile = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest_asyncio.fixture(loop_scope="module")
async def client(lsp_server: LanguageClient) -> AsyncIterator[LanguageClient]:
    """The module's shared server, as fresh as a test needs it: the documents the test opens are closed after
    it (the server must then hold none) and what the client recorded per test starts empty."""
    opened: list[str] = []
    send_open = lsp_server.text_document_did_open

    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        opened.append(params.text_document.uri)
        send_open(params)

    lsp_server.text_document_did_open = did_open  # type: ignore[method-assign]
    lsp_server.lens_refreshes = 0  # type: ignore[attr-defined]
    lsp_server.scans.clear()  # type: ignore[attr-defined]
    lsp_server.on_apply_edit = None  # type: ignore[attr-defined]
    lsp_server.shown_documents.clear()
    lsp_server.messages.clear()
    try:
        yield lsp_server
    finally:
        del lsp_server.text_document_did_open  # the class's method again
        lsp_server.on_apply_edit = None  # type: ignore[attr-defined]
    for uri in dict.fromkeys(opened):
        lsp_server.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    stats = await asyncio.wait_for(lsp_server.protocol.send_request_async("evalens/stats", None), 30)
    assert stats.openDocuments == 0, f"documents left open for the next test: {stats}"


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
