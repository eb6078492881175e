"""Every batch's report header comes from one builder (``report.new_report``): a UAAPS run, a file run and an
empty shard's report carry the same id scheme, ISO start, this machine's environment and counted summary."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path

from evalens.cli.shard import mark_report, write_empty_report
from evalens.core.models.uaaps import ReportCase, ReportConfig, ReportPackage, ReportShard
from evalens.runner.report import batch_id, load_report, new_report


def _mark() -> ReportShard:
    return ReportShard(index=2, count=3, units=0, balanced_by="count", split="abc")


def test_the_header_is_made_from_the_start_and_the_cases() -> None:
    started = datetime(2026, 2, 22, 14, 30, tzinfo=UTC)
    cases = [ReportCase(name="a", verdict="PASS"), ReportCase(name="b", verdict="FAIL")]
    report = new_report(started, cases, ReportConfig(engine="codex"), duration=1.23456)
    assert report.id == batch_id(started) == "eval-run-2026-02-22T14-30-00Z"
    assert report.timestamp == "2026-02-22T14:30:00Z" and report.duration_seconds == 1.235
    assert report.environment.python_version == platform.python_version()
    assert (report.summary.total, report.summary.passed, report.summary.failed) == (2, 1, 1)
    assert [c.name for c in report.cases] == ["a", "b"] and report.interrupted is False


def test_an_empty_shards_report_is_a_batch_report_with_its_mark(tmp_path: Path) -> None:
    report, path = write_empty_report(
        _mark(), tmp_path, None, ReportConfig(engine="claude-code"), ReportPackage(name="pkg")
    )
    again = load_report(path)
    assert path.parent == tmp_path / "evals" / "reports"
    assert again.id == f"eval-run-{path.stem}-shard-2-of-3" and again.id == report.id
    assert again.summary.total == 0 and again.package.name == "pkg" and again.shard == _mark()
    assert again.environment.python_version == platform.python_version()


def test_a_run_marked_as_a_shard_gets_the_same_suffix(tmp_path: Path) -> None:
    started = datetime(2026, 2, 22, 14, 30, tzinfo=UTC)
    report = new_report(started, [], ReportConfig(engine="codex"))
    mark_report(report, None, _mark())
    assert report.id == "eval-run-2026-02-22T14-30-00Z-shard-2-of-3" and report.shard == _mark()
