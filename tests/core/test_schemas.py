"""The models are the single source of truth: the shipped schemas must equal what they generate."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from evalens.cli.schema import render_text
from evalens.core.engines import engine_names
from evalens.core.formats import uaaps as uaaps_format
from evalens.core.models import uaaps
from evalens.core.models.catalog import render_all
from evalens.schemas import load_schema, schema_names
from tests.conftest import REPO


def test_schema_files_match_models():
    rendered = render_all()
    for name, schema in rendered.items():
        shipped = (REPO / "schemas" / name).read_text(encoding="utf-8")
        assert shipped == render_text(schema), (
            f"{name} drifted from its model: run `evalens schema --export schemas/`"
        )
    assert set(rendered) == set(schema_names())


@pytest.mark.parametrize("name", schema_names())
def test_schema_is_valid_2020_12_with_docs(name):
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(name) and schema["title"] and schema["description"]

    def walk(node, where):
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        for key, sub in props.items():
            assert sub.get("description"), f"{name}: {where}.{key} has no description"
            assert sub.get("markdownDescription"), f"{name}: {where}.{key} has no markdownDescription"
        for sub in node.get("$defs", {}).values() if isinstance(node, dict) else []:
            walk(sub, where + "/$defs")

    walk(schema, "")


def test_engine_enum_is_the_registry():
    """The exported config schema, the format's schema and the model all list the registered engines."""
    names = list(engine_names())
    assert load_schema("uaaps-eval-config.schema.json")["properties"]["engine"]["enum"] == names
    assert uaaps_format.UaapsConfig().schema()["properties"]["engine"]["enum"] == names  # type: ignore[index]
    assert uaaps.EvalConfig.model_json_schema()["properties"]["engine"]["enum"] == names


def test_case_schema_rules():
    case = load_schema("uaaps-eval-case.schema.json")
    name = case["properties"]["name"]
    assert name["pattern"] == "^[a-z0-9-]+$" and name["maxLength"] == 64
    assert set(case["required"]) == {"name", "input", "judge"}
    config = load_schema("uaaps-eval-config.schema.json")
    assert config["properties"]["timeout"]["default"] == 120


def test_models_and_schema_agree_on_examples():
    """A document the schema accepts, the model accepts, and vice versa for a broken one."""
    good = {
        "name": "a-case",
        "input": {"prompt": "hi", "files": ["fixtures/x"]},
        "expected": {"not-contains": ["E"], "agent-blocked": True},
        "judge": {"criteria": "says hi"},
    }
    bad = {"name": "A Case", "input": {"prompt": ""}, "judge": {}}
    validator = Draft202012Validator(load_schema("uaaps-eval-case.schema.json"))
    assert not list(validator.iter_errors(good))
    assert uaaps.EvalCase.model_validate(good).expected.agent_blocked is True
    assert list(validator.iter_errors(bad))
    with pytest.raises(ValueError):
        uaaps.EvalCase.model_validate(bad)


def test_schema_cli_check(tmp_path, capsys):
    from evalens.cli.schema import main

    assert main(["--export", str(tmp_path)]) == 0
    assert main(["--check", str(tmp_path)]) == 0
    (tmp_path / "uaaps-eval-case.schema.json").write_text(json.dumps({"x": 1}))
    assert main(["--check", str(tmp_path)]) == 1
