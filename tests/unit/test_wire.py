"""The wire payloads and settings are declared once in Python (server/wire.py, server/settings.py) and mirrored
by the VS Code extension; these tests fail when the TypeScript copies drift from the declarations."""

from __future__ import annotations

import json
import re

import pytest
from evalens.server import wire
from evalens.server.settings import Settings
from pydantic import BaseModel

from evalens.core.kinds import published
from tests.conftest import REPO
from tests.lsp.raw_client import RawServer

EXT = REPO / "vscode-extension"
PROTOCOL_TS = (EXT / "src" / "protocol.ts").read_text(encoding="utf-8")
SETTINGS_TS = (EXT / "src" / "settings.ts").read_text(encoding="utf-8")


def ts_interfaces(source: str) -> dict[str, dict[str, bool]]:
    """``export interface Name { field?: type; ... }`` -> {Name: {field: optional}} (top-level fields only)."""
    out: dict[str, dict[str, bool]] = {}
    for name, body in re.findall(r"export interface (\w+)(?: extends \w+)?\s*\{\n(.*?)\n\}", source, re.S):
        body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
        out[name] = {m.group(1): bool(m.group(2)) for m in re.finditer(r"^  (\w+)(\?)?\s*:", body, re.M)}
    return out


def ts_const(source: str, name: str) -> dict[str, str]:
    block = re.search(rf"export const {name} = \{{(.*?)\}} as const;", source, re.S)
    assert block, name
    return dict(re.findall(r'(\w+):\s*"([^"]+)"', block.group(1)))


@pytest.mark.parametrize("model", wire.MODELS, ids=lambda m: m.__name__)
def test_protocol_ts_mirrors_each_model(model: type[wire.Wire]):
    schema = model.model_json_schema(by_alias=True)
    fields = {name: name not in schema.get("required", []) for name in schema["properties"]}
    mirrored = ts_interfaces(PROTOCOL_TS).get(model.__name__)
    assert mirrored is not None, f"protocol.ts has no interface {model.__name__}"
    assert mirrored == fields, f"{model.__name__}: protocol.ts {mirrored} != server/wire.py {fields}"


def test_protocol_ts_names_every_command_and_notification():
    assert ts_const(PROTOCOL_TS, "Commands") == wire.COMMANDS
    assert ts_const(PROTOCOL_TS, "Notifications") == wire.NOTIFICATIONS


def test_the_server_registers_exactly_the_declared_commands_and_publishes_valid_experimental():
    with RawServer(cwd=REPO) as server:
        reply = server.initialize()
    caps = reply["result"]["capabilities"]
    assert sorted(caps["executeCommandProvider"]["commands"]) == sorted(wire.COMMANDS.values())
    experimental = wire.ExperimentalCapabilities.model_validate(caps["experimental"]["evalens"])
    assert experimental.wire() == {"fileKinds": published()}


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
