""" "↻ Run stale (k)" counts exactly what it runs (issue 27 #8): the units `evalens.pickUnits` picks for
"stale" (stale verdicts and units that never ran, as --stale picks) are the lens's k. No agent: the verdicts
come from a report whose recorded inputs no longer match."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types

from tests.server import run_fixtures
from tests.server.run_fixtures import lens_titles, lenses, open_doc, start_run_client, stop_run_client

fake_model = run_fixtures.fake_model  # fixtures, re-exported for pytest
run_pkg = run_fixtures.run_pkg


def _write_report(pkg: Path, names: list[str]) -> None:
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

    cases = [
        ReportCase(
            name=n,
            verdict="PASS",
            duration_seconds=1.0,
            case_file=f"evals/cases/{f}",
            fingerprint={"unit": "0" * 16},
        )
        for n, f in names
    ]
    write_report(
        EvalReport(
            version=1,
            id="eval-run-x",
            timestamp="2026-01-02T00:00:00Z",
            config=ReportConfig(engine="claude-code"),
            agent=ReportAgent(),
            judge=ReportJudge(),
            environment=ReportEnvironment(),
            package=ReportPackage(name="pdf-tools"),
            cases=cases,
            summary=ReportSummary(total=len(cases), passed=len(cases), failed=0, skipped=0, pass_rate=1.0),
        ),
        pkg / "evals" / "reports" / "2026-01-02T00-00-00Z.json",
    )


async def test_run_stale_counts_what_it_picks(fake_model, run_pkg: Path):
    _write_report(run_pkg, [("greet", "10-pass.yaml"), ("greet-missing", "11-fail.yaml")])
    client = await start_run_client(fake_model, run_pkg, "visual-studio-code")
    try:
        config = await open_doc(client, run_pkg / "evals" / "eval-config.json")
        title = ""
        for _ in range(100):  # staleness is computed off the event loop after the first lens request
            title = next(
                (t for t in lens_titles(await lenses(client, config)) if t.startswith("↻ Run stale")), ""
            )
            if title:
                break
            await asyncio.sleep(0.1)
        picked = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="evalens.pickUnits", arguments=[{"uri": config, "select": "stale"}]
            )
        )
        assert title, (lens_titles(await lenses(client, config)), picked)
        count = int(re.match(r"↻ Run stale \((\d+)", title).group(1))
        assert count == len(picked), (title, [(p["name"], p["reason"]) for p in picked])
        assert any(p["reason"] == "never ran" for p in picked), picked  # the uncounted kind before the fix
    finally:
        await stop_run_client(client)


async def test_pick_units_without_select_names_what_a_batch_lens_runs(fake_model, run_pkg: Path):
    """Issue 45 #10: "▶ Run all evals" asks before it spends, naming the units: `evalens.pickUnits` with no
    `select` answers every case the package's batch runs (the editor's question lists them), not one with
    validation errors (03-broken.yaml: the batch answers it SKIP, no agent, so "Run N evals" must not count it)."""
    client = await start_run_client(fake_model, run_pkg, "visual-studio-code")
    try:
        config = await open_doc(client, run_pkg / "evals" / "eval-config.json")
        picked = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="evalens.pickUnits", arguments=[{"uri": config}])
        )
        names = {
            m.group(1).strip()
            for f in (run_pkg / "evals" / "cases").glob("*.yaml")
            if (m := re.search(r"^name: *(.+)$", f.read_text(), re.M)) and f.name != "03-broken.yaml"
        }
        assert {p["name"] for p in picked} == names and len(picked) == len(names), picked
        assert all(p["reason"] == "" for p in picked)
        with pytest.raises(Exception, match="needs `select`"):  # neither select nor uri: invalid params
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="evalens.pickUnits", arguments=[{}])
            )
    finally:
        await stop_run_client(client)
