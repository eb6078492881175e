"""Run results stay out of Problems where a Test Explorer shows them (issue 27 #5): VS Code's extension declares
``experimental.evalens.testResults``, and the server then publishes no verdict diagnostics, for open files and in
the workspace pull of closed ones, so nothing piles up beside the Test Explorer or outlives a re-run. A client
without a test UI (Neovim) keeps them: they are its virtual text. No agent: the verdict comes from a report."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from lsprotocol import types

from tests.server import run_fixtures
from tests.server.conftest import diagnostics_for
from tests.server.run_fixtures import lens_titles, lenses, open_doc, start_run_client, stop_run_client

fake_model = run_fixtures.fake_model  # fixtures, re-exported for pytest
run_pkg = run_fixtures.run_pkg


def _write_fail_report(pkg: Path) -> None:
    from evalens.core.models.uaaps import (
        DeterministicChecks,
        EvalReport,
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

    case = ReportCase(
        name="greet-missing",
        verdict="FAIL",
        duration_seconds=4.5,
        case_file="evals/cases/11-fail.yaml",
        deterministic_checks=DeterministicChecks(contains="FAIL"),
        checks=[
            ReportCheck(
                kind="contains",
                value="GREETING-OK",
                status="FAIL",
                detail="output does not contain 'GREETING-OK'",
            )
        ],
        error="output does not contain 'GREETING-OK'",
    )
    stamp = "2026-01-02T00-00-00Z"
    write_report(
        EvalReport(
            version=1,
            id=f"eval-run-{stamp}",
            timestamp="2026-01-02T00:00:00Z",
            config=ReportConfig(engine="claude-code"),
            agent=ReportAgent(),
            judge=ReportJudge(),
            environment=ReportEnvironment(),
            package=ReportPackage(name="pdf-tools"),
            cases=[case],
            summary=ReportSummary(total=1, passed=0, failed=1, skipped=0, pass_rate=0.0),
        ),
        pkg / "evals" / "reports" / f"{stamp}.json",
    )
    time.sleep(0.02)


async def _workspace_report(client, uri: str) -> list[types.Diagnostic] | None:
    """The closed file's entry in the workspace pull (None: not reported, so the editor keeps what it had)."""
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    return next((list(item.items) for item in report.items if item.uri == uri), None)


def _vscode(test_results: bool):
    """What VS Code's extension adds to the profile: pull diagnostics (vscode-languageclient 9) and, with
    ``test_results``, the declaration that its Test Explorer shows run results."""

    def adjust(caps: types.ClientCapabilities) -> None:
        caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=True)
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        if test_results:
            caps.experimental = {"evalens": {"commandLinks": ["evalens.showRun"], "testResults": True}}

    return adjust


@pytest.mark.parametrize("test_results", [True, False])
async def test_verdicts_reach_problems_only_without_a_test_explorer(
    fake_model, run_pkg: Path, test_results: bool
):
    _write_fail_report(run_pkg)
    client = await start_run_client(fake_model, run_pkg, "visual-studio-code", _vscode(test_results))
    try:
        path = run_pkg / "evals" / "cases" / "11-fail.yaml"
        uri = await open_doc(client, path)
        shown = {d.code for d in await diagnostics_for(client, uri) if d.source == "evalens-run"}
        assert "✗ FAIL: output does not contain 'GREETING-OK'" in lens_titles(await lenses(client, uri))
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        closed = None
        for _ in range(250):  # the closed file is re-read off the event loop, then back in the workspace pull
            closed = await _workspace_report(client, uri)
            if closed is not None:
                break
            await asyncio.sleep(0.02)
        assert closed is not None, "a closed file left the workspace pull: its last diagnostics stay forever"
        closed_codes = {d.code for d in closed if d.source == "evalens-run"}
        if test_results:
            assert shown == set() and closed_codes == set()
        else:  # the control: the same verdict is a diagnostic for a client without a test UI
            assert shown == closed_codes == {"eval-fail", "eval-check-failed"}
    finally:
        await stop_run_client(client)
