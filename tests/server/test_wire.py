"""The wire payloads and settings are declared once in Python (server/wire.py, server/settings.py); the VS Code
extension's wire types are generated from them (server/wire_ts.py) and its settings are checked against them;
these tests fail when the TypeScript drifts from the declarations."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from pydantic import BaseModel

from evalens.core.kinds import published
from evalens.server import wire, wire_ts
from evalens.server.settings import Settings
from tests.conftest import REPO
from tests.server.raw_client import RawServer

EXT = REPO / "vscode-extension"
SETTINGS_TS = (EXT / "src" / "settings.ts").read_text(encoding="utf-8")


def ts_interfaces(source: str) -> dict[str, dict[str, bool]]:
    """``export interface Name { field?: type; ... }`` -> {Name: {field: optional}} (top-level fields only)."""
    out: dict[str, dict[str, bool]] = {}
    for name, body in re.findall(r"export interface (\w+)(?: extends \w+)?\s*\{\n(.*?)\n\}", source, re.S):
        body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
        out[name] = {m.group(1): bool(m.group(2)) for m in re.finditer(r"^  (\w+)(\?)?\s*:", body, re.M)}
    return out


def test_generated_protocol_is_up_to_date():
    """Regenerate with `python -m evalens.server.wire_ts --write` when this fails."""
    assert wire_ts.TS_PATH.read_text(encoding="utf-8") == wire_ts.ts_source()
    check = subprocess.run(
        [sys.executable, "-m", "evalens.server.wire_ts", "--check"], capture_output=True, text=True, cwd=REPO
    )
    assert check.returncode == 0, check.stdout


def test_generated_interfaces_have_each_models_wire_fields():
    interfaces = ts_interfaces(wire_ts.ts_source())
    for model in wire.MODELS:
        schema = model.model_json_schema(by_alias=True)
        fields = {name: name not in schema.get("required", []) for name in schema["properties"]}
        assert interfaces[model.__name__] == fields, model.__name__


@pytest.mark.parametrize(
    ("schema", "ts"),
    [
        ({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}, "number | null"),
        (
            {"items": {"enum": ["PASS", "FAIL", "SKIP", "ERROR"], "type": "string"}, "type": "array"},
            "Verdict[]",
        ),
        ({"enum": ["failed", "stale"], "type": "string"}, '"failed" | "stale"'),
        ({"items": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "type": "array"}, "(string | null)[]"),
        ({"additionalProperties": True, "type": "object"}, "Record<string, unknown>"),
        ({"anyOf": [{"$ref": "#/$defs/LspRange"}, {"type": "null"}]}, "LspRange | null"),
        ({"anyOf": [{}, {"type": "null"}]}, "unknown"),
    ],
)
def test_schema_shapes_become_typescript(schema: dict, ts: str):
    assert wire_ts.ts_type(schema) == ts


def test_an_untranslated_schema_shape_is_refused_not_typed_loosely():
    with pytest.raises(wire_ts.UnsupportedSchema):
        wire_ts.ts_type({"type": "object", "properties": {"a": {"type": "string"}}})


def test_the_extension_takes_its_wire_types_from_the_generated_file():
    protocol = (EXT / "src" / "protocol.ts").read_text(encoding="utf-8")
    assert 'export * from "./protocol.generated";' in protocol
    assert "export interface" not in protocol and "export type" not in protocol  # no hand-written copies


def test_the_server_registers_exactly_the_declared_commands_and_publishes_valid_experimental():
    with RawServer(cwd=REPO) as server:
        reply = server.initialize()
    caps = reply["result"]["capabilities"]
    assert sorted(caps["executeCommandProvider"]["commands"]) == sorted(wire.COMMANDS.values())
    experimental = wire.ExperimentalCapabilities.model_validate(caps["experimental"]["evalens"])
    assert experimental.wire() == {"fileKinds": published()}


def test_every_command_is_registered_through_typed_command():
    """One way to register a command (issue 23): ``run_state.typed_command`` reads the declared argument model
    and sends the declared answer model; a ``server.command`` anywhere else would skip both. The start-up
    placeholders (``server/startup.py``, issue 43) are the one other caller: they only name the commands for the
    initialize answer, raise if reached, and are replaced by the typed registrations before any message is
    handled (``tests/server/test_start_up.py``)."""
    registering = re.compile(r"\.command\(")
    allowed = {"server/features/run_state.py", "server/startup.py"}
    found = [
        f"{path.relative_to(REPO)}:{n}"
        for folder in ("server", "evalens")
        for path in sorted((REPO / folder).rglob("*.py"))
        if path.relative_to(REPO).as_posix() not in allowed
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if registering.search(line.split("#", 1)[0])
    ]
    assert found == []


def test_settings_ts_sends_only_settings_the_server_reads():
    aliases = {info.alias for info in Settings.model_fields.values()}
    sent = ts_interfaces(SETTINGS_TS)["WireSettings"]
    assert set(sent) - {"server"} <= aliases, set(sent) - aliases
    contributed = json.loads((EXT / "package.json").read_text())["contributes"]["configuration"]["properties"]
    server_side = {k.removeprefix("evalens.") for k in contributed} - {"server.path", "server.args"}
    client_only = {"trace.server", "logLevel"}
    groups = {
        info.alias: info.annotation
        for info in Settings.model_fields.values()
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
    }
    nested = {
        f"{alias}.{sub.alias}" for alias, model in groups.items() for sub in model.model_fields.values()
    }
    assert {k for k in server_side if k.split(".")[0] in groups} == nested  # evalens.run.* both ways
    assert server_side - client_only - nested <= aliases, server_side - client_only - nested - aliases


def test_settings_take_camel_case_keys_and_keep_good_values_next_to_bad_ones():
    s = Settings()
    errors = s.update(
        {
            "evalens": {
                "maxParallelRuns": 4,
                "keepSandbox": True,
                "timeout": "soon",
                "apiKeyEnvVars": ["MY_KEY"],
                "codeLens": False,
            }
        }
    )
    assert (s.max_parallel_runs, s.keep_sandbox, s.api_key_env_vars, s.code_lens) == (
        4,
        True,
        ["MY_KEY"],
        False,
    )
    assert s.timeout is None and len(errors) == 1 and errors[0].startswith("evalens.timeout:")
    assert s.update({"maxParallelRuns": None, "engine": "codex", "unknown": 1}) == []
    assert (s.max_parallel_runs, s.engine) == (2, "codex")  # null: back to the default
    assert s.update({"maxParallelRuns": 0})[0].startswith("evalens.maxParallelRuns:")
    assert s.max_parallel_runs == 2
    assert s.update("not a dict") == [] and s.update({"evalens": 3}) == []


def test_payloads_refuse_undeclared_fields():
    with pytest.raises(ValueError):
        wire.RunStateParams.model_validate({"running": 1, "extra": 2})
    assert wire.VerdictChangedParams(uri="u", name="n", verdict="PASS").wire() == {
        "uri": "u",
        "name": "n",
        "verdict": "PASS",
    }


def test_the_settings_validation_reads_are_real_vscode_settings():
    """Issue 45 #10: the server judges SKILL.md by ``evalens.skillProfile``, which VS Code did not know (no
    setting to set, no completion in settings.json). Each setting validation reads is contributed, with the
    values the server accepts, and settings.ts sends it."""
    from evalens.core.models.skill_md import PROFILES

    contributed = json.loads((EXT / "package.json").read_text())["contributes"]["configuration"]["properties"]
    sent = ts_interfaces(SETTINGS_TS)["WireSettings"]
    for key in Settings().rule_settings():
        setting = contributed.get(f"evalens.{key}")
        assert setting is not None, f"evalens.{key} is read by the server but not a VS Code setting"
        assert key in sent
    profile = contributed["evalens.skillProfile"]
    assert profile["enum"] == ["auto", *PROFILES] and profile["default"] == Settings().skill_profile
