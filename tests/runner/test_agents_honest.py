"""Honest verdicts, round two (issue 29), on the real CLIs: a unit cut short by a budget is BUDGET in the report,
the table and the exit code, and says so; a verdict is stale when the next run's judge, agent model, CLI
version or ``scripts/`` differ from what it ran with; a case renamed in place keeps its last run (its identity,
issue 23), so ``--stale`` neither re-runs it nor asks for a name that is gone. One agent run per engine; every
other step is a ``--dry-run``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, make_package

pytestmark = pytest.mark.agents

JUDGES = {
    "claude-code": ("claude-judge-test", "claude-other-judge"),
    "codex": ("openai:gpt-judge-test", "openai:gpt-other-judge"),
}
MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}
BIN_ENV = {"claude-code": "EVALENS_CLAUDE_BIN", "codex": "EVALENS_CODEX_BIN"}


def _eval(pkg: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_budget_state_and_next_run_staleness(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    judge, other_judge = JUDGES[engine]
    pkg = make_package(
        tmp_path / "pkg", engine=engine, judge=judge, cases={"a": case("pass", contains=["GREETING-OK"])}
    )
    (pkg / "scripts").mkdir()
    (pkg / "scripts" / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    model = MODEL[engine]

    out = _eval(pkg, *model, "--runs", "3", "--jobs", "1", "--max-tokens", "1", "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    a = report["cases"][0]
    assert a["run_verdicts"] == ["PASS", "SKIP", "SKIP"], a
    assert (a["verdict"], a["state"], a["budget_stopped"]) == ("SKIP", "BUDGET", 2)
    assert a["reason"].startswith("budget: 2 of 3 runs not started") and "--max-tokens 1" in a["reason"]
    assert "pass_hat_k" not in a and a["pass_rate"] == 1.0
    assert report["summary"]["errored"] == 0 and report["summary"]["budget"] == 1
    assert "BUDGET" in out.stderr  # the summary table

    def stale(*args: str, env: dict[str, str] | None = None) -> str:
        picked = _eval(pkg, *model, "--stale", "--dry-run", *args, env=env)
        assert picked.returncode == 0, picked.stderr
        return picked.stderr

    assert "no stale case: nothing to run" in stale()
    assert f"a: stale: judge model {judge.split(':')[-1]} → {other_judge.split(':')[-1]}" in stale(
        "--judge", other_judge
    )
    assert "a: stale: agent model" in stale("--model", "other-model-9")
    fake = tmp_path / "fake-cli"
    fake.write_text("#!/bin/sh\necho 9.9.9\n")
    fake.chmod(0o755)
    assert "→ 9.9.9" in stale(env={BIN_ENV[engine]: str(fake)})
    (pkg / "scripts" / "check.sh").write_text("#!/bin/sh\nexit 2\n")
    assert "a: stale: scripts changed" in stale()

    case_file = pkg / "evals" / "cases" / "00-a.yaml"
    case_file.write_text(case_file.read_text().replace("name: a", "name: b"))
    (pkg / "scripts" / "check.sh").write_text("#!/bin/sh\nexit 0\n")  # as it ran: only the name differs now
    renamed = _eval(pkg, *model, "--stale", "--dry-run")
    assert renamed.returncode == 0, renamed.stderr
    assert "no stale case: nothing to run" in renamed.stderr and "no case named" not in renamed.stderr


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_an_unisolated_baseline_is_refused_unless_allowed(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Without bubblewrap the baseline agent could read the package from the host: no agent starts unless
    --allow-unisolated-baseline, and then the report marks the uplift unisolated."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(tmp_path / "pkg", engine=engine, cases={"a": case("pass", contains=["GREETING-OK"])})
    off = {"EVALENS_NO_BWRAP": "1", "EVALENS_SANDBOX": "preferred"}
    before = len(model_env.records)
    refused = _eval(pkg, *MODEL[engine], "--no-judge", "--baseline", "no-skill", env=off)
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert "--allow-unisolated-baseline" in refused.stderr and len(model_env.records) == before
    allowed = _eval(
        pkg,
        *MODEL[engine],
        "--no-judge",
        "--baseline",
        "no-skill",
        "--allow-unisolated-baseline",
        "--json",
        env=off,
    )
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    report = json.loads(allowed.stdout)
    assert report["baseline"]["uplift"]["isolated"] is False
    assert report["cases"][0]["uplift"]["isolated"] is False
    assert "unisolated" in allowed.stderr


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_fail_on_error_tolerates_a_share_of_errored_cases(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """One case of two errors (HTTP 401 from the model): 50% tolerated passes, 40% does not; a FAIL always fails."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={"ok": case("pass", contains=["GREETING-OK"]), "broken": case("err401")},
    )
    args = [*MODEL[engine], "--no-judge", "--jobs", "2"]
    tolerated = _eval(pkg, *args, "--fail-on-error", "0.5")
    assert tolerated.returncode == 0, tolerated.stderr[-2000:]
    assert "ERROR" in tolerated.stderr
    strict = _eval(pkg, *args, "--fail-on-error", "0.4")
    assert strict.returncode == 1, strict.stderr[-2000:]


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_max_cost_stops_a_batch_on_both_engines(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Claude Code reports a cost; Codex's tokens are priced from the table (here overridden for the fake
    model), so the same --max-cost stops both."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"gpt-fake": {"input": 1.0, "output": 2.0}}))
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={
            "a-first": case("pass", contains=["GREETING-OK"]),
            "b-second": case("pass", contains=["GREETING-OK"]),
        },
    )
    out = _eval(
        pkg,
        *MODEL[engine],
        "--no-judge",
        "--jobs",
        "1",
        "--max-cost",
        "0.000001",
        "--json",
        env={"EVALENS_PRICES": str(table)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    cases = {c["name"]: c for c in json.loads(out.stdout)["cases"]}
    assert cases["a-first"]["verdict"] == "PASS"
    assert cases["b-second"]["state"] == "BUDGET" and "of --max-cost $0.000001" in cases["b-second"]["reason"]


def _no_judge_token(body: dict) -> dict:
    """A case whose criteria carry no JUDGE token: the fake judge then follows the token in the run's own output."""
    body["judge"]["criteria"] = "The agent completed the task."
    return body


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_flaky_pass_never_forgives_an_error_run(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Probe 5: runs PASS, FAIL and ERROR (the model refuses the key) under `--flaky pass` are not FLAKY and exit 1:
    an ERROR is never forgiven as flakiness."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    model_env.state.scenarios.update(
        {
            "says-judge-pass": [{"text": "DONE JUDGE=pass"}],
            "says-judge-fail": [{"text": "DONE JUDGE=fail"}],
            "pass-fail-error": [{"cycle": ["says-judge-pass", "says-judge-fail", "err401"]}],
        }
    )
    marker = os.urandom(5).hex()
    judge, _ = JUDGES[engine]
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge=judge,
        cases={"mixed": _no_judge_token(case("pass-fail-error", extra=f"MARKER={marker}"))},
    )
    out = _eval(pkg, *MODEL[engine], "--runs", "3", "--jobs", "1", "--flaky", "pass", "--json")
    assert out.returncode == 1, out.stderr[-2000:]
    mixed = json.loads(out.stdout)["cases"][0]
    assert sorted(mixed["run_verdicts"]) == ["ERROR", "FAIL", "PASS"], mixed
    assert mixed["state"] != "FLAKY" and mixed["verdict"] != "PASS", mixed


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_rejudge_recomputes_the_state_every_face_reads(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Probe 4: three PASS runs re-judged as FAIL are FAIL in verdict, runs and state, so `--failed` picks the
    unit and `evalens show` prints its runs as FAIL."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    judge, _ = JUDGES[engine]
    pkg = make_package(
        tmp_path / "pkg", engine=engine, judge=judge, cases={"a": _no_judge_token(case("done"))}
    )
    model_env.state.judge_default = "pass"
    out = _eval(pkg, *MODEL[engine], "--runs", "3", "--jobs", "1", "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    first = json.loads(out.stdout)
    assert (first["cases"][0]["state"], first["cases"][0]["run_verdicts"]) == ("PASS", ["PASS"] * 3)
    report = sorted((pkg / "evals" / "reports").glob("*.json"))[-1]
    model_env.state.judge_default = "fail"  # the same transcripts, a judge that now says FAIL
    try:
        again = _eval(pkg, "--rejudge", str(report), "--json")
    finally:
        model_env.state.judge_default = "pass"  # the fake server outlives this test
    assert again.returncode == 1, again.stderr[-2000:]
    a = json.loads(again.stdout)["cases"][0]
    assert (a["verdict"], a["state"], a["run_verdicts"]) == ("FAIL", "FAIL", ["FAIL"] * 3), a
    picked = _eval(pkg, *MODEL[engine], "--failed", "--dry-run")
    assert picked.returncode == 0 and "a: last run: FAIL" in picked.stderr, picked.stderr
    rejudged = sorted((pkg / "evals" / "reports").glob("*-rejudged.json"))[-1]
    shown = subprocess.run(
        [sys.executable, "-m", "evalens", "show", str(rejudged), "a"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )
    assert shown.returncode == 0, shown.stderr
    assert "PASS" not in shown.stdout.split("run 1", 1)[-1], shown.stdout


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_grader_reply_with_an_example_object_is_an_error(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Probe 7: a skill-creator grader that first quotes an example verdict and then gives its real one is not
    read as the example: the reply is ambiguous, so the unit is ERROR, never PASS."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    reply = (
        'Example: {"results": [{"index": 1, "passed": true, "evidence": "example"}]} '
        'My grading: {"results": [{"index": 1, "passed": false, "evidence": "no greeting"}]}'
    )
    model_env.state.scenarios["example-grader"] = [{"text": reply}]
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greeting\ndescription: Greets people.\n---\nGreet.\n")
    evals = skill / "evals" / "evals.json"
    evals.write_text(
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Say hello to the team SCENARIO=example-grader",
                        "expected_output": "a greeting",
                        "assertions": ["The reply greets the team with the word hello"],
                    }
                ],
            }
        )
    )
    judge = "gpt-grader" if engine == "codex" else "claude-grader"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "run",
            str(evals),
            "--engine",
            engine,
            *MODEL[engine],
            "--judge-model",
            judge,
            "--runs",
            "1",
            "--output-dir",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "ERROR" in out.stdout and "PASS" not in out.stdout.replace("PASSED", ""), out.stdout
