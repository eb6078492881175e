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

from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.fakemodel.server import FakeModelServer
from tests.server.conftest import open_and_diagnose
from tests.server.run_fixtures import open_doc, plain, start_run_client, stop_run_client

COMMAND = "evalens.optimizeDescription"
TITLE = "Optimize description with the trigger set…"
try:
    find_binary("claude", "EVALENS_CLAUDE_BIN")
    HAVE_CLAUDE = True
except EngineNotFound:
    HAVE_CLAUDE = False
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
    # the argument is read as its declared model (wire.OptimizeArgs): each wrong field is named, nothing runs
    for wrong, named in (
        ({"holdout": 1.5}, "`holdout`"),
        ({"runs": "3"}, "`runs`"),
        ({"candidates": True}, "`candidates`"),
        ({"sed": 1}, "`sed`"),
    ):
        with pytest.raises(JsonRpcException) as invalid:
            await asyncio.wait_for(
                keyless.workspace_execute_command_async(
                    types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri, **wrong}])
                ),
                60,
            )
        assert named in str(invalid.value) and "API key" not in str(invalid.value), (wrong, invalid.value)


@pytest.mark.agents
@pytest.mark.skipif(not HAVE_CLAUDE, reason="claude CLI not installed (run .ci/install-agents.sh)")
async def test_the_winner_is_an_edit_to_review(tmp_path: Path) -> None:
    """The real ``claude`` and the scripted judge (tests/runner/test_agents_trigger_optimize.py): of two rewrites
    the one that also wins on the held-out queries is the winner; it comes back as an edit of the description
    line, sent for review with a change annotation that needs confirmation, and the SKILL.md is not written."""
    from tests.runner.test_agents_trigger_optimize import HOLDOUT, SEED, rewrites
    from tests.runner.test_agents_trigger_optimize import greeter as scripted_greeter

    overfit, better = rewrites()
    scenarios = {"propose-rewrites": [{"text": json.dumps({"descriptions": [overfit, better]})}]}
    skill = scripted_greeter(tmp_path)
    before = (skill / "SKILL.md").read_text()
    with FakeModelServer(log_dir=tmp_path / "model-log", idle_timeout=600, scenarios=scenarios) as fake:
        client = await start_run_client(fake, tmp_path, "visual-studio-code")
        sent: list[types.ApplyWorkspaceEditParams] = []

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def _apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            sent.append(params)  # the user discards the preview
            return types.ApplyWorkspaceEditResult(applied=False)

        try:
            uri = from_fs_path(str(skill / "SKILL.md"))
            await open_doc(client, skill / "SKILL.md")
            assert [a for a in await actions_at(client, uri, 2) if a.title == TITLE]
            answer = plain(
                await asyncio.wait_for(
                    client.workspace_execute_command_async(
                        types.ExecuteCommandParams(
                            command=COMMAND, arguments=[{"uri": uri, "holdout": HOLDOUT, "seed": SEED}]
                        )
                    ),
                    600,
                )
            )
        finally:
            await stop_run_client(client)
    assert isinstance(answer, dict), answer
    assert answer["error"] is None, answer
    assert answer["winner"]["label"] == "rewrite 2" and answer["winner"]["description"] == better, answer
    assert answer["cost"]["agent_runs"] == 24 and answer["cost"]["judge_calls"] == 1, answer
    assert any("rewrite 1: rejected" in line for line in answer["log"]), answer["log"]
    (doc_edit,) = answer["edit"]["documentChanges"]
    (text_edit,) = doc_edit["edits"]
    assert text_edit["newText"] == f"description: {json.dumps(better)}\n", text_edit
    assert text_edit["range"]["start"]["line"] == 2 and text_edit["range"]["end"]["line"] == 3, text_edit
    assert answer["edit"]["changeAnnotations"]["evalens.optimizedDescription"]["needsConfirmation"] is True
    (params,) = sent  # offered for review once, and not applied: the user said no
    assert params.edit.change_annotations is not None and answer["applied"] is False
    assert (skill / "SKILL.md").read_text() == before
