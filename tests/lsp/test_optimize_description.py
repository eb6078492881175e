"""The "Optimize description with the trigger set…" code action on a SKILL.md's ``description`` (issue 26 item 4)
against the real server: offered only on the description of a skill that has a trigger set; refused cleanly
without a judge key; and, with the real ``claude`` and the scripted model as agent and judge, the winner comes
back as an edit to review while the SKILL.md stays as it was."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.conftest import open_and_diagnose

COMMAND = "evalens.optimizeDescription"
TITLE = "Optimize description with the trigger set…"
SKILL = "---\nname: greeter\ndescription: >\n  Writes greetings.\n  Use when asked to greet.\n---\nGreet.\n"


def greeter(root: Path, trigger_set: bool = True) -> Path:
    skill = root / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    if trigger_set:
        queries = [
            {"query": "say hi to Ann", "should_trigger": True},
            {"query": "weather?", "should_trigger": False},
        ]
        (skill / "evals" / "trigger-eval.json").write_text(json.dumps(queries))
    return skill / "SKILL.md"


@pytest_asyncio.fixture(params=["visual-studio-code", "neovim@v0.7.0"])
async def keyless(request: Any, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    """The real server with no model key in its environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CODEX_"))}
    config = ClientServerConfig(server_command=[sys.executable, "-m", "evalens", "lsp"], server_env=env)
    client = await config.start()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: Any) -> None:
        return None

    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param), root_uri=from_fs_path(str(tmp_path))
        )
    )
    yield client
    await client.shutdown_session()


async def actions_at(client: LanguageClient, uri: str, line: int) -> list[Any]:
    at = types.Position(line=line, character=2)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return list(found or [])


async def test_offered_on_the_description_and_refused_without_a_judge_key(
    keyless: LanguageClient, tmp_path: Path
) -> None:
    skill_md = greeter(tmp_path / "with")
    uri = from_fs_path(str(skill_md))
    await open_and_diagnose(keyless, uri, SKILL, language="markdown")
    offered = [
        a for a in await actions_at(keyless, uri, 3) if a.title == TITLE
    ]  # the folded value's 2nd line
    # lsprotocol (client side) reads a CodeAction with a `command` member as a Command, the action's command
    # object ending up as its string: what the server sent is still there to check
    assert len(offered) == 1 and f"'command': '{COMMAND}'" in str(offered[0].command), offered
    assert not [a for a in await actions_at(keyless, uri, 1) if a.title == TITLE]  # `name:` is not it
    assert not [a for a in await actions_at(keyless, uri, 6) if a.title == TITLE]  # nor the body
    bare = greeter(tmp_path / "without", trigger_set=False)
    bare_uri = from_fs_path(str(bare))
    await open_and_diagnose(keyless, bare_uri, SKILL, language="markdown")
    assert not [
        a for a in await actions_at(keyless, bare_uri, 2) if a.title == TITLE
    ]  # nothing to measure with
    with pytest.raises(JsonRpcException) as refused:
        await asyncio.wait_for(
            keyless.workspace_execute_command_async(
                types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri}])
            ),
            60,
        )
    assert "no API key for the" in str(refused.value) and "judge" in str(refused.value), refused.value
    assert skill_md.read_text() == SKILL
