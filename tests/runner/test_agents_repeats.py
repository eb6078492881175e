"""Repeats on the real CLIs: a case that passes 2 of 3 times is FLAKY with the right counts and interval,
``--flaky pass`` forgives it, ``--failed`` picks it, and a SKILL.md edit makes exactly the dependent verdicts
stale for ``--stale`` (docs/repeats.md)."""

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


def _eval(pkg: Path, engine: str, *args: str) -> subprocess.CompletedProcess:
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    return subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), *model, *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_flaky_case_failed_and_stale_selection(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    marker = uuid.uuid4().hex[:10]
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={
            "steady": case("pass", contains=["GREETING-OK"]),
            "wobbly": case("flaky-2of3", extra=f"MARKER={marker}", contains=["GREETING-OK"]),
        },
    )
    out = _eval(pkg, engine, "--runs", "3", "--jobs", "1", "--no-judge", "--json")
    assert out.returncode == 1, out.stderr[-2000:]
    report = json.loads(out.stdout)
    cases = {c["name"]: c for c in report["cases"]}
    wobbly, steady = cases["wobbly"], cases["steady"]
    assert wobbly["state"] == "FLAKY" and wobbly["verdict"] == "FAIL"
    assert sorted(wobbly["run_verdicts"]) == ["FAIL", "PASS", "PASS"]
    assert wobbly["pass_rate_interval"] == pytest.approx([0.2077, 0.9385], abs=1e-4)
    assert wobbly["pass_hat_k"] == 0.0 and wobbly["reason"].startswith("flaky: passed 2/3")
    assert steady["state"] == "PASS" and steady["pass_hat_k"] == 1.0
    assert report["summary"]["flaky"] == 1
    fp = wobbly["fingerprint"]
    assert {"unit", "skill:greeter", "hooks", "engine", "engine-version"} <= set(fp) and fp[
        "engine"
    ] == engine
    assert "FLAKY" in out.stderr and "2/3" in out.stderr  # the summary table

    picked = _eval(pkg, engine, "--failed", "--dry-run")
    assert picked.returncode == 0, picked.stderr
    assert "wobbly: last run: FLAKY" in picked.stderr and "steady" not in picked.stderr + picked.stdout

    nothing = _eval(pkg, engine, "--stale", "--dry-run", "--no-judge")  # the next run's flags
    assert nothing.returncode == 0 and "no stale case: nothing to run" in nothing.stderr, nothing.stderr
    skill = pkg / "skills" / "greeter" / "SKILL.md"
    skill.write_text(skill.read_text() + "Be brief.\n")
    both = _eval(pkg, engine, "--stale", "--dry-run", "--no-judge")  # the next run's flags
    assert both.returncode == 0, both.stderr
    assert "steady: stale: skill greeter changed" in both.stderr
    assert "wobbly: stale: skill greeter changed" in both.stderr

    forgiven = _eval(pkg, engine, "wobbly", "--runs", "3", "--jobs", "1", "--no-judge", "--flaky", "pass")
    assert forgiven.returncode == 0, forgiven.stderr[-2000:]
    assert "FLAKY" in forgiven.stderr


@pytest.mark.parametrize(
    ("engine", "limit"), [("claude-code", ["--max-cost", "0.000001"]), ("codex", ["--max-tokens", "1"])]
)
def test_budget_stops_the_batch_and_dry_run_estimates(
    engine: str, limit: list[str], tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Claude reports a cost, Codex only tokens: once the first case spent the budget, the others never start."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={
            "a-first": case("pass", contains=["GREETING-OK"]),
            "b-second": case("pass", contains=["GREETING-OK"]),
            "c-third": case("pass", contains=["GREETING-OK"]),
        },
    )
    out = _eval(pkg, engine, "--jobs", "1", "--no-judge", "--json", *limit)
    assert out.returncode == 0, out.stderr[-2000:]
    cases = {c["name"]: c for c in json.loads(out.stdout)["cases"]}
    assert cases["a-first"]["verdict"] == "PASS" and cases["a-first"]["usage"]["output_tokens"] > 0
    for name in ("b-second", "c-third"):
        assert cases[name]["verdict"] == "SKIP" and cases[name]["error"].startswith("budget spent:"), cases[
            name
        ]
        assert limit[0] in cases[name]["error"]
    plan = _eval(pkg, engine, "--dry-run")
    assert plan.returncode == 0, plan.stderr
    assert "for 1 unit(s) with history; 2 unit(s) have no history" in plan.stdout, plan.stdout
