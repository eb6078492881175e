"""``evalens.cli.verbs``: ``compare``, ``rejudge`` and ``resume`` as verbs of their own (issue 41). Each takes its
own argument first: a missing one (or a flag in its place) is exit 2 with the verb's usage, before any runner
module loads; ``compare`` gives the two reports' verdict changes and fails only when asked; ``resume`` refuses
flags that would change the batch. No test here reaches a model: the keys are unset."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.cli.verbs import compare, rejudge, resume
from tests.ci_helpers import make_case, make_report, write


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize(
    ("verb", "argv", "usage"),
    [
        (rejudge, [], "evalens rejudge: give the REPORT to judge again (evalens rejudge REPORT)"),
        (rejudge, ["--judge", "m"], "evalens rejudge: give the REPORT to judge again"),
        (resume, [], "evalens resume: give the batch's report folder (evalens resume DIR)"),
        (resume, ["--runs", "3"], "evalens resume: give the batch's report folder"),
    ],
)
def test_the_verbs_own_argument_comes_first(verb, argv: list[str], usage: str, capsys) -> None:
    assert verb(argv) == 2
    assert usage in capsys.readouterr().err


def test_compare_prints_the_changes_and_fails_only_on_request(tmp_path: Path, capsys) -> None:
    base = write(make_report([make_case("c1", "PASS"), make_case("c2", "PASS")]), tmp_path / "a.json")
    new = write(
        make_report([make_case("c1", "PASS"), make_case("c2", "FAIL", reason="no")]), tmp_path / "b.json"
    )
    assert compare([str(base), str(new)]) == 0
    out = capsys.readouterr().out
    assert "pass rate: 100% → 50%" in out and "c2: PASS → FAIL" in out
    assert compare([str(base), str(new), "--fail-on", "regression"]) == 1
    assert "regression: c2: PASS → FAIL" in capsys.readouterr().err
    # the other way round is an improvement: no regression to fail on
    assert compare([str(new), str(base), "--fail-on", "regression"]) == 0
    assert "c2: FAIL → PASS" in capsys.readouterr().out


def test_compare_with_an_unreadable_report_is_exit_2(tmp_path: Path, capsys) -> None:
    base = write(make_report([make_case("c1", "PASS")]), tmp_path / "a.json")
    assert compare([str(base), str(tmp_path / "absent.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_rejudge_of_a_missing_report_is_exit_2_naming_it(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "absent.json"
    assert rejudge([str(missing)]) == 2
    assert f"cannot re-judge {missing}" in capsys.readouterr().err


def test_resume_of_a_folder_without_a_run_log_is_exit_2(tmp_path: Path, capsys) -> None:
    assert resume([str(tmp_path)]) == 2
    assert f"cannot resume {tmp_path}" in capsys.readouterr().err


def test_resume_refuses_flags_that_change_the_batch(tmp_path: Path, capsys) -> None:
    assert resume([str(tmp_path), "--runs", "3"]) == 2
    assert "drop --runs" in capsys.readouterr().err
