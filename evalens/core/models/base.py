"""Shared machinery for the eval-file models: documented fields and schema export.

The pydantic models are the single source of truth for every file kind: the JSON Schemas in
``schemas/`` are generated from them (``evalens schema --export``) and a test fails if they drift.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import GenerateJsonSchema

SCHEMA_BASE_URI = "https://evalens.dev/schemas/"


class EvalModel(BaseModel):
    """Base of every file model: unknown keys are kept (forward compatibility), aliases accepted."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class StrictEvalModel(BaseModel):
    """For file kinds whose original tool rejects unknown keys."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def doc(
    description: str,
    *,
    type_: str | None = None,
    default: Any = ...,
    unit: str | None = None,
    example: Any = None,
    required: bool = False,
    alias: str | None = None,
    extra_md: str = "",
    **field_kwargs: Any,
) -> Any:
    """A ``Field`` whose plain and markdown descriptions name type, default, unit and example.

    The type shown is read from the field's own JSON Schema when the schema is rendered, so the docs
    cannot drift from the annotation; ``type_`` is only for what a schema cannot say ("number (0–1)").
    """
    shown_default = default is not ... and default is not None and default != [] and default != {}
    plain = description.strip()
    if shown_default:
        plain += f" Default: {json.dumps(default)}."
    if unit:
        plain += f" Unit: {unit}."
    schema_extra = _FieldDoc(
        description.strip(), type_, required, default if shown_default else ..., unit, example, extra_md
    )
    kwargs: dict[str, Any] = {"description": plain, "json_schema_extra": schema_extra, **field_kwargs}
    if alias:
        kwargs["alias"] = alias
    if default is ...:
        return Field(..., **kwargs)
    if isinstance(default, list | dict):
        # validate_default: an absent sub-object becomes its model, not a bare dict
        return Field(default_factory=lambda d=default: type(d)(d), validate_default=True, **kwargs)
    return Field(default, **kwargs)


@dataclass(frozen=True, slots=True)
class _FieldDoc:
    """A field's markdown docs, finished when pydantic renders the field's schema (which names its type)."""

    description: str
    type_: str | None
    required: bool
    default: Any
    unit: str | None
    example: Any
    extra_md: str

    def __call__(self, schema: dict[str, Any]) -> None:
        md = [self.description, "", f"- **Type:** `{self.type_ or schema_type(schema)}`"]
        md.append("- **Required:** yes" if self.required else "- **Required:** no")
        if self.default is not ...:
            md.append(f"- **Default:** `{json.dumps(self.default)}`")
        if self.unit:
            md.append(f"- **Unit:** {self.unit}")
        if self.example is not None:
            shown = self.example if isinstance(self.example, str) else json.dumps(self.example)
            md.append(f"- **Example:** `{shown}`")
        if self.extra_md:
            md += ["", self.extra_md.strip()]
        schema["markdownDescription"] = md_escape("\n".join(md))
        if self.example is not None:
            schema["examples"] = [self.example]


def schema_type(node: Any) -> str:
    """A JSON Schema node's type in the docs' words: ``string``, ``integer[]``, ``map string → number``.

    ``null`` is left out (an optional field is "may be absent"); a ``$ref`` is an ``object``.
    """
    if not isinstance(node, dict):
        return "any"
    for key in ("anyOf", "oneOf"):
        if key in node:
            parts = [
                schema_type(n) for n in node[key] if not (isinstance(n, dict) and n.get("type") == "null")
            ]
            unique = list(dict.fromkeys(parts))
            return " | ".join(unique) if unique else "null"
    if "$ref" in node:
        return "object"
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        if not isinstance(items, dict) or not items:
            return "array"
        inner = schema_type(items)
        return f"({inner})[]" if " | " in inner else f"{inner}[]"
    if kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, dict) and values:
            return f"map string → {schema_type(values)}"
        return "object"
    if isinstance(kind, str):
        return kind
    return "any"


def md_escape(text: str) -> str:
    """Escape ``<``/``>`` outside code spans: markdown renderers would eat ``<name>`` as an HTML tag. As HTML
    entities, which VS Code and both Neovims (0.7 converts them, 0.11 conceals them) show as ``<``; Neovim
    showed a backslash escape as it is (``skills/\\<name\\>/SKILL.md``)."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


class _Generator(GenerateJsonSchema):
    """Plain JSON Schema: optional fields are 'may be absent', not 'may be null'."""

    def nullable_schema(self, schema):
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema):
        out = super().default_schema(schema)
        if out.get("default", 0) is None:
            out.pop("default")
        return out


def export_schema(model: type[BaseModel], *, file_name: str, title: str, description: str) -> dict[str, Any]:
    """Render ``model`` as a 2020-12 schema with ``$id``, title and markdown docs on every field."""
    body = model.model_json_schema(by_alias=True, mode="validation", schema_generator=_Generator)
    body.pop("title", None)
    _clean(body)
    body.pop("description", None)
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_BASE_URI + file_name,
        "title": title,
        "description": description,
        "markdownDescription": description,
    }
    out.update(body)
    return out


def _clean(node: Any) -> None:
    """Drop pydantic's auto-generated property titles; editors would show them instead of the docs."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            for sub in props.values():
                if isinstance(sub, dict):
                    sub.pop("title", None)
                    if "description" not in sub and sub.get("markdownDescription"):
                        # pydantic drops a field description equal to its model's docstring
                        sub["description"] = sub["markdownDescription"].split("\n\n")[0]
        for value in node.values():
            _clean(value)
    elif isinstance(node, list):
        for item in node:
            _clean(item)
