"""Transient model API errors are retried (issue 21), on the real CLIs: an agent run whose attempts meet HTTP 500
is run again from scratch, with a backoff, and passes when a later attempt does; the run record lists what was
retried. When every attempt fails the run is ERROR saying how many retries were made. The status comes from
the engine's structured events (the fake model answers 500; the agent prints nothing about it)."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, creator_evals, make_package, run_evalens

pytestmark = pytest.mark.agents

ENGINES = ["claude-code", "codex"]
JUDGES = {"claude-code": "claude-judge-test", "codex": "openai:gpt-judge-test"}
MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}


def _evalens(*args: str) -> subprocess.CompletedProcess:
    return run_evalens(*args, env={"EVALENS_RETRY_BACKOFF": "0.05"})


@pytest.mark.parametrize("engine", ENGINES)
def test_transient_errors_are_retried_then_pass_or_error(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    marker = uuid.uuid4().hex[:10]
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        cases={
            # the fake model answers 500 to this case's first two agent sessions, then plays `pass`
            "recovers": case("flaky-agent", extra=f"MARKER={marker}", contains=["GREETING-OK"]),
            "always-down": case("err500", contains=["GREETING-OK"]),
        },
    )
    out = _evalens("eval", "--package", str(pkg), *MODEL[engine], "--agent-retries", "2", "--json")
    assert out.returncode == 1, out.stderr[-3000:]
    report = json.loads(out.stdout)
    cases = {c["name"]: c for c in report["cases"]}
    assert cases["recovers"]["verdict"] == "PASS", cases["recovers"]
    down = cases["always-down"]
    assert down["verdict"] == "ERROR" and "API status 500" in down["reason"], down
    assert "(after 2 retries)" in down["reason"]
    records = {
        p.parent.name: json.loads(p.read_text()) for p in (pkg / "evals" / "reports").rglob("record.json")
    }
    assert [r.split(";")[0] for r in records["recovers"]["retries"]] == [
        "attempt 1: API status 500",
        "attempt 2: API status 500",
    ]
    assert records["recovers"].get("error") is None and len(records["always-down"]["retries"]) == 2

    # --agent-retries 0: the first 500 is the run's ERROR, as before retries existed
    again = _evalens(
        "eval", "--package", str(pkg), *MODEL[engine], "--agent-retries", "0", "always-down", "--json"
    )
    only = json.loads(again.stdout)["cases"][0]
    assert only["verdict"] == "ERROR" and "retr" not in only["reason"], only
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_evalens_run_retries_too(engine: str, tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    marker = uuid.uuid4().hex[:10]
    evals = creator_evals(tmp_path, f"Greet SCENARIO=flaky-agent MARKER={marker} JUDGE=pass")
    out = _evalens(
        "run",
        str(evals),
        "--engine",
        engine,
        *MODEL[engine],
        "--runs",
        "1",
        "--agent-retries",
        "2",
        "--output-dir",
        str(tmp_path / "out"),
    )
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    assert "PASS" in text
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_discarded_attempts_model_calls_are_counted(engine: str, tmp_path: Path, sandbox_dir: Path) -> None:
    """Issue 44: the report counted only the attempt that counts (2 model calls where the provider answered
    3), so cost and budget were short by what the discarded attempts spent. The run's usage now holds every
    agent request the provider answered, its discarded attempts' too, in the report and the run record."""
    import os

    from tests.fakemodel import FakeModelServer

    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    marker = uuid.uuid4().hex[:10]
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={"recovers": case("flaky-agent", extra=f"MARKER={marker}", contains=["GREETING-OK"])},
    )
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        env = {
            "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
            "OPENAI_BASE_URL": fake.openai_base_url,
            "ANTHROPIC_API_KEY": "test-key",
            "OPENAI_API_KEY": "test-key",
            "EVALENS_RETRY_BACKOFF": "0.05",
        }
        out = run_evalens(
            "eval", "--package", str(pkg), *MODEL[engine], "--no-judge", "--agent-retries", "2", "--json",
            env={**{k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_AUTH_TOKEN", "CODEX_API_KEY")}, **env},
        )  # fmt: skip
        answered = [r for r in fake.records if not r["judge"]]
        # evalens run (the file suites' session): the same count
        before = len(fake.records)
        marker2 = uuid.uuid4().hex[:10]
        evals = creator_evals(tmp_path, f"Greet SCENARIO=flaky-agent MARKER={marker2} JUDGE=pass")
        ran = run_evalens(
            "run", str(evals), "--engine", engine, *MODEL[engine], "--runs", "1", "--agent-retries", "2",
            "--output-dir", str(tmp_path / "out"),
            env={**{k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_AUTH_TOKEN", "CODEX_API_KEY")}, **env},
        )  # fmt: skip
        answered_run = [r for r in fake.records[before:] if not r["judge"]]
    assert ran.returncode == 0, (ran.stdout + ran.stderr)[-3000:]
    newest = max(evals.parents[1].glob("evals/reports/*.json"), key=lambda p: p.stat().st_mtime_ns)
    [run_unit] = json.loads(newest.read_text())["cases"]
    assert any(r["reply"]["error"] for r in answered_run), answered_run
    assert run_unit["usage"]["model_calls"] == len(answered_run), (run_unit["usage"], len(answered_run))
    assert out.returncode == 0, out.stderr[-3000:]
    [unit] = json.loads(out.stdout)["cases"]
    assert unit["verdict"] == "PASS", unit
    failed = [r for r in answered if r["reply"]["error"]]
    assert failed and len(failed) < len(answered), answered  # the discarded attempts did reach the provider
    [record] = [json.loads(p.read_text()) for p in (pkg / "evals" / "reports").rglob("record.json")]
    assert len(record["retries"]) == 2, record["retries"]
    assert record["usage"]["model_calls"] == len(answered), (record["usage"], len(answered), len(failed))
    assert unit["usage"]["model_calls"] == len(answered), unit["usage"]
