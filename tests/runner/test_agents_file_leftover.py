"""``--runs auto:MAX`` with a budget for an eval file (issue 41: the budget's leftover rounds for every format, as
a package's cases get them in tests/runner/test_agents_adaptive_budget.py), on both real CLIs against the fake
model. A skilljack suite holds a steady task (``activate-listed``: the skill loaded, the greeting) and a wobbly one
(``alt-skill-fail-pass``: the skill loaded, the greeting left out every other run)
that MAX cannot decide. Without a budget the wobbly task stops at MAX (``max-reached``); with ``--max-tokens`` the
budget left once both stopped goes to it, run after run, each run admitted on its own, until the budget is spent
(``budget``); the report says how many came from it, and the run log read alone gives the same verdicts."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from evalens.runner.run_log import log_path, read_log, unit_results
from tests.runner.runner_helpers import GREETER_KEY, GREETER_SKILL, agents_available, run_evalens

pytestmark = pytest.mark.agents

MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}


def _suite(root: Path) -> Path:
    steady, wobbly = uuid.uuid4().hex[:10], uuid.uuid4().hex[:10]  # fresh cycles in the fake model
    (root / "skills" / "greeter").mkdir(parents=True)
    (root / "skills" / "greeter" / "SKILL.md").write_text(GREETER_SKILL)
    body = "skill: greeter\ntasks:\n"
    for name, scenario, marker in (
        ("steady", "activate-listed", steady),
        ("wobbly", "alt-skill-fail-pass", wobbly),
    ):
        body += (
            f"  - id: {name}\n"
            f'    prompt: "Greet {name} SCENARIO={scenario} MARKER={marker} NEEDS={GREETER_KEY}"\n'
            "    expected_skill_load: greeter\n"
            "    deterministic: { expect_skill_activation: true, expect_marker: GREETING-OK }\n"
        )
    (root / "tasks.yaml").write_text(body)
    return root / "tasks.yaml"


def _run(engine: str, tasks: Path, *args: str) -> tuple[dict, Path]:
    out = run_evalens(
        "run", str(tasks), "--engine", engine, *MODEL[engine], "--no-judge", "--runs", "auto:4",
        "--output-dir", str(tasks.parent / "results"), *args, env={"COLUMNS": "200"}, timeout=900,
    )  # fmt: skip
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr[-3000:]  # the wobbly task fails the run
    (path,) = (tasks.parent / "evals" / "reports").glob("*.json")
    return json.loads(path.read_text()), path


def _tokens(usage: dict) -> int:
    return (usage.get("input_tokens") or 0) + (usage.get("output_tokens") or 0)


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_the_budget_left_goes_to_a_files_units_still_flaky_after_max(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    plain = {c["name"]: c for c in _run(engine, _suite(tmp_path / "plain"))[0]["cases"]}
    assert plain["steady"]["runs"] == 4 and plain["steady"]["details"]["stopped"] == "decided-pass"
    assert plain["wobbly"]["runs"] == 4 and plain["wobbly"]["details"]["stopped"] == "max-reached"
    assert "leftover_runs" not in plain["wobbly"]["details"]
    spent = sum(_tokens(c["usage"]) for c in plain.values())
    assert spent > 0
    cap = spent * 3 // 2  # half again what those 8 runs spent: the rest goes to the wobbly task alone
    report, path = _run(engine, _suite(tmp_path / "budget"), "--max-tokens", str(cap))
    cases = {c["name"]: c for c in report["cases"]}
    steady, wobbly = cases["steady"], cases["wobbly"]
    assert steady["runs"] == 4 and steady["details"]["stopped"] == "decided-pass"  # decided: no leftover
    assert "leftover_runs" not in steady["details"]
    extra = wobbly["details"].get("leftover_runs", 0)
    assert extra >= 1 and wobbly["details"]["stopped"] == "budget", wobbly["details"]
    assert wobbly["runs"] == 4 + extra and wobbly["verdict"] == "FAIL"
    # by hand: a run starts only while the batch spent less than the cap, and each costs about spent / 8, so the
    # leftover is about (cap - spent) / (spent / 8) = 4 runs, give or take one
    used = sum(_tokens(c["usage"]) for c in cases.values())
    assert used >= cap and 3 <= extra <= 5, (extra, spent, used)
    # the report is a view of the log: its runs past MAX are logged, and the log read alone agrees
    logged = {r.name: r for r in unit_results(read_log(log_path(path)))}
    assert logged["wobbly"].runs == 4 + extra and logged["wobbly"].verdict == "FAIL"
    assert logged["steady"].verdict == "PASS"
    records = sorted(p.parent.name for p in (path.with_suffix("") / "wobbly").glob("run-*/record.json"))
    assert len(records) == 4 + extra, records  # every run's record, the leftover ones too
