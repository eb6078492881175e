"""``evalens.runView``: the editors' run view of a unit, from the real server (HTML for VS Code's webview,
Markdown for Neovim's buffer)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from lsprotocol import types

from tests.conftest import REPO

FIXTURE = REPO / "tests" / "runner" / "fixtures" / "run-report"


async def run_view(client, **arg):
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.runView", arguments=[arg])
    )


@pytest.mark.asyncio
async def test_run_view_of_a_unit_opens_at_its_failed_check(client, tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    shutil.copytree(FIXTURE, pkg / "evals" / "reports")
    (pkg / "evals" / "cases").mkdir()
    case = pkg / "evals" / "cases" / "01-respects-policy.yaml"
    case.write_text("name: respects-policy\n")
    page = await run_view(client, uri=case.as_uri(), name="respects-policy")
    assert page["format"] == "html" and page["title"] == "evalens: respects-policy"
    assert page["anchor"] == "u-respects-policy-check-1"  # checks[1] (agent_blocked) failed
    assert 'data-anchor="u-respects-policy-check-1"' in page["text"] and "BLOCKED_BY_POLICY" in page["text"]
    assert page["reportPath"].endswith("2026-11-26T11-58-59Z.json")
    md = await run_view(client, uri=case.as_uri(), name="model-down", format="markdown")
    assert (
        md["format"] == "markdown"
        and "## ERROR model-down" in md["text"]
        and "respects-policy" not in md["text"]
    )
    assert md["anchor"] == "u-model-down-check-0"
    assert await run_view(client, uri=case.as_uri(), name="never-ran") is None
    other = tmp_path / "elsewhere" / "x.yaml"
    assert await run_view(client, uri=other.as_uri(), name="respects-policy") is None


@pytest.mark.asyncio
async def test_compare_with_previous_run(client, tmp_path: Path) -> None:
    """``compare: true``: the unit's two most recent runs from the package's reports, HTML and Markdown."""
    from tests.runner.compare_fixture import EARLIER, LATEST, two_runs

    two_runs(tmp_path / "pkg")
    case = tmp_path / "pkg" / "evals" / "cases" / "01-respects-policy.yaml"
    case.parent.mkdir(parents=True)
    case.write_text("name: respects-policy\n")
    page = await run_view(client, uri=case.as_uri(), name="respects-policy", compare=True)
    assert page["title"] == "evalens: compare respects-policy" and page["reportPath"].endswith(
        f"{LATEST}.json"
    )
    assert '<td class="v-PASS">PASS</td><td class="v-FAIL">FAIL</td>' in page["text"]
    assert "I wrote output/blocked.txt as asked." in page["text"]  # the earlier output, in the diff
    md = await run_view(client, uri=case.as_uri(), name="respects-policy", compare=True, format="markdown")
    assert md["format"] == "markdown" and "| verdict **≠** | PASS | FAIL |" in md["text"]
    only = await run_view(
        client,
        reportPath=str(tmp_path / "pkg" / "evals" / "reports" / f"{EARLIER}.json"),
        name="respects-policy",
        compare=True,
    )
    assert "Only one run of this unit so far" in only["text"]
    assert await run_view(client, uri=case.as_uri(), name="never-ran", compare=True) is None


@pytest.mark.asyncio
@pytest.mark.parametrize("links", [True, False])
async def test_hover_links_to_the_run(tmp_path: Path, links: bool) -> None:
    """A client that runs command links (VS Code declares them) gets "Show run" and "Compare" links in the
    hover of a case with a run; any other client is told about the lens and Neovim's commands."""
    import sys

    from pytest_lsp import ClientServerConfig, client_capabilities

    from tests.runner.compare_fixture import two_runs

    pkg = tmp_path / "pkg"
    two_runs(pkg)
    case = pkg / "evals" / "cases" / "01-respects-policy.yaml"
    case.parent.mkdir(parents=True)
    case.write_text("name: respects-policy\ninput:\n  prompt: hi\nexpected:\n  contains: [GREETING-OK]\n")
    capabilities = client_capabilities("visual-studio-code")
    if links:
        capabilities.experimental = {"evalens": {"commandLinks": ["evalens.showRun", "evalens.compareRuns"]}}
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "evalens", "lsp"]).start()
    try:
        client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
        client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(lambda params: None)
        await client.initialize_session(
            types.InitializeParams(capabilities=capabilities, root_uri=pkg.as_uri())
        )
        uri = case.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="yaml", version=1, text=case.read_text()
                )
            )
        )
        text = ""
        for _ in range(100):  # the verdict memory is restored from the reports in a worker thread
            hover = await client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=types.Position(line=0, character=2),
                )
            )
            text = hover.contents.value if hover else ""
            if "Last run" in text:
                break
            await asyncio.sleep(0.1)
        assert "Last run: ✗ FAIL" in text, text
        arg = quote(json.dumps([{"uri": uri, "name": "respects-policy"}]))
        if links:
            assert f"[Show run](command:evalens.showRun?{arg})" in text
            assert f"[Compare with previous run](command:evalens.compareRuns?{arg})" in text
        else:
            assert "command:" not in text and "`:EvalensShow`" in text
        await client.shutdown_session()
    finally:
        await client.stop()
