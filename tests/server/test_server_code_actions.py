"""``evalens.server.features.code_actions`` called in process on examples/pdf-tools' broken case: each fix of
a problem in the requested range as a quick fix, then the "Ignore" actions, "Create `x`" for a missing file (an
edit or the server's command, by the client's capabilities), and the ``evalens.createFile`` fallback, which
writes only a file a current problem names, inside the workspace."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from evalens.server.features import code_actions
from evalens.server.features.run_state import CommandRefused
from evalens.server.server import EvalensServer
from evalens.server.wire import CreateFileArgs
from tests.conftest import EXAMPLE
from tests.server.server_in_process import capabilities, make_server, position, uri_of


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, root)
    return root


def _broken(package: Path) -> str:
    return uri_of(package / "evals" / "cases" / "03-broken.yaml")


def _actions(ls: EvalensServer, uri: str, start: int, end: int) -> list[types.CodeAction] | None:
    handler = ls.protocol.fm.features[types.TEXT_DOCUMENT_CODE_ACTION]
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=position(start, 0), end=position(end, 200)),
        context=types.CodeActionContext(diagnostics=[]),
    )
    return handler(params)


def test_fixes_come_before_the_ignores(package: Path) -> None:
    ls = make_server(package.parent)
    actions = _actions(ls, _broken(package), 0, 19)
    assert actions is not None
    titles = [a.title for a in actions]
    fixes = ["Change to `broken-case`", "Change to `skill:pdf-tools`", "Create empty `report.pdf`"]
    assert titles[:4] == [*fixes, "Rename `agent-blockd` to `agent-blocked`"]
    assert all(t.startswith("Ignore `") for t in titles[4:])
    assert "Ignore `unknown-key` on this line" in titles and "Ignore `unknown-key` in this file" in titles
    assert {a.kind for a in actions} == {types.CodeActionKind.QuickFix}


def test_only_problems_in_the_range(package: Path) -> None:
    ls = make_server(package.parent)
    actions = _actions(ls, _broken(package), 9, 9)  # the `agent-blockd` line only
    assert actions is not None
    assert [a.title for a in actions] == [
        "Rename `agent-blockd` to `agent-blocked`",
        "Ignore `unknown-key` on this line",
        "Ignore `unknown-key` in this file",
    ]
    (diagnostic,) = actions[0].diagnostics or []
    assert diagnostic.code == "unknown-key"
    edit = actions[0].edit
    assert edit is not None and edit.changes is not None
    ((uri, (text_edit,)),) = edit.changes.items()
    assert uri == _broken(package)
    assert text_edit.new_text == "agent-blocked"


def test_create_is_a_command_for_clients_without_create_file(package: Path) -> None:
    ls = make_server(package.parent)
    (create,) = [a for a in _actions(ls, _broken(package), 6, 6) or [] if a.title.startswith("Create")]
    assert create.edit is None
    assert create.command is not None and create.command.command == code_actions.CREATE_FILE
    target = str(package / "evals" / "fixtures" / "report.pdf")
    assert create.command.arguments == [{"uri": _broken(package), "path": target}]


def test_create_is_an_edit_for_clients_with_create_file(package: Path) -> None:
    ls = make_server(package.parent, capabilities(create_files=True))
    (create,) = [a for a in _actions(ls, _broken(package), 6, 6) or [] if a.title.startswith("Create")]
    assert create.command is None
    assert create.edit is not None and create.edit.document_changes is not None
    (change,) = create.edit.document_changes
    assert isinstance(change, types.CreateFile)
    assert change.uri == uri_of(package / "evals" / "fixtures" / "report.pdf")


def test_no_actions_for_a_clean_range_or_an_unknown_file(package: Path, tmp_path: Path) -> None:
    ls = make_server(package.parent)
    assert _actions(ls, _broken(package), 4, 4) is None  # the prompt line: no problem there
    assert _actions(ls, uri_of(tmp_path / "nothing.yaml"), 0, 1) is None


def test_create_file_writes_the_missing_fixture(package: Path) -> None:
    ls = make_server(package.parent)
    target = package / "evals" / "fixtures" / "report.pdf"
    answer = asyncio.run(code_actions.create_file(ls, CreateFileArgs(uri=_broken(package), path=str(target))))
    assert (answer.created, answer.path) == (True, str(target))
    assert target.read_bytes() == b""
    with pytest.raises(CommandRefused, match="no missing file"):  # the file exists now: no problem names it
        asyncio.run(code_actions.create_file(ls, CreateFileArgs(uri=_broken(package), path=str(target))))


def test_create_file_refuses_a_path_no_problem_names(package: Path) -> None:
    ls = make_server(package.parent)
    other = package / "evals" / "fixtures" / "anything.txt"
    with pytest.raises(CommandRefused, match="no missing file"):
        asyncio.run(code_actions.create_file(ls, CreateFileArgs(uri=_broken(package), path=str(other))))
    assert not other.exists()


def test_create_file_refuses_outside_the_workspace(package: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "elsewhere"
    workspace.mkdir()
    ls = make_server(workspace)
    target = package / "evals" / "fixtures" / "report.pdf"
    with pytest.raises(CommandRefused, match="outside the workspace folders"):
        asyncio.run(code_actions.create_file(ls, CreateFileArgs(uri=_broken(package), path=str(target))))
    assert not target.exists()
