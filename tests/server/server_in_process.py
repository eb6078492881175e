"""A language server built in the test's own process, for calling a feature's functions directly (as
yaml-language-server's unit tests do): the server every feature registers on (``create_server``), a workspace
as ``initialize`` would make it and open documents, and no client, transport or event loop.

A test that needs the protocol itself (framing, request order, what the client receives) drives a server over
pytest-lsp's client instead (the `client` fixture of tests/server/conftest.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace import Workspace

from evalens.server.server import EvalensServer, create_server


def make_server(
    root: Path | None = None,
    capabilities: types.ClientCapabilities | None = None,
    *,
    encoding: types.PositionEncodingKind = types.PositionEncodingKind.Utf16,
    folders: bool = True,
) -> EvalensServer:
    """A server past ``initialize``: ``root`` its workspace folder (``folders=False``: its root URI only, no
    folder), ``capabilities`` the client's (none by default)."""
    server = create_server()
    protocol: Any = server.protocol
    protocol.client_capabilities = capabilities or types.ClientCapabilities()
    root_uri = from_fs_path(str(root)) if root is not None else None
    workspace_folders = (
        [types.WorkspaceFolder(uri=root_uri, name=root.name)]
        if root is not None and root_uri and folders
        else []
    )
    protocol._workspace = Workspace(
        root_uri, types.TextDocumentSyncKind.Incremental, workspace_folders, encoding
    )
    return server


def uri_of(path: Path) -> str:
    uri = from_fs_path(str(path))
    assert uri
    return uri


def open_doc(server: EvalensServer, path: Path, text: str, *, version: int = 1, write: bool = True) -> str:
    """Open ``text`` as the document at ``path`` (written to disk too unless ``write`` is False); its URI."""
    if write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    uri = uri_of(path)
    language = {".json": "json", ".md": "markdown"}.get(path.suffix, "yaml")
    server.workspace.put_text_document(
        types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)
    )
    return uri


def position(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def capabilities(
    *,
    create_files: bool = False,
    apply_edit: bool = False,
    show_document: bool = False,
    snippets: bool = False,
    work_done: bool = False,
) -> types.ClientCapabilities:
    """Client capabilities with the few flags the features ask about."""
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=apply_edit,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                resource_operations=[types.ResourceOperationKind.Create] if create_files else []
            ),
        ),
        text_document=types.TextDocumentClientCapabilities(
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(snippet_support=snippets)
            )
        ),
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=show_document),
            work_done_progress=work_done,
        ),
    )
