"""``server/features/workspace_scope.py``: commands that run agents or write files act only inside the workspace
folders, with links resolved, so a document a client made up (or a link a repository commits) cannot have a run
start or a file written elsewhere. pygls's own ``Workspace`` holds the folders, as in the server."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace import Workspace

from evalens.server.features.run_state import CommandRefused
from evalens.server.features.workspace_scope import outside_reason, require_inside


def _server(*folders: Path) -> SimpleNamespace:
    workspace = Workspace(
        from_fs_path(str(folders[0])) if folders else None,
        workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(f)), name=f.name) for f in folders],
    )
    return SimpleNamespace(workspace=workspace)


def test_inside_a_folder_is_allowed_and_a_sibling_with_the_same_prefix_is_not(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj-evil").mkdir()
    ls = _server(tmp_path / "proj")
    assert outside_reason(ls, tmp_path / "proj" / "evals" / "cases" / "a.yaml") is None
    assert outside_reason(ls, tmp_path / "proj") is None
    assert outside_reason(ls, tmp_path / "proj-evil" / "a.yaml") is not None  # a prefix is no folder
    with pytest.raises(CommandRefused, match="evalens.runCase refused: .* is outside the workspace folders"):
        require_inside(ls, "/etc/evals/cases/a.yaml", "evalens.runCase")


def test_a_link_out_of_the_workspace_is_outside(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "proj" / "link")
    ls = _server(tmp_path / "proj")
    assert outside_reason(ls, tmp_path / "proj" / "link" / "a.yaml") is not None


def test_several_folders_and_no_folder_at_all(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    ls = _server(tmp_path / "a", tmp_path / "b")
    assert outside_reason(ls, tmp_path / "b" / "x.yaml") is None
    assert outside_reason(ls, tmp_path / "c" / "x.yaml") is not None
    # a single file opened on its own: no boundary to enforce, nothing refused
    assert outside_reason(_server(), "/anywhere/x.yaml") is None
