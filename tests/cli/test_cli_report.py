"""``evalens.cli.report.main`` in-process, one verb at a time: its usage and exit codes (0 done, 1 when ``ci``
sees a unit that did not pass or an interrupted batch, 2 for unreadable input, a refused merge or bad usage),
where a report's case files are taken to be relative to (``<pkg>/evals/reports/`` or ``--package``), and what
``merge``, ``matrix``, ``comment`` and ``split`` print. The subprocess-level tests of the same verbs (test_ci_outputs.py,
tests/runner/) cover the CI files end to end; these cover the branches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.cli.report import _package_of, main
from evalens.core.models.uaaps import ReportShard
from evalens.runner.report import load_report
from tests.ci_helpers import make_case, make_report, write
from tests.runner.runner_helpers import case, make_package


@pytest.fixture(autouse=True)
def _no_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


def _shard(report, k: int, n: int):
    report.shard = ReportShard(index=k, count=n, units=2, balanced_by="count", split="abc")
    return report


def test_usage_goes_to_stdout_for_help_and_to_stderr_with_exit_2_otherwise(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr()
    assert "evalens report merge" in out.out and out.err == ""
    for argv in ([], ["frobnicate"]):
        assert main(argv) == 2
        out = capsys.readouterr()
        assert out.out == "" and "evalens report ci REPORT" in out.err


def test_package_of_a_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "pkg"
    assert _package_of(pkg / "evals" / "reports" / "r.json", None) == pkg.resolve()
    assert _package_of(tmp_path / "anywhere" / "r.json", tmp_path / "given") == tmp_path / "given"
    # elsewhere: the package found from the cwd, else the cwd itself
    (tmp_path / "loose").mkdir()
    monkeypatch.chdir(tmp_path / "loose")
    assert _package_of(tmp_path / "out" / "r.json", None) == Path.cwd()
    repo = make_package(tmp_path / "repo")
    monkeypatch.chdir(repo / "skills" / "greeter")
    assert _package_of(tmp_path / "out" / "r.json", None).resolve() == repo.resolve()
    for inside in (repo / "evals", repo / "skills", repo / "evals" / "cases"):  # the package's own folders
        monkeypatch.chdir(inside)
        assert _package_of(tmp_path / "out" / "r.json", None).resolve() == repo.resolve(), inside


def test_ci_exit_code_follows_the_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(make_report([make_case("a", "PASS"), make_case("s", "SKIP")]), tmp_path / "good.json")
    bad = write(
        make_report([make_case("a", "PASS"), make_case("b", "ERROR", error="boom")]), tmp_path / "b.json"
    )
    cut = write(make_report([make_case("a", "PASS")], interrupted=True), tmp_path / "cut.json")
    assert main(["ci", str(good), "--annotations", "off"]) == 0
    assert main(["ci", str(bad), "--annotations", "off"]) == 1
    assert main(["ci", str(cut), "--annotations", "off"]) == 1
    assert capsys.readouterr().out == ""
    assert main(["ci", str(bad), "--annotations", "on"]) == 1
    assert capsys.readouterr().out.startswith("::error title=evalens ERROR%3A b::boom")


def test_ci_refuses_what_is_not_a_report_and_reports_an_unwritable_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text('{"not": "a report"}')
    assert main(["ci", str(junk)]) == 2
    assert capsys.readouterr().err.startswith("evalens report ci: ")
    assert main(["ci", str(tmp_path / "absent.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    good = write(make_report([make_case("a", "PASS")]), tmp_path / "good.json")
    assert main(["ci", str(good), "--junit", str(tmp_path), "--annotations", "off"]) == 2  # a folder


def test_merge_writes_the_merged_report_and_says_its_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write(_shard(make_report([make_case("c1", "PASS")]), 1, 2), tmp_path / "a.json")
    b = write(_shard(make_report([make_case("c2", "FAIL", reason="no")]), 2, 2), tmp_path / "b.json")
    target = tmp_path / "out" / "all.json"
    target.parent.mkdir()
    assert main(["merge", str(a), str(b), "-o", str(target), "--annotations", "off"]) == 0
    err = capsys.readouterr().err
    assert f"merged 2 report(s), 2 unit(s): 1 passed, 1 failed, 0 errored, 0 skipped → {target}" in err
    merged = load_report(target)
    assert [c.name for c in merged.cases] == ["c1", "c2"] and merged.summary.total == 2


def test_merge_refusals_are_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(_shard(make_report([make_case("c1", "PASS")]), 1, 2), tmp_path / "a.json")
    target = tmp_path / "all.json"
    assert main(["merge", str(a), "-o", str(target)]) == 2  # shard 2/2 missing
    assert "2/2 missing" in capsys.readouterr().err and not target.exists()
    assert main(["merge", str(a), "-o", str(target), "--allow-missing", "--annotations", "off"]) == 0
    assert "warning: " in capsys.readouterr().err

    other = write(_shard(make_report([make_case("c2", "PASS")], package="other"), 2, 2), tmp_path / "o.json")
    assert main(["merge", str(a), str(other), "-o", str(target)]) == 2
    assert "is a report of package other" in capsys.readouterr().err

    junk = tmp_path / "junk.json"
    junk.write_text("[]")
    assert main(["merge", str(junk), "-o", str(target)]) == 2
    assert capsys.readouterr().err.startswith("evalens report merge: ")

    b = write(_shard(make_report([make_case("c2", "PASS")]), 2, 2), tmp_path / "b.json")
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert main(["merge", str(a), str(b), "-o", str(blocked / "all.json")]) == 2
    assert f"cannot write {blocked / 'all.json'}" in capsys.readouterr().err


def test_matrix_prints_one_column_per_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(make_report([make_case("c1", "PASS"), make_case("c2", "FAIL")]), tmp_path / "a.json")
    b = write(make_report([make_case("c1", "PASS"), make_case("c2", "PASS")]), tmp_path / "b.json")
    assert main(["matrix", str(a), str(b), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert len(table["columns"]) == 2
    assert main(["matrix", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "c1" in text and "c2" in text
    assert main(["matrix", str(a), str(tmp_path / "absent.json")]) == 2
    assert capsys.readouterr().err.startswith("evalens report matrix: ")


def test_comment_margin_bounds_and_a_missing_base(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = write(
        make_report([make_case("c1", "PASS"), make_case("c2", "FAIL", reason="no")]), tmp_path / "r.json"
    )
    for margin in ("-0.1", "1.5"):
        assert main(["comment", str(r), "--margin", margin]) == 2
        assert "--margin must be between 0 and 1" in capsys.readouterr().err
    assert main(["comment", str(r), "--base", str(tmp_path / "absent.json"), "--key", "nightly"]) == 0
    out = capsys.readouterr()
    assert "no base report at" in out.err and "comparing with nothing" in out.err
    assert "nightly" in out.out and "c2" in out.out
    junk = tmp_path / "junk.json"
    junk.write_text("{")
    assert main(["comment", str(r), "--base", str(junk)]) == 2
    assert capsys.readouterr().err.startswith("evalens report comment: ")


def test_split_by_count_then_by_durations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pkg = make_package(tmp_path / "pkg", cases={f"c{i}": case("pass") for i in range(3)})
    assert main(["split", "--package", str(pkg), "--shards", "2", "--json"]) == 0
    cut = json.loads(capsys.readouterr().out)
    assert cut["balanced_by"] == "count"
    assert sorted(u for shard in cut["shards"] for u in shard) == ["c0", "c1", "c2"]
    assert sorted(len(s) for s in cut["shards"]) == [1, 2]

    assert main(["split", "--package", str(pkg), "--shards", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("3 unit(s) in 2 shard(s), balanced by count, split ")
    assert lines[1].startswith("  1/2 (") and "unit(s))" in lines[1]

    durations = make_report(
        [make_case("c0", "PASS", duration=100.0), make_case("c1", "PASS"), make_case("c2", "PASS")]
    )
    (pkg / "evals" / "reports").mkdir()
    write(durations, pkg / "evals" / "reports" / "old.json")
    assert main(["split", "--package", str(pkg), "--shards", "2", "--json"]) == 0
    timed = json.loads(capsys.readouterr().out)
    assert timed["balanced_by"] == "durations"
    assert ["c0"] in timed["shards"]  # the long unit alone in its shard

    assert main(["split", "--package", str(pkg), "--shards", "0"]) == 2
    assert capsys.readouterr().err.startswith("evalens report split: ")
