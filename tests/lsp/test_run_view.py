"""``evalens.runView``: the editors' run view of a unit, from the real server (HTML for VS Code's webview,
Markdown for Neovim's buffer)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from tests.conftest import REPO

FIXTURE = REPO / "tests" / "runner" / "fixtures" / "run-report"


async def run_view(client, **arg):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="evalens.runView", arguments=[arg]))


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
    assert md["format"] == "markdown" and "## ERROR model-down" in md["text"] and "respects-policy" not in md["text"]
    assert md["anchor"] == "u-model-down-check-0"
    assert await run_view(client, uri=case.as_uri(), name="never-ran") is None
    other = tmp_path / "elsewhere" / "x.yaml"
    assert await run_view(client, uri=other.as_uri(), name="respects-policy") is None
