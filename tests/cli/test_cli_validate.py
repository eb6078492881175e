"""``evalens.cli.validate`` called in-process: the exit codes (1 on an error or a missing path, 2 on a bad
configuration with nothing validated), how ``--ignore`` / ``--rule`` / ``--select`` / ``--config`` /
``--isolated`` and a nearby ``evalens.toml`` change what is reported, the closing count (files no format claimed
and look-alikes said apart), and the GitHub annotations' paths and escaping."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evalens.cli.validate import github_annotations, main, summary

CASE = (
    "name: a\ninput:\n  promt: hi\n"  # two missing-key errors (judge, input.prompt), one unknown-key warning
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout (``.git`` bounds the config search) with one UAAPS case holding errors and a warning."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "evals" / "cases" / "a.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    return tmp_path


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code = main(["--format", "json", *argv])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def _codes(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["code"], p["severity"]) for p in doc["problems"]]


def test_errors_exit_1_and_json_lists_files_and_problems(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "notes.txt").write_text("not an eval file\n")
    code, doc, _ = _json(capsys, "evals", "notes.txt")
    assert code == 1
    assert doc["files"] == [
        {"path": "evals/cases/a.yaml", "format": "uaaps-case"},
        {"path": "notes.txt", "format": None},
    ]
    assert _codes(doc) == [("missing-key", "error"), ("missing-key", "error"), ("unknown-key", "warning")]
    warning = doc["problems"][2]
    assert (warning["line"], warning["column"], warning["endLine"], warning["endColumn"]) == (3, 3, 3, 8)
    assert warning["url"] == "https://evalens.dev/rules#unknown-key"
    assert warning["related"] == []


def test_text_output_and_the_closing_count(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "notes.txt").write_text("not an eval file\n")
    assert main(["evals", "notes.txt"]) == 1
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert lines[0] == "evals/cases/a.yaml:1:1: error: Missing required field `judge`. [missing-key]"
    assert lines[2].startswith("evals/cases/a.yaml:3:3: warning: ") and lines[2].endswith("[unknown-key]")
    # notes.txt was not checked: no format claimed it
    assert out.err.strip() == "1 file(s) checked, 2 error(s), 1 other problem(s)"


def test_warnings_alone_exit_0_but_a_missing_path_exits_1(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, _ = _json(capsys, "evals", "--rule", "missing-key=warning")
    assert code == 0
    assert _codes(doc) == [("missing-key", "warning"), ("missing-key", "warning"), ("unknown-key", "warning")]
    code, doc, err = _json(capsys, "evals", "nowhere.yaml", "--rule", "missing-key=warning")
    assert code == 1
    assert "nowhere.yaml: error: no such file or directory" in err
    assert [f["path"] for f in doc["files"]] == ["evals/cases/a.yaml"]


def test_ignore_and_select_narrow_the_codes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = _json(capsys, "evals", "--ignore", "missing-key")
    assert (code, _codes(doc)) == (0, [("unknown-key", "warning")])
    code, doc, _ = _json(capsys, "evals", "--select", "missing-*")
    assert (code, _codes(doc)) == (1, [("missing-key", "error"), ("missing-key", "error")])
    code, doc, _ = _json(capsys, "evals", "--ignore", " unknown-key , missing-key ")
    assert (code, doc["problems"]) == (0, [])


def test_bad_rule_flags_validate_nothing_and_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["evals", "--rule", "nolevel", "--rule", "bogus-rule=error", "--rule", "unknown-key=loud"]) == 2
    )
    out = capsys.readouterr()
    assert out.out == ""
    assert "error: --rule nolevel: expected CODE=LEVEL" in out.err
    assert "`bogus-rule` is not an evalens rule" in out.err
    assert "unknown-key = 'loud'" in out.err
    assert out.err.rstrip().endswith("evalens: invalid configuration; nothing validated")


def test_a_nearby_config_applies_unless_isolated(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "evalens.toml").write_text('[rules]\nmissing-key = "off"\n')
    code, doc, _ = _json(capsys, "evals")
    assert (code, _codes(doc)) == (0, [("unknown-key", "warning")])
    code, doc, _ = _json(capsys, "evals", "--isolated")
    assert code == 1 and ("missing-key", "error") in _codes(doc)
    # the command line wins over the file
    code, doc, _ = _json(capsys, "evals", "--rule", "missing-key=error")
    assert code == 1 and _codes(doc).count(("missing-key", "error")) == 2


def test_explicit_config_file_and_a_broken_one(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = repo / "conf" / "evalens.toml"
    elsewhere.parent.mkdir()
    elsewhere.write_text('[rules]\nunknown-key = "off"\n')
    code, doc, _ = _json(capsys, "evals", "--config", str(elsewhere))
    assert code == 1 and "unknown-key" not in {c for c, _ in _codes(doc)}

    assert main(["evals", "--config", "conf/absent.toml"]) == 2
    assert "conf/absent.toml: not a file with evalens settings" in capsys.readouterr().err

    (repo / "evalens.toml").write_text("[rules\n")
    assert main(["evals"]) == 2
    err = capsys.readouterr().err
    assert "invalid TOML" in err and err.count("invalid TOML") == 1  # said once, not once per file


def test_github_format_prints_workflow_commands(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--format", "github", "evals"]) == 1
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("::error file=evals/cases/a.yaml,line=1,col=1,endLine=1,endColumn=5,")
    assert lines[2].startswith("::warning file=evals/cases/a.yaml,line=3,col=3,")
    assert "title=evalens unknown-key::" in lines[2]
    assert "2 error(s)" in out.err


def test_sarif_format_is_one_log_on_stdout(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--format", "sarif", "evals"]) == 1
    log = json.loads(capsys.readouterr().out)
    (run,) = log["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["missing-key", "missing-key", "unknown-key"]


def _record(path: str, severity: str, message: str, code: str = "x-rule") -> dict[str, Any]:
    return {
        "path": path,
        "line": 2,
        "column": 3,
        "endLine": 2,
        "endColumn": 9,
        "severity": severity,
        "code": code,
        "message": message,
    }


def test_github_annotations_escape_values_and_levels(tmp_path: Path) -> None:
    inside = tmp_path / "dir,with:odd" / "f.yaml"
    outside = tmp_path.parent / "elsewhere.yaml"
    lines = github_annotations(
        [
            _record(str(inside), "error", "50% bad\nsecond line"),
            _record(str(outside), "warning", "::set-output name=x::y"),
            _record(str(inside), "info", "fyi"),
            _record(str(inside), "hint", "psst"),
        ],
        base=tmp_path,
    )
    assert lines[0] == (
        "::error file=dir%2Cwith%3Aodd/f.yaml,line=2,col=3,endLine=2,endColumn=9,title=evalens x-rule"
        "::50%25 bad%0Asecond line"
    )
    assert lines[1].startswith(f"::warning file={str(outside.resolve()).replace(':', '%3A')},")
    assert not lines[1].split("::", 2)[2].startswith("::")  # the message cannot open a command of its own
    assert [line.split(" ", 1)[0] for line in lines[2:]] == ["::notice", "::notice"]


def test_github_annotations_default_to_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    (line,) = github_annotations([_record(str(tmp_path / "a" / "b.yaml"), "error", "m")])
    assert line.startswith("::error file=a/b.yaml,")


def test_summary_tells_lookalikes_and_unchecked_files_apart() -> None:
    results = [
        SimpleNamespace(format=object()),
        SimpleNamespace(format=None),
        SimpleNamespace(format=object()),
    ]
    records = [
        {"severity": "error", "code": "syntax"},
        {"severity": "warning", "code": "unknown-key"},
        {"severity": "hint", "code": "lookalike"},
    ]
    assert summary(results, records) == (
        "2 file(s) checked, 1 error(s), 1 other problem(s); 1 file(s) left to another tool"
    )
    assert summary([], []) == "0 file(s) checked, 0 error(s), 0 other problem(s)"
