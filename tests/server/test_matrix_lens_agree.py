"""After a matrix run (``--engine a,b``, with or without ``--arms``) the case's verdict lens and its hover say the
same last run: the cell of the next run's engine and model (the settings'), else the first cell, and only the
reference arm's cells, never whichever cell report happened to be written last (a no-skill arm's FAIL is not the
case's verdict). A later single run is the last run for both. Reports are written from the report models as the
CLI's matrix run writes them (``<batch>-cell-N.json``), the newest cell last; no agent runs."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from evalens.runner.matrix import cell_report_name
from tests.ci_helpers import make_case, write
from tests.server.conftest import open_and_diagnose
from tests.server.run_fixtures import lens_titles, lenses
from tests.server.test_matrix_hover import CASE, _cell, _hover, _package

VERDICTS = ("PASS", "FAIL", "ERROR", "SKIP", "FLAKY")


def _reports(pkg: Path, cells: list, batch: str) -> None:
    """The cells of one matrix batch, written in cell order a second apart (the last cell is the newest file),
    after every report already there."""
    reports = pkg / "evals" / "reports"
    for p in reports.glob("*.json"):
        p.unlink()
    for i, report in enumerate(cells, 1):
        for case in report.cases:
            case.case_file = f"evals/cases/{case.name}.yaml"
        path = write(report, reports / cell_report_name(batch, i))
        os.utime(path, ns=(1_700_000_000_000_000_000 + i * 10**9,) * 2)


async def _lens_and_hover(client: LanguageClient, uri: str) -> tuple[str, str]:
    """The verdict lens's verdict and the hover's last run line (its verdict, engine and model)."""
    titles = lens_titles(await lenses(client, uri))
    verdicts = [v for t in titles for v in VERDICTS if v in t.split(":")[0].split()]
    assert len(verdicts) == 1, titles
    hover = await _hover(client, uri)
    assert hover.startswith("**Last run: "), hover  # never "No run yet" beside a verdict lens
    return verdicts[0], hover.splitlines()[0]


async def _eventually(client: LanguageClient, uri: str, word: str, timeout: float = 10) -> tuple[str, str]:
    """The lens and hover once the hover's line names ``word`` (a notification or a new report is read on a
    later request); the last pair when it never does, for the assertion to show."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        verdict, line = await _lens_and_hover(client, uri)
        if word in line or asyncio.get_running_loop().time() > deadline:
            return verdict, line
        await asyncio.sleep(0.05)


def _settings(client: LanguageClient, **run: object) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"evalens": run}))


async def test_a_matrix_runs_lens_and_hover_say_the_same_cell(client: LanguageClient, tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    greet = "evals/cases/greet.yaml"
    _reports(
        pkg,
        [
            _cell("claude-code", "sonnet", [make_case("greet", "PASS", file=greet)]),
            _cell("codex", "gpt-5", [make_case("greet", "FAIL", file=greet)]),  # the newest file
        ],
        "2026-01-04T00-00-00Z",
    )
    uri = from_fs_path(str(pkg / "evals" / "cases" / "greet.yaml"))
    await open_and_diagnose(client, uri, CASE)
    verdict, line = await _lens_and_hover(client, uri)
    # no engine set: the first cell (the first --engine), not the newest file's codex FAIL
    assert verdict == "PASS" and "PASS" in line and "claude-code / sonnet" in line, (verdict, line)

    _settings(client, engine="codex")  # the next run is codex's: its cell is the case's verdict
    verdict, line = await _eventually(client, uri, "codex / gpt-5")
    _settings(client, engine=None)  # back to the default (the server outlives the test)
    assert verdict == "FAIL" and "FAIL" in line and "codex / gpt-5" in line, (verdict, line)
    verdict, line = await _eventually(client, uri, "claude-code / sonnet")
    assert verdict == "PASS" and "claude-code / sonnet" in line, (verdict, line)


async def test_a_matrix_by_arms_runs_verdict_is_the_reference_arms(
    client: LanguageClient, tmp_path: Path
) -> None:
    from tests.runner.test_matrix import _arm_cells

    pkg = _package(tmp_path)
    # claude skill PASS, claude no skill FAIL, codex skill PASS, codex no skill FAIL (the newest file)
    _reports(
        pkg, [*_arm_cells("claude-code", "sonnet"), *_arm_cells("codex", "gpt-5")], "2026-01-04T00-00-00Z"
    )
    uri = from_fs_path(str(pkg / "evals" / "cases" / "greet.yaml"))
    await open_and_diagnose(client, uri, CASE)
    verdict, line = await _lens_and_hover(client, uri)
    assert verdict == "PASS" and "PASS" in line and "claude-code / sonnet" in line, (verdict, line)
    assert "**Matrix** (4 cells" in await _hover(client, uri)  # the table still shows every cell

    # a later single run (not a matrix): the last run for both
    single = write(
        _cell("codex", "gpt-5", [make_case("greet", "ERROR", file="evals/cases/greet.yaml", error="boom")]),
        pkg / "evals" / "reports" / "2026-01-05.json",
    )
    os.utime(single, ns=(1_700_000_100_000_000_000,) * 2)

    verdict, line = await _eventually(client, uri, "ERROR")
    assert verdict == "ERROR" and "ERROR" in line and "codex / gpt-5" in line, (verdict, line)
