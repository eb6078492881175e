"""Show Run on a running unit follows it, read from its batch's run log (issue 23 item 4), and becomes the
finished run page when the run ends: the real server under both client profiles, the real `claude` CLI and the
fake model.

A skilljack task runs twice from the editor ("Run 2×"), its two runs side by side (one scheduler for every
format, runner/scheduling.py): the agent answers at once in the first to reach the fake model and runs a
4-second shell command in the other. While that one runs, ``evalens.runView`` answers the live page (``live:
true``, HTML and Markdown): one run finished PASS, the other running. Once the batch's report is written the same
request answers the finished run page of that report. A UAAPS case run twice has its live page from the same
reader (``runner/live_run.py``): one run finished, the other running.

The client fixture is ``live_client``, not ``client``: ``tests/server/conftest.py`` runs a test whose ``client`` is
its shared server in the module's event loop, and a function-loop client's connection then stands still while
the test waits (every request sent during the test went unanswered until teardown).
"""

from __future__ import annotations

import asyncio
import shutil
import textwrap
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import EXAMPLE
from tests.fakemodel.server import FakeModelServer
from tests.server.run_fixtures import PROFILES, open_doc, start_run_client, stop_run_client
from tests.server.test_run_lens import needs_claude

pytestmark = pytest.mark.agents

SKILL_MD = "---\nname: greeting\ndescription: Greets the user.\n---\nSay hi.\n"
SCENARIOS = {
    "sleepy": [{"shell": "sleep 4"}, {"text": "DONE: slept."}],
    "quick-then-sleepy": [{"cycle": ["done", "sleepy"]}],
}
UAAPS_CASE = """\
name: live-case
description: One run answers at once, the other sleeps first
target: skill:pdf-tools
input:
  prompt: "Say done. SCENARIO=quick-then-sleepy MARKER={marker}"
expected:
  contains:
    - "DONE"
judge:
  criteria: >
    The reply says DONE. JUDGE=pass
"""
TIMEOUT = 120


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer(idle_timeout=900, scenarios=SCENARIOS) as server:
        yield server


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "live-suite"
    (root / "skills" / "greeting").mkdir(parents=True)
    (root / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    (root / "tasks.yaml").write_text(
        textwrap.dedent(f"""\
        skill: greeting
        tasks:
          - id: live-task
            prompt: "What is an email? SCENARIO=quick-then-sleepy MARKER={uuid.uuid4().hex[:12]}"
            expected_skill_load: none
            deterministic: {{ expect_skill_activation: false }}
        """)
    )
    return root


@pytest_asyncio.fixture(params=PROFILES)
async def live_client(request: Any, fake: FakeModelServer, suite: Path) -> AsyncIterator[LanguageClient]:
    c = await start_run_client(fake, suite, request.param)
    yield c
    await stop_run_client(c)


async def _command(client: LanguageClient, command: str, arg: dict[str, Any]) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(types.ExecuteCommandParams(command=command, arguments=[arg])),
        TIMEOUT,
    )


async def _live_until(
    client: LanguageClient, unit: dict[str, Any], run: asyncio.Future[Any], want: str
) -> Any:
    """Ask Show Run of ``unit`` while ``run`` runs until its live page says ``want``; each answer must come
    at once (a request behind the run would time out here, long before the run ends)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    seen: list[str] = []
    while True:
        assert not run.done(), ("the run ended before its live page said " + want, run.result(), seen)
        assert loop.time() < deadline, seen
        asked = loop.time()
        page = await asyncio.wait_for(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="evalens.runView", arguments=[unit])
            ),
            10,
        )
        assert loop.time() - asked < 10
        if page is not None and page.get("live"):
            seen.append(page["text"])
            if want in page["text"]:
                return page
        await asyncio.sleep(0.3)


@needs_claude
async def test_show_run_follows_a_running_skilljack_task(live_client: LanguageClient, suite: Path) -> None:
    client = live_client
    uri = await open_doc(client, suite / "tasks.yaml")
    unit = {"uri": uri, "name": "live-task"}

    run = asyncio.ensure_future(_command(client, "evalens.runCase", {**unit, "runs": 2}))
    page = await _live_until(client, unit, run, "of 2 running · 1 of 2 finished")
    assert page["title"] == "evalens: live-task (running)" and page["anchor"] == "live"
    assert page["format"] == "html" and '<span class="badge">RUNNING</span>' in page["text"]
    assert 'class="v-PASS">PASS</td>' in page["text"] and "Correctly did not activate" in page["text"]
    assert 'class="v-running">RUNNING</td>' in page["text"]
    report = Path(page["reportPath"])
    assert report.parent == suite / "evals" / "reports" and not report.exists()  # the batch's, still to come
    md = await _command(client, "evalens.runView", {**unit, "format": "markdown"})
    assert md["live"] is True and md["text"].startswith("## RUNNING live-task\n"), md
    assert ": PASS" in md["text"] and ": running" in md["text"], md["text"]

    await _finished_page(client, unit, run, report)


@pytest.fixture
def uaaps_pkg(suite: Path) -> Path:
    """A copy of the example package inside the workspace, with the case of this test."""
    dest = suite / "pdf-tools"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("reports"))
    (dest / "evals" / "reports").mkdir()
    (dest / "evals" / "cases" / "20-live.yaml").write_text(UAAPS_CASE.format(marker=uuid.uuid4().hex[:12]))
    return dest


@needs_claude
async def test_show_run_follows_a_running_uaaps_case(uaaps_pkg: Path, live_client: LanguageClient) -> None:
    client = live_client
    case = uaaps_pkg / "evals" / "cases" / "20-live.yaml"
    uri = await open_doc(client, case)
    unit = {"uri": uri, "name": "live-case"}

    run = asyncio.ensure_future(_command(client, "evalens.runCase", {**unit, "runs": 2}))
    page = await _live_until(client, unit, run, "of 2 running · 1 of 2 finished")
    assert page["title"] == "evalens: live-case (running)" and page["anchor"] == "live"
    assert 'class="v-PASS">PASS</td>' in page["text"] and 'class="v-running">RUNNING</td>' in page["text"]
    report = Path(page["reportPath"])
    assert report.parent == uaaps_pkg / "evals" / "reports" and not report.exists()
    md = await _command(client, "evalens.runView", {**unit, "format": "markdown"})
    assert md["live"] is True and md["text"].startswith("## RUNNING live-case\n"), md
    assert ": PASS" in md["text"] and ": running" in md["text"], md["text"]

    await _finished_page(client, unit, run, report)


async def _finished_page(client: LanguageClient, unit: dict[str, Any], run: Any, report: Path) -> None:
    """Once the run ends, the same request answers the finished run page of the batch's report."""
    name = unit["name"]
    result = await asyncio.wait_for(run, TIMEOUT)
    assert result["verdict"] == "PASS", result
    done = await _command(client, "evalens.runView", unit)
    assert done is not None and not done.get("live"), done
    assert done["title"] == f"evalens: {name}" and Path(done["reportPath"]) == report and report.is_file()
    assert "RUNNING" not in done["text"] and name in done["text"]
    md = await _command(client, "evalens.runView", {**unit, "format": "markdown"})
    assert f"## PASS {name}" in md["text"] and not md.get("live"), md["text"][:500]
