"""The editor's repeats, focused re-runs and budgets end to end (docs/repeats.md#in-the-editor): the "Run N×"
lens makes a unit that passes 2 of 3 times FLAKY, "Run failed" / "Run stale" run exactly the units the CLI's
``--failed`` / ``--stale`` pick, and ``evalens.run.maxCost`` stops an editor batch. Real server, real runner,
real ``claude`` CLI against the fake model, under the VS Code and Neovim 0.7 profiles."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server import run_fixtures
from tests.server.run_fixtures import lens_titles, lenses, open_doc, run_lens
from tests.server.test_run_lens import needs_claude

fake_model = run_fixtures.fake_model  # fixtures, re-exported for pytest
run_pkg = run_fixtures.run_pkg
run_client = run_fixtures.run_client

FLAKY_CASE = """\
name: wobbly
description: Passes 2 of 3 times (the fake model cycles pass, fail, pass)
target: skill:pdf-tools
input:
  prompt: "Write a greeting into output/result.txt. SCENARIO=flaky-2of3 MARKER={marker}"
expected:
  contains:
    - "GREETING-OK"
judge:
  criteria: >
    The reply says that output/result.txt was written. JUDGE=pass
"""


def _only(pkg: Path, *keep: str) -> None:
    """Leave only the named case files (fewer agent runs per test)."""
    for path in (pkg / "evals" / "cases").glob("*.yaml"):
        if path.name not in keep:
            path.unlink()


def _settings(client: LanguageClient, **run: Any) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"evalens": run}))


def _lens(found: list[types.CodeLens], title: str) -> types.CodeLens:
    match = [lens for lens in found if lens.command and lens.command.title == title]
    assert match, (title, lens_titles(found))
    return match[0]


async def _lens_eventually(
    client: LanguageClient, uri: str, title: str, timeout: float = 20
) -> types.CodeLens:
    """Lenses that depend on the off-loop stale check appear on a later request."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = await lenses(client, uri)
        if any(lens.command and lens.command.title == title for lens in found):
            return _lens(found, title)
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no {title!r} lens; lenses: {lens_titles(found)}")
        await asyncio.sleep(0.3)


@needs_claude
async def test_run_n_times_lens_makes_a_flaky_unit(run_client: LanguageClient, run_pkg: Path) -> None:
    client = run_client
    _only(run_pkg)
    path = run_pkg / "evals" / "cases" / "13-flaky.yaml"
    path.write_text(FLAKY_CASE.format(marker=f"m{uuid.uuid4().hex[:10]}"))
    _settings(client, run={"repeats": 3})
    await asyncio.sleep(0.3)
    uri = await open_doc(client, path)
    found = await lenses(client, uri)
    assert lens_titles(found) == ["▶ Run eval", "Dry run", "Run 3×"]
    assert list(_lens(found, "Run 3×").command.arguments) == [{"uri": uri, "name": "wobbly", "runs": 3}]

    result = await run_lens(client, _lens(found, "Run 3×"), timeout=240)

    assert result["verdict"] == "FAIL" and result["state"] == "FLAKY", result
    repeats = result["repeats"]
    assert (repeats["runs"], repeats["passed"], repeats["counted"]) == (3, 2, 3)
    assert sorted(repeats["verdicts"]) == ["FAIL", "PASS", "PASS"]
    assert repeats["interval"] == [0.2077, 0.9385] and repeats["passHatK"] == 0.0
    assert "≈ FLAKY 2/3" in lens_titles(await lenses(client, uri))
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2)
        )
    )
    assert hover is not None and "Runs: 2/3 (21%–94%) passed" in hover.contents.value


@needs_claude
async def test_run_failed_and_run_stale_run_exactly_those(run_client: LanguageClient, run_pkg: Path) -> None:
    client = run_client
    _only(run_pkg, "10-pass.yaml", "11-fail.yaml")
    config = await open_doc(client, run_pkg / "evals" / "eval-config.json")
    assert not [t for t in lens_titles(await lenses(client, config)) if t.startswith("↻")]  # nothing ran yet
    first = await run_lens(client, _lens(await lenses(client, config), "▶ Run all evals"), timeout=240)
    assert {r["name"]: r["verdict"] for r in first} == {"greet": "PASS", "greet-missing": "FAIL"}

    picked = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.pickUnits", arguments=[{"select": "failed"}])
    )
    assert [(p["name"], p["reason"]) for p in picked] == [("greet-missing", "last run: FAIL")]
    failed = _lens(await lenses(client, config), "↻ Run failed (1)")
    assert failed.range.start.line == 0
    client.verdicts.clear()
    again = await run_lens(client, failed, timeout=240)
    assert [r["name"] for r in again] == ["greet-missing"] and again[0]["verdict"] == "FAIL"
    assert {v["name"] for v in client.verdicts} == {"greet-missing"}

    case = run_pkg / "evals" / "cases" / "10-pass.yaml"  # the unit's own text: only greet goes stale
    case.write_text(
        case.read_text().replace(
            "description: The agent writes a greeting file",
            "description: The agent writes a greeting file (reworded)",
        )
    )
    await asyncio.sleep(1.1)  # past the minimum interval between two stale checks
    stale = await _lens_eventually(client, config, "↻ Run stale (1)")
    client.verdicts.clear()
    fresh = await run_lens(client, stale, timeout=240)
    assert [(r["name"], r["verdict"]) for r in fresh] == [("greet", "PASS")]
    assert {v["name"] for v in client.verdicts} == {"greet"}
    titles = lens_titles(await lenses(client, config))
    assert "↻ Run failed (1)" in titles and not any(t.startswith("↻ Run stale") for t in titles)


@needs_claude
async def test_budget_stops_an_editor_batch(run_client: LanguageClient, run_pkg: Path) -> None:
    """Claude Code reports a cost: once the first case spent it, the others of the batch never start."""
    client = run_client
    _only(run_pkg, "10-pass.yaml")
    cases = run_pkg / "evals" / "cases"
    for name in ("20-second.yaml", "21-third.yaml"):
        (cases / name).write_text(run_fixtures.PASS_CASE.replace("name: greet", f"name: {name[3:-5]}"))
    _settings(client, maxParallelRuns=1, run={"maxCost": 0.000001})
    await asyncio.sleep(0.3)
    config = await open_doc(client, run_pkg / "evals" / "eval-config.json")
    results = await run_lens(client, _lens(await lenses(client, config), "▶ Run all evals"), timeout=240)

    by_verdict: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_verdict.setdefault(r["verdict"], []).append(r)
    assert len(by_verdict.get("PASS", [])) == 1 and len(by_verdict.get("SKIP", [])) == 2, results
    for skipped in by_verdict["SKIP"]:
        assert skipped["reason"].startswith("budget spent: $") and "evalens.run.maxCost" in skipped["reason"]
        uri = skipped["uri"]
        await open_doc(client, Path(uri.removeprefix("file://")))
        titles = lens_titles(await lenses(client, uri))
        # a unit the budget never started is its own state in every face (issue #29), not a plain SKIP
        assert any(t.startswith("$ BUDGET: budget spent") for t in titles), titles


@needs_claude
async def test_run_n_times_lens_on_a_skill_creator_eval(tmp_path: Path) -> None:
    """Every runnable format has the lens: a skill-creator eval run twice through ``runner.api.run_file``."""
    import json

    from tests.fakemodel.server import FakeModelServer
    from tests.server.test_run_lens_formats import SCENARIOS, SKILL_MD

    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    path = skill / "evals" / "evals.json"
    path.write_text(
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Say hello to the new team member SCENARIO=graded",
                        "expected_output": "a greeting",
                        "assertions": ["The reply greets the user with the word hello"],
                    }
                ],
            },
            indent=2,
        )
        + "\n"
    )
    with FakeModelServer(idle_timeout=300, scenarios=SCENARIOS) as fake:
        client = await run_fixtures.start_run_client(fake, tmp_path, "visual-studio-code")
        try:
            _settings(client, run={"repeats": 2})
            await asyncio.sleep(0.3)
            uri = await open_doc(client, path)
            found = await lenses(client, uri)
            assert "Run 2×" in lens_titles(found)
            result = await run_lens(client, _lens(found, "Run 2×"), timeout=240)
            assert result["verdict"] == "PASS" and result["repeats"]["runs"] == 2, result
            assert result["repeats"]["verdicts"] == ["PASS", "PASS"]
            assert any(t.startswith("✓ PASS 2/2") for t in lens_titles(await lenses(client, uri)))
        finally:
            await run_fixtures.stop_run_client(client)
