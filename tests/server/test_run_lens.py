"""The "Run eval" code lens end to end: real server, real runner, real `claude` CLI against the fake model.

Each test runs under the VS Code and the Neovim 0.7 capability profiles (strict spec checks).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.server import run_fixtures
from tests.server.conftest import diagnostics_for
from tests.server.run_fixtures import lens_titles, lenses, open_doc, processes_with, run_lens, wait_until

fake_model = run_fixtures.fake_model  # fixtures, re-exported for pytest
run_pkg = run_fixtures.run_pkg
run_client = run_fixtures.run_client

try:
    find_binary("claude", "EVALENS_CLAUDE_BIN")
    HAVE_CLAUDE = True
except EngineNotFound:
    HAVE_CLAUDE = False

_skip_without_claude = pytest.mark.skipif(
    not HAVE_CLAUDE, reason="claude CLI not installed (run .ci/install-agents.sh)"
)


def needs_claude(test):
    """Drives the real `claude` CLI: the agents tier (skipped without the CLI)."""
    return pytest.mark.agents(_skip_without_claude(test))


def _by_title(found: list[types.CodeLens], title: str) -> types.CodeLens:
    return next(lens for lens in found if lens.command and lens.command.title == title)


async def _run_diagnostics(client: LanguageClient, uri: str, codes: set[str]) -> list[types.Diagnostic]:
    """Verdict diagnostics arrive by push after a run (both profiles push)."""
    await wait_until(lambda: codes <= {d.code for d in client.diagnostics.get(uri, [])}, timeout=10)
    return [d for d in client.diagnostics[uri] if d.source == "evalens-run"]


@needs_claude
async def test_pass_run(run_client: LanguageClient, run_pkg: Path):
    client = run_client
    uri = await open_doc(client, run_pkg / "evals" / "cases" / "10-pass.yaml")
    found = await lenses(client, uri)
    assert lens_titles(found) == ["▶ Run eval", "Dry run", "Run 5×"]
    assert all(lens.range.start.line == 0 for lens in found)  # the `name:` line

    result = await run_lens(client, _by_title(found, "▶ Run eval"))

    assert result["verdict"] == "PASS", result
    assert result["name"] == "greet" and result["uri"] == uri
    assert result["failedChecks"] == []
    assert result["judge"]["verdict"] == "PASS" and "criteria are met" in result["judge"]["reason"]
    assert result["engine"] == "claude-code" and "GREETING-OK" in result["outputSnippet"]
    assert Path(result["reportPath"]).is_file()
    # the fake model: two calls (write, then text) of 17 input / 7 output tokens; Claude Code reports a cost
    assert result["usage"]["inputTokens"] == 34 and result["usage"]["outputTokens"] == 14
    assert result["usage"]["costUsd"] > 0
    titles = lens_titles(await lenses(client, uri))
    # the verdict last (issue 45 #3): the one title of no fixed length, so a clipped lens line cuts only its end
    assert titles[:4] == ["▶ Run eval", "Dry run", "Run 5×", "Show run"], titles
    assert len(titles) == 5 and titles[4].startswith("✓ PASS ") and titles[4].endswith("s"), titles
    show = [lens.command for lens in await lenses(client, uri) if lens.command.title == "Show run"]
    assert [(c.command, list(c.arguments)) for c in show] == [
        ("evalens.showRun", [{"uri": uri, "name": "greet"}])
    ]
    # a PASS is not a problem: no diagnostic (they are published before the command answers)
    assert [d for d in client.diagnostics.get(uri, []) if d.source == "evalens-run"] == []
    assert client.verdicts[-1]["verdict"] == "PASS" and client.verdicts[-1]["range"]["start"]["line"] == 0
    assert client.run_states[0]["running"] == 1 and client.run_states[-1]["running"] == 0
    if client.profile == "visual-studio-code":
        assert client.lens_refreshes >= 2  # at start (Cancel lens) and with the verdict
    else:
        assert client.lens_refreshes == 0  # Neovim 0.7 does not support workspace/codeLens/refresh
    (reports,) = client.progress_reports.values()
    stages = [r.message.split(":")[0] for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert {"sandbox", "agent", "checks", "judge"} <= set(stages)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd) and reports[-1].message.startswith("✓ PASS")

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2)
        )
    )
    text = hover.contents.value
    for expected in (
        "Last run: ✓ PASS",
        "`contains` `GREETING-OK`",
        "`files-created` `output/result.txt`",
        "Judge (claude-sonnet-4-5): **PASS**",
        "claude-code",
        "GREETING-OK",
        result["reportPath"],
        "34 in / 14 out tokens · $",
    ):
        assert expected in text, text


@needs_claude
async def test_fail_run(run_client: LanguageClient, run_pkg: Path):
    client = run_client
    path = run_pkg / "evals" / "cases" / "11-fail.yaml"
    uri = await open_doc(client, path)
    result = await run_lens(client, _by_title(await lenses(client, uri), "▶ Run eval"))

    assert result["verdict"] == "FAIL", result
    assert result["reason"] == "output does not contain 'GREETING-OK'"
    missing_line = path.read_text().splitlines().index('    - "GREETING-OK"')
    (check,) = result["failedChecks"]
    assert check["check"] == "contains" and check["value"] == "GREETING-OK"
    assert check["range"]["start"] == {"line": missing_line, "character": 6}
    assert "✗ FAIL: output does not contain 'GREETING-OK'" in lens_titles(await lenses(client, uri))
    diags = await _run_diagnostics(client, uri, {"eval-fail", "eval-check-failed"})
    on_name = next(d for d in diags if d.code == "eval-fail")
    assert on_name.severity == types.DiagnosticSeverity.Error and on_name.range.start.line == 0
    assert (
        on_name.message == "eval FAIL: contains: output does not contain 'GREETING-OK'"
    )  # one line; the rest on hover
    on_entry = next(d for d in diags if d.code == "eval-check-failed")
    assert on_entry.range.start.line == missing_line and on_entry.severity == types.DiagnosticSeverity.Error
    assert client.verdicts[-1]["verdict"] == "FAIL"


@needs_claude
async def test_cancel_mid_run_keeps_server_responsive(run_client: LanguageClient, run_pkg: Path):
    """Completion and hover answer while the agent runs; cancelling leaves no process and no sandbox."""
    client = run_client
    marker = (run_pkg / ".slow-marker").read_text()
    uri = await open_doc(client, run_pkg / "evals" / "cases" / "12-slow.yaml")
    run_lens_ = _by_title(await lenses(client, uri), "▶ Run eval")
    before = set(client.protocol._request_futures)
    pending = asyncio.ensure_future(run_lens(client, run_lens_))
    await asyncio.sleep(0.05)
    (request_id,) = set(client.protocol._request_futures) - before
    await wait_until(lambda: processes_with(f"evalens-slow-{marker}"), timeout=60, interval=0.1)
    assert any(p.name.startswith("evalens-") for p in client.sandboxes.iterdir())

    started = time.monotonic()
    completion = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=5, character=0)
        )
    )
    assert time.monotonic() - started < 2 and completion is not None
    assert lens_titles(await lenses(client, uri)) == ["■ Cancel"]

    if client.profile == "visual-studio-code":  # the editor cancels its executeCommand request
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
        with pytest.raises(Exception, match="cancel"):
            await pending
    else:  # the Cancel lens
        cancelled = await run_lens(client, _by_title(await lenses(client, uri), "■ Cancel"), timeout=30)
        assert cancelled == {"cancelled": 1}
        result = await asyncio.wait_for(pending, 30)
        assert result["verdict"] == "SKIP" and result["cancelled"] is True

    await wait_until(lambda: client.run_states and client.run_states[-1]["running"] == 0, timeout=30)
    await wait_until(lambda: not processes_with(marker), timeout=15, interval=0.1)
    assert list(client.sandboxes.iterdir()) == []
    assert lens_titles(await lenses(client, uri)) == [
        "▶ Run eval",
        "Dry run",
        "Run 5×",
    ]  # no verdict from a cancel


async def test_verdict_restored_from_report(run_client: LanguageClient, run_pkg: Path):
    """A report written by an earlier run (here: by the runner's own writer) comes back when the file opens."""
    from evalens.core.models.uaaps import (
        DeterministicChecks,
        EvalReport,
        JudgeVerdict,
        ReportAgent,
        ReportCase,
        ReportCheck,
        ReportConfig,
        ReportEnvironment,
        ReportJudge,
        ReportPackage,
        ReportSummary,
    )
    from evalens.runner.report import write_report

    client = run_client
    path = run_pkg / "evals" / "cases" / "11-fail.yaml"
    old = ReportCase(
        name="greet-missing",
        verdict="PASS",
        duration_seconds=3.0,
        case_file="evals/cases/11-fail.yaml",
        deterministic_checks=DeterministicChecks(contains="PASS"),
        judge_verdict=JudgeVerdict(result="PASS", reason="fine", model="claude-sonnet-4-5"),
    )
    new = ReportCase(
        name="greet-missing",
        verdict="FAIL",
        duration_seconds=4.5,
        case_file="evals/cases/11-fail.yaml",
        deterministic_checks=DeterministicChecks(contains="FAIL"),
        checks=[
            ReportCheck(kind="contains", value="DONE", status="PASS"),
            ReportCheck(
                kind="contains",
                value="GREETING-OK",
                status="FAIL",
                detail="output does not contain 'GREETING-OK'",
            ),
        ],
        agent_output_snippet="DONE: wrote the file.",
        error="output does not contain 'GREETING-OK'",
    )
    reports = run_pkg / "evals" / "reports"
    for stamp, case in (("2026-01-01T00-00-00Z", old), ("2026-01-02T00-00-00Z", new)):
        write_report(
            EvalReport(
                version=1,
                id=f"eval-run-{stamp}",
                timestamp=stamp.replace("-00-00Z", ":00:00Z"),
                config=ReportConfig(engine="claude-code"),
                agent=ReportAgent(),
                judge=ReportJudge(),
                environment=ReportEnvironment(),
                package=ReportPackage(name="pdf-tools"),
                cases=[case],
                summary=ReportSummary(total=1, passed=0, failed=1, skipped=0, pass_rate=0.0),
            ),
            reports / f"{stamp}.json",
        )
        time.sleep(0.02)  # distinct mtimes: the newest report wins
    for _ in range(2):  # open, close, reopen
        uri = await open_doc(client, path)
        diags = [d for d in await diagnostics_for(client, uri) if d.source == "evalens-run"]
        assert {d.code for d in diags} == {"eval-fail", "eval-check-failed"}
        assert "✗ FAIL: output does not contain 'GREETING-OK'" in lens_titles(await lenses(client, uri))
        client.diagnostics.pop(uri, None)
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        await wait_until(lambda u=uri: u in client.diagnostics, timeout=10)
        client.diagnostics.pop(uri, None)

    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{}])
    )
    by_name = {c["name"]: c for c in found}
    assert (
        by_name["greet-missing"]["lastVerdict"] == "FAIL"
        and by_name["greet-missing"]["lastDurationSeconds"] == 4.5
    )
    assert by_name["greet-missing"]["uri"] == from_fs_path(str(path))
    assert by_name["greet"].get("lastVerdict") is None and by_name["extract-text"]["format"] == "uaaps-case"
    last = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.lastReport", arguments=[{"uri": from_fs_path(str(path))}])
    )
    assert last == {"path": str(reports / "2026-01-02T00-00-00Z.json")}


async def test_config_lens_and_dry_run(run_client: LanguageClient, run_pkg: Path):
    client = run_client
    config_uri = await open_doc(client, run_pkg / "evals" / "eval-config.json")
    (run_all,) = await lenses(client, config_uri)
    assert run_all.command.title == "▶ Run all evals" and run_all.command.command == "evalens.runAll"
    assert run_all.range.start.line == 0

    uri = await open_doc(client, run_pkg / "evals" / "cases" / "10-pass.yaml")
    result = await run_lens(client, _by_title(await lenses(client, uri), "Dry run"), timeout=30)
    assert result["dryRun"] is True and result["verdict"] == "SKIP"
    assert result["plan"]["engine"] == "claude-code"
    assert "contains 'GREETING-OK'" in result["plan"]["cases"][0]["checks"]
    assert any("Dry run of greet" in m.message for m in client.messages)
    assert list((run_pkg / "evals" / "reports").iterdir()) == []  # a dry run writes no report


@needs_claude
async def test_run_all_from_config_lens(run_client: LanguageClient, run_pkg: Path):
    """`▶ Run all evals` runs every case file in parallel; a broken case is skipped with its problems, not run."""
    client = run_client
    cases = run_pkg / "evals" / "cases"
    for name in ("01-extract-text.yaml", "02-block-secrets.yaml", "12-slow.yaml"):
        (cases / name).unlink()
    config_uri = await open_doc(client, run_pkg / "evals" / "eval-config.json")
    results = await run_lens(client, _by_title(await lenses(client, config_uri), "▶ Run all evals"))

    by_name = {r["name"]: r for r in results}
    assert set(by_name) == {"Broken Case", "greet-missing", "greet"}
    broken = by_name["Broken Case"]
    assert broken["verdict"] == "SKIP" and broken["problems"] == 4, broken
    assert broken["reason"].startswith("not run: 4 errors to fix first: line 2: ")
    assert by_name["greet-missing"]["verdict"] == "FAIL" and by_name["greet"]["verdict"] == "PASS"
    assert max(s["running"] for s in client.run_states) == 2  # maxParallelRuns = 2
    assert {v["name"] for v in client.verdicts} == {
        "greet-missing",
        "greet",
    }  # nothing ran for the broken case
    titles = lens_titles(await lenses(client, config_uri))
    assert titles == ["▶ Run all evals", "✓ 1 pass · ✗ 1 fail", "↻ Run failed (1)"]


@needs_claude
async def test_shutdown_cancels_runs(run_client: LanguageClient, run_pkg: Path):
    """An editor quitting mid-run leaves no agent process and no sandbox behind."""
    client = run_client
    marker = (run_pkg / ".slow-marker").read_text()
    uri = await open_doc(client, run_pkg / "evals" / "cases" / "12-slow.yaml")
    pending = asyncio.ensure_future(run_lens(client, _by_title(await lenses(client, uri), "▶ Run eval")))
    await wait_until(lambda: processes_with(f"evalens-slow-{marker}"), timeout=60, interval=0.1)
    await asyncio.wait_for(client.shutdown_async(None), 30)
    client.shut_down = True  # type: ignore[attr-defined]
    assert not processes_with(marker)
    assert list(client.sandboxes.iterdir()) == []
    result = await asyncio.wait_for(pending, 10)
    assert result["cancelled"] is True


def test_memory_merges_reports_and_ignores_interrupted_runs(run_pkg: Path):
    """The newest report holding a case wins; a case cut short by a cancel keeps the verdict before it."""
    from evalens.core.index import evals_parent
    from evalens.core.models.uaaps import (
        EvalReport,
        ReportAgent,
        ReportCase,
        ReportConfig,
        ReportEnvironment,
        ReportJudge,
        ReportPackage,
        ReportSummary,
    )
    from evalens.runner.report import write_report
    from evalens.server.features.run_memory import Memory

    def report(stamp: str, cases: list[ReportCase], interrupted: bool = False) -> None:
        write_report(
            EvalReport(
                version=1,
                id=stamp,
                timestamp="2026-01-01T00:00:00Z",
                config=ReportConfig(engine="claude-code"),
                agent=ReportAgent(),
                judge=ReportJudge(),
                environment=ReportEnvironment(),
                package=ReportPackage(name="pdf-tools"),
                summary=ReportSummary(total=len(cases), passed=0, failed=0, skipped=0, pass_rate=0.0),
                cases=cases,
                interrupted=interrupted,
            ),
            run_pkg / "evals" / "reports" / f"{stamp}.json",
        )
        time.sleep(0.02)

    report(
        "2026-01-01T00-00-00Z",
        [ReportCase(name="a", verdict="PASS"), ReportCase(name="b", verdict="FAIL", error="nope")],
    )
    report(
        "2026-01-02T00-00-00Z", [ReportCase(name="a", verdict="FAIL", error="output does not contain 'x'")]
    )
    report(
        "2026-01-03T00-00-00Z",
        [ReportCase(name="b", verdict="ERROR", error="interrupted before the case finished")],
        interrupted=True,
    )
    root = evals_parent(run_pkg / "evals" / "cases" / "10-pass.yaml")
    assert root == run_pkg
    memory = Memory()
    a, b = memory.get(root, "a"), memory.get(root, "b")
    assert (a.result.verdict, a.result.reason) == ("FAIL", "output does not contain 'x'")
    assert a.report_path.endswith("2026-01-02T00-00-00Z.json")
    assert (b.result.verdict, b.result.reason) == ("FAIL", "nope")
    assert memory.get(root, "c") is None
