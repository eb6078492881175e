"""Per-run limits on the real CLIs (issue 29): ``--max-turns`` and ``--max-tokens-per-run`` stop an agent that
would never stop while it streams, from the engine's own usage events, and the run is ERROR naming the limit,
in ``evalens eval`` (UAAPS) and ``evalens run`` (the other formats) alike. A run inside its limits is untouched.
The fake model's ``endless`` scenario calls the shell after every tool result, forever: only a limit (or the
timeout, set far above what a stop takes) ends it."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, creator_evals, make_package, run_evalens

pytestmark = pytest.mark.agents

ENGINES = ["claude-code", "codex"]
JUDGES = {"claude-code": "claude-judge-test", "codex": "openai:gpt-judge-test"}
MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}
TIMEOUT_S = 120  # a stop by a limit takes a few seconds; reaching this means the limit did not stop the run


def _evalens(*args: str) -> subprocess.CompletedProcess:
    return run_evalens(*args, timeout=TIMEOUT_S + 120)


@pytest.mark.parametrize("engine", ENGINES)
def test_limits_stop_the_run_and_the_unit_is_error(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        timeout=TIMEOUT_S,
        cases={"loops": case("endless"), "ok": case("pass", contains=["GREETING-OK"])},
    )
    model = MODEL[engine]

    # --max-turns: the endless case is stopped on its third model call; the bounded case passes untouched.
    started = time.monotonic()
    out = _evalens("eval", "--package", str(pkg), *model, "--max-turns", "2", "--json")
    took = time.monotonic() - started
    assert out.returncode == 1, out.stderr[-3000:]
    cases = {c["name"]: c for c in json.loads(out.stdout)["cases"]}
    loops = cases["loops"]
    assert loops["verdict"] == "ERROR", loops
    assert "turn limit" in loops["reason"] and "--max-turns 2" in loops["reason"], loops["reason"]
    assert cases["ok"]["verdict"] == "PASS", cases["ok"]
    assert took < TIMEOUT_S, f"the limit did not stop the run ({took:.0f} s)"
    assert "turn limit" in out.stderr  # the table says why too

    # --max-tokens-per-run: the same endless case, stopped by what its model calls used.
    out = _evalens("eval", "--package", str(pkg), *model, "--max-tokens-per-run", "40", "loops", "--json")
    assert out.returncode == 1, out.stderr[-3000:]
    loops = json.loads(out.stdout)["cases"][0]
    assert loops["verdict"] == "ERROR" and "token limit" in loops["reason"], loops
    assert "--max-tokens-per-run 40" in loops["reason"]
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_limits_in_evalens_run_formats(engine: str, tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    evals = creator_evals(tmp_path, "Greet SCENARIO=endless")
    started = time.monotonic()
    out = _evalens(
        "run",
        str(evals),
        "--engine",
        engine,
        *MODEL[engine],
        "--runs",
        "1",
        "--timeout",
        str(TIMEOUT_S),
        "--max-turns",
        "1",
        "--output-dir",
        str(tmp_path / "out"),
    )
    assert out.returncode == 1, out.stdout[-3000:] + out.stderr[-3000:]
    assert time.monotonic() - started < TIMEOUT_S
    text = out.stdout + out.stderr
    assert "ERROR" in text and "turn limit" in text, text[-3000:]
    assert list(sandbox_dir.iterdir()) == []
