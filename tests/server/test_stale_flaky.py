"""FLAKY and stale verdicts in the editor: restored from a report, shown in the lens, the hover and the answer
the Test Explorer reads; editing the skill after the run marks the verdict stale and says what changed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server import run_fixtures
from tests.server.run_fixtures import lens_titles, lenses, open_doc

run_pkg = run_fixtures.run_pkg
run_client = run_fixtures.run_client
fake_model = run_fixtures.fake_model


def _write_flaky_report(pkg: Path, case_file: Path) -> None:
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
    from evalens.runner.depends import fingerprint_of
    from evalens.runner.report import write_report
    from evalens.runner.results import UnitResult

    fp = fingerprint_of(
        UnitResult(
            name="greet-missing", case_file=str(case_file), location=[], verdict="FAIL", engine="claude-code"
        )
    )
    assert fp is not None and any(k.startswith("skill:") for k in fp.parts)
    case = ReportCase(
        name="greet-missing",
        verdict="FAIL",
        duration_seconds=9.0,
        case_file="evals/cases/11-fail.yaml",
        runs=3,
        run_verdicts=["PASS", "FAIL", "PASS"],
        pass_rate=0.6667,
        state="FLAKY",
        pass_rate_interval=[0.2077, 0.9385],
        pass_hat_k=0.0,
        reason="flaky: passed 2/3 runs",
        error="flaky: passed 2/3 runs",
        fingerprint=fp.to_json(),
    )
    write_report(
        EvalReport(
            version=1,
            id="eval-run-2026-01-02T00-00-00Z",
            timestamp="2026-01-02T00:00:00Z",
            config=ReportConfig(engine="claude-code"),
            agent=ReportAgent(),
            judge=ReportJudge(),
            environment=ReportEnvironment(),
            package=ReportPackage(name="pdf-tools"),
            cases=[case],
            summary=ReportSummary(total=1, passed=0, failed=1, skipped=0, pass_rate=0.0, flaky=1),
        ),
        pkg / "evals" / "reports" / "2026-01-02T00-00-00Z.json",
    )


async def _titles_until(client: LanguageClient, uri: str, wanted: str, timeout: float = 15) -> list[str]:
    """Ask for lenses until one ends with ``wanted`` (the stale check runs off the loop after a lens request)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        titles = lens_titles(await lenses(client, uri))
        if any(t.endswith(wanted) for t in titles) or asyncio.get_running_loop().time() > deadline:
            return titles
        await asyncio.sleep(0.3)


async def test_flaky_verdict_then_stale_after_a_skill_edit(run_client: LanguageClient, run_pkg: Path) -> None:
    client = run_client
    path = run_pkg / "evals" / "cases" / "11-fail.yaml"
    _write_flaky_report(run_pkg, path)
    uri = await open_doc(client, path)
    titles = lens_titles(await lenses(client, uri))
    assert "≈ FLAKY 2/3" in titles, titles
    await asyncio.sleep(1.2)  # a check ran on that request: still current
    assert "≈ FLAKY 2/3" in lens_titles(await lenses(client, uri))

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2)
        )
    )
    assert hover is not None
    text = hover.contents.value if isinstance(hover.contents, types.MarkupContent) else str(hover.contents)
    assert "FLAKY" in text and "Runs: 2/3 (21%–94%) passed" in text and "Stale" not in text

    skill_md = next((run_pkg / "skills").glob("*/SKILL.md"))
    skill_md.write_text(skill_md.read_text() + "\nOne more instruction.\n")
    await asyncio.sleep(1.1)  # past the minimum interval between two checks
    titles = await _titles_until(client, uri, "· stale")
    assert "≈ FLAKY 2/3 · stale" in titles, titles
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2)
        )
    )
    assert hover is not None
    text = hover.contents.value if isinstance(hover.contents, types.MarkupContent) else str(hover.contents)
    assert f"**Stale**: skill {skill_md.parent.name} changed since this run" in text


async def _discovered(client: LanguageClient, uri: str, name: str) -> dict:
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{"uri": uri}])
    )
    cases = answer["cases"] if isinstance(answer, dict) else answer
    return next(c for c in cases if c["name"] == name)


async def test_only_the_cases_own_text_changing_makes_its_result_outdated(
    run_client: LanguageClient, run_pkg: Path
) -> None:
    """The Test Explorer dims a result (VS Code's outdated, which withdraws its inline failures) only when the
    case as written is gone: a skill edit marks the result stale and leaves it current for the Test Explorer;
    an edit of the case's own text makes it ``lastOutdated`` too (issue 45 item 4)."""
    client = run_client
    path = run_pkg / "evals" / "cases" / "11-fail.yaml"
    _write_flaky_report(run_pkg, path)
    uri = await open_doc(client, path)
    lens_titles(await lenses(client, uri))
    entry = await _discovered(client, uri, "greet-missing")
    assert entry["lastVerdict"] == "FAIL" and not entry.get("lastStale") and "lastOutdated" not in entry, (
        entry
    )

    skill_md = next((run_pkg / "skills").glob("*/SKILL.md"))
    skill_md.write_text(skill_md.read_text() + "\nOne more instruction.\n")
    await asyncio.sleep(1.1)
    await _titles_until(client, uri, "· stale")
    entry = await _discovered(client, uri, "greet-missing")
    assert entry["lastStale"] == [f"skill {skill_md.parent.name} changed"] and "lastOutdated" not in entry, (
        entry
    )

    text = path.read_text()
    assert "Write a greeting" in text
    path.write_text(text.replace("Write a greeting", "Write a short greeting", 1))
    await asyncio.sleep(1.1)
    deadline = asyncio.get_running_loop().time() + 15
    while True:
        lens_titles(await lenses(client, uri))
        entry = await _discovered(client, uri, "greet-missing")
        if entry.get("lastOutdated") or asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.3)
    assert entry.get("lastOutdated") is True, entry
    assert "the unit's own text changed" in entry["lastStale"], entry
