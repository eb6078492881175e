"""``evalens.server.features.matrix_view`` called directly on cell reports written through the report model: a
batch's columns and the reports it could not read, a unit's row (two files with one case name told apart by the
case file), the wire cells (``—`` where a cell did not run the unit), the hover table (a `|` in a model name
escaped), ``answer_of`` for one unit or none, the package of a URI, and the per-folder cache of ``MatrixRows``,
which reads a reports folder again only when its time stamp changed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from pygls.uris import from_fs_path

from evalens.core.models.uaaps import ReportAgent, Usage
from evalens.runner.matrix import cell_report_name
from evalens.server.features import matrix_view as mv
from tests.ci_helpers import make_case, make_report, write

A = "evals/cases/a/greet.yaml"
B = "evals/cases/b/greet.yaml"


def cell(engine: str, model: str, cases: list[Any]) -> Any:
    report = make_report(cases, agent=ReportAgent(model=model))
    return report.model_copy(update={"config": report.config.model_copy(update={"engine": engine})})


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    (root / "evals" / "cases").mkdir(parents=True)
    (root / "evals" / "reports").mkdir()
    return root


def batch_files(pkg: Path, batch: str = "B1") -> list[Path]:
    """Two cells (claude-code · m1 ran three units, codex · gpt|5 one) and a third file that is no report."""
    reports = pkg / "evals" / "reports"
    first = cell(
        "claude-code",
        "m1",
        [
            make_case("greet", "PASS", file=A),
            make_case("greet", "FAIL", file=B),
            make_case("wave", "PASS", file=A),
        ],
    )
    second = cell(
        "codex",
        "gpt|5",
        [
            make_case(
                "greet",
                "FAIL",
                file=A,
                run_verdicts=["PASS", "FAIL", "FAIL"],
                runs=3,
                usage=Usage(cost_usd=0.5),
            )
        ],
    )
    paths = [
        write(first, reports / cell_report_name(batch, 1)),
        write(second, reports / cell_report_name(batch, 2)),
    ]
    bad = reports / cell_report_name(batch, 3)
    bad.write_text('{"not": "a report"}', encoding="utf-8")
    return [*paths, bad]


def test_batch_of_reads_the_cells_and_names_the_unread(pkg: Path) -> None:
    paths = batch_files(pkg)
    batch = mv.batch_of(paths, "B1")
    assert batch is not None and batch.name == "B1" and batch.paths == paths[:2]
    assert batch.columns == [
        mv.Column("claude-code · m1", "claude-code", "m1"),
        mv.Column("codex · gpt|5", "codex", "gpt|5"),
    ]
    (unread,) = batch.unread
    assert unread.startswith("B1-cell-3.json: ") and "not an evalens eval report" in unread
    assert mv.batch_of([paths[0], paths[2]], "B1") is None  # one readable cell: nothing to compare
    assert mv.batch_of([], "B1") is None


def test_row_tells_two_files_of_one_name_apart(pkg: Path) -> None:
    batch = mv.batch_of(batch_files(pkg), "B1")
    assert batch is not None
    first = batch.row("greet")  # no file given: the first of the name
    assert first is not None and [c.repeats.passed for c in first] == [1, 1]
    for given in (B, "./" + B, str(pkg / B)):
        row = batch.row("greet", given)
        assert row is not None and row[1] is None and row[0].repeats.failed == 1, given
    assert batch.row("greet", "evals/cases/c/greet.yaml") == first  # no file matches: the name decides
    assert batch.row("nope") is None
    assert batch.uplift(first) == {}  # no --arms
    assert batch.uplift([None, None]) == {}  # not a row of this batch


def test_same_file() -> None:
    assert mv._same_file("evals/x.yaml", "./evals/x.yaml")
    assert mv._same_file("./evals/x.yaml", "evals/x.yaml")
    assert mv._same_file("evals/x.yaml", "/abs/pkg/evals/x.yaml")
    assert not mv._same_file("evals/x.yaml", "/abs/pkg/myevals/x.yaml")  # a whole folder name, not a suffix
    assert not mv._same_file("evals/x.yaml", "evals/y.yaml")


def test_same_file_keeps_dot_folders() -> None:
    assert not mv._same_file(".github/evals/x.yaml", "github/evals/x.yaml")


def test_cell_models_and_hover(pkg: Path) -> None:
    batch = mv.batch_of(batch_files(pkg), "B1")
    assert batch is not None
    row = batch.row("greet", A)
    assert row is not None
    passing, flaky = (c.model_dump(exclude_none=True) for c in mv.cell_models(batch, row))
    assert passing == {
        "column": "claude-code · m1",
        "engine": "claude-code",
        "model": "m1",
        "state": "PASS",
        "passed": 1,
        "counted": 1,
        "runs": 1,
        "interval": [0.2065, 1.0],  # rounded to four places
        "text": "PASS 1/1 [21%–100%]",
    }
    assert (flaky["state"], flaky["passed"], flaky["runs"], flaky["cost_usd"]) == ("FLAKY", 1, 3, 0.5)
    assert "arm" not in passing  # only an --arms run's cells name their arm
    missing = mv.cell_models(batch, batch.row("greet", B) or [])[1]
    assert (missing.text, missing.state, missing.column) == ("—", None, "codex · gpt|5")
    assert mv.hover_markdown(batch, row).split("\n") == [
        "**Matrix** (2 cells, run B1): k/N · 95% interval · cost",
        "",
        "| cell | this case |",
        "|---|---|",
        "| claude-code · m1 | PASS 1/1 [21%–100%] |",
        "| codex · gpt\\|5 | FLAKY 1/3 [6%–79%] $0.5000 |",
    ]


def test_answer_of_one_unit_or_all(pkg: Path) -> None:
    batch = mv.batch_of(batch_files(pkg), "B1")
    assert batch is not None
    wave = mv.answer_of(batch, "wave")
    assert wave is not None
    assert (wave.batch, wave.columns) == ("B1", ["claude-code · m1", "codex · gpt|5"])
    assert [(r.unit, r.name, [c.text for c in r.cells], r.uplift) for r in wave.rows] == [
        ("wave", "wave", ["PASS 1/1 [21%–100%]", "—"], None)
    ]
    assert wave.report_paths == [str(p) for p in batch.paths] and len(wave.unread) == 1
    assert wave.table.split("\n")[0].split() == ["unit", "claude-code", "·", "m1", "codex", "·", "gpt|5"]
    everything = mv.answer_of(batch, None)
    assert everything is not None and [r.name for r in everything.rows] == ["greet", "greet", "wave"]
    assert mv.answer_of(batch, "nothing") is None


def test_newest_batch_skips_reports_of_no_matrix(pkg: Path, tmp_path: Path) -> None:
    assert mv.newest_batch(pkg) is None
    batch_files(pkg, "2026-01-01T00-00-00Z")
    write(cell("codex", "gpt-5", [make_case("greet", "PASS", file=A)]), pkg / "evals/reports/2026-01-09.json")
    found = mv.newest_batch(pkg)
    assert found is not None and found.name == "2026-01-01T00-00-00Z"
    assert mv.newest_batch(tmp_path / "nowhere") is None


def test_matrix_rows_read_a_folder_again_only_when_it_changed(pkg: Path, tmp_path: Path) -> None:
    rows = mv.MatrixRows()
    reports = pkg / "evals" / "reports"
    assert rows.batch(tmp_path / "no-package") is None and rows.answer(tmp_path / "no-package", None) is None
    first = reports.stat().st_mtime_ns
    assert rows.batch(pkg) is None
    batch_files(pkg, "2026-01-01T00-00-00Z")
    os.utime(reports, ns=(first, first))  # the folder's stamp as first read: the cached answer holds
    assert rows.batch(pkg) is None
    bumped = first + 1_000_000_000
    os.utime(reports, ns=(bumped, bumped))
    found = rows.batch(pkg)
    assert found is not None and found.name == "2026-01-01T00-00-00Z"
    assert rows.batch(pkg) is found  # unchanged: the same batch, not read again
    got = rows.row(pkg, "wave")
    assert got is not None and got[0] is found and got[1][1] is None
    assert rows.row(pkg, "zz") is None
    answer = rows.answer(pkg, "greet")
    assert answer is not None and [r.name for r in answer.rows] == ["greet", "greet"]


def test_root_of(pkg: Path, tmp_path: Path) -> None:
    skill = pkg / "skills" / "x" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    assert mv.root_of({"uri": from_fs_path(str(pkg / "evals" / "cases" / "a.yaml"))}) == pkg
    assert mv.root_of({"uri": from_fs_path(str(skill))}) == pkg  # above it: a folder with evals/reports
    assert mv.root_of({"uri": from_fs_path(str(pkg))}) == pkg
    assert mv.root_of({"uri": from_fs_path(str(tmp_path / "else" / "f.yaml"))}) is None
    assert mv.root_of({}) is None and mv.root_of({"uri": ""}) is None
    assert mv.root_of({"uri": "untitled:Untitled-1"}) is None
