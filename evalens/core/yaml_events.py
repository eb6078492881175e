"""A faster route from YAML text to positioned ``Node`` trees: build straight from libyaml's event stream.

``documents._compose_yaml`` asks this module first. It handles the plain documents eval files are made of
(no anchors, aliases, merge keys, explicit tags or complex keys; one document) and gives up (returns None) on anything
else, so the composer-based builder keeps handling every edge case with its exact messages. Skipping
PyYAML's Python-level node objects and resolver calls roughly halves parse time on a 6,500-line tasks.yaml.
A differential test (tests/core/test_formats_yaml_events.py) checks trees, values and problems are identical.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml import events as ev

from evalens.core.problems import Problem, Span, duplicate_key

_CONSTRUCTED = {
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}
_STR = "tag:yaml.org,2002:str"
_SAFE = yaml.constructor.SafeConstructor()


def _plain_value(loader_cls: Any, value: str) -> Any:
    """What the composer + ``_Builder.scalar`` make of a plain scalar: int/float/bool/null constructed,
    everything else (timestamps, '=', strings) kept as text."""
    resolvers = loader_cls.yaml_implicit_resolvers
    candidates = resolvers.get(value[0] if value else "", [])
    wildcard = resolvers.get(None)
    if wildcard:
        candidates = [*candidates, *wildcard]
    for tag, regexp in candidates:
        if regexp.match(value):
            if tag in _CONSTRUCTED:
                try:
                    return _SAFE.yaml_constructors[tag](_SAFE, yaml.ScalarNode(tag, value))
                except Exception:  # noqa: BLE001 - odd literals stay strings, as in _Builder.scalar
                    return value
            return value
    return value


class _GiveUp(Exception):
    """The document needs the full composer (anchors, tags, merge keys, complex keys, too large or deep)."""


class _Composer:
    """The state of one document's build: one frame per open collection
    ``[is_map, start line, start col, value, pending key, seen keys, children]``."""

    def __init__(
        self, loader_cls: Any, node_cls: Any, line_offset: int, max_nodes: int, max_depth: int
    ) -> None:
        self.loader_cls = loader_cls
        self.max_nodes = max_nodes
        self.node_cls = node_cls
        self.line_offset = line_offset
        self.max_depth = max_depth
        self.problems: list[Problem] = []
        self.stack: list[list[Any]] = []
        self.count = 0
        self.cache: dict[str, Any] = {}
        self.root: Any = None
        self.data: Any = None

    def scalar(self, event: Any) -> None:
        """A scalar: a mapping's key is kept as the frame's pending key, any other value is attached."""
        if event.anchor is not None or (event.tag is not None and event.tag != "!"):
            raise _GiveUp
        s, e = event.start_mark, event.end_mark
        offset = self.line_offset
        span = Span(s.line + offset, s.column, e.line + offset, e.column)
        self.count += 1
        stack = self.stack
        if stack:
            frame = stack[-1]
            if frame[0] and frame[4] is None:  # a key: only its text and range are kept
                if event.value == "<<" and event.implicit[0]:
                    raise _GiveUp  # a merge key: the composer resolves it
                frame[4] = (event.value, span)
                return
        raw = event.value
        if event.implicit[0]:
            cache = self.cache
            value = cache.get(raw, cache)
            if value is cache:
                value = cache[raw] = _plain_value(self.loader_cls, raw)
        else:
            value = raw
        self.attach(self.node_cls("scalar", span, value, style=event.style), value)

    def open(self, event: Any, is_map: bool) -> None:
        """A mapping or sequence starts: push its frame."""
        stack = self.stack
        if (
            event.anchor is not None
            or (event.tag is not None and event.tag != "!")
            or len(stack) >= self.max_depth
        ):
            raise _GiveUp
        if stack and stack[-1][0] and stack[-1][4] is None:
            raise _GiveUp  # a collection used as a key
        s = event.start_mark
        stack.append([is_map, s.line + self.line_offset, s.column, {} if is_map else [], None, {}, []])
        self.count += 1

    def close(self, event: Any) -> None:
        """A mapping or sequence ends: pop its frame into a node and attach it."""
        is_map, line, col, value, _pending, _seen, children = self.stack.pop()
        e = event.end_mark
        span = Span(line, col, e.line + self.line_offset, e.column)
        node_cls = self.node_cls
        node = node_cls("map", span, None, children) if is_map else node_cls("seq", span, None, [], children)
        self.attach(node, value)

    def attach(self, node: Any, value: Any) -> None:
        """Put a finished node into its parent (or make it the root); a repeated key is a problem."""
        if self.count > self.max_nodes:
            raise _GiveUp
        if not self.stack:
            self.root, self.data = node, value
            return
        frame = self.stack[-1]
        if not frame[0]:
            frame[6].append(node)
            frame[3].append(value)
            return
        key, kspan = frame[4]
        frame[4] = None
        seen = frame[5]
        if key in seen:
            self.problems.append(duplicate_key(kspan, key, seen[key]))
        else:
            seen[key] = kspan
        frame[6].append((key, kspan, node))
        frame[3][key] = value


def compose(
    text: str, line_offset: int, loader_cls: Any, node_cls: Any, max_nodes: int, max_depth: int
) -> tuple[Any, Any, list[Problem]] | None:
    """(root node, plain value, problems), or None when the document needs the full composer."""
    counted = compose_counted(text, line_offset, loader_cls, node_cls, max_nodes, max_depth)
    return counted[:3] if counted is not None else None


def compose_counted(
    text: str, line_offset: int, loader_cls: Any, node_cls: Any, max_nodes: int, max_depth: int
) -> tuple[Any, Any, list[Problem], int] | None:
    """``compose`` plus how many nodes (keys included) it counted against ``max_nodes``: a document
    re-parsed one sequence item at a time (``documents.reparse_item``) checks the bound on the whole."""
    try:
        loader = loader_cls(text)
    except yaml.YAMLError:
        return None
    try:
        if loader.get_event().__class__ is not ev.StreamStartEvent:
            return None
        if loader.get_event().__class__ is not ev.DocumentStartEvent:
            return None  # empty stream: the composer's answer is simple, let it give it
        doc = _events(loader, _Composer(loader_cls, node_cls, line_offset, max_nodes, max_depth))
        if loader.get_event().__class__ is not ev.StreamEndEvent:
            return None  # several documents: the composer reports it
    except _GiveUp:
        return None
    except yaml.YAMLError:
        return None  # the composer reports syntax errors with its own wording
    finally:
        loader.dispose()
    return doc.root, doc.data, doc.problems, doc.count


def _events(loader: Any, doc: _Composer) -> _Composer:
    """One document's events into ``doc``, up to its end (raises ``_GiveUp`` on what it does not handle)."""
    get = loader.get_event
    ScalarEvent, MappingStart, SequenceStart = ev.ScalarEvent, ev.MappingStartEvent, ev.SequenceStartEvent
    MappingEnd, SequenceEnd, DocumentEnd = ev.MappingEndEvent, ev.SequenceEndEvent, ev.DocumentEndEvent
    scalar, open_, close = doc.scalar, doc.open, doc.close
    while True:
        event = get()
        cls = event.__class__
        if cls is ScalarEvent:
            scalar(event)
        elif cls is MappingStart or cls is SequenceStart:
            open_(event, cls is MappingStart)
        elif cls is MappingEnd or cls is SequenceEnd:
            close(event)
        elif cls is DocumentEnd:
            return doc
        else:
            raise _GiveUp  # aliases and anything unexpected
