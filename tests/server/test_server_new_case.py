"""``evalens.server.features.new_case`` called in process: the lens and code action on a SKILL.md only, and
``evalens.newCase`` writing the next case where the package's format puts it: the file itself for a client
without ``CreateFile``, an edit for one with it, an entry inserted into an existing ``evals.json`` (the client
applies it), and refusals worded for the editor. The client's ``workspace/applyEdit`` answer is stubbed on the
server object; everything else runs as the command does."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from evalens.server.features import new_case
from evalens.server.features.run_state import CommandRefused
from evalens.server.server import EvalensServer
from evalens.server.wire import NewCaseArgs
from tests.conftest import EXAMPLE
from tests.server.server_in_process import capabilities, make_server, open_doc, uri_of


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, root)
    return root


def _skill(package: Path) -> Path:
    return package / "skills" / "pdf-tools" / "SKILL.md"


def _open(ls: EvalensServer, path: Path) -> str:
    return open_doc(ls, path, path.read_text(encoding="utf-8"), write=False)


def _solo(root: Path, evals: str | None) -> Path:
    """A skill-creator skill: SKILL.md and, when given, ``evals/evals.json``."""
    (root / "evals").mkdir(parents=True)
    (root / "SKILL.md").write_text(
        f"---\nname: {root.name}\ndescription: A skill.\n---\nBody\n", encoding="utf-8"
    )
    if evals is not None:
        (root / "evals" / "evals.json").write_text(evals, encoding="utf-8")
    return root / "SKILL.md"


class Client:
    """Answers ``workspace/applyEdit`` as an editor would, and keeps the edits."""

    def __init__(self, applied: bool = True, reason: str | None = None) -> None:
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.applied, self.reason = applied, reason

    async def __call__(self, params: types.ApplyWorkspaceEditParams) -> Any:
        self.edits.append(params)
        return types.ApplyWorkspaceEditResult(applied=self.applied, failure_reason=self.reason)


def test_lens_and_action_on_a_skill_md_only(package: Path) -> None:
    ls = make_server(package.parent)
    uri = _open(ls, _skill(package))
    (lens,) = new_case.lenses(ls, uri)
    assert lens.command is not None
    assert (lens.command.title, lens.command.command, lens.command.arguments) == (
        "＋ New eval case",
        "evalens.newCase",
        [{"uri": uri}],
    )
    (action,) = new_case.code_actions(ls, uri)
    assert (action.title, action.kind) == (new_case.TITLE, types.CodeActionKind.Refactor)
    case = _open(ls, package / "evals" / "cases" / "01-extract-text.yaml")
    assert new_case.lenses(ls, case) == [] and new_case.code_actions(ls, case) == []
    assert new_case.lenses(ls, uri_of(package / "nothing.md")) == []


def test_the_server_writes_the_next_case_for_a_client_without_create_file(package: Path) -> None:
    ls = make_server(package.parent)
    answer = asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, _skill(package)))))
    written = package / "evals" / "cases" / "04-pdf-tools-new-case.yaml"
    assert answer.uri == uri_of(written)
    assert (answer.format, answer.title) == ("uaaps-case", "evals/cases/04-pdf-tools-new-case.yaml")
    text = written.read_text(encoding="utf-8")
    assert "target: skill:pdf-tools" in text
    line = text.split("\n")[answer.position.line]
    assert line[: answer.position.character] == '  prompt: "'  # the cursor inside the empty prompt
    again = asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, _skill(package)))))
    assert again.title == "evals/cases/05-pdf-tools-new-case-2.yaml"  # never the same file twice


def test_a_client_with_create_file_gets_the_edit(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ls = make_server(package.parent, capabilities(create_files=True, apply_edit=True))
    client = Client()
    monkeypatch.setattr(ls, "workspace_apply_edit_async", client)
    answer = asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, _skill(package)))))
    (params,) = client.edits
    assert params.label == new_case.TITLE
    changes = params.edit.document_changes or []
    assert isinstance(changes[0], types.CreateFile) and changes[0].uri == answer.uri
    assert isinstance(changes[1], types.TextDocumentEdit)
    assert "target: skill:pdf-tools" in changes[1].edits[0].new_text
    assert not (package / "evals" / "cases" / "04-pdf-tools-new-case.yaml").exists()  # the editor writes it


def test_an_edit_the_editor_refuses(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ls = make_server(package.parent, capabilities(create_files=True, apply_edit=True))
    monkeypatch.setattr(ls, "workspace_apply_edit_async", Client(applied=False, reason="read-only"))
    with pytest.raises(CommandRefused, match="did not apply the new case: read-only"):
        asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, _skill(package)))))


def test_a_new_evals_json_for_a_fresh_skill(tmp_path: Path) -> None:
    skill = tmp_path / "fresh" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text("---\nname: fresh\ndescription: A skill.\n---\nBody\n", encoding="utf-8")
    ls = make_server(tmp_path)
    answer = asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, skill))))
    assert (answer.format, answer.title) == ("skill-creator-evals", "evals/evals.json")
    data = json.loads((tmp_path / "fresh" / "evals" / "evals.json").read_text(encoding="utf-8"))
    assert data["skill_name"] == "fresh" and len(data["evals"]) == 1


def test_an_entry_inserted_into_an_existing_evals_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = '{\n  "skill_name": "solo",\n  "evals": []\n}\n'
    skill = _solo(tmp_path / "solo", original)
    ls = make_server(tmp_path, capabilities(apply_edit=True))
    client = Client()
    monkeypatch.setattr(ls, "workspace_apply_edit_async", client)
    answer = asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, skill))))
    (params,) = client.edits
    evals = tmp_path / "solo" / "evals" / "evals.json"
    ((uri, (edit,)),) = (params.edit.changes or {}).items()
    assert uri == uri_of(evals) == answer.uri
    lines = original.split("\n")
    start, end = edit.range.start, edit.range.end
    assert (start.line, start.character) == (end.line, end.character)  # an insertion
    here = lines[start.line]
    edited = "\n".join(
        [
            *lines[: start.line],
            here[: start.character] + edit.new_text + here[start.character :],
            *lines[start.line + 1 :],
        ]
    )
    assert len(json.loads(edited)["evals"]) == 1  # the edit keeps the file valid JSON
    prompt_line = edited.split("\n")[answer.position.line]
    assert '"prompt"' in prompt_line
    assert evals.read_text(encoding="utf-8") == original  # the editor applies it, not the server


def test_an_insert_needs_a_client_that_applies_edits(tmp_path: Path) -> None:
    skill = _solo(tmp_path / "solo", '{\n  "skill_name": "solo",\n  "evals": []\n}\n')
    ls = make_server(tmp_path)
    with pytest.raises(CommandRefused, match=r"cannot apply workspace edits \(workspace.applyEdit\)"):
        asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, skill))))


def test_refused_for_anything_but_a_skill_md(package: Path) -> None:
    ls = make_server(package.parent)
    case = _open(ls, package / "evals" / "cases" / "01-extract-text.yaml")
    with pytest.raises(CommandRefused, match="needs the uri of a SKILL.md"):
        asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=case)))


def test_refused_outside_the_workspace(package: Path, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    ls = make_server(tmp_path / "other")
    with pytest.raises(CommandRefused, match="outside the workspace folders"):
        asyncio.run(new_case.new_case(ls, NewCaseArgs(uri=_open(ls, _skill(package)))))
    assert sorted(p.name for p in (package / "evals" / "cases").iterdir())[-1] == "03-broken.yaml"
