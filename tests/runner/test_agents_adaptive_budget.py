"""``--runs auto:MAX`` with a budget (issue #25 item 4) on the real `claude` against a scripted suite of the fake
model: a steady case (``pass``) and a wobbly one (``alt-fail-pass``: fail, pass, fail, … whatever is asked) that
MAX cannot decide. Without a budget the wobbly case stops at MAX (``max-reached``); with ``--max-tokens`` the
budget left once both stopped goes to it, run after run, until the budget is spent (``budget``), and the report
says how many runs came from it. The steady case is decided within MAX either way and gets none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, make_package

pytestmark = pytest.mark.agents


def _suite(root: Path) -> Path:
    steady, wobbly = uuid.uuid4().hex[:10], uuid.uuid4().hex[:10]  # fresh cycles in the fake model
    return make_package(
        root,
        cases={
            "steady": case("pass", extra=f"MARKER={steady}", contains=["GREETING-OK"]),
            "wobbly": case("alt-fail-pass", extra=f"MARKER={wobbly}", contains=["GREETING-OK"]),
        },
    )


def _eval(pkg: Path, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge", "--json"]
        + ["--runs", "auto:4", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=900,
    )
    assert out.returncode == 1, out.stderr[-3000:]  # the wobbly case is FLAKY: it fails the command
    return json.loads(out.stdout)


def _tokens(usage: dict) -> int:
    return (usage.get("input_tokens") or 0) + (usage.get("output_tokens") or 0)


def test_budget_left_goes_to_cases_still_flaky_after_max(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available("claude-code"):
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")
    # without a budget: the wobbly case stops at MAX (2/4, Wilson 0.15..0.85 straddles 0.5)
    plain = {c["name"]: c for c in _eval(_suite(tmp_path / "plain"))["cases"]}
    assert (
        plain["steady"]["run_verdicts"] == ["PASS"] * 4
        and plain["steady"]["details"]["stopped"] == "decided-pass"
    )
    wobbly = plain["wobbly"]
    assert wobbly["run_verdicts"] == ["FAIL", "PASS"] * 2 and wobbly["details"] == {"stopped": "max-reached"}
    spent = sum(_tokens(c["usage"]) for c in plain.values())
    assert spent > 0
    # with a budget half again what those 8 runs spent: the rest goes to the wobbly case alone
    cap = spent * 3 // 2
    report = _eval(_suite(tmp_path / "budget"), "--max-tokens", str(cap))
    cases = {c["name"]: c for c in report["cases"]}
    steady, wobbly = cases["steady"], cases["wobbly"]
    assert steady["runs"] == 4 and steady["details"] == {"stopped": "decided-pass"}  # decided: no leftover
    extra = wobbly["details"].get("leftover_runs", 0)
    assert extra >= 1 and wobbly["details"]["stopped"] == "budget", wobbly["details"]
    assert wobbly["runs"] == 4 + extra and wobbly["state"] == "FLAKY"
    assert wobbly["run_verdicts"] == (["FAIL", "PASS"] * 8)[: 4 + extra]  # the fake's cycle, run after run
    # by hand: a run starts only while the batch spent less than the cap, so the cap is met, and each run costs
    # about spent / 8: the leftover is about (cap - spent) / (spent / 8) = 4 runs, give or take one
    used = sum(_tokens(c["usage"]) for c in cases.values())
    assert used >= cap and used - _tokens(wobbly["usage"]) // wobbly["runs"] < cap
    assert 3 <= extra <= 5, (extra, spent, used)
