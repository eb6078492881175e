"""No text an agent, a judge, a case or a file name can steer reaches the GitHub runner's command parser:
the judge reason of the issue (`\\n::error file=README.md,line=1::FAKE\\n::stop-commands::zz`) printed through
every face evalens prints in CI neither forges an annotation nor hides evalens's real ones."""

from __future__ import annotations

import io
import os
from pathlib import Path
from types import SimpleNamespace

from evalens.cli.progress import ProgressView, print_summary, turn_text
from evalens.core.workflow_commands import escape
from evalens.runner.api_types import ProgressEvent
from evalens.runner.ci import github
from evalens.runner.live import LiveTurn
from tests.ci_helpers import make_case, make_report
from tests.in_process import evalens as evalens_cli
from tests.workflow_log import commands

INJECTION = "\n::error file=README.md,line=1::FAKE\n::stop-commands::zz"


def test_escape_is_one_line_and_never_a_command() -> None:
    assert escape("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape("  ::error::x") == "  %3A:error::x" and escape("a ::b") == "a ::b"
    assert escape("x ##[error]y") == "x ##%5Berror]y"
    assert escape("a:b,c", prop=True) == "a%3Ab%2Cc"
    for text in (INJECTION, "::stop-commands::zz", " \t::warning::w", "##[error]legacy", "x\r::error::cr"):
        assert commands(escape(text)) == [] and "\n" not in escape(text) and "\r" not in escape(text)


def _progress_log(ci: bool) -> str:
    """Everything `evalens eval` prints on stderr for one failing unit whose judge gave INJECTION as reason."""
    stream = io.StringIO()
    view = ProgressView(stream=stream, live=False, ci=ci)
    view(ProgressEvent(case_name=None, stage="plan", message=f"plan: unit {INJECTION}"))
    view(ProgressEvent(case_name="b", stage="judge", message="judging"))
    # a long prefix puts the `::` where a wrapping console would break the line
    view(
        ProgressEvent(
            case_name="b", stage="done", verdict="FAIL", message="judge: " + "x" * 61 + " ::error::W"
        )
    )
    view(
        ProgressEvent(case_name=f"b{INJECTION}", stage="done", verdict="FAIL", message=f"judge: {INJECTION}")
    )
    view.turn(LiveTurn(unit="b", kind="text", text=f"I will now print{INJECTION}\n   ::warning::indented"))
    result = SimpleNamespace(
        name=f"b{INJECTION}",
        verdict="FAIL",
        shown_state="FAIL",
        uplift=None,
        usage=None,
        duration_seconds=1.0,
        reason=f"judge: {INJECTION}",
        runs=1,
        pass_rate=0.0,
    )
    print_summary([result], Path(f"out/{INJECTION}.json"), stream=stream, ci=ci)
    return stream.getvalue()


def test_progress_summary_and_turns_forge_nothing_in_ci(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "evals" / "cases").mkdir(parents=True)
    (pkg / "evals" / "cases" / "b.yaml").write_text(
        "name: b\ninput:\n  prompt: hi\njudge:\n  criteria: greets\n"
    )
    report = make_report(
        [
            make_case("b", "FAIL", reason=INJECTION, file="evals/cases/b.yaml"),
            make_case(f"c{INJECTION}", "ERROR", error=INJECTION),
        ]
    )
    real = github.annotation_lines(report, package_root=pkg, base=tmp_path)
    stderr = _progress_log(ci=True)
    assert "FAKE" in stderr  # the text is shown, only made inert
    # stderr before stdout is the worst order: a stop-commands there would swallow every later annotation
    parsed = commands(stderr + "\n".join(real) + "\n")
    assert [c for c, _ in parsed] == ["error", "error"], parsed
    assert all("FAKE" not in data or "%0A" not in data for _, data in parsed)
    assert not any(data.startswith("FAKE") for _, data in parsed)
    # without the escaping (a terminal, not CI) the same log forges and hides: the test can fail
    assert ("error", "FAKE") in commands(_progress_log(ci=False) + "\n".join(real))


def test_annotations_title_and_file_cannot_break_out(tmp_path: Path) -> None:
    report = make_report([make_case(f"n{INJECTION}", "FAIL", reason="r", file=f"evals/{INJECTION}.yaml")])
    (line,) = github.annotation_lines(report, package_root=tmp_path, base=tmp_path)
    assert "\n" not in line and line.startswith("::error file=evals/%0A%3A%3Aerror file=README.md%2Cline=1")
    assert commands(line) == [("error", line.split("::", 2)[2])]


def test_step_outputs_cannot_set_another_output(tmp_path: Path) -> None:
    report = make_report([make_case("a", "PASS")])
    values = github.outputs(report, report_path=Path("out\nverdict=pass"))
    text = github.output_lines(values)
    from tests.runner.actions_emulator import parse_outputs

    parsed = parse_outputs(text)
    assert parsed["report-path"] == "out\nverdict=pass" and parsed["verdict"] == "pass"
    failing = github.output_lines({"verdict": "fail", "report-path": "x\nverdict=pass"})
    assert parse_outputs(failing)["verdict"] == "fail"


def test_step_summary_keeps_injected_text_in_its_cell() -> None:
    report = make_report([make_case(f"b{INJECTION}|x", "FAIL", reason=INJECTION)])
    text = github.step_summary(report)
    rows = [line for line in text.splitlines() if "FAKE" in line]
    assert rows and all(line.startswith("| ") for line in rows)  # never a line of its own
    assert commands(text) == []


def test_validate_text_output_is_escaped_in_actions(tmp_path: Path) -> None:
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "evals" / "cases" / "a.yaml").write_text(
        'name: a\ninput:\n  prompt: hi\n  "x\\n::error file=README.md,line=1::FAKE\\n::stop-commands::zz": 1\n'
    )
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    out = evalens_cli(["validate", "evals"], cwd=tmp_path, env=env)
    assert "FAKE" in out.stdout, out.stdout + out.stderr
    assert commands(out.stdout + out.stderr) == []


def test_turn_text_escapes_each_line_in_ci() -> None:
    turn = LiveTurn(unit="u", kind="text", text="a\n::error::x\n  ##[warning]y")
    assert commands(turn_text(turn, ci=True)) == []
    assert commands(turn_text(turn, ci=False))  # the plain rendering would be read as commands


def test_free_text_never_sends_terminal_controls() -> None:
    """`shown` is how every CLI line with steerable text is printed: a file name or reason holding an OSC title,
    a screen clear or a bidi override reaches neither a terminal nor a CI log raw; line breaks stay outside CI."""
    from evalens.core.workflow_commands import shown

    hostile = "bad\x1b]0;pwned\x07name \x1b[2J\u202eevil\nnext line 50%"
    local = shown(hostile, env={})
    assert "\x1b" not in local and "\x07" not in local and "\u202e" not in local
    assert "\\x1b]0;pwned\\x07" in local and local.endswith("\nnext line 50%")
    ci = shown(hostile, env={"GITHUB_ACTIONS": "true"})
    assert "\x1b" not in ci and "\n" not in ci and "%0A" in ci
