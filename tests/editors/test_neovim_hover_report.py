"""Headless Neovim 0.7.2 and 0.11 with the README's setup: the verdict hover on a case's `name` names the report
its last run is in, drawn as a path a reader can see and open (issue 45 #8: 0.7.2 drew ``Report: [path](     )``).
The verdict comes from a report on disk (the server restores it), so no agent runs. The test reads the float's
screen cells, as the user sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import Neovim, example_package

pytestmark = pytest.mark.editors


def _report(pkg: Path) -> Path:
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

    case = ReportCase(
        name="extract-text",
        verdict="PASS",
        duration_seconds=3.2,
        case_file="evals/cases/01-extract-text.yaml",
    )
    path = pkg / "evals" / "reports" / "2026-01-02T00-00-00Z.json"
    path.parent.mkdir(parents=True, exist_ok=True)
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
            cases=[case],
            summary=ReportSummary(total=1, passed=1, failed=0, skipped=0, pass_rate=1.0),
        ),
        path,
    )
    return path


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_hover_draws_the_report_path(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    pkg = example_package(tmp_path)
    report = _report(pkg)
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    result = nvim.run_driver("hover_report.lua", tmp_path, open_file=case, cwd=pkg, timeout=120).result
    assert result["version"] == version
    drawn = result["drawn"]
    row = next((r for r in drawn if "Report:" in r), None)
    assert row is not None, drawn
    assert str(report) in row, (row, result["markdown"])  # the path itself is on screen
    assert "(     )" not in row and "](" not in row, row  # no half-drawn link
    nvim_capture(
        version,
        "hover-report-path",
        [
            f"Neovim {version}: evals/cases/01-extract-text.yaml, K on `name` after a run",
            "the hover float as drawn:",
            "",
            *[r.replace(str(pkg), "pdf-tools") for r in drawn],
        ],
    )
