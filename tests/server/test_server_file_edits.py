"""``evalens.server.features.file_edits``: the ``CreateFile`` edit (only for clients that apply it), the
placeholder a new file starts with, and the server's own fallback write, which never overwrites."""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types

from evalens.server.features.file_edits import can_create, create_edit, placeholder, start_of_file, write_new
from tests.server.server_in_process import capabilities, make_server, uri_of


def test_can_create_follows_the_clients_resource_operations(tmp_path: Path) -> None:
    assert can_create(make_server(tmp_path, capabilities(create_files=True)))
    assert not can_create(make_server(tmp_path, capabilities(create_files=False)))
    assert not can_create(make_server(tmp_path))  # no workspace capabilities at all
    rename_only = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(
                resource_operations=[types.ResourceOperationKind.Rename, types.ResourceOperationKind.Delete]
            )
        )
    )
    assert not can_create(make_server(tmp_path, rename_only))


def test_placeholder_keeps_a_new_json_file_valid() -> None:
    assert placeholder("evals/evals.json") == "{}\n"
    assert placeholder(Path("X.JSON")) == "{}\n"
    assert placeholder("fixtures/report.pdf") == ""
    assert placeholder("case.yaml") == ""


def test_create_edit_with_text(tmp_path: Path) -> None:
    target = tmp_path / "evals" / "cases" / "new.yaml"
    edit = create_edit(target, "name: new\n")
    assert edit.changes is None
    assert edit.document_changes is not None
    create, write = edit.document_changes
    assert isinstance(create, types.CreateFile)
    assert create.uri == uri_of(target)
    assert create.options == types.CreateFileOptions(
        ignore_if_exists=True
    )  # never clobbers a file made since
    assert isinstance(write, types.TextDocumentEdit)
    assert write.text_document.uri == uri_of(target)
    assert write.text_document.version is None
    assert write.edits == [types.TextEdit(range=start_of_file(), new_text="name: new\n")]


def test_create_edit_of_an_empty_file_only_creates(tmp_path: Path) -> None:
    edit = create_edit(str(tmp_path / "fixtures" / "report.pdf"), "")
    assert edit.document_changes is not None
    assert [type(c) for c in edit.document_changes] == [types.CreateFile]


def test_start_of_file_is_an_empty_range_at_zero() -> None:
    rng = start_of_file()
    assert (rng.start.line, rng.start.character, rng.end.line, rng.end.character) == (0, 0, 0, 0)


def test_write_new_creates_the_folders_and_the_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "evals.json"
    assert write_new(target, "{}\n")
    assert target.read_text(encoding="utf-8") == "{}\n"
    assert target.stat().st_mode & 0o777 == 0o644 & ~_umask()


def test_write_new_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "case.yaml"
    target.write_text("mine\n", encoding="utf-8")
    assert not write_new(str(target), "theirs\n")
    assert target.read_text(encoding="utf-8") == "mine\n"


def test_write_new_does_not_follow_a_dangling_link(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    link = tmp_path / "link.txt"
    link.symlink_to(elsewhere)
    assert not write_new(link, "x")  # O_EXCL: an existing name, even a dangling link, is left alone
    assert not elsewhere.exists()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
