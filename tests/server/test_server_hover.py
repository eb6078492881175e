"""``evalens.server.features.hover`` called in process on a copy of examples/pdf-tools: a key's documentation
(required or not, from the format's schema), what a value points to (a skill's description), the hovered
span, and no hover where there is nothing to say."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evalens.server.features.hover import hover_at
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


def _case(package: Path) -> Path:
    return package / "evals" / "cases" / "01-extract-text.yaml"


def test_hover_on_a_key_documents_the_field(ls: EvalensServer, package: Path) -> None:
    hover = hover_at(ls, uri_of(_case(package)), position(2, 2))  # `target` (file on disk, not open)
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert text.startswith("**`target`**\n\nWhat the case exercises:")
    assert "· required" not in text.split("\n")[0]
    assert "Skill `pdf-tools`" not in text  # on the key: the field, not what the value names
    assert hover.range is not None
    assert (hover.range.start.line, hover.range.start.character, hover.range.end.character) == (2, 0, 6)


def test_hover_on_a_value_adds_what_it_names(ls: EvalensServer, package: Path) -> None:
    hover = hover_at(ls, uri_of(_case(package)), position(2, 12))
    assert hover is not None
    first, about = hover.contents.value.split("\n\n---\n\n")  # type: ignore[union-attr]
    assert first.startswith("**`target`**")
    assert about.startswith("**Skill `pdf-tools`** — Extract text and tables from PDF files")
    assert hover.range is not None
    assert (hover.range.start.character, hover.range.end.character) == (8, 23)  # the value


def test_hover_marks_a_required_field(ls: EvalensServer, package: Path) -> None:
    config = package / "evals" / "eval-config.json"
    hover = hover_at(ls, uri_of(config), position(2, 15))  # "engine"
    assert hover is not None
    assert hover.contents.value.startswith("**`engine`** · required")  # type: ignore[union-attr]
    timeout = hover_at(ls, uri_of(config), position(3, 4))
    assert timeout is not None
    assert "- **Default:** `120`" in timeout.contents.value  # type: ignore[union-attr]
    assert timeout.contents.value.count("Default") == 1  # type: ignore[union-attr]  # not said twice


def test_hover_follows_the_open_buffer(ls: EvalensServer, package: Path) -> None:
    case = _case(package)
    text = case.read_text(encoding="utf-8").replace("skill:pdf-tools", "skill:nowhere")
    uri = open_doc(ls, case, text, write=False)
    hover = hover_at(ls, uri, position(2, 12))
    assert hover is not None
    assert "Skill `pdf-tools`" not in hover.contents.value  # type: ignore[union-attr]
    assert hover.contents.value.startswith("**`target`**")  # type: ignore[union-attr]


def test_no_hover_on_a_document_that_does_not_parse(ls: EvalensServer, package: Path) -> None:
    uri = open_doc(ls, package / "evals" / "cases" / "bad.yaml", "name: [\n")
    assert hover_at(ls, uri, position(0, 1)) is None


def test_no_hover_on_a_file_of_no_format(ls: EvalensServer, tmp_path: Path) -> None:
    uri = open_doc(ls, tmp_path / "notes.yaml", "a: b\n")
    assert hover_at(ls, uri, position(0, 0)) is None


def test_no_hover_on_a_missing_file(ls: EvalensServer, package: Path) -> None:
    assert hover_at(ls, uri_of(package / "evals" / "cases" / "gone.yaml"), position(0, 0)) is None
