"""``evalens.server.features.completion`` called in process on a copy of examples/pdf-tools: keys valid at the
cursor (present ones left out, required ones first, with their required children), values from the package
(skills, hooks, agents, fixtures), enums and booleans, a whole-file skeleton, the first key of a new file, and
the insert texts themselves."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from evalens.server.features.completion import _json_insert, _yaml_insert, complete, first_key_format
from evalens.server.server import EvalensServer
from tests.conftest import EXAMPLE
from tests.server.server_in_process import capabilities, make_server, open_doc, position


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, root)
    return root


def _server(package: Path, snippets: bool = False) -> EvalensServer:
    return make_server(package.parent, capabilities(snippets=snippets))


def _labels(result: types.CompletionList | None) -> list[str]:
    assert result is not None
    return [i.label for i in result.items]


def test_keys_leave_out_those_present_and_put_required_first(package: Path) -> None:
    ls = _server(package, snippets=True)
    uri = open_doc(ls, package / "evals" / "cases" / "new.yaml", "name: a\n\n")
    result = complete(ls, uri, position(1, 0))
    assert result is not None
    items = {i.label: i for i in result.items}
    assert "name" not in items
    assert {"description", "target", "input", "expected", "judge"} <= set(items)
    assert items["input"].sort_text is not None and items["input"].sort_text.startswith("0")  # required
    assert items["target"].sort_text is not None and items["target"].sort_text.startswith("1")
    assert items["input"].detail == "required · object"
    edit = items["input"].text_edit
    assert isinstance(edit, types.TextEdit) and edit.new_text == "input:\n  prompt: ${1}"
    assert items["input"].insert_text_format == types.InsertTextFormat.Snippet


def test_nested_keys_without_snippets(package: Path) -> None:
    ls = _server(package)
    uri = open_doc(ls, package / "evals" / "cases" / "new.yaml", "name: a\nexpected:\n  contains: [x]\n  \n")
    result = complete(ls, uri, position(3, 2))
    assert result is not None
    texts = {i.label: i.text_edit.new_text for i in result.items if isinstance(i.text_edit, types.TextEdit)}
    assert texts == {
        "not-contains": "not-contains:\n    - ",
        "files-created": "files-created:\n    - ",
        "agent-blocked": "agent-blocked: ",
    }
    first = result.items[0]
    assert isinstance(first.text_edit, types.TextEdit)
    assert first.text_edit.range == types.Range(start=position(3, 2), end=position(3, 2))
    assert first.insert_text_format == types.InsertTextFormat.PlainText


def test_target_values_come_from_the_package(package: Path) -> None:
    ls = _server(package)
    uri = open_doc(ls, package / "evals" / "cases" / "new.yaml", "name: a\ntarget: \n")
    result = complete(ls, uri, position(1, 8))
    assert result is not None
    assert [(i.label, i.detail) for i in result.items] == [
        ("skill:pdf-tools", "skill"),
        ("hook:PreToolUse", "hook event"),
        ("agent:reviewer", "agent"),
    ]
    assert {i.kind for i in result.items} == {types.CompletionItemKind.EnumMember}


def test_fixture_values_are_files(package: Path) -> None:
    ls = _server(package)
    text = "name: a\ninput:\n  prompt: p\n  files:\n    - \n"
    uri = open_doc(ls, package / "evals" / "cases" / "new.yaml", text)
    result = complete(ls, uri, position(4, 6))
    assert result is not None
    assert [(i.label, i.kind) for i in result.items] == [
        ("fixtures/sample.txt", types.CompletionItemKind.File)
    ]


def test_boolean_values(package: Path) -> None:
    ls = _server(package)
    uri = open_doc(ls, package / "evals" / "cases" / "new.yaml", "name: a\nexpected:\n  agent-blocked: \n")
    assert _labels(complete(ls, uri, position(2, 17))) == ["true", "false"]


def test_json_values_from_the_last_good_parse(package: Path) -> None:
    ls = _server(package)
    config = package / "evals" / "eval-config.json"
    text = config.read_text(encoding="utf-8")
    uri = open_doc(ls, config, text)
    line = text.split("\n").index('  "engine": "claude-code",')
    result = complete(ls, uri, position(line, len('  "engine": "')))
    assert result is not None
    assert [i.label for i in result.items] == ["claude-code", "codex"]
    assert result.items[0].detail == "Claude Code (claude -p)"


def test_an_empty_file_gets_the_skeleton(package: Path) -> None:
    ls = _server(package)
    uri = open_doc(ls, package / "evals" / "cases" / "new.yaml", "# only a comment\n")
    result = complete(ls, uri, position(1, 0))
    assert result is not None
    (item,) = result.items
    assert item.label == "UAAPS eval case skeleton"
    assert item.kind == types.CompletionItemKind.Snippet
    assert item.insert_text_format == types.InsertTextFormat.PlainText
    assert item.insert_text is not None and item.insert_text.startswith("name: my-case\n")


def test_the_first_word_of_a_new_file(package: Path) -> None:
    ls = _server(package)
    path = package / "evals" / "cases" / "new.yaml"
    assert first_key_format(str(path), "na") is not None
    assert first_key_format(str(path), "na: x") is None  # more than one word: the file's own detection
    assert first_key_format(str(package / "notes.txt"), "na") is None
    uri = open_doc(ls, path, "na")
    assert {"name", "input", "judge"} <= set(_labels(complete(ls, uri, position(0, 2))))


def test_a_file_of_no_format_gets_nothing(tmp_path: Path) -> None:
    ls = make_server(tmp_path)
    uri = open_doc(ls, tmp_path / "notes.yaml", "a: b\n")
    assert complete(ls, uri, position(0, 3)) is None


# --- the insert texts ----------------------------------------------------------------------------------------


def test_yaml_insert_by_type() -> None:
    obj = {"type": "object", "required": ["prompt", "files"]}
    assert _yaml_insert({}, ("input",), obj, 0, True) == "input:\n  prompt: ${1}\n  files: ${2}"
    assert _yaml_insert({}, ("input",), obj, 2, False) == "input:\n    prompt: \n    files: "
    assert _yaml_insert({}, ("sandbox",), {"type": "object"}, 0, False) == "sandbox:\n  "
    assert _yaml_insert({}, ("files",), {"type": "array"}, 0, True) == "files:\n  - $1"
    assert _yaml_insert({}, ("network",), {"type": "boolean"}, 0, True) == "network: ${1|true,false|}"
    assert _yaml_insert({}, ("network",), {"type": "boolean"}, 0, False) == "network: "
    assert _yaml_insert({}, ("engine",), {"enum": ["a", "b"]}, 0, True) == "engine: ${1|a,b|}"
    assert _yaml_insert({}, ("engine",), {"enum": ["a", "b"]}, 0, False) == "engine: "
    criteria = {"type": "string", "markdownDescription": "The criteria the judge applies."}
    assert _yaml_insert({}, ("criteria",), criteria, 2, True) == "criteria: >\n    $1"
    assert _yaml_insert({}, ("name",), {"type": "string"}, 0, True) == "name: $1"


def test_json_insert_by_type() -> None:
    assert _json_insert("sandbox", {"type": "object"}, True) == '"sandbox": {$1}'
    assert _json_insert("sandbox", {"type": "object"}, False) == '"sandbox": {}'
    assert _json_insert("files", {"type": "array"}, False) == '"files": []'
    assert _json_insert("name", {"type": "string"}, True) == '"name": "$1"'
    assert _json_insert("network", {"type": "boolean"}, False) == '"network": false'
    assert _json_insert("timeout", {"type": "number"}, True) == '"timeout": $1'
    assert _json_insert("timeout", {"type": "number"}, False) == '"timeout": '


def test_a_list_items_first_key_completes_its_values(tmp_path: Path) -> None:
    """`graders:\\n  - type: ` in a plugin eval's case.yaml offers the grader kinds on the item's first line, as on
    any later one (the cursor's path once put the key before the item's index, and nothing was offered)."""
    plugin = tmp_path / "demo"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "plugin_eval" / "demo", plugin)
    case = plugin / "evals" / "new-case" / "case.yaml"
    case.parent.mkdir()
    ls = make_server(tmp_path, capabilities())
    uri = open_doc(ls, case, "prompt: Say DONE.\ngraders:\n  - type: \n")
    assert {"regex", "tool_used", "file_exists", "llm"} <= set(_labels(complete(ls, uri, position(2, 10))))
