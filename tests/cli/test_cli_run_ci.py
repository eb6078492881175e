"""``evalens.cli.run_ci``, the CI flags of ``evalens run FILE`` called directly on a small skilljack suite: when
the CI path is wanted at all, how ``before`` narrows a request to its shard (and what an empty shard, a dry run,
a bad spec or an unreadable file give), how ``after`` marks the written report, ``record_sandbox``'s report
field, and that skilljack's suites keep their own step summary. No agent runs: nothing here calls the suite."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from evalens.cli.run_ci import add_arguments, after, before, record_sandbox, wanted
from evalens.core.models.uaaps import ReportSandbox
from evalens.runner.report import load_report
from evalens.runner.suites.base import FileRunRequest
from tests.ci_helpers import make_case, make_report, write

SKILL_MD = "---\nname: greeting\ndescription: Greets people by name.\n---\nGreet.\n"


@pytest.fixture(autouse=True)
def _no_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "skills" / "greeting").mkdir(parents=True)
    (tmp_path / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    body = "".join(
        f'  - id: t{i}\n    prompt: "Question {i}?"\n    expected_skill_load: none\n'
        "    deterministic: { expect_skill_activation: false }\n"
        for i in range(4)
    )
    (tmp_path / "tasks.yaml").write_text("skill: greeting\ntasks:\n" + body)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "tasks.yaml"


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="t")
    add_arguments(p)
    p.add_argument("--github-summary", action="store_true")  # `evalens run` declares its own
    return p.parse_args(list(argv))


def test_wanted_only_when_a_ci_flag_or_actions_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not wanted(_args())
    assert not wanted(_args("--annotations", "off"))
    for argv in (["--shard", "1/2"], ["--junit", "j.xml"], ["--github-output"], ["--github-summary"]):
        assert wanted(_args(*argv)), argv
    assert wanted(_args("--annotations", "on"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert wanted(_args()) and not wanted(_args("--annotations", "off"))


def test_without_a_shard_the_request_is_unchanged(tasks: Path) -> None:
    request = FileRunRequest(file=tasks)
    narrowed, mark, root, code = before(_args(), request, None)
    assert narrowed is request and mark is None and code is None
    assert root is not None and root.resolve() == tasks.parent.resolve()


def test_shards_split_the_units_and_together_cover_them(
    tasks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str] = []
    for k in (1, 2):
        narrowed, mark, _root, code = before(
            _args("--shard", f"{k}/2"), FileRunRequest(file=tasks, runs=2), None
        )
        assert code is None
        assert (mark.index, mark.count, mark.units, mark.balanced_by, mark.runs) == (k, 2, 4, "count", 2)
        assert len(narrowed.units) == 2
        seen += narrowed.units
        assert f"evalens run: shard {k}/2: 2 of 4 unit(s), balanced by count" in capsys.readouterr().err
    assert sorted(seen) == ["t0", "t1", "t2", "t3"]


def test_durations_balance_the_split(tasks: Path, tmp_path: Path) -> None:
    past = make_report(
        [make_case("t0", "PASS", duration=90.0), *(make_case(f"t{i}", "PASS") for i in (1, 2, 3))]
    )
    old = write(past, tmp_path / "old.json")
    narrowed, mark, _root, _code = before(
        _args("--shard", "1/2", "--durations", str(old)), FileRunRequest(file=tasks), None
    )
    other, _, _, _ = before(
        _args("--shard", "2/2", "--durations", str(old)), FileRunRequest(file=tasks), None
    )
    assert mark.balanced_by == "durations"
    assert sorted([narrowed.units, other.units], key=len) == [["t0"], ["t1", "t2", "t3"]]


def test_an_empty_shard_writes_an_empty_report_or_says_so_in_a_dry_run(
    tasks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "empty.json"
    _req, mark, _root, code = before(_args("--shard", "5/5"), FileRunRequest(file=tasks, output=out), None)
    assert code == 0 and mark.index == 5
    report = load_report(out)
    assert report.cases == [] and report.summary.total == 0
    assert report.shard is not None and (report.shard.index, report.shard.count) == (5, 5)
    assert report.id.endswith("-shard-5-of-5")
    assert f"shard 5/5 has no unit; empty report: {out}" in capsys.readouterr().err

    dry = tmp_path / "dry.json"
    _req, _mark, _root, code = before(
        _args("--shard", "5/5"), FileRunRequest(file=tasks, output=dry, dry_run=True), None
    )
    assert code == 0 and not dry.exists()
    assert capsys.readouterr().out == "shard 5/5: no unit (the suite has 4)\n"


def test_an_empty_shard_still_writes_the_requested_outputs(tasks: Path, tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    _req, _mark, _root, code = before(
        _args("--shard", "5/5", "--junit", str(junit)),
        FileRunRequest(file=tasks, output=tmp_path / "e.json"),
        None,
    )
    assert code == 0 and junit.is_file() and "<testsuite" in junit.read_text(encoding="utf-8")


def test_a_bad_spec_is_exit_2_and_an_unreadable_file_is_left_to_the_run(
    tasks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = FileRunRequest(file=tasks)
    narrowed, mark, _root, code = before(_args("--shard", "3/2"), request, None)
    assert (narrowed, mark, code) == (request, None, 2)
    assert capsys.readouterr().err.startswith("evalens run: --shard 3/2: ")

    missing = FileRunRequest(file=tmp_path / "absent.yaml")
    assert before(_args("--shard", "1/2"), missing, None) == (missing, None, None, None)


def test_after_marks_the_report_and_writes_the_outputs(tasks: Path, tmp_path: Path) -> None:
    assert after(_args(), SimpleNamespace(report=None, report_path=None), None, None, None) == 0
    _req, mark, root, _code = before(_args("--shard", "1/2"), FileRunRequest(file=tasks), None)
    path = write(make_report([make_case("t0", "PASS")]), tmp_path / "r.json")
    outcome = SimpleNamespace(report=load_report(path), report_path=path)
    junit = tmp_path / "j.xml"
    assert after(_args("--junit", str(junit)), outcome, mark, root, "skilljack-tasks") == 0
    written = load_report(path)
    assert written.shard == mark and written.id.endswith("-shard-1-of-2")
    assert junit.is_file()


def test_skilljack_writes_its_own_step_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    path = write(make_report([make_case("t0", "PASS")]), tmp_path / "r.json")
    outcome = SimpleNamespace(report=load_report(path), report_path=path)
    assert after(_args("--github-summary"), outcome, None, tmp_path, "skilljack-tasks") == 0
    assert not summary.exists()
    assert after(_args("--github-summary"), outcome, None, tmp_path, "skill-creator-evals") == 0
    assert "## evalens" in summary.read_text(encoding="utf-8")


def test_record_sandbox_fills_the_field_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALENS_NO_BWRAP", "1")
    record_sandbox(SimpleNamespace(report=None, report_path=None))  # nothing to record: no error
    path = write(make_report([make_case("t0", "PASS")]), tmp_path / "r.json")
    outcome = SimpleNamespace(report=load_report(path), report_path=path)
    record_sandbox(outcome)
    expected = ReportSandbox(enforced=False, method="engine", network=False)
    assert outcome.report.sandbox == expected
    assert load_report(path).sandbox == expected
    # a report that says already is left as it is
    path.write_text(json.dumps({**json.loads(path.read_text()), "marker": 1}))
    before_text = path.read_text()
    record_sandbox(outcome)
    assert path.read_text() == before_text
