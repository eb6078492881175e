"""The type a field's hover names is read from the field's own schema, so docs and validation cannot disagree.

Before, 610 fields restated their type by hand; 40 had drifted (an ``int`` documented as ``number``, a map as
``object``, a list of objects as ``array``, a ``str | list[str]`` as ``string``).
"""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from evalens.core.models.base import EvalModel, _FieldDoc, _Generator, doc, schema_type
from evalens.core.models.catalog import SCHEMAS


class _Item(EvalModel):
    name: str = doc("A name.")


class _Shapes(EvalModel):
    text: str | None = doc("Optional text.", default=None)
    count: int = doc("A count.")
    share: float = doc("A share.", type_="number (0–1)")
    flag: bool = doc("A flag.", default=False)
    items: list[_Item] = doc("Objects.", default=[])
    tags: list[str] = doc("Strings.", default=[])
    ids: list[str | int] = doc("Mixed.", default=[])
    env: dict[str, str] = doc("A map.", default={})
    scores: dict[str, float] | None = doc("A map of numbers.", default=None)
    loose: dict[str, Any] = doc("Any object.", default={})
    one: str | list[str] = doc("One or many.", default="x")
    kind: Literal["a", "b"] = doc("A choice.", default="a")
    item: _Item | None = doc("A sub-object.", default=None)
    anything: Any = doc("Anything.", default=None)


def _type_line(field: dict[str, Any]) -> str:
    found = re.search(r"- \*\*Type:\*\* `([^`]*)`", field["markdownDescription"])
    assert found, field
    return found.group(1)


def test_the_shown_type_is_the_schema_type():
    props = _Shapes.model_json_schema(schema_generator=_Generator)["properties"]
    shown = {name: _type_line(node) for name, node in props.items()}
    assert shown == {
        "text": "string",
        "count": "integer",
        "share": "number (0–1)",
        "flag": "boolean",
        "items": "object[]",
        "tags": "string[]",
        "ids": "(string | integer)[]",
        "env": "map string → string",
        "scores": "map string → number",
        "loose": "object",
        "one": "string | string[]",
        "kind": "string",
        "item": "object",
        "anything": "any",
    }


def _models() -> list[type[BaseModel]]:
    seen: dict[type[BaseModel], None] = {}

    def walk(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen[model] = None
        for field in model.model_fields.values():
            for sub in _nested(field.annotation):
                walk(sub)

    for spec in SCHEMAS:
        walk(spec.model)
    return list(seen)


def _nested(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in _nested(arg)]


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.__name__)
def test_a_stated_type_says_what_the_schema_cannot(model: type[BaseModel]):
    """``type_=`` is for a range or a meaning ("number (0–1)", "string (path)"), never a restatement."""
    props = model.model_json_schema(by_alias=True, schema_generator=_Generator).get("properties", {})
    for name, field in model.model_fields.items():
        extra = field.json_schema_extra
        if isinstance(extra, _FieldDoc) and extra.type_ is not None:
            derived = schema_type(props[field.alias or name])
            assert extra.type_ != derived, (
                f"{model.__name__}.{name}: type_={extra.type_!r} restates the schema"
            )
