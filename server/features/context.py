"""Where the cursor is, in schema terms: the path of the mapping or list it is in and what it is typing.

YAML is read by indentation (works while the document is half-typed and does not parse); JSON uses the
last document version that parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from evalens.core.documents import ParsedDocument, Path

Mode = Literal["key", "value", "item"]


@dataclass(slots=True)
class CursorContext:
    parent: Path  # the mapping (key mode) or the key whose value is typed (value/item modes)
    mode: Mode
    start_col: int  # where the typed word starts (replacement range start)
    typed: str
    indent: int  # indentation of keys at the cursor


_KEY = re.compile(r"^(-\s+)?([\"']?)([A-Za-z0-9_$.-]+)\2\s*:(\s|$)")


def _split(line: str) -> tuple[int, bool, int, str]:
    """(dash column or -1, is item, key column, content after the dash)."""
    stripped = line.lstrip(" ")
    ind = len(line) - len(stripped)
    if stripped.startswith("- ") or stripped == "-":
        rest = stripped[1:].lstrip(" ")
        return ind, True, len(line) - len(rest), rest
    return -1, False, ind, stripped


def _item_index(lines: list[str], line: int, dash: int) -> int:
    """How many list items at the same column come before the one on ``line``."""
    count = 0
    for j in range(line - 1, -1, -1):
        s = lines[j]
        if not s.strip() or s.lstrip().startswith("#"):
            continue
        d, is_item, k, _ = _split(s)
        ind = d if is_item else k
        if ind < dash or (ind == dash and not is_item):
            break
        if is_item and d == dash:
            count += 1
    return count


def yaml_context(lines: list[str], line: int, col: int) -> CursorContext:
    text = lines[line][:col] if line < len(lines) else ""
    dash, is_item, key_col, rest = _split(text)
    path: list[str | int] = []
    if is_item and ":" not in rest:
        mode: Mode = "item"
        threshold = dash
        in_seq = True
        start = key_col
        typed = rest
        path.append(_item_index(lines, line, dash))
    else:
        m = re.match(r"^([\"']?)([A-Za-z0-9_$.-]+)\1\s*:\s*(.*)$", rest)
        if m:
            mode = "value"
            typed = m.group(3)
            start = col - len(typed)
            if typed.startswith(("'", '"')):
                start += 1
                typed = typed[1:]
        else:
            mode = "key"
            typed = rest
            start = col - len(rest)
        threshold = key_col
        in_seq = False
        if is_item:
            path.append(_item_index(lines, line, dash))
            threshold_item = dash
        else:
            threshold_item = None
        if m:  # the key after the item's index: `- type: ` is (…, i, "type")
            path.append(m.group(2))
        if threshold_item is not None:
            threshold = threshold_item
            in_seq = True
    for j in range(line - 1, -1, -1):
        s = lines[j]
        if not s.strip() or s.lstrip().startswith("#"):
            continue
        d, item, k, content = _split(s)
        km = _KEY.match(content)
        empty_value = km is not None and content[km.end() :].strip() in ("", ">", "|", ">-", "|-", ">+", "|+")
        if km and empty_value and (k < threshold or (in_seq and k <= threshold)):
            path.insert(0, km.group(3))
            if item:
                path.insert(0, _item_index(lines, j, d))
                threshold, in_seq = d, True
            else:
                threshold, in_seq = k, False
            if threshold == 0 and not in_seq:
                break
        elif item and k == threshold and not in_seq:
            path.insert(0, _item_index(lines, j, d))
            threshold, in_seq = d, True
        elif (item and d < threshold) or (not item and k < threshold):
            if not item and k < threshold and not in_seq:
                break
    # in value/item mode the last element(s) name the value; the parent is the path itself
    return CursorContext(tuple(path), mode, start, typed.strip(), key_col)


def json_context(doc: ParsedDocument | None, lines: list[str], line: int, col: int) -> CursorContext | None:
    if doc is None or doc.root is None:
        return CursorContext((), "key", col, "", 2)
    text = lines[line][:col] if line < len(lines) else ""
    m = re.search(r'"([^"]+)"\s*:\s*"?([^",{}\[\]]*)$', text)
    path, _on_key, node = doc.path_at(line, col)
    # walk up to the innermost mapping that contains the cursor
    while path and node is not None and node.kind != "map":
        path = path[:-1]
        node = doc.node_at_path(path)
    if m:
        typed = m.group(2)
        return CursorContext((*path, m.group(1)), "value", col - len(typed), typed, 2)
    km = re.search(r'(?:^|[{,])\s*"?([\w$-]*)$', text)
    if km:
        typed = km.group(1)
        start = col - len(typed) - (1 if text[: col - len(typed)].endswith('"') else 0)
        return CursorContext(path, "key", start, typed, len(text) - len(text.lstrip()))
    return None
