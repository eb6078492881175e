"""SIGINT, SIGTERM and SIGHUP at several moments of `evalens eval` and `evalens run` with the real `claude` CLI:
the conventional exit code, a valid report (`interrupted: true`) once a run has started, no traceback, and nothing
left behind (sandbox folders, scratch folders, agent processes). Also: a SIGKILLed run's sandbox is swept by the
next run, and without bubblewrap Claude's scratch folders stay inside the sandbox."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import jsonschema
import pytest

from tests.runner.runner_helpers import agents_available, case, make_package, signals_delivered, surviving

pytestmark = pytest.mark.agents

REPORT_SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "uaaps-eval-report.schema.json").read_text()
)


@pytest.fixture(autouse=True)
def _need_claude() -> None:
    if not agents_available("claude-code"):
        pytest.skip("claude CLI not installed")


def _wait_for(what: str, proc: subprocess.Popen, ready, timeout: float = 60) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, f"exited before {what}: {proc.communicate()}"
        assert time.monotonic() < deadline, f"never reached {what}"
        time.sleep(0.02)


def _catches(pid: int, sig: signal.Signals) -> bool:
    """The process has a handler for ``sig`` (the kernel's mask of caught signals): evalens's
    ``interrupts.install`` ran, so the command is starting. A fixed sleep instead raced Python's own start on a
    loaded machine, where the signal met the interpreter's imports and its default handler."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    found = re.search(r"^SigCgt:\s*([0-9a-fA-F]+)$", status, re.MULTILINE)
    return found is not None and bool(int(found.group(1), 16) >> (sig - 1) & 1)


def _signal_at(
    argv: list[str], sig: signal.Signals, moment: str, sandbox_dir: Path, marker: str, reports: Path | None
) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        preexec_fn=signals_delivered,
    )
    try:
        if moment == "startup":  # evalens runs: its handlers are in (before that it is Python's own default)
            _wait_for("evalens's signal handlers", proc, lambda: _catches(proc.pid, signal.SIGTERM))
        elif moment == "sandbox":
            _wait_for("a sandbox", proc, lambda: any(sandbox_dir.iterdir()))
        elif moment == "agent":
            _wait_for("the agent", proc, lambda: surviving(f"evalens-slow-{marker}"))
        elif moment == "finished":
            _wait_for("the report", proc, lambda: reports is not None and any(reports.glob("*.json")))
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _assert_clean(
    out: subprocess.CompletedProcess, sig: signal.Signals, sandbox_dir: Path, marker: str
) -> None:
    assert "Traceback" not in out.stderr and "Exception in callback" not in out.stderr, out.stderr[-2000:]
    assert list(sandbox_dir.iterdir()) == [], "a sandbox folder was left behind"
    assert surviving(f"evalens-slow-{marker}") == [], "an agent process survived"
    assert not list(Path("/var/tmp").glob(f"evb-*{sandbox_dir.name}*"))


EVAL_POINTS = [
    ("t0", signal.SIGTERM),
    ("t0", signal.SIGINT),
    ("startup", signal.SIGHUP),
    ("sandbox", signal.SIGINT),
    ("agent", signal.SIGTERM),
    ("agent", signal.SIGHUP),
    ("agent", signal.SIGINT),
    ("finished", signal.SIGTERM),
]


@pytest.mark.parametrize(("moment", "sig"), EVAL_POINTS, ids=[f"{m}-{s.name}" for m, s in EVAL_POINTS])
def test_eval_signals(moment: str, sig: signal.Signals, tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    marker = uuid.uuid4().hex[:12]
    body = case("pass") if moment == "finished" else case("slow", extra=f"MARKER={marker}")
    pkg = make_package(tmp_path / "pkg", timeout=120, cases={"only": body})
    reports = pkg / "evals" / "reports"
    out = _signal_at(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge"],
        sig,
        moment,
        sandbox_dir,
        marker,
        reports,
    )
    _assert_clean(out, sig, sandbox_dir, marker)
    written = sorted(reports.glob("*.json")) if reports.exists() else []
    if moment == "t0" and out.returncode == -sig:
        # Before Python has started evalens the signal's default action ends it; nothing had started.
        assert written == []
        return
    if moment == "finished" and out.returncode in (0, 1):
        return  # the run ended before the signal arrived
    if moment == "finished" and out.returncode == -sig:
        # Arrived during interpreter shutdown, after evalens had finished: the default action ends the process
        # (a shell sees the conventional 128+N), and the report it wrote is complete.
        assert len(written) == 1
        data = json.loads(written[0].read_text())
        jsonschema.validate(data, REPORT_SCHEMA)
        assert data.get("interrupted") is not True
        return
    assert out.returncode == 128 + sig, (out.returncode, out.stderr[-2000:])
    assert "interrupted" in out.stderr
    if moment in ("sandbox", "agent"):
        assert len(written) == 1
    for path in written:
        data = json.loads(path.read_text())
        jsonschema.validate(data, REPORT_SCHEMA)
        assert data["interrupted"] is (moment != "finished")
        if moment == "agent":
            assert [(c["name"], c["verdict"]) for c in data["cases"]] == [("only", "ERROR")]
    assert not list(reports.glob(".*.tmp")) if reports.exists() else True


RUN_POINTS = [("startup", signal.SIGINT), ("agent", signal.SIGTERM), ("agent", signal.SIGHUP)]


@pytest.mark.parametrize(("moment", "sig"), RUN_POINTS, ids=[f"{m}-{s.name}" for m, s in RUN_POINTS])
def test_run_signals(moment: str, sig: signal.Signals, tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    marker = uuid.uuid4().hex[:12]
    suite = tmp_path / "evals" / "greet"
    (suite / "skills" / "greeting").mkdir(parents=True)
    (suite / "skills" / "greeting" / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets.\n---\nHi.\n"
    )
    (suite / "tasks.yaml").write_text(
        textwrap.dedent(f"""
        skill: greeting
        tasks:
          - id: gr-001
            prompt: "Greet me SCENARIO=slow MARKER={marker}"
            expected_skill_load: greeting
    """)
    )
    out = _signal_at(
        [
            sys.executable,
            "-m",
            "evalens",
            "run",
            str(suite / "tasks.yaml"),
            "--runs",
            "1",
            "--no-judge",
            "--output-dir",
            str(tmp_path / "results"),
        ],
        sig,
        moment,
        sandbox_dir,
        marker,
        None,
    )
    _assert_clean(out, sig, sandbox_dir, marker)
    assert out.returncode == 128 + sig, (out.returncode, out.stderr[-2000:])
    assert "interrupted" in out.stderr


def test_killed_run_is_swept_by_the_next(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    """SIGKILL leaves no chance to clean up: the agent dies with its runner and the next run removes the folder."""
    marker = uuid.uuid4().hex[:12]
    pkg = make_package(tmp_path / "pkg", timeout=120, cases={"slow": case("slow", extra=f"MARKER={marker}")})
    argv = [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
    _wait_for("the agent", proc, lambda: surviving(f"evalens-slow-{marker}"))
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while surviving(f"evalens-slow-{marker}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert surviving(f"evalens-slow-{marker}") == []  # --die-with-parent took the agent down
    (left,) = list(sandbox_dir.iterdir())
    os.utime(left, (time.time() - 60, time.time() - 60))
    (pkg / "evals" / "cases" / "00-slow.yaml").write_text(json.dumps({"name": "slow", **case("done")}))
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert again.returncode == 0, again.stderr
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("bwrap", [False, True], ids=["no-bwrap", "bwrap"])
def test_timed_out_case_leaves_nothing(
    bwrap: bool, tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timed-out claude-code case: one line, no asyncio trace from the model bridge's shutdown, and Claude's
    `claude-<uid>/` scratch stays in the sandbox's own TMPDIR (removed with it), not the system temp folder."""
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_tmp))
    marker = uuid.uuid4().hex[:12]
    pkg = make_package(tmp_path / "pkg", timeout=8, cases={"slow": case("slow", extra=f"MARKER={marker}")})
    env = {**os.environ, "EVALENS_NO_BWRAP": "0" if bwrap else "1"}
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and "Exception in callback" not in out.stderr, out.stderr
    report = json.loads(out.stdout)
    assert report["sandbox"]["enforced"] is bwrap and report["cases"][0]["error"].startswith("timed out")
    assert list(system_tmp.iterdir()) == []
    assert list(sandbox_dir.iterdir()) == [] and surviving(f"evalens-slow-{marker}") == []
