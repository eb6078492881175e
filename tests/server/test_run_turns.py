"""``evalens/runTurn``: the agent's turns reach the editor while the case runs, before its verdict (real server,
real `claude` CLI, the fake model's scripted write and reply)."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from evalens.server.wire import RunTurnParams
from tests.server import run_fixtures
from tests.server.run_fixtures import lenses, open_doc, run_lens
from tests.server.test_run_lens import needs_claude

fake_model = run_fixtures.fake_model  # fixtures, re-exported for pytest
run_pkg = run_fixtures.run_pkg
run_client = run_fixtures.run_client


@needs_claude
async def test_turns_stream_before_the_verdict(run_client: LanguageClient, run_pkg: Path):
    client = run_client
    uri = await open_doc(client, run_pkg / "evals" / "cases" / "10-pass.yaml")
    run = next(
        lens for lens in await lenses(client, uri) if lens.command and lens.command.title == "▶ Run eval"
    )
    result = await run_lens(client, run)
    assert result["verdict"] == "PASS", result

    timeline = client.timeline  # type: ignore[attr-defined]
    kinds = [kind for kind, _ in timeline]
    turns = [RunTurnParams.model_validate(p) for kind, p in timeline if kind == "runTurn"]
    assert "verdictChanged" in kinds and kinds.index("verdictChanged") > max(
        i for i, k in enumerate(kinds) if k == "runTurn"
    )  # every turn arrived before the verdict
    # the fake's `pass` scenario: write output/result.txt, then reply with the marker
    assert [(t.kind, t.tool) for t in turns] == [("tool", "Write"), ("result", "Write"), ("text", None)]
    assert (
        turns[0].text == "output/result.txt"
        and turns[2].text.startswith("DONE")
        and "GREETING-OK" in turns[2].text
    )
    assert {(t.uri, t.name, t.run) for t in turns} == {(uri, "greet", 1)} and [t.seq for t in turns] == [
        0,
        1,
        2,
    ]
    assert turns[1].call_id == turns[0].call_id and not turns[1].is_error
