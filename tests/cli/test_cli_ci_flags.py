"""``evalens.cli.ci_flags.emit``, the one function every report-producing command calls for ``--junit``,
``--github-summary``, ``--annotations`` and ``--github-output``: when annotations print (``auto`` only inside
Actions and never onto a JSON stdout), that an unset variable is said and is not a failure, that an output that
cannot be written is exit 2 naming it, and that ``summary=`` overrides the flag (``evalens run``'s formats that
write their own summary)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from evalens.cli.ci_flags import add_ci_arguments, emit
from tests.ci_helpers import make_case, make_report, validate_junit

CASE = "name: a\ninput:\n  prompt: hi\njudge:\n  criteria: says hi\n"


@pytest.fixture(autouse=True)
def _no_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


def _args(*argv: str, github_summary: bool = True, json: bool = False) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="t")
    add_ci_arguments(p, github_summary=github_summary)
    args = p.parse_args(list(argv))
    args.json = json
    return args


def _package(tmp_path: Path) -> Path:
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "evals" / "cases" / "a.yaml").write_text(CASE)
    return tmp_path


def _report():
    return make_report(
        [
            make_case("a", "FAIL", file="evals/cases/a.yaml", reason="did not say hi"),
            make_case("b", "PASS"),
        ]
    )


def test_the_parser_declares_the_flags_and_their_defaults() -> None:
    args = _args()
    assert (args.junit, args.github_summary, args.annotations, args.github_output) == (
        None,
        False,
        "auto",
        False,
    )
    assert not hasattr(_args(github_summary=False), "github_summary")
    with pytest.raises(SystemExit):
        _args("--annotations", "always")


def test_nothing_asked_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert emit(_args(), _report(), None, _package(tmp_path), "evalens t") == 0
    assert capsys.readouterr() == ("", "")


def test_annotations_auto_only_inside_actions_and_not_onto_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _package(tmp_path)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert emit(_args(), _report(), None, root, "evalens t") == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("::error file=evals/cases/a.yaml,line=")
    assert "title=evalens FAIL%3A a::" in line and "did not say hi" in line

    emit(_args(json=True), _report(), None, root, "evalens t")
    assert capsys.readouterr().out == ""  # stdout is JSON then
    emit(_args("--annotations", "on", json=True), _report(), None, root, "evalens t")
    assert capsys.readouterr().out.startswith("::error ")
    emit(_args("--annotations", "off"), _report(), None, root, "evalens t")
    assert capsys.readouterr().out == ""

    monkeypatch.delenv("GITHUB_ACTIONS")
    emit(_args(), _report(), None, root, "evalens t")
    assert capsys.readouterr().out == ""
    emit(_args("--annotations", "on"), _report(), None, root, "evalens t")
    assert capsys.readouterr().out.count("::error ") == 1  # the passing unit is not annotated


def test_junit_is_written_and_an_unwritable_path_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _package(tmp_path)
    out = tmp_path / "junit.xml"
    assert emit(_args("--junit", str(out)), _report(), None, root, "evalens t") == 0
    doc = validate_junit(out.read_text(encoding="utf-8"))
    assert len(doc.findall(".//testcase")) == 2 and len(doc.findall(".//failure")) == 1

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    bad = blocked / "junit.xml"
    assert emit(_args("--junit", str(bad)), _report(), None, root, "evalens t") == 2
    assert f"evalens t: cannot write {bad}: " in capsys.readouterr().err


def test_step_summary_needs_its_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _package(tmp_path)
    assert emit(_args("--github-summary"), _report(), None, root, "evalens t") == 0
    assert "GITHUB_STEP_SUMMARY is not set; no summary written" in capsys.readouterr().err

    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert emit(_args("--github-summary"), _report(), tmp_path / "r.json", root, "evalens t") == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n") and "## evalens" in text and "| a |" in text.replace("`", "")

    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))  # a folder: cannot be appended to
    assert emit(_args("--github-summary"), _report(), None, root, "evalens t") == 2
    assert "evalens t: cannot write the step summary: " in capsys.readouterr().err


def test_summary_argument_overrides_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _package(tmp_path)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert emit(_args("--github-summary"), _report(), None, root, "evalens t", summary=False) == 0
    assert not summary.exists()
    # a command without its own --github-summary flag (evalens run) decides through summary=
    assert emit(_args(github_summary=False), _report(), None, root, "evalens t", summary=True) == 0
    assert "## evalens" in summary.read_text(encoding="utf-8")


def test_step_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _package(tmp_path)
    args = _args("--github-output", "--junit", str(tmp_path / "j.xml"))
    assert emit(args, _report(), tmp_path / "r.json", root, "evalens t") == 0
    assert "GITHUB_OUTPUT is not set; no outputs written" in capsys.readouterr().err

    target = tmp_path / "out.txt"
    monkeypatch.setenv("GITHUB_OUTPUT", str(target))
    assert emit(args, _report(), tmp_path / "r.json", root, "evalens t") == 0
    values = dict(line.split("=", 1) for line in target.read_text(encoding="utf-8").splitlines())
    assert values["verdict"] == "fail" and values["passed"] == "1" and values["failed"] == "1"
    assert values["report-path"] == str(tmp_path / "r.json")
    assert values["junit-path"] == str(tmp_path / "j.xml")

    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path))
    assert emit(_args("--github-output"), _report(), None, root, "evalens t") == 2
    assert "evalens t: cannot write the step outputs: " in capsys.readouterr().err


def test_one_failed_output_does_not_stop_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _package(tmp_path)
    target = tmp_path / "out.txt"
    monkeypatch.setenv("GITHUB_OUTPUT", str(target))
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    args = _args("--junit", str(blocked / "j.xml"), "--github-output")
    assert emit(args, _report(), None, root, "evalens t") == 2
    assert "verdict=fail" in target.read_text(encoding="utf-8")
