"""``evalens.server.features.context``: where the cursor is in schema terms, read from the lines alone for YAML
(it works while the document is half typed and does not parse) and from the last good parse for JSON."""

from __future__ import annotations

from evalens.core.documents import parse
from evalens.server.features.context import CursorContext, json_context, yaml_context

CASE = """\
name: a
input:
  prompt: hi
  files:
    - fix
    -\x20
expected:
  con
judge:
  criteria: "x
tasks:
  - id: t1
    prompt: p
  - id: t2
    deter
"""
LINES = CASE.split("\n")


def at(line: int, col: int | None = None) -> CursorContext:
    return yaml_context(LINES, line, len(LINES[line]) if col is None else col)


# --- YAML ----------------------------------------------------------------------------------------------------


def test_a_top_level_key() -> None:
    assert yaml_context(LINES, 0, 0) == CursorContext((), "key", 0, "", 0)
    assert yaml_context(["na"], 0, 2) == CursorContext((), "key", 0, "na", 0)


def test_a_top_level_value() -> None:
    assert at(0, 6) == CursorContext(("name",), "value", 6, "", 0)
    assert at(0) == CursorContext(("name",), "value", 6, "a", 0)


def test_a_nested_value() -> None:
    assert at(2) == CursorContext(("input", "prompt"), "value", 10, "hi", 2)


def test_a_nested_key_being_typed() -> None:
    assert at(7) == CursorContext(("expected",), "key", 2, "con", 2)


def test_list_items_are_counted() -> None:
    assert at(4) == CursorContext(("input", "files", 0), "item", 6, "fix", 6)
    assert at(5) == CursorContext(("input", "files", 1), "item", 6, "", 6)


def test_a_quoted_value_starts_after_the_quote() -> None:
    assert at(9) == CursorContext(("judge", "criteria"), "value", 13, "x", 2)


def test_a_key_inside_the_second_list_item() -> None:
    assert at(14) == CursorContext(("tasks", 1), "key", 4, "deter", 4)


def test_a_later_key_of_a_list_item() -> None:
    lines = ["graders:", "  - type: regex", "    arm: "]
    assert yaml_context(lines, 2, 9) == CursorContext(("graders", 0, "arm"), "value", 9, "", 4)


def test_comments_and_blank_lines_are_skipped() -> None:
    lines = ["input:", "  # a comment", "", "  files:", "    # another", "    - a", "    - "]
    assert yaml_context(lines, 6, 6) == CursorContext(("input", "files", 1), "item", 6, "", 6)


def test_a_block_scalar_parent_counts_as_an_empty_value() -> None:
    lines = ["judge:", "  criteria: >", "    The table", "  mo"]
    assert yaml_context(lines, 3, 4) == CursorContext(("judge",), "key", 2, "mo", 2)


def test_a_sibling_with_a_value_is_no_parent() -> None:
    lines = ["name: a", "target: skill:x", "exp"]
    assert yaml_context(lines, 2, 3) == CursorContext((), "key", 0, "exp", 0)


def test_a_cursor_on_the_line_after_the_last() -> None:
    assert yaml_context(["input:", "  prompt: a"], 2, 0) == CursorContext((), "key", 0, "", 0)


def test_nested_lists_of_mappings() -> None:
    lines = [
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Write",
        "      hooks:",
        "        - command: x",
        "          ty",
    ]
    assert yaml_context(lines, 5, 12) == CursorContext(
        ("hooks", "PreToolUse", 0, "hooks", 0), "key", 10, "ty", 10
    )


def test_the_value_of_a_list_items_first_key() -> None:
    """The key follows the item's index (it once came before it, and completion found no schema for
    `graders:\\n  - type: `)."""
    assert at(13).parent == ("tasks", 1, "id")


# --- JSON ----------------------------------------------------------------------------------------------------

GOOD = '{\n  "name": "a",\n  "expected": {\n    "contains": ["x"]\n  }\n}'
TYPING = '{\n  "name": "a",\n  "expected": {\n    "contains": ["x"],\n    "no\n  }\n}'


def test_json_without_a_good_parse_offers_top_level_keys() -> None:
    assert json_context(None, ["{"], 0, 1) == CursorContext((), "key", 1, "", 2)
    broken = parse("{", "json")
    assert broken.root is None
    assert json_context(broken, ["{"], 0, 1) == CursorContext((), "key", 1, "", 2)


def test_json_a_value_being_typed() -> None:
    doc = parse(GOOD, "json")
    lines = TYPING.split("\n")
    assert json_context(doc, lines, 1, 11) == CursorContext(("name",), "value", 11, "", 2)
    assert json_context(doc, lines, 1, 12) == CursorContext(("name",), "value", 11, "a", 2)


def test_json_a_key_inside_a_nested_object() -> None:
    doc = parse(GOOD, "json")
    lines = GOOD.split("\n")
    assert json_context(doc, lines, 3, 5) == CursorContext(("expected",), "key", 4, "", 4)


def test_json_a_key_at_the_top() -> None:
    doc = parse(GOOD, "json")
    assert json_context(doc, TYPING.split("\n"), 1, 3) == CursorContext((), "key", 2, "", 2)


def test_json_after_a_closing_bracket_is_no_context() -> None:
    doc = parse(GOOD, "json")
    lines = GOOD.split("\n")
    assert json_context(doc, lines, 3, len(lines[3])) is None
