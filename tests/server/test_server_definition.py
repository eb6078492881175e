"""``evalens.server.features.definition`` called in process on a copy of examples/pdf-tools: from a value to
the file it names (a target's SKILL.md, a fixture), following the open buffer, and nothing where a value names
nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from evalens.server.features.definition import definition_at
from evalens.server.server import EvalensServer
from tests.conftest import EXAMPLE
from tests.server.server_in_process import make_server, open_doc, position, uri_of


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, root)
    return root


@pytest.fixture
def ls(package: Path) -> EvalensServer:
    return make_server(package.parent)


def _at(ls: EvalensServer, uri: str, line: int, col: int) -> list[types.Location] | None:
    return definition_at(
        ls,
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position(line, col)
        ),
    )


def _case(package: Path) -> Path:
    return package / "evals" / "cases" / "01-extract-text.yaml"


def test_a_skill_target_goes_to_its_skill_md(ls: EvalensServer, package: Path) -> None:
    (loc,) = _at(ls, uri_of(_case(package)), 2, 12) or []
    assert loc.uri == uri_of(package / "skills" / "pdf-tools" / "SKILL.md")
    assert loc.range == types.Range(start=position(0, 0), end=position(0, 0))


def test_a_fixture_goes_to_its_file(ls: EvalensServer, package: Path) -> None:
    (loc,) = _at(ls, uri_of(_case(package)), 6, 8) or []
    assert loc.uri == uri_of(package / "evals" / "fixtures" / "sample.txt")


def test_an_agent_target(ls: EvalensServer, package: Path) -> None:
    case = package / "evals" / "cases" / "agent.yaml"
    uri = open_doc(ls, case, "name: a\ntarget: agent:reviewer\ninput:\n  prompt: p\njudge:\n  criteria: c\n")
    locations = _at(ls, uri, 1, 12)
    assert locations is not None
    assert [Path(loc.uri).name for loc in locations] == ["AGENT.md"]
    assert "agents/reviewer" in locations[0].uri


def test_unsaved_text_is_what_is_followed(ls: EvalensServer, package: Path) -> None:
    case = _case(package)
    text = case.read_text(encoding="utf-8").replace("skill:pdf-tools", "skill:missing")
    uri = open_doc(ls, case, text, write=False)
    assert _at(ls, uri, 2, 12) is None


def test_a_value_that_names_nothing(ls: EvalensServer, package: Path) -> None:
    assert _at(ls, uri_of(_case(package)), 0, 10) is None  # the case's name


def test_a_document_that_does_not_parse_or_has_no_format(
    ls: EvalensServer, package: Path, tmp_path: Path
) -> None:
    bad = open_doc(ls, package / "evals" / "cases" / "bad.yaml", "name: [\n")
    assert _at(ls, bad, 0, 1) is None
    other = open_doc(ls, tmp_path / "notes.yaml", "target: skill:pdf-tools\n")
    assert _at(ls, other, 0, 12) is None
