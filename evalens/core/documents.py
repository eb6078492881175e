"""Positioned parsing: YAML, JSON and Markdown frontmatter into plain values whose every node knows its range.

Every feature (diagnostics, completion, hover, definition, symbols, code lens) reads this one tree, so a
document is parsed once per version. Parsing never raises: malformed input becomes ``Problem`` objects.
"""

from __future__ import annotations

import bisect
import json.decoder
import re
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from evalens.core.problems import Problem, Severity, Span, duplicate_key

if TYPE_CHECKING:
    import yaml

Language = Literal["yaml", "json", "markdown"]
PathKey = str | int
Path = tuple[PathKey, ...]

MAX_BYTES = 2 * 1024 * 1024
"""Files larger than this are not parsed: editors must stay responsive (no eval file is this big)."""
MAX_NODES = 200_000
"""Bound on nodes visited while expanding aliases; a YAML alias bomb stops here."""
MAX_DEPTH = 200
_SURROGATE = re.compile("[\ud800-\udfff]")


def sub_dict(data: Any, key: str) -> dict[str, Any]:
    """``data[key]`` when ``data`` is a mapping holding a mapping there, else an empty dict (parsed data is
    untrusted: any key may hold anything)."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def sub_list(data: Any, key: str) -> list[Any]:
    """``data[key]`` when ``data`` is a mapping holding a list there, else an empty list."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, list) else []


def _yaml() -> Any:
    """PyYAML, imported by the first YAML parse rather than with this module: every server feature imports this
    module, and PyYAML's ~45 ms came before the server's initialize answer (issue 43). The import system's
    lock makes a first import from two threads safe."""
    # lazy: PyYAML ~45 ms to import; the server answers initialize before it (issue 43)
    import yaml

    return yaml


def _events() -> Any:
    """``evalens.core.yaml_events``, which imports PyYAML at its top: loaded with the first YAML parse too."""
    # lazy: it imports PyYAML (~45 ms); the server answers initialize before it (issue 43)
    from evalens.core import yaml_events

    return yaml_events


@cache
def _loader() -> Any:
    """The YAML loader class: libyaml's is ~10x faster; the pure-Python loader gives the same marks."""
    yaml = _yaml()
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(slots=True)
class Node:
    """A value in the document with its range; mappings keep their keys' ranges too."""

    kind: Literal["map", "seq", "scalar"]
    span: Span
    value: Any = None
    entries: list[tuple[str, Span, Node]] = field(default_factory=list)  # map: (key, key span, value)
    items: list[Node] = field(default_factory=list)  # seq
    style: str | None = None  # YAML scalar style ('|', '>', '"', "'") or None

    _keys: dict[str, int] | None = field(default=None, repr=False, compare=False)

    def _find(self, key: str) -> int | None:
        """Index of the last entry named ``key``: one scan per mapping, then a dict (rules and the schema
        check look up every key of a mapping; rescanning made a 40k-key file quadratic)."""
        if len(self.entries) <= 8:
            for i in range(len(self.entries) - 1, -1, -1):
                if self.entries[i][0] == key:
                    return i
            return None
        if (
            self._keys is None
            or len(self._keys) > len(self.entries)
            or self._keys.get(self.entries[-1][0]) != len(self.entries) - 1
        ):
            self._keys = {k: i for i, (k, _, _) in enumerate(self.entries)}
        return self._keys.get(key)

    def get(self, key: str) -> Node | None:
        i = self._find(key)
        return self.entries[i][2] if i is not None else None

    def key_span(self, key: str) -> Span | None:
        i = self._find(key)
        return self.entries[i][1] if i is not None else None


@dataclass(slots=True)
class _Members:
    """A mapping as a reader builds it, YAML's and JSON's alike: its entries in order, its values, and where each
    key first stood, so a key seen again is one ``duplicate-key`` problem pointing at the first."""

    node: Node
    problems: list[Problem]
    values: dict[str, Any] = field(default_factory=dict)
    first: dict[str, Span] = field(default_factory=dict)

    def add(self, key: str, kspan: Span, child: Node, value: Any) -> None:
        if key in self.first:
            self.problems.append(duplicate_key(kspan, key, self.first[key]))
        else:
            self.first[key] = kspan
        self.node.entries.append((key, kspan, child))
        self.values[key] = value


@dataclass(slots=True)
class ParsedDocument:
    """The result of parsing one file: its plain value, node tree and syntax problems."""

    text: str
    language: Language
    root: Node | None
    data: Any
    problems: list[Problem]
    lines: list[str]
    body_start_line: int = 0  # Markdown: first line after the frontmatter
    # YAML built by the event composer alone: how many nodes it counted (None: the full composer or another
    # language built it); only such a document may be re-parsed one sequence item at a time (reparse_item)
    yaml_nodes: int | None = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.root is not None

    def node_at_path(self, path: Path) -> Node | None:
        node = self.root
        for part in path:
            if node is None:
                return None
            if isinstance(part, int):
                node = node.items[part] if node.kind == "seq" and 0 <= part < len(node.items) else None
            else:
                node = node.get(part) if node.kind == "map" else None
        return node

    def key_span_at_path(self, path: Path) -> Span | None:
        if not path or not isinstance(path[-1], str):
            return None
        parent = self.node_at_path(path[:-1])
        return parent.key_span(path[-1]) if parent is not None and parent.kind == "map" else None

    def span_for(self, path: Path, *, prefer_key: bool = False) -> Span:
        """Best range for a path: its key or value, else the nearest existing ancestor."""
        path = tuple(path)
        while True:
            if prefer_key:
                ks = self.key_span_at_path(path)
                if ks is not None:
                    return ks
            node = self.node_at_path(path)
            if node is not None:
                return self.trim(node.span)
            if not path:
                return Span(0, 0, 0, max(1, len(self.lines[0]) if self.lines else 1))
            path = path[:-1]
            prefer_key = True

    def trim(self, span: Span) -> Span:
        """Clip a block node's range so it ends on its last non-blank character."""
        el, ec = span.end_line, span.end_col
        while el > span.start_line and (ec == 0 or el >= len(self.lines)):
            el -= 1
            ec = len(self.lines[el].rstrip()) if el < len(self.lines) else 0
        if el < len(self.lines):
            ec = min(ec, len(self.lines[el]))
        return Span(span.start_line, span.start_col, el, ec)

    def unquoted(self, span: Span) -> Span:
        """A one-line scalar's range without its quotes, so replacing it keeps the quoting style."""
        if span.start_line == span.end_line and span.start_line < len(self.lines):
            text = self.lines[span.start_line][span.start_col : span.end_col]
            if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
                return Span(span.start_line, span.start_col + 1, span.end_line, span.end_col - 1)
        return span

    def path_at(self, line: int, col: int) -> tuple[Path, bool, Node | None]:
        """The deepest path whose key or value contains the position, and whether it is on the key."""
        path: list[PathKey] = []
        node = self.root
        on_key = False
        while node is not None:
            nxt = None
            if node.kind == "map":
                for key, kspan, child in node.entries:
                    if kspan.contains(line, col):
                        return (*path, key), True, child
                    if (
                        self.trim(child.span).contains(line, col)
                        or child.span.contains(line, col)
                        and child.kind != "scalar"
                    ):
                        path.append(key)
                        nxt = child
                        break
            elif node.kind == "seq":
                for i, child in enumerate(node.items):
                    if child.span.contains(line, col):
                        path.append(i)
                        nxt = child
                        break
            if nxt is None:
                return tuple(path), on_key, node
            node = nxt
        return tuple(path), on_key, None


def split_lines(text: str) -> list[str]:
    """Lines without their endings, the way editors number them (\\r\\n, \\n, \\r)."""
    if "\r" not in text:  # the usual case: str.split is ~9x faster than the regex on a 6,500-line file
        return text.split("\n")
    return re.split(r"\r\n|\r|\n", text)


def parse(text: str, language: Language, previous: ParsedDocument | None = None) -> ParsedDocument:
    """Parse ``text``; never raises. ``previous`` (the last parse of the same document, before an edit) lets a
    YAML edit inside one item of a block sequence re-parse that item alone (``reparse_item``): the tree is
    the one a full parse builds, the rest shared with ``previous``."""
    size = len(text.encode("utf-8", errors="replace")) if len(text) > MAX_BYTES // 4 else len(text)
    if size > MAX_BYTES:
        lines = split_lines(text[: text.find("\n") if "\n" in text[:10_000] else 10_000])[:1]
        prob = Problem(
            Span(0, 0, 0, max(1, len(lines[0]))),
            Severity.ERROR,
            "file-too-large",
            f"File is {size / 1_048_576:.1f} MB; evalens does not validate eval files over "
            f"{MAX_BYTES // 1_048_576} MB.",
        )
        return ParsedDocument(text, language, None, None, [prob], lines)
    lines = split_lines(text)
    if "\x00" in text:
        line = next(i for i, s in enumerate(lines) if "\x00" in s)
        prob = Problem(
            Span.point(line, lines[line].index("\x00")),
            Severity.ERROR,
            "binary-content",
            "File contains NUL bytes; it is not a text file.",
        )
        return ParsedDocument(text, language, None, None, [prob], lines)
    lone = _SURROGATE.search(text)
    if lone is not None:
        line = text.count("\n", 0, lone.start())
        col = lone.start() - (text.rfind("\n", 0, lone.start()) + 1)
        prob = Problem(
            Span(line, col, line, col + 1),
            Severity.ERROR,
            "encoding",
            f"Text contains a lone surrogate (U+{ord(lone.group()):04X}); it is not valid Unicode "
            "and cannot be saved as UTF-8.",
        )
        return ParsedDocument(text, language, None, None, [prob], lines)
    if language == "json":
        return _JsonParser(text, lines).parse()
    if language == "markdown":
        return _parse_frontmatter(text, lines)
    if previous is not None and previous.language == "yaml" and previous.yaml_nodes is not None:
        reused = reparse_item(previous, text, lines)
        if reused is not None:
            return reused
    return _parse_yaml(text, lines)


# --------------------------------------------------------------------------------------------- YAML


_YAML_HINTS = (
    (
        "found character '\\t' that cannot start any token",
        "Tab character in indentation; YAML indents with spaces only.",
    ),
    ("found duplicate anchor", "Anchor defined twice."),
)


def _yaml_error(exc: yaml.YAMLError, lines: list[str], line_offset: int = 0) -> Problem:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = (mark.line if mark else 0) + line_offset
    col = mark.column if mark else 0
    line = min(line, max(0, len(lines) - 1))
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    for needle, better in _YAML_HINTS:
        if needle in str(exc):
            message = f"YAML syntax error: {better}"
    text_line = lines[line] if line < len(lines) else ""
    if (
        "\t" in text_line[: max(col, len(text_line) - len(text_line.lstrip()))]
        or text_line[col : col + 1] == "\t"
    ):
        message = "YAML syntax error: tab character in indentation; YAML indents with spaces only."
    end = len(lines[line]) if line < len(lines) else col + 1
    if end <= col:
        end = col + 1
    return Problem(Span(line, col, line, end), Severity.ERROR, "syntax", message)


_MERGE = "tag:yaml.org,2002:merge"  # a plain `<<` key


@cache
def _safe_constructor() -> Any:
    """One PyYAML constructor for the scalars the full composer builds, made on first use like ``_loader``."""
    return _yaml().constructor.SafeConstructor()


class _Builder:
    """Turn PyYAML nodes into ``Node``s and plain values, bounding alias expansion and resolving merge keys."""

    _ints = {
        "tag:yaml.org,2002:int",
        "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool",
        "tag:yaml.org,2002:null",
    }

    def __init__(self, line_offset: int = 0) -> None:
        self.count = 0
        self.problems: list[Problem] = []
        self.line_offset = line_offset
        self.stack: set[int] = set()
        self.memo: dict[int, tuple[Node, Any, int]] = {}
        self.yaml = _yaml()

    def span(self, node: yaml.Node) -> Span:
        s, e = node.start_mark, node.end_mark
        return Span(s.line + self.line_offset, s.column, e.line + self.line_offset, e.column)

    def build(self, node: yaml.Node, depth: int = 0) -> tuple[Node, Any]:
        out, value, size = self._build(node, depth)
        return out, value

    def _build(self, node: yaml.Node, depth: int) -> tuple[Node, Any, int]:
        """Aliased nodes are built once (memo); their expanded size still counts toward the bound."""
        memo = self.memo.get(id(node))
        if memo is not None:
            self.count += memo[2]
            if self.count > MAX_NODES:
                raise _TooBig(self.span(node))
            return memo
        if depth > MAX_DEPTH:
            raise _TooBig(self.span(node))
        yaml = self.yaml
        if isinstance(node, yaml.ScalarNode):
            self.count += 1
            built = (*self.scalar(node), 1)
            return built
        if id(node) in self.stack:
            raise _TooBig(self.span(node), recursive=True)
        self.stack.add(id(node))
        start_count = self.count
        self.count += 1
        try:
            built_value: list[Any] | dict[str, Any]
            if isinstance(node, yaml.SequenceNode):
                out, built_value = self._build_seq(node, depth)
            else:
                out, built_value = self._build_map(node, depth)
            built = (out, built_value, self.count - start_count)
            if self.count > MAX_NODES:
                raise _TooBig(self.span(node))
            self.memo[id(node)] = built
            return built
        finally:
            self.stack.discard(id(node))

    def _build_seq(self, node: yaml.SequenceNode, depth: int) -> tuple[Node, list[Any]]:
        out = Node("seq", self.span(node))
        values = []
        for item in node.value:
            child, value, _ = self._build(item, depth + 1)
            out.items.append(child)
            values.append(value)
        return out, values

    def _build_map(self, node: yaml.Node, depth: int) -> tuple[Node, dict[str, Any]]:
        """A mapping's entries; duplicate and complex keys are problems, ``<<`` merges resolved after them."""
        out = Node("map", self.span(node))
        members = _Members(out, self.problems)
        mapping = members.values
        merged: list[tuple[Node, dict[str, Any]]] = []
        yaml = self.yaml
        for key_node, value_node in node.value:
            kspan = self.span(key_node)
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag == _MERGE:
                merged += self.merge_sources(kspan, value_node, depth)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problems.append(
                    Problem(
                        kspan, Severity.ERROR, "complex-key", "Only plain scalar keys are supported here."
                    )
                )
                continue
            key = str(key_node.value)
            child, value, _ = self._build(value_node, depth + 1)
            members.add(key, kspan, child, value)
        for source, merged_values in merged:  # explicit keys win, then earlier sources (YAML 1.1)
            for key, kspan, child in source.entries:
                if key not in mapping:
                    out.entries.append((key, kspan, child))
                    mapping[key] = merged_values[key]
        return out, mapping

    def merge_sources(
        self, kspan: Span, value_node: yaml.Node, depth: int
    ) -> list[tuple[Node, dict[str, Any]]]:
        """The mappings a ``<<`` key merges in (one mapping, or a list of them): resolved here, as js-yaml
        (skilljack), PyYAML (UAAPS's Python tools) and the agent CLIs resolve them, so validation, the lens
        and the runner all see the merged keys. Anything else is an error the tools also refuse."""
        items = value_node.value if isinstance(value_node, self.yaml.SequenceNode) else [value_node]
        sources: list[tuple[Node, dict[str, Any]]] = []
        for item in items:
            child, value, _ = self._build(item, depth + 1)
            if child.kind != "map" or not isinstance(value, dict):
                self.problems.append(
                    Problem(
                        kspan,
                        Severity.ERROR,
                        "merge-invalid",
                        "`<<` merges a mapping (or a list of mappings) into this one; this value is "
                        f"a {'list' if child.kind == 'seq' else 'scalar'}, which YAML tools refuse.",
                    )
                )
                return []
            sources.append((child, value))
        return sources

    def scalar(self, node: yaml.ScalarNode) -> tuple[Node, Any]:
        tag = node.tag
        if tag in self._ints:
            try:
                value = _safe_constructor().construct_object(node)
            except Exception:  # noqa: BLE001 - odd literals stay strings
                value = node.value
        else:
            value = node.value  # str, timestamps and unknown tags stay text
        return Node("scalar", self.span(node), value, style=node.style), value


class _TooBig(Exception):
    def __init__(self, span: Span, recursive: bool = False) -> None:
        super().__init__()
        self.span = span
        self.recursive = recursive


def _compose_yaml(
    text: str, lines: list[str], line_offset: int = 0
) -> tuple[Node | None, Any, list[Problem]]:
    fast = _events().compose(  # plain documents: built from the event stream, ~2x faster
        text, line_offset, _loader(), Node, MAX_NODES, MAX_DEPTH
    )
    if fast is not None:
        return fast
    problems: list[Problem] = []
    yaml = _yaml()
    try:
        loader = _loader()(text)
        try:
            if not loader.check_node():
                return None, None, problems
            root_yaml = loader.get_node()
            extra = loader.get_node() if loader.check_node() else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        return None, None, [_yaml_error(exc, lines, line_offset)]
    except RecursionError:
        return (
            None,
            None,
            [
                Problem(
                    Span.point(line_offset),
                    Severity.ERROR,
                    "too-deep",
                    "Document is nested too deeply to validate.",
                )
            ],
        )
    if extra is not None:
        s = extra.start_mark
        problems.append(
            Problem(
                Span(
                    s.line + line_offset,
                    0,
                    s.line + line_offset,
                    max(1, len(lines[min(s.line + line_offset, len(lines) - 1)])),
                ),
                Severity.ERROR,
                "multi-document",
                "Several YAML documents in one file; an eval file holds one document. "
                "Only the first is used.",
            )
        )
    builder = _Builder(line_offset)
    try:
        root, data = builder.build(root_yaml)
    except _TooBig as big:
        why = (
            "A YAML alias refers to itself."
            if big.recursive
            else f"Document expands to more than {MAX_NODES:,} values through YAML aliases "
            "(an alias bomb?); not validated."
        )
        return (
            None,
            None,
            [
                Problem(
                    big.span
                    if big.span.start_line == big.span.end_line
                    else Span(
                        big.span.start_line, big.span.start_col, big.span.start_line, big.span.start_col + 1
                    ),
                    Severity.ERROR,
                    "alias-bomb",
                    why,
                )
            ],
        )
    return root, data, problems + builder.problems


def _parse_yaml(text: str, lines: list[str]) -> ParsedDocument:
    fast = _events().compose_counted(text, 0, _loader(), Node, MAX_NODES, MAX_DEPTH)
    if fast is not None:
        root, data, problems, count = fast
        return ParsedDocument(text, "yaml", root, data, problems, lines, yaml_nodes=count)
    root, data, problems = _compose_yaml(text, lines)
    return ParsedDocument(text, "yaml", root, data, problems, lines)


_NOT_LOCAL = re.compile(r"[&*!%|>]|<<|^\s*(---|\.\.\.)", re.M)
"""What may make a YAML item's meaning depend on text outside it, or its end depend on what follows: anchors,
aliases, merge keys, tags, directives, block scalars (their chomping reads the lines after), document markers.
An item holding one is parsed with the whole document."""


def reparse_item(previous: ParsedDocument, text: str, lines: list[str]) -> ParsedDocument | None:
    """The parse of ``text`` when it differs from ``previous.text`` only inside one item (not the last) of
    a block sequence that is the root or a root mapping's value, with as many lines as before: that item is
    parsed alone and put in place of the old one; every other node, value and problem is ``previous``'s.
    None when the edit is anything else (the caller parses the whole text).

    Why it gives the tree a full parse gives: the item is parsed at its own columns and line numbers, with a
    sentinel ``-`` line at the next item's dash, so its mapping ends where the full parse ends it (a block
    ends at the next token); nothing in it refers outside it or reads past it (``_NOT_LOCAL``); the document
    stays one plain document whose node count (``yaml_nodes``) is kept under ``MAX_NODES``; and the lines
    around it are unchanged, so the full parse reads them as before. A differential test
    (tests/core/test_incremental_parse.py) holds it to the full parse over random edits."""
    old_lines = previous.lines
    if len(lines) != len(old_lines) or previous.root is None:
        return None
    first = 0
    n = len(lines)
    while first < n and lines[first] == old_lines[first]:
        first += 1
    if first == n:
        return None  # same lines: nothing to reuse by item (the caller's cache holds whole versions)
    last = n - 1
    while last > first and lines[last] == old_lines[last]:
        last -= 1
    root = previous.root
    if root.kind == "seq":
        seq, entry, depth = root, None, MAX_DEPTH
    elif root.kind == "map":
        entry = next(
            (
                i
                for i, (_k, _ks, v) in enumerate(root.entries)
                if v.kind == "seq" and v.span.contains(first, 0)
            ),
            None,
        )
        if entry is None or sum(1 for k, _ks, _v in root.entries if k == root.entries[entry][0]) != 1:
            return None
        seq, depth = root.entries[entry][2], MAX_DEPTH - 1
    else:
        return None
    items = seq.items
    k = next((i for i in range(len(items) - 1) if items[i + 1].span.start_line > last), None)
    if k is None or items[k].span.start_line > first:
        return None
    start, end = items[k].span.start_line, items[k + 1].span.start_line
    dash = _dash_col(old_lines[start], items[k].span.start_col)
    if dash is None or dash != _dash_col(old_lines[end], items[k + 1].span.start_col):
        return None
    old_part, new_part = "\n".join(old_lines[start:end]), "\n".join(lines[start:end])
    if _NOT_LOCAL.search(old_part) or _NOT_LOCAL.search(new_part):
        return None
    fragment = new_part + "\n" + " " * dash + "- 0"
    parsed = _events().compose_counted(fragment, start, _loader(), Node, MAX_NODES, depth)
    if parsed is None:
        return None  # a syntax error or something the event composer leaves to the full one
    frag_root, frag_data, frag_problems, frag_count = parsed
    if (
        frag_root is None
        or frag_root.kind != "seq"
        or len(frag_root.items) != 2
        or frag_root.span.start_col != dash
        or frag_root.items[1].span.start_line != end
    ):
        return None
    # the fragment counted its own seq and the sentinel's scalar beside the item
    count = (previous.yaml_nodes or 0) - _count(items[k]) + frag_count - 2
    if count > MAX_NODES:
        return None
    new_items = [*items[:k], frag_root.items[0], *items[k + 1 :]]
    new_seq = Node("seq", seq.span, seq.value, [], new_items, seq.style)
    old_seq_data = previous.data if entry is None else previous.data[root.entries[entry][0]]
    seq_data = [*old_seq_data[:k], frag_data[0], *old_seq_data[k + 1 :]]
    data: Any
    if entry is None:
        new_root, data = new_seq, seq_data
    else:
        key, kspan, _ = root.entries[entry]
        entries = list(root.entries)
        entries[entry] = (key, kspan, new_seq)
        new_root = Node("map", root.span, root.value, entries, [], root.style)
        data = dict(previous.data)
        data[key] = seq_data
    # in the order the composer reports them: everything before the item, the item's, everything after
    problems = [
        *(p for p in previous.problems if p.span.start_line < start),
        *frag_problems,
        *(p for p in previous.problems if p.span.start_line >= end),
    ]
    return ParsedDocument(text, "yaml", new_root, data, problems, lines, yaml_nodes=count)


def _dash_col(line: str, item_col: int) -> int | None:
    """The column of the ``-`` that opens a sequence item starting at ``item_col`` of ``line`` (None if the
    text before the item is not spaces, one dash and spaces)."""
    head = line[:item_col]
    stripped = head.lstrip(" ")
    if not stripped.startswith("-") or stripped[1:].strip(" ") or len(stripped) < 2:
        return None
    return len(head) - len(stripped)


def _count(node: Node) -> int:
    """The nodes the event composer counts for ``node``: every node and every mapping key."""
    if node.kind == "map":
        return 1 + sum(1 + _count(v) for _k, _ks, v in node.entries)
    if node.kind == "seq":
        return 1 + sum(_count(i) for i in node.items)
    return 1


def _parse_frontmatter(text: str, lines: list[str]) -> ParsedDocument:
    """SKILL.md / task.md: YAML between a first line ``---`` and the next ``---`` line.

    A UTF-8 byte order mark before the first ``---`` is read through (formats decide whether it is a problem:
    skills-ref rejects it in SKILL.md), so the frontmatter is still checked."""
    if not lines or lines[0].lstrip("\ufeff").strip() != "---":
        prob = Problem(
            Span(0, 0, 0, max(1, len(lines[0]) if lines else 1)),
            Severity.ERROR,
            "frontmatter-missing",
            "SKILL.md must start with YAML frontmatter (---)",
        )
        return ParsedDocument(text, "markdown", None, None, [prob], lines)
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if close is None:
        prob = Problem(
            Span(0, 0, 0, 3),
            Severity.ERROR,
            "frontmatter-unclosed",
            "SKILL.md frontmatter not properly closed with ---",
        )
        return ParsedDocument(text, "markdown", None, None, [prob], lines)
    yaml_text = "\n".join(["", *lines[1:close]])  # keep line numbers: line 0 becomes blank
    root, data, problems = _compose_yaml(yaml_text, lines)
    return ParsedDocument(text, "markdown", root, data, problems, lines, body_start_line=close + 1)


# --------------------------------------------------------------------------------------------- JSON


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_WS = re.compile(r"[ \t\n\r]*")


class _JsonError(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


class _JsonParser:
    """A tolerant, positioned JSON parser: reports comments, trailing commas and duplicate keys as problems
    and keeps going, so one stray comma does not hide every other diagnostic."""

    def __init__(self, text: str, lines: list[str]) -> None:
        self.text = text
        self.lines = lines
        self.n = len(text)
        self.problems: list[Problem] = []
        starts = [0]
        for m in re.finditer(r"\r\n|\r|\n", text):
            starts.append(m.end())
        self.starts = starts
        self.depth = 0

    def pos(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]

    def span(self, a: int, b: int) -> Span:
        la, ca = self.pos(a)
        lb, cb = self.pos(b)
        return Span(la, ca, lb, cb)

    def parse(self) -> ParsedDocument:
        try:
            i = self.skip(1 if self.text.startswith("\ufeff") else 0)  # a byte order mark is not content
            if i >= self.n:
                self.problems.append(Problem(Span.point(0), Severity.ERROR, "empty", "File is empty."))
                return ParsedDocument(self.text, "json", None, None, self.problems, self.lines)
            node, value, i = self.value(i)
            i = self.skip(i)
            if i < self.n:
                raise _JsonError(i, "Unexpected text after the JSON value.")
        except _JsonError as err:
            line, col = self.pos(min(err.offset, self.n))
            end = max(col + 1, len(self.lines[line]) if line < len(self.lines) else col + 1)
            self.problems.append(
                Problem(
                    Span(line, col, line, end), Severity.ERROR, "syntax", f"JSON syntax error: {err.message}"
                )
            )
            return ParsedDocument(self.text, "json", None, None, self.problems, self.lines)
        return ParsedDocument(self.text, "json", node, value, self.problems, self.lines)

    def skip(self, i: int) -> int:
        text = self.text
        while True:
            i = _WS.match(text, i).end()  # type: ignore[union-attr]  # \s* always matches
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = self.n if end < 0 else end
                self.comment(i, end)
                i = end
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    raise _JsonError(i, "Unclosed /* comment.")
                self.comment(i, end + 2)
                i = end + 2
            else:
                return i

    def comment(self, a: int, b: int) -> None:
        self.problems.append(
            Problem(self.span(a, b), Severity.ERROR, "json-comment", "Comments are not allowed in JSON.")
        )

    def value(self, i: int) -> tuple[Node, Any, int]:
        text = self.text
        if i >= self.n:
            raise _JsonError(i, "Unexpected end of file; a value is missing.")
        c = text[i]
        if c == "{":
            return self.obj(i)
        if c == "[":
            return self.arr(i)
        if c == '"':
            try:
                s, end = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            except json.JSONDecodeError as exc:
                raise _JsonError(exc.pos, exc.msg) from None
            return Node("scalar", self.span(i, end), s, style='"'), s, end
        m = _NUMBER.match(text, i)
        if m:
            raw = m.group()
            try:
                num: Any = float(raw) if any(ch in raw for ch in ".eE") else int(raw)
            except ValueError:  # over Python's 4,300-digit limit for int()
                raise _JsonError(i, f"Number with {len(raw)} digits is too long to read.") from None
            return Node("scalar", self.span(i, m.end()), num), num, m.end()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, i):
                return Node("scalar", self.span(i, i + len(word)), val), val, i + len(word)
        if c == "'":
            raise _JsonError(i, "Strings must use double quotes.")
        raise _JsonError(i, f"Unexpected character {c!r}; expected a value.")

    def enter(self, i: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _JsonError(i, "Document is nested too deeply to validate.")

    def leave(self, node: Node, value: Any, start: int, close: int) -> tuple[Node, Any, int]:
        """An object or array read up to its closing bracket at ``close``: its range, one level up, past it."""
        node.span = self.span(start, close + 1)
        self.depth -= 1
        return node, value, close + 1

    def obj(self, start: int) -> tuple[Node, Any, int]:
        self.enter(start)
        node = Node("map", Span(0, 0, 0, 0))
        members = _Members(node, self.problems)
        out = members.values
        i = self.skip(start + 1)
        if i < self.n and self.text[i] == "}":
            return self.leave(node, out, start, i)
        while True:
            if i >= self.n:
                raise _JsonError(i, "Unexpected end of file inside an object; `}` is missing.")
            if self.text[i] != '"':
                raise _JsonError(i, "Expected a property name in double quotes.")
            try:
                key, kend = json.decoder.scanstring(self.text, i + 1)  # type: ignore[attr-defined]
            except json.JSONDecodeError as exc:
                raise _JsonError(exc.pos, exc.msg) from None
            kspan = self.span(i, kend)
            i = self.skip(kend)
            if i >= self.n or self.text[i] != ":":
                raise _JsonError(i, f"Expected `:` after property name `{key}`.")
            child, value, i = self.value(self.skip(i + 1))
            members.add(key, kspan, child, value)
            i, closed = self.after_member(i, "}", "a property value")
            if closed:
                break
        return self.leave(node, out, start, i)

    def after_member(self, i: int, close: str, what: str) -> tuple[int, bool]:
        """Past the `,` after a member or item (False: another follows), or at the closing bracket (True); a
        trailing comma is a problem, anything else an error."""
        i = self.skip(i)
        if i < self.n and self.text[i] == ",":
            comma = i
            i = self.skip(i + 1)
            if i < self.n and self.text[i] == close:
                self.problems.append(
                    Problem(
                        self.span(comma, comma + 1),
                        Severity.ERROR,
                        "trailing-comma",
                        "Trailing comma is not allowed in JSON.",
                    )
                )
                return i, True
            return i, False
        if i < self.n and self.text[i] == close:
            return i, True
        raise _JsonError(i, f"Expected `,` or `{close}` after {what}.")

    def arr(self, start: int) -> tuple[Node, Any, int]:
        self.enter(start)
        node = Node("seq", Span(0, 0, 0, 0))
        out: list[Any] = []
        i = self.skip(start + 1)
        if i < self.n and self.text[i] == "]":
            return self.leave(node, out, start, i)
        while True:
            child, value, i = self.value(i)
            node.items.append(child)
            out.append(value)
            i, closed = self.after_member(i, "]", "an array item")
            if closed:
                break
        return self.leave(node, out, start, i)
