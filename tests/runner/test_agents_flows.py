"""End-to-end flows on the real CLIs: Ctrl-C mid-run, re-judging, repeated runs, the no-bubblewrap fallback and
the network control case. Codex is used where the engine does not matter (it starts fastest)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import jsonschema
import pytest

from evalens.runner.api import RunRequest, run_cases
from tests.runner.runner_helpers import agents_available, case, make_package, signals_delivered, surviving

REPO = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((REPO / "schemas" / "uaaps-eval-report.schema.json").read_text())

pytestmark = pytest.mark.agents


def need(engine: str) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")


def test_sigint_mid_run_leaves_no_sandbox_and_a_partial_report(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    need("codex")
    marker = uuid.uuid4().hex[:12]
    pkg = make_package(
        tmp_path / "pkg",
        engine="codex",
        timeout=120,
        cases={
            "a-quick": case("pass", contains=["GREETING-OK"]),
            "b-hangs": case("slow", extra=f"MARKER={marker}"),
            "c-never": case("pass"),
        },
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge", "--model", "gpt-fake"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        preexec_fn=signals_delivered,
    )
    try:
        deadline = time.monotonic() + 90
        while not surviving(f"evalens-slow-{marker}"):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the hanging agent never started"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "partial report" in err
    reports = list((pkg / "evals" / "reports").glob("*.json"))
    assert len(reports) == 1
    data = json.loads(reports[0].read_text())
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["interrupted"] is True
    verdicts = {c["name"]: c["verdict"] for c in data["cases"]}
    assert verdicts == {"a-quick": "PASS", "b-hangs": "ERROR", "c-never": "SKIP"}
    assert list(sandbox_dir.iterdir()) == []
    assert surviving(f"evalens-slow-{marker}") == []
    assert not list((pkg / "evals" / "reports").glob(".*.tmp"))


def test_rejudge_uses_saved_transcripts(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    need("codex")
    pkg = make_package(
        tmp_path / "pkg",
        engine="codex",
        judge="openai:gpt-judge",
        cases={
            "good": case("pass", contains=["GREETING-OK"]),
            "checks-fail": case("fail-contains", contains=["GREETING-OK"]),
        },
    )
    outcome = asyncio.run(run_cases(RunRequest(package_root=pkg, agent_model="gpt-fake", jobs=2)))
    assert {r.name: r.verdict for r in outcome.results} == {"good": "PASS", "checks-fail": "FAIL"}
    agent_requests = sum(not r["judge"] for r in model_env.records)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "eval",
            "--rejudge",
            str(outcome.report_path),
            "--judge",
            "claude-rejudge",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr  # checks-fail keeps its FAIL
    new = json.loads(out.stdout)
    jsonschema.validate(new, REPORT_SCHEMA)
    cases = {c["name"]: c for c in new["cases"]}
    assert cases["good"]["verdict"] == "PASS" and cases["good"]["judge_verdict"]["model"] == "claude-rejudge"
    assert cases["checks-fail"]["verdict"] == "FAIL"
    assert cases["good"]["fingerprint"]["judge"] == "claude-rejudge"  # the judge that decided it now
    assert cases["checks-fail"]["fingerprint"]["judge"] == "gpt-judge"  # kept: not judged again
    assert new["judge"] == {
        "model": "claude-rejudge",
        "model_provider": "anthropic",
        "choice": "anthropic: named (claude-rejudge)",  # a named judge is kept, and the report says so
    }
    assert sum(not r["judge"] for r in model_env.records) == agent_requests  # no agent ran again
    assert len(list((pkg / "evals" / "reports").glob("*.json"))) == 2


def test_runs_report_pass_rate(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    need("codex")
    pkg = make_package(
        tmp_path / "pkg", engine="codex", cases={"again": case("pass", contains=["GREETING-OK"])}
    )
    outcome = asyncio.run(
        run_cases(RunRequest(package_root=pkg, agent_model="gpt-fake", runs=3, jobs=3, no_judge=True))
    )
    result = outcome.results[0]
    assert (result.verdict, result.runs, result.pass_rate, result.run_verdicts) == (
        "PASS",
        3,
        1.0,
        ["PASS"] * 3,
    )
    data = json.loads(outcome.report_path.read_text())
    assert data["cases"][0]["pass_rate"] == 1.0 and data["cases"][0]["runs"] == 3
    artifacts = outcome.report_path.parent / data["cases"][0]["artifacts"]
    assert sorted(p.name for p in artifacts.iterdir()) == ["run-1", "run-2", "run-3"]


def test_without_bubblewrap_falls_back_loudly(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    need("codex")
    pkg = make_package(
        tmp_path / "pkg", engine="codex", cases={"plain": case("pass", contains=["GREETING-OK"])}
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "eval",
            "--package",
            str(pkg),
            "--no-judge",
            "--model",
            "gpt-fake",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "EVALENS_NO_BWRAP": "1"},
    )
    assert out.returncode == 0, out.stderr
    assert "warning: sandbox not enforced" in out.stderr
    report = json.loads(out.stdout)
    assert report["sandbox"]["enforced"] is False and report["sandbox"]["method"] == "engine"
    assert report["cases"][0]["verdict"] == "PASS"
    assert list(sandbox_dir.iterdir()) == []


def test_network_true_is_the_control(tmp_path: Path, model_env, sandbox_dir: Path, probe_port: int) -> None:
    """With `network: true` the same probe that is blocked in the matrix reaches the host listener."""
    need("claude-code")
    pkg = make_package(
        tmp_path / "pkg",
        network=True,
        cases={"probe": case("network-probe", extra=f"PROBE_PORT={probe_port}", contains=["NET-OPEN"])},
    )
    outcome = asyncio.run(run_cases(RunRequest(package_root=pkg, no_judge=True)))
    assert outcome.results[0].verdict == "PASS", outcome.results[0].reason


async def test_api_cancellation_kills_agent_and_removes_sandbox(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """What the language server does: run one case by file path with progress, then cancel the task."""
    need("codex")
    from evalens.runner.api import load_last_results

    marker = uuid.uuid4().hex[:12]
    pkg = make_package(
        tmp_path / "pkg",
        engine="codex",
        timeout=120,
        cases={"hangs": case("slow", extra=f"MARKER={marker}"), "other": case("pass")},
    )
    case_file = next((pkg / "evals" / "cases").glob("*hangs.yaml"))
    stages: list[str] = []
    task = asyncio.create_task(
        run_cases(
            RunRequest(package_root=pkg, cases=[str(case_file)], agent_model="gpt-fake", no_judge=True),
            on_progress=lambda e: stages.append(e.stage),
        )
    )
    deadline = time.monotonic() + 60
    while not surviving(f"evalens-slow-{marker}"):
        assert not task.done(), task.result()
        assert time.monotonic() < deadline
        await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stages[:3] == ["report", "sandbox", "agent"] and "cleanup" in stages
    assert surviving(f"evalens-slow-{marker}") == [] and list(sandbox_dir.iterdir()) == []
    (report,) = (pkg / "evals" / "reports").glob("*.json")
    data = json.loads(report.read_text())
    assert data["interrupted"] is True and [(c["name"], c["verdict"]) for c in data["cases"]] == [
        ("hangs", "ERROR")
    ]
    assert load_last_results(pkg) == {}  # an interrupted case says nothing about the case
    outcome = await run_cases(
        RunRequest(package_root=pkg, cases=["other"], agent_model="gpt-fake", no_judge=True)
    )
    last = load_last_results(pkg)
    assert list(last) == ["other"] and last["other"].case_file == str(outcome.results[0].case_file)


def test_deep_sandbox_dir_still_reaches_the_model(tmp_path: Path, model_env, monkeypatch) -> None:
    """Unix socket paths max out at 108 bytes: a deep sandbox base must not cut the agent off its model."""
    need("claude-code")
    deep = Path("/var/tmp/evalens-tests") / ("deep-" + "x" * 60) / uuid.uuid4().hex
    deep.mkdir(parents=True)
    monkeypatch.setenv("EVALENS_SANDBOX_DIR", str(deep))
    try:
        pkg = make_package(tmp_path / "pkg", cases={"deep": case("pass", contains=["GREETING-OK"])})
        outcome = asyncio.run(run_cases(RunRequest(package_root=pkg, no_judge=True)))
        assert outcome.results[0].verdict == "PASS", outcome.results[0].reason
        assert list(deep.iterdir()) == []
        assert not list(Path("/var/tmp").glob("evb-*"))  # the short socket folder is gone too
    finally:
        import shutil

        shutil.rmtree(deep.parent, ignore_errors=True)
