"""JSON Schema validation of a positioned document, with errors placed on the exact key or value.

Range rules follow yaml-language-server: type/enum/pattern/bounds on the value; unknown and missing keys
on the key. Unknown keys are warnings (UAAPS forward compatibility) with a "did you mean".
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from evalens.core.documents import Node, ParsedDocument, Path
from evalens.core.near_names import opposite
from evalens.core.problems import Edit, Fix, Problem, Severity, Span

_TYPE_WORDS = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "`true` or `false`",
    "array": "a list",
    "object": "a mapping",
    "null": "null",
}


def type_word(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "null" if value is None else type(value).__name__


def dotted(path: Path) -> str:
    """``input.files[0]`` style name of a path, for messages."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the document"


def _cached_validator(schema: dict[str, Any]) -> Any:
    key = schema.get("$id") or json.dumps(schema, sort_keys=True)
    cached = _BY_ID.get(key)
    if cached is None or cached[0] is not schema:
        # lazy: jsonschema costs ~45 ms to import; the server answers initialize before it (issue 43), and the
        # pydantic fast path answers most documents without it
        from jsonschema import Draft202012Validator

        cached = (schema, Draft202012Validator(schema))
        _BY_ID[key] = cached
    return cached[1]


_BY_ID: dict[str, tuple[dict[str, Any], Any]] = {}


def check(doc: ParsedDocument, schema: dict[str, Any]) -> list[Problem]:
    """Schema problems of ``doc`` (which must have parsed)."""
    if doc.root is None:
        return []
    validator = _cached_validator(schema)
    problems: list[Problem] = []
    seen: set[tuple[Span, str]] = set()
    for error in schema_errors(validator, schema, doc.data):
        for problem in _translate(doc, error):
            key = (problem.span, problem.message)
            if key not in seen:
                seen.add(key)
                problems.append(problem)
    problems.extend(unknown_keys(doc, schema))
    return problems


_NULL = re.compile(r"[:\[,]\s*null\b")
_BOOL = re.compile(r"[:\[,]\s*(?:true|false)\b")


def _numeric_literals(schema: dict[str, Any]) -> bool:
    """Whether the schema has a numeric ``const``/``enum`` (where a boolean would fool pydantic)."""
    key = schema.get("$id") or id(schema)
    hit = _NUMERIC.get(key)
    if hit is None:
        hit = _NUMERIC[key] = bool(re.search(r'"(?:const|enum)":\s*\[?\s*-?\d', json.dumps(schema)))
    return hit


_NUMERIC: dict[Any, bool] = {}


def _quick_valid(schema: dict[str, Any], data: Any) -> bool:
    """True when the schema's source model accepts ``data`` strictly (pydantic-core, ~20x faster than
    jsonschema on a 500-task file), so the slow validator need not run. Nulls always take the slow path:
    the models allow ``None`` for absent optionals where the schemas do not. False means "don't know"."""
    return _fast_verdict(schema, data)[0]


PRUNE_MIN_ITEMS = 16
"""Top-level lists at least this long are pruned to their failing items before jsonschema runs."""
_LIST_WIDE = ("minItems", "maxItems", "uniqueItems", "contains", "prefixItems", "minContains", "maxContains")


def _fast_verdict(schema: dict[str, Any], data: Any) -> tuple[bool, list[tuple] | None, bool]:
    """(valid, pydantic error locations or None when unknown, data contains null)."""
    model = _model_for(schema.get("$id"))
    if model is None:
        return False, None, True
    try:
        # no circularity check: parsed YAML/JSON has no cycles (recursive aliases are rejected) - 20% faster
        text = json.dumps(data, check_circular=False)
    except (TypeError, ValueError, RecursionError):
        return False, None, True
    has_null = "null" in text and bool(_NULL.search(text))  # the substring test is ~10x cheaper
    if _numeric_literals(schema) and _BOOL.search(text):
        return False, None, has_null  # pydantic lets True stand for a literal 1; jsonschema does not
    try:
        model.model_validate(data, strict=True, by_alias=True, by_name=False)
    except ValidationError as exc:
        return False, [tuple(e["loc"]) for e in exc.errors()], has_null
    except Exception:  # noqa: BLE001 - any other failure: let jsonschema decide
        return False, None, has_null
    return not has_null, [], has_null


def schema_errors(validator: Any, schema: dict[str, Any], data: Any) -> Iterator[Any]:
    """jsonschema errors of ``data``, computed cheaply: none when the model accepts it, and for long
    top-level lists (tasks, cases) only the items the model rejected (or that hold nulls) are validated;
    error paths are mapped back to the original indices."""
    valid, locs, has_null = _fast_verdict(schema, data)
    if valid:
        return iter(())
    if locs is None or not isinstance(data, dict):
        return validator.iter_errors(data)
    props = _resolve(schema, schema).get("properties", {})
    pruned, remap = dict(data), {}
    for key, value in data.items():
        if not isinstance(value, list) or len(value) < PRUNE_MIN_ITEMS or key not in props:
            continue
        list_schema = _resolve(props[key], schema)
        if any(k in list_schema for k in _LIST_WIDE) or any(
            loc[:1] == (key,) and len(loc) < 2 for loc in locs
        ):
            continue
        keep = {loc[1] for loc in locs if len(loc) >= 2 and loc[0] == key and isinstance(loc[1], int)}
        if has_null:
            keep |= {i for i, item in enumerate(value) if _NULL.search(json.dumps(item))}
        remap[key] = sorted(keep)
        pruned[key] = [value[i] for i in remap[key]]
    if not remap:
        return validator.iter_errors(data)
    return _remapped(validator.iter_errors(pruned), remap)


def _remapped(errors: Iterator[Any], remap: dict[str, list[int]]) -> Iterator[Any]:
    for error in errors:
        path = error.path  # the top-level error's own deque; sub-errors' absolute paths derive from it
        if len(path) >= 2 and path[0] in remap and isinstance(path[1], int):
            path[1] = remap[path[0]][path[1]]
        yield error


def _model_for(schema_id: Any) -> Any:
    if not isinstance(schema_id, str):
        return None
    # lazy: the catalog imports every file model (~0.4 s); the completion and hover modules import this one, and
    # the server answers initialize before any model loads (issue 43); the format modules load them anyway
    from evalens.core.models.base import SCHEMA_BASE_URI
    from evalens.core.models.catalog import SCHEMAS

    if len(_MODELS) != len(SCHEMAS):  # format modules register their schemas as they load
        _MODELS.clear()
        _MODELS.update({SCHEMA_BASE_URI + s.file_name: s.model for s in SCHEMAS})
    return _MODELS.get(schema_id)


_MODELS: dict[str, Any] = {}


def _translate(doc: ParsedDocument, error: Any) -> Iterator[Problem]:
    path: Path = tuple(error.absolute_path)
    kind = error.validator
    value = error.instance
    name = dotted(path)
    data = {"path": list(path), "validator": kind}
    if kind in {"anyOf", "oneOf"} and error.context:
        from jsonschema.exceptions import best_match  # lazy: loaded with the validator, see _cached_validator

        yield from _translate(doc, best_match(error.context))
        return
    if kind == "required":
        missing = [k for k in error.validator_value if not (isinstance(value, dict) and k in value)]
        span = _required_span(doc, path)
        for key in missing:
            where = f" in `{name}`" if path else ""
            yield Problem(
                span,
                Severity.ERROR,
                "missing-key",
                f"Missing required field `{key}`{where}.",
                data={**data, "missing": key},
            )
        return
    if kind == "additionalProperties" and error.validator_value is False:
        extras = (
            [k for k in value if k not in error.schema.get("properties", {})]
            if isinstance(value, dict)
            else []
        )
        for key in extras[:MAX_UNKNOWN_KEYS]:
            yield _unknown_key_problem(
                doc, (*path, key), key, list(error.schema.get("properties", {})), Severity.ERROR
            )
        if len(extras) > MAX_UNKNOWN_KEYS:
            yield _more_unknown_keys(doc, path, len(extras) - MAX_UNKNOWN_KEYS, Severity.ERROR)
        return
    msg = _message(kind, name, value, error, data)
    yield Problem(doc.span_for(path), Severity.ERROR, f"schema-{kind}", msg, data=data)


def _message(kind: str, name: str, value: Any, error: Any, data: dict[str, Any]) -> str:
    """The sentence for one failed keyword, in the file's own terms (the field, its value, what it must be)."""
    want = error.validator_value
    if kind == "type":
        wants = " or ".join(str(_TYPE_WORDS.get(w, w)) for w in (want if isinstance(want, list) else [want]))
        return f"`{name}` must be {wants}, not {type_word(value)}."
    if kind == "enum":
        data["options"] = list(want)
        options = ", ".join(f"`{o}`" for o in want)
        return f"`{value}` is not a valid `{name}`; expected one of {options}."
    if kind == "const":
        return (
            f"`{name}` must be `{json.dumps(want, ensure_ascii=False)}`, not "
            f"`{json.dumps(value, ensure_ascii=False)}`."
        )
    if kind == "pattern":
        return f"`{value}` is not a valid `{name}` (must match `{want}`)."
    if kind == "maxLength":
        return f"`{name}` is {len(value)} characters long; at most {want} are allowed."
    if kind == "minLength":
        return (
            f"`{name}` must not be empty."
            if want == 1
            else f"`{name}` must be at least {want} characters long."
        )
    if kind in _BOUND_WORDS:
        return f"`{name}` must be {_BOUND_WORDS[kind]} {want}, not {value}."
    if kind == "minItems":
        return f"`{name}` needs at least {want} item(s)."
    if kind == "uniqueItems":
        return f"`{name}` must not repeat items."
    return f"`{name}`: {error.message}"


_BOUND_WORDS = {
    "minimum": "at least",
    "exclusiveMinimum": "greater than",
    "maximum": "at most",
    "exclusiveMaximum": "less than",
}


def _required_span(doc: ParsedDocument, path: Path) -> Span:
    """Missing keys go on the parent's key, or the first character of a list item / the document."""
    if path and isinstance(path[-1], str):
        ks = doc.key_span_at_path(path)
        if ks is not None:
            return ks
    node = doc.node_at_path(path)
    if node is not None:
        s = node.span
        if node.kind == "map" and node.entries:
            first = node.entries[0][1]
            return Span(first.start_line, first.start_col, first.end_line, first.end_col)
        return Span(s.start_line, s.start_col, s.start_line, s.start_col + 1)
    return doc.span_for(path, prefer_key=True)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    while isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        ref = target.get("$ref") if isinstance(target, dict) else None
    return schema


def subschema(root: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The schema that applies at ``path`` (following properties / items / $ref), if it can be known."""
    schema = _resolve(root, root)
    for part in path:
        if isinstance(part, int):
            items = schema.get("items")
            if not isinstance(items, dict):
                return None
            schema = _resolve(items, root)
        else:
            props = schema.get("properties", {})
            if part in props:
                schema = _resolve(props[part], root)
            elif isinstance(schema.get("additionalProperties"), dict):
                schema = _resolve(schema["additionalProperties"], root)
            else:
                return None
        if "anyOf" in schema and "properties" not in schema:
            objects = [_resolve(s, root) for s in schema["anyOf"] if isinstance(s, dict)]
            objects = [s for s in objects if s.get("type") in {"object", "array"} or "properties" in s]
            if len(objects) == 1:
                # the field's own docs stay: a `str | list[str]` field keeps its hover text
                docs: dict[str, Any] = {
                    k: schema[k] for k in ("description", "markdownDescription") if k in schema
                }
                schema = {**objects[0], **docs}
    return schema


def unknown_keys(doc: ParsedDocument, root_schema: dict[str, Any]) -> list[Problem]:
    """Keys a schema does not define, where it allows extras: warnings with a did-you-mean fix."""
    walker = _UnknownKeys(doc, root_schema)
    if doc.root is not None:
        walker.walk(doc.root, _resolve(root_schema, root_schema), ())
    return walker.out


_SPLIT_ROOT = frozenset(
    ("$schema", "$id", "title", "description", "markdownDescription", "$defs", "definitions", "type")
    + ("properties", "required", "additionalProperties", "examples")
)
"""Root keywords under which a list's items are checked one by one: none of them reads inside the list."""
_SPLIT_LIST = frozenset(
    ("type", "items", "description", "markdownDescription", "title", "examples", "default")
)
"""List keywords that check each item alone (``minItems``, ``uniqueItems``, ``anyOf``... compare items or choose
among their errors, so a list that has one is checked whole)."""


def check_split(
    doc: ParsedDocument, schema: dict[str, Any], key: str, fresh: list[int]
) -> tuple[list[Problem], dict[int, list[Problem]]] | None:
    """``check`` by items of the root mapping's list ``doc.data[key]`` (issue 43): the problems of everything
    but that list's items, and those of the items ``fresh`` (by index), the others being the caller's to reuse.
    The same problems ``check`` gives, because the list's schema checks each item alone (``_SPLIT_LIST``) and
    nothing at the root looks inside it (``_SPLIT_ROOT``): the items left out change no other error, as for
    the pruning of ``schema_errors``. None when the schema does not allow it."""
    root = _resolve(schema, schema)
    props = root.get("properties")
    data = doc.data
    if (
        doc.root is None
        or doc.root.kind != "map"
        or not isinstance(data, dict)
        or not isinstance(data.get(key), list)
        or not set(root) <= _SPLIT_ROOT
        or not isinstance(props, dict)
        or key not in props
    ):
        return None
    list_schema = _resolve(props[key], schema)
    seq = doc.root.get(key)
    if (
        not set(list_schema) <= _SPLIT_LIST
        or not isinstance(list_schema.get("items"), dict)
        or seq is None
        or seq.kind != "seq"
        or len(seq.items) != len(data[key])
    ):
        return None
    pruned = dict(data)
    pruned[key] = [data[key][i] for i in fresh]
    found: list[Problem] = []
    seen: set[tuple[Span, str]] = set()
    for error in schema_errors(_cached_validator(schema), schema, pruned):
        path = error.path  # the top-level error's own deque: its sub-errors' absolute paths derive from it
        if len(path) >= 2 and path[0] == key and isinstance(path[1], int):
            path[1] = fresh[path[1]]
        for problem in _translate(doc, error):
            seen_key = (problem.span, problem.message)
            if seen_key not in seen:
                seen.add(seen_key)
                found.append(problem)
    walker = _UnknownKeys(doc, schema)
    walker.walk(doc.root, root, (), skip=seq)
    item_schema = walker.res(list_schema["items"])
    for i in fresh:
        if seq.items[i].kind != "scalar":
            walker.walk(seq.items[i], item_schema, (key, i))
    found += walker.out
    return split_by_item(found, key, fresh)


def split_by_item(
    problems: list[Problem], key: str, fresh: list[int]
) -> tuple[list[Problem], dict[int, list[Problem]]]:
    """Problems of the root (those whose ``data["path"]`` is not inside an item of ``key``) and of each item."""
    rest: list[Problem] = []
    items: dict[int, list[Problem]] = {i: [] for i in fresh}
    for p in problems:
        path = (p.data or {}).get("path")
        where = path[1] if isinstance(path, list) and len(path) >= 2 and path[0] == key else None
        if isinstance(where, int) and where in items:
            items[where].append(p)
        else:
            rest.append(p)
    return rest, items


class _UnknownKeys:
    """The walk of ``unknown_keys``. A class rather than a recursive closure: a nested function that calls
    itself is a reference cycle, which kept ``doc`` (~57,000 objects for a 500-task file) alive until the
    next full cyclic-GC pass instead of freeing it when the validation is replaced."""

    __slots__ = ("doc", "root", "out", "resolved")

    def __init__(self, doc: ParsedDocument, root_schema: dict[str, Any]) -> None:
        self.doc = doc
        self.root = root_schema
        self.out: list[Problem] = []
        self.resolved: dict[int, dict[str, Any]] = {}

    def res(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``_resolve`` once per subschema: a 500-task file would otherwise resolve the same $ref 8,000 times."""
        hit = self.resolved.get(id(schema))
        if hit is None:
            hit = self.resolved[id(schema)] = _resolve(schema, self.root)
        return hit

    def walk(self, node: Node, schema: dict[str, Any], path: Path, skip: Node | None = None) -> None:
        """Walk ``node``; the mapping value ``skip`` (a list whose items the caller walks) is passed over."""
        if node.kind == "map":
            props = schema.get("properties")
            addl = schema.get("additionalProperties", True)
            unknown = 0
            for key, _kspan, child in node.entries:
                if child is skip:
                    continue
                if isinstance(props, dict) and key in props:
                    if child.kind != "scalar":
                        self.walk(child, self.res(props[key]), (*path, key))
                elif isinstance(addl, dict):
                    if child.kind != "scalar":
                        self.walk(child, self.res(addl), (*path, key))
                elif isinstance(props, dict) and props and addl is not False and not key.startswith("$"):
                    unknown += 1
                    if unknown <= MAX_UNKNOWN_KEYS:
                        self.out.append(
                            _unknown_key_problem(
                                self.doc, (*path, key), key, list(props), Severity.WARNING, key_span=_kspan
                            )
                        )
            if unknown > MAX_UNKNOWN_KEYS:
                self.out.append(
                    _more_unknown_keys(self.doc, path, unknown - MAX_UNKNOWN_KEYS, Severity.WARNING)
                )
        elif node.kind == "seq":
            items = schema.get("items")
            if isinstance(items, dict):
                item_schema = self.res(items)
                for i, child in enumerate(node.items):
                    if child.kind != "scalar":
                        self.walk(child, item_schema, (*path, i))


def suggest(word: str, options: list[str]) -> str | None:
    """The closest known name to a misspelt one, if any is close. Words that share a leading part
    (`expected_route`, `expected_output`) are compared on the parts that differ: a shared prefix is not a typo.
    A name's opposite (`disallowed-tools` for `allowed-tools`) is never suggested: it is not a typo, and the
    rename would invert the file's meaning (issue #39)."""
    lowered = {o.lower().replace("_", "-"): o for o in options if not opposite(word, o)}
    norm = word.lower().replace("_", "-")
    for match in difflib.get_close_matches(norm, list(lowered), n=3, cutoff=0.72):
        head = _common_segments(norm, match)
        rest_a, rest_b = norm[head:], match[head:]
        if (
            not head
            or not rest_a
            or not rest_b
            or difflib.SequenceMatcher(None, rest_a, rest_b).ratio() >= 0.72
        ):
            return lowered[match]
    return None


def _common_segments(a: str, b: str) -> int:
    """Length of the leading `-`-separated segments two names share (`expected-` for the pair above)."""
    end = 0
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            break
        if x == "-":
            end = i + 1
    return end


MAX_UNKNOWN_KEYS = 100
"""Unknown keys reported one by one per mapping; the rest get one summary (a 40k-key file must stay fast)."""


def _more_unknown_keys(doc: ParsedDocument, path: Path, count: int, severity: Severity) -> Problem:
    where = f"`{dotted(path)}`" if path else "this file"
    return Problem(
        doc.span_for(path, prefer_key=True),
        severity,
        "unknown-key",
        f"{count} more keys of {where} are not fields either (only the first {MAX_UNKNOWN_KEYS} are listed).",
        data={"path": list(path)},
    )


def _unknown_key_problem(
    doc: ParsedDocument,
    path: Path,
    key: str,
    known: list[str],
    severity: Severity,
    key_span: Span | None = None,
) -> Problem:
    parent = dotted(path[:-1])
    where = f"`{parent}`" if path[:-1] else "this file"
    span = key_span or doc.key_span_at_path(path) or doc.span_for(path)
    near = suggest(key, known)
    fixes: list[Fix] = []
    if near:
        msg = f"`{key}` is not a field of {where}; did you mean `{near}`?"
        fixes.append(Fix(f"Rename `{key}` to `{near}`", (Edit(doc.unquoted(span), near),)))
    else:
        msg = f"`{key}` is not a field of {where}; it is ignored. Known fields: {', '.join(known)}."
    return Problem(
        span, severity, "unknown-key", msg, fixes=fixes, data={"path": list(path), "suggestion": near}
    )
