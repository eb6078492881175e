"""``evalens run evals.json --judge-repeats 3`` on the real CLIs against the fake model: a skill-creator eval whose
grader always agrees with itself keeps its PASS with a flip rate of 0; one whose grader flips (the fake's
``alternate`` grader: every statement passed, failed, passed for the same request) FAILS, because a statement
holds only if every grading passed it, with the flip rate by hand and the batch's agreement, as a UAAPS case's
repeated judge gives them (tests/runner/test_adaptive_runs.py). A trigger set, which has no judge, refuses the
flag with the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.runner_helpers import GREETER_KEY, GREETER_SKILL, agents_available, greeter_suite

pytestmark = pytest.mark.agents

KEY, SKILL = GREETER_KEY, GREETER_SKILL
MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}


def _evalens(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalens", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=600,
    )


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_graded_eval_judged_three_times_fails_when_its_grader_flips(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    skill = tmp_path / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    evals = skill / "evals" / "evals.json"

    def one(number: int, judge: str) -> dict:
        prompt = f"Greet {number} SCENARIO=needs-skill NEEDS={KEY} JUDGE={judge}"
        return {
            "id": number,
            "prompt": prompt,
            "expected_output": "a greeting",
            "assertions": ["greets", "is kind"],
        }

    evals.write_text(json.dumps({"skill_name": "greeter", "evals": [one(1, "pass"), one(2, "alternate")]}))
    out = _evalens(
        "run", str(evals), "--engine", engine, *MODEL[engine], "--runs", "1", "--judge-repeats", "3"
    )
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr[-3000:]  # the flipping eval failed
    report = json.loads(next((skill / "evals" / "reports").glob("*.json")).read_text())
    cases = {c["name"]: c for c in report["cases"]}
    steady, flipping = cases["1"], cases["2"]
    assert steady["verdict"] == "PASS" and steady["judge_flip_rate"] == 0.0, steady
    assert steady["judge_verdicts"] == ["PASS"] * 3
    # each statement of eval 2 graded PASS, FAIL, PASS: a flip in 2 of its 3 pairs, for both statements
    assert flipping["verdict"] == "FAIL" and flipping["judge_flip_rate"] == 0.6667, flipping
    assert flipping["judge_verdicts"] == ["PASS", "FAIL", "PASS"]
    # four items, two steady and two flipping ([P,P,P] ×2, [P,F,P] ×2). By hand: coincidences PP 3+3+1+1 = 8,
    # PF = FP = 2, so n_P = 10, n_F = 2, n = 12; α = 1 − (n − 1)·(PF + FP) / (2·n_P·n_F) = 1 − 11·4/40 = −0.1
    # (worse than chance: the disagreement sits in half the items)
    assert report["judge"]["repeats"] == 3 and report["judge"]["agreement"] == -0.1, report["judge"]
    # skill-creator's own grading.json holds the combined grading: the failing one's, for eval 2
    (stamp,) = (tmp_path / "greeter-workspace" / "runs").iterdir()
    grading = json.loads((stamp / "eval-2" / "grading.json").read_text())
    assert [e["passed"] for e in grading["expectations"]] == [False, False], grading


def test_a_trigger_set_refuses_judge_repeats_with_the_reason(tmp_path: Path) -> None:
    skill = tmp_path / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    queries = skill / "evals" / "trigger-eval.json"
    queries.write_text(json.dumps([{"query": "say hello", "should_trigger": True}]))
    out = _evalens("run", str(queries), "--judge-repeats", "2", "--dry-run")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "--judge-repeats: a trigger set has no judge" in out.stderr, out.stderr


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_skilljack_task_judged_three_times_fails_when_its_judge_flips(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """skilljack's judge scores a run on three scales; with ``--judge-repeats 3`` each judgement is ruled by
    skilljack's rule for that run, and the run keeps the first that rules as every judge's rule says (any FAIL
    fails): the flipping judge's low score is never averaged away."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    tasks = greeter_suite(tmp_path / "suite", {"steady": "pass", "flipping": "alternate"})
    suite = tasks.parent
    out = _evalens(
        "run", str(tasks), "--engine", engine, *MODEL[engine], "--runs", "1", "--judge-repeats", "3",
        "--output-dir", str(tmp_path / "results"),
    )  # fmt: skip
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr[-3000:]
    report = json.loads(next((suite / "evals" / "reports").glob("*.json")).read_text())
    cases = {c["name"]: c for c in report["cases"]}
    assert cases["steady"]["verdict"] == "PASS" and cases["steady"]["judge_verdicts"] == ["PASS"] * 3
    flipping = cases["flipping"]
    assert flipping["verdict"] == "FAIL" and flipping["judge_verdicts"] == ["PASS", "FAIL", "PASS"], flipping
    assert flipping["judge_flip_rate"] == 0.6667
    # [P,P,P] and [P,F,P]: α = 0 by hand, as for two UAAPS transcripts (tests/runner/test_adaptive_runs.py)
    assert report["judge"]["repeats"] == 3 and report["judge"]["agreement"] == 0.0, report["judge"]


def _plugin(root: Path, judge: str) -> Path:
    """A plugin (`demo`, one skill) with one eval case whose llm grader's judge is ``judge``."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "demo", "version": "0.1.0"}))
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets the team in one line. Use when asked to greet.\n---\nSay GREETING-OK.\n"
    )
    case = root / "evals" / "greets"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("---\nruns: 1\n---\n\nSCENARIO=pass Greet the team.\n")
    (case / "graders" / "judge.md").write_text(
        f"---\ntype: llm\n---\n\nThe reply greets the team. JUDGE={judge}\n"
    )
    return case / "prompt.md"


def test_a_plugin_eval_graded_by_evalens_repeats_its_llm_grader(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """On codex evalens grades a plugin's eval itself: its llm grader is judged three times, and a judge that
    flips fails the case with its flip rate."""
    if not agents_available("codex"):
        pytest.skip("codex CLI not installed (run .ci/install-agents.sh)")
    prompt = _plugin(tmp_path / "demo", "alternate")
    out = _evalens("run", str(prompt), "--engine", "codex", "--model", "gpt-5-codex", "--judge-repeats", "3")
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr[-3000:]
    report = json.loads(next((tmp_path / "demo" / "evals" / "reports").glob("*.json")).read_text())
    [case] = report["cases"]
    assert case["verdict"] == "FAIL" and case["judge_verdicts"] == ["PASS", "FAIL", "PASS"], case
    assert case["judge_flip_rate"] == 0.6667 and report["judge"]["repeats"] == 3


def test_on_claude_code_a_plugin_eval_refuses_judge_repeats_with_the_reason(tmp_path: Path) -> None:
    """There `claude plugin eval` grades the case with its own judge, which evalens cannot ask again: refused
    before any agent starts, never ignored."""
    prompt = _plugin(tmp_path / "demo", "pass")
    out = _evalens("run", str(prompt), "--engine", "claude-code", "--judge-repeats", "2", "--dry-run")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "--judge-repeats: on Claude Code a plugin's eval is graded by `claude plugin eval`" in out.stderr


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_judge_that_fails_under_repeats_makes_the_run_error_never_pass(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """The failure path of ``--judge-repeats``: a grader (skill-creator) or judge (skilljack) that answers HTTP 500
    every time makes the run ERROR, with the judge's reason; no verdict rests on the judgements that did not come."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    skill = tmp_path / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    evals = skill / "evals" / "evals.json"
    prompt = f"Greet SCENARIO=needs-skill NEEDS={KEY} JUDGE=err500"
    evals.write_text(
        json.dumps(
            {"skill_name": "greeter", "evals": [{"id": 1, "prompt": prompt, "assertions": ["greets"]}]}
        )
    )
    tasks = greeter_suite(tmp_path / "suite", {"down": "err500"})
    for file, extra in ((evals, []), (tasks, ["--output-dir", str(tmp_path / "results")])):
        out = _evalens(
            "run",
            str(file),
            "--engine",
            engine,
            *MODEL[engine],
            "--runs",
            "1",
            "--judge-repeats",
            "2",
            *extra,
        )
        assert out.returncode == 1, (file.name, out.stdout[-2000:] + out.stderr[-3000:])
        report = json.loads(
            next(
                (file.parent.parent if file == evals else file.parent).glob("evals/reports/*.json")
            ).read_text()
        )
        [case] = report["cases"]
        assert case["verdict"] == "ERROR", (file.name, case)
        assert (
            "judge" in (case.get("error") or "").lower() or "grader" in (case.get("error") or "").lower()
        ), case
