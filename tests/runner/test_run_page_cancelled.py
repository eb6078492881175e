"""A unit cut short by a cancel is CANCELLED on the run page too (issue 45 #8): ``:EvalensShow`` (Markdown) and
VS Code's Show Run (HTML) had called it ERROR, the report's "interrupted" placeholder, while Test Results and the
Runs view said cancelled. A real ERROR in the same batch stays ERROR."""

from __future__ import annotations

import json
from pathlib import Path

from evalens.runner.report_html import render_html
from evalens.runner.report_markdown import render_markdown
from evalens.runner.run_history import CANCELLED as RUNS_VIEW_WORD
from evalens.runner.run_view import CANCELLED, load_view


def _report(tmp_path: Path) -> Path:
    def case(name: str, error: str) -> dict:
        return {"name": name, "verdict": "ERROR", "error": error, "duration_seconds": 1.0}

    report = {
        "version": 1,
        "id": "eval-run-x",
        "timestamp": "2026-01-01T10:00:00Z",
        "interrupted": True,
        "config": {"engine": "claude-code"},
        "agent": {"runtime": "claude-code"},
        "judge": {},
        "environment": {"os": "linux"},
        "package": {"name": "p"},
        "summary": {"total": 2, "passed": 0, "failed": 0, "pass_rate": 0.0},
        "cases": [case("slow-case", "interrupted: cancelled"), case("broken", "claude exited 1")],
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    return path


def test_the_run_page_says_cancelled_where_the_runs_view_does(tmp_path: Path) -> None:
    view = load_view(_report(tmp_path))
    shown = {u.name: u.shown for u in view.units}
    assert shown == {"slow-case": CANCELLED, "broken": "ERROR"} and CANCELLED == RUNS_VIEW_WORD
    markdown = render_markdown(view)
    assert "## CANCELLED slow-case" in markdown and "## ERROR slow-case" not in markdown
    assert "## ERROR broken" in markdown
    html = render_html(view)
    assert '<span class="badge CANCELLED">CANCELLED</span><h2>slow-case</h2>' in html
    assert (
        '<button data-filter="ERROR"><span class="badge ERROR">ERROR</span>1</button>' in html
    )  # counts what it says
