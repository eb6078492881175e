"""A faster route from YAML text to positioned ``Node`` trees: build straight from libyaml's event stream.

``documents._compose_yaml`` asks this module first. It handles the plain documents eval files are made of
(no anchors, aliases, merge keys, explicit tags or complex keys; one document) and gives up (returns None) on anything
else, so the composer-based builder keeps handling every edge case with its exact messages. Skipping
PyYAML's Python-level node objects and resolver calls roughly halves parse time on a 6,500-line tasks.yaml.
A differential test (tests/unit/test_formats_yaml_events.py) checks trees, values and problems are identical.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml import events as ev

from evalens.core.problems import Problem, Severity, Span

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


def compose(
    text: str, line_offset: int, loader_cls: Any, node_cls: Any, max_nodes: int, max_depth: int
) -> tuple[Any, Any, list[Problem]] | None:
    """(root node, plain value, problems), or None when the document needs the full composer."""
    try:
        loader = loader_cls(text)
    except yaml.YAMLError:
        return None
    get = loader.get_event
    ScalarEvent, MappingStart, SequenceStart = ev.ScalarEvent, ev.MappingStartEvent, ev.SequenceStartEvent
    MappingEnd, SequenceEnd = ev.MappingEndEvent, ev.SequenceEndEvent
    problems: list[Problem] = []
    # One frame per open collection: [is_map, start line, start col, value, pending key, seen keys, children]
    stack: list[list[Any]] = []
    root: Any = None
    data: Any = None
    count = 0
    cache: dict[str, Any] = {}
    try:
        first = get()
        if first.__class__ is not ev.StreamStartEvent:
            return None
        start = get()
        if start.__class__ is not ev.DocumentStartEvent:
            return None  # empty stream: the composer's answer is simple, let it give it
        while True:
            event = get()
            cls = event.__class__
            if cls is ScalarEvent:
                if event.anchor is not None or (event.tag is not None and event.tag != "!"):
                    return None
                s, e = event.start_mark, event.end_mark
                span = Span(s.line + line_offset, s.column, e.line + line_offset, e.column)
                count += 1
                if stack:
                    frame = stack[-1]
                    if frame[0] and frame[4] is None:  # a key: only its text and range are kept
                        if event.value == "<<" and event.implicit[0]:
                            return None  # a merge key: the composer resolves it
                        frame[4] = (event.value, span)
                        continue
                raw = event.value
                if event.implicit[0]:
                    value = cache.get(raw, cache)
                    if value is cache:
                        value = cache[raw] = _plain_value(loader_cls, raw)
                else:
                    value = raw
                node = node_cls("scalar", span, value, style=event.style)
            elif cls is MappingStart or cls is SequenceStart:
                if (
                    event.anchor is not None
                    or (event.tag is not None and event.tag != "!")
                    or len(stack) >= max_depth
                ):
                    return None
                if stack and stack[-1][0] and stack[-1][4] is None:
                    return None  # a collection used as a key
                s = event.start_mark
                is_map = cls is MappingStart
                stack.append([is_map, s.line + line_offset, s.column, {} if is_map else [], None, {}, []])
                count += 1
                continue
            elif cls is MappingEnd or cls is SequenceEnd:
                is_map, line, col, value, _pending, _seen, children = stack.pop()
                e = event.end_mark
                span = Span(line, col, e.line + line_offset, e.column)
                node = (
                    node_cls("map", span, None, children)
                    if is_map
                    else node_cls("seq", span, None, [], children)
                )
            elif cls is ev.DocumentEndEvent:
                break
            else:
                return None  # aliases and anything unexpected
            if count > max_nodes:
                return None
            if not stack:
                root, data = node, value
                continue
            frame = stack[-1]
            if not frame[0]:
                frame[6].append(node)
                frame[3].append(value)
                continue
            key, kspan = frame[4]
            frame[4] = None
            seen = frame[5]
            if key in seen:
                problems.append(
                    Problem(
                        kspan,
                        Severity.ERROR,
                        "duplicate-key",
                        f"Duplicate key `{key}` (first defined on line "
                        f"{seen[key].start_line + 1}); the last one wins.",
                    )
                )
            else:
                seen[key] = kspan
            frame[6].append((key, kspan, node))
            frame[3][key] = value
        if get().__class__ is not ev.StreamEndEvent:
            return None  # several documents: the composer reports it
    except yaml.YAMLError:
        return None  # the composer reports syntax errors with its own wording
    finally:
        loader.dispose()
    return root, data, problems
