"""Issue 28 B5/B6: the CLI reads only regular files, bounded, with a clear error (validate, diff, rejudge, merge,
show), and `evalens show` never sends a terminal control sequence from agent text or file names.

A command that could hang or read without end (a FIFO, a device) runs as a real subprocess with a time bound:
before the fix a FIFO hung it forever. The others run in the test's process (tests/in_process.py, #22)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import in_process
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "runner" / "fixtures" / "run-report"
STAMP = "2026-11-26T11-58-59Z"


def evalens(
    *args: str, cwd: Path, env: dict[str, str] | None = None, bounded: bool = True
) -> subprocess.CompletedProcess:
    """``bounded``: a fresh interpreter killed after 60 s, for input that could hang the command; else in this
    process, with the same environment."""
    if not bounded:
        return in_process.evalens(
            args, cwd=cwd, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
        )
    return subprocess.run(
        [sys.executable, "-m", "evalens", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})},
    )


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "evals" / "reports")
    return tmp_path / "evals" / "reports"


def test_validate_names_a_fifo_and_never_waits_on_it(tmp_path: Path) -> None:
    cases = tmp_path / "evals" / "cases"
    cases.mkdir(parents=True)
    (cases / "ok.yaml").write_text("name: ok\ninput:\n  prompt: hi\n")
    os.mkfifo(cases / "p.yaml")
    for target in ("evals/", "evals/cases/p.yaml"):
        out = evalens("validate", target, cwd=tmp_path)
        assert "Traceback" not in out.stderr
        assert "p.yaml" in out.stdout and "it is a FIFO, not a regular file" in out.stdout, (
            out.stdout + out.stderr
        )


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_report_readers_refuse_fifos_devices_and_huge_files(kind: str, reports: Path) -> None:
    good = reports / f"{STAMP}.json"
    bad = reports / f"{kind}.json"
    if kind == "fifo":
        os.mkfifo(bad)
        reason = "it is a FIFO, not a regular file"
    elif kind == "device":
        bad.symlink_to("/dev/zero")
        reason = "it is a character device, not a regular file"
    else:
        with open(bad, "wb") as fh:
            fh.truncate(3 << 20)
        reason = "it is larger than 2 MB (EVALENS_MAX_INPUT_MB)"
    env = {"EVALENS_MAX_INPUT_MB": "2"}
    bounded = kind != "huge"  # a FIFO could block a read forever, /dev/zero never ends; 3 MB on disk does
    runs = {
        "diff": evalens("eval", "diff", str(good), str(bad), cwd=reports, env=env, bounded=bounded),
        "rejudge": evalens("eval", "--rejudge", str(bad), cwd=reports, env=env, bounded=bounded),
        "merge": evalens(
            "report",
            "merge",
            str(good),
            str(bad),
            "-o",
            str(reports / "m.json"),
            cwd=reports,
            env=env,
            bounded=bounded,
        ),
        "show": evalens("show", str(bad), cwd=reports, env=env, bounded=bounded),
    }
    for name, out in runs.items():
        assert "Traceback" not in out.stderr and "MemoryError" not in out.stderr, (name, out.stderr[-2000:])
        assert out.returncode == 2, (name, out.returncode, out.stdout, out.stderr)
        assert reason in out.stderr, (name, out.stderr)


HOSTILE = "\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;ZWNobyBwd25lZA==\x07\x9b2Jdone\u202e"


def test_show_prints_agent_text_and_file_names_without_terminal_controls(reports: Path) -> None:
    record_path = reports / STAMP / "writes-greeting" / "record.json"
    record = json.loads(record_path.read_text())
    record["turns"][0]["text"] = f"hello {HOSTILE}"
    record["turns"][0]["tool_calls"][0]["result"] = f"tool {HOSTILE}"
    record["files"][0]["path"] = f"output/{HOSTILE}.md"
    record["files"][0]["diff"] += f"+{HOSTILE}\n"
    record_path.write_text(json.dumps(record))
    for extra in ([], ["--full"], ["--markdown"]):
        out = evalens(
            "show", str(reports / f"{STAMP}.json"), "writes-greeting", *extra, cwd=reports, bounded=False
        )
        assert out.returncode == 0, out.stderr
        shown = out.stdout
        assert (
            "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown and "\u202e" not in shown
        ), (extra, repr(shown[:2000]))
        assert "\\x1b]0;PWNED\\x07" in shown.replace("\n", ""), (extra, shown[:3000])


def test_eval_summary_and_live_turns_send_no_terminal_controls() -> None:
    """The closing table of `evalens eval` / `run` and the live turns of `--verbose` print case names, reasons
    and the agent's own words: outside CI too (where rich passes ESC through), no control reaches the terminal."""
    import io
    from types import SimpleNamespace

    from evalens.cli.progress import print_summary, turn_text
    from evalens.runner.live import LiveTurn

    for ci in (False, True):
        out = io.StringIO()
        case = SimpleNamespace(
            name=f"case{HOSTILE}",
            verdict="FAIL",
            pass_rate=None,
            duration_seconds=1.0,
            reason=f"why {HOSTILE}",
            usage=None,
        )
        print_summary([case], f"reports/{HOSTILE}.json", stream=out, ci=ci)
        text = out.getvalue()
        assert "\x1b]" not in text and "\x07" not in text and "\x9b" not in text and "\u202e" not in text, (
            repr(text)
        )
        assert "PWNED" in text, text
    for kind in ("text", "tool", "hook"):
        line = turn_text(LiveTurn(unit=f"u{HOSTILE}", kind=kind, text=f"said {HOSTILE}", tool=f"T{HOSTILE}"))
        assert "\x1b" not in line and "\x07" not in line and "\x9b" not in line and "\u202e" not in line, (
            repr(line)
        )
        assert "\\x1b]0;PWNED\\x07" in line, line
