"""``runner/rejudge_file.py``: what cannot be re-judged is refused with the reason before any judge is asked (the
runs themselves are re-judged on both CLIs in tests/runner/test_agents_rejudge_file.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evalens.core.models.uaaps import ReportCase, ReportConfig
from evalens.runner import api
from evalens.runner.api_types import RunError
from evalens.runner.report import new_report, rejudged_path, utc_now, write_report


def _file_report(root: Path) -> Path:
    """A skilljack batch's report with no run log beside it (a batch run by an evalens before the run log)."""
    reports = root / "evals" / "reports"
    reports.mkdir(parents=True)
    case = ReportCase(name="hello", verdict="PASS", format="skilljack-tasks", case_file="tasks.yaml")
    path = reports / "2026-12-01T00-00-00Z.json"
    write_report(new_report(utc_now(), [case], ReportConfig(engine="claude-code")), path)
    return path


def test_a_file_batch_without_its_run_log_is_refused_naming_it(tmp_path: Path) -> None:
    path = _file_report(tmp_path)
    with pytest.raises(RunError, match="it has no run log to judge from"):
        asyncio.run(api.rejudge(path))
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # nothing written


def test_a_file_batch_whose_run_log_cannot_be_read_is_refused(tmp_path: Path) -> None:
    path = _file_report(tmp_path)
    folder = path.with_suffix("")
    folder.mkdir()
    (folder / "run-log.jsonl").write_text(json.dumps({"event": "nonsense"}) + "\n")
    with pytest.raises(RunError, match="it has no run log to judge from"):
        asyncio.run(api.rejudge(path))


def test_the_rejudged_report_never_takes_the_name_of_one_that_exists(tmp_path: Path) -> None:
    path = _file_report(tmp_path)
    moment = utc_now()
    first = rejudged_path(path, moment)
    first.write_text("{}")
    second = rejudged_path(path, moment)
    assert first.name.endswith("-rejudged.json") and second.name.endswith("-rejudged-2.json")
