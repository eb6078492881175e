"""Workspace edits that create files (a missing fixture, a new eval case file), and the fallback for clients
that cannot apply them.

A ``CreateFile`` resource operation is only sent to clients that list ``create`` in
``workspace.workspaceEdit.resourceOperations`` (VS Code, Neovim); for the others the server writes the file
itself when the user picks the action (``evalens.createFile``), never silently.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from evalens.server.server import EvalensServer

PLACEHOLDERS = {".json": "{}\n"}  # an empty .json file is invalid JSON; other kinds start empty


def can_create(ls: EvalensServer) -> bool:
    """Whether the client applies ``CreateFile`` in a workspace edit."""
    ops = ls.cap("workspace.workspace_edit.resource_operations", None) or []
    return any(str(getattr(op, "value", op)) == "create" for op in ops)


def placeholder(path: str | Path) -> str:
    return PLACEHOLDERS.get(Path(path).suffix.lower(), "")


def start_of_file() -> types.Range:
    return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))


def create_edit(path: str | Path, text: str) -> types.WorkspaceEdit:
    """Create ``path`` (left alone if it exists meanwhile) and write ``text`` into it."""
    uri = from_fs_path(str(path)) or ""
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = [
        types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True))
    ]
    if text:
        changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[types.TextEdit(range=start_of_file(), new_text=text)],
            )
        )
    return types.WorkspaceEdit(document_changes=changes)


def write_new(path: str | Path, text: str) -> bool:
    """The fallback: create ``path`` (and its folders) with ``text``; False when it exists already."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return True
