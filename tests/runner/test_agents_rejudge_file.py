"""``evalens rejudge REPORT`` of an eval file's batch on the real CLIs against the fake model (issue 41: rejudge
for every format whose judge evalens asks). A skill-creator eval and a skilljack task run twice and pass; the fake
judge then turns against them (the prompts' ``JUDGE=server`` asks the fake's default answer, set to ``fail``), and the
re-judge, from the batch's run log alone, makes both FAIL with no agent started: the new report names the judge
asked, keeps the runs' records and spending, and the batch's own report is left as it was. A trigger set (no
judge) and a batch with no run log are refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.runner.runner_helpers import GREETER_KEY, GREETER_SKILL, agents_available, run_evalens

pytestmark = pytest.mark.agents

MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}


def _evalens(*args: str):
    return run_evalens(*args, env={"COLUMNS": "200"})  # wide: the lines the asserts read are not wrapped


def _skill_creator(root: Path) -> Path:
    skill = root / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(GREETER_SKILL)
    evals = skill / "evals" / "evals.json"
    prompt = f"Greet 1 SCENARIO=needs-skill NEEDS={GREETER_KEY} JUDGE=server"
    evals.write_text(
        json.dumps(
            {
                "skill_name": "greeter",
                "evals": [{"id": 1, "prompt": prompt, "expected_output": "hi", "assertions": ["greets"]}],
            }
        )
    )
    return evals


def _skilljack(root: Path) -> Path:
    suite = root / "suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(GREETER_SKILL)
    (suite / "tasks.yaml").write_text(
        "skill: greeter\ntasks:\n  - id: hello\n"
        f'    prompt: "Greet hello SCENARIO=use-skill NEEDS={GREETER_KEY} JUDGE=server"\n'
        "    expected_skill_load: greeter\n"
        "    deterministic: { expect_skill_activation: true, expect_marker: GREETING-OK }\n"
        "    criteria: { adherence: { weight: 1 } }\n"
    )
    return suite / "tasks.yaml"


def _ran(engine: str, make, tmp_path: Path, runs: int) -> tuple[Path, Path, Path]:
    """The suite ``make`` writes, run ``runs`` times on ``engine`` (all PASS), the format's own files in
    ``--output-dir`` (skilljack's results, skill-creator's grading.json files): the file, its reports folder and
    the batch's report."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    file = make(tmp_path)
    out = tmp_path / "out"
    ran = _evalens(
        "run", str(file), "--engine", engine, *MODEL[engine], "--runs", str(runs), "--output-dir", str(out)
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-3000:]
    reports = (file.parent if file.name == "evals.json" else file.parent / "evals") / "reports"
    (path,) = reports.glob("*.json")
    return file, reports, path


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
@pytest.mark.parametrize("make", [_skill_creator, _skilljack], ids=["skill-creator", "skilljack"])
def test_rejudging_a_file_batch_judges_its_logged_runs_again_without_an_agent(
    engine: str, make, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    file, reports, path = _ran(engine, make, tmp_path, runs=2)
    before = path.read_text()
    own = {f: f.read_bytes() for f in (tmp_path / "out").rglob("*") if f.is_file()}
    assert own
    first = len(model_env.records)
    model_env.state.judge_default = "fail"
    try:
        out = _evalens(
            "rejudge", str(path), "--judge", "claude-rejudge" if engine == "claude-code" else "gpt-rejudge"
        )
    finally:
        model_env.state.judge_default = "pass"
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr[-3000:]  # the judge now fails every run
    asked = model_env.records[first:]
    assert asked and all(r.get("judge") for r in asked), asked  # judged again, no agent started
    assert len(asked) == 2  # both runs of the unit, once each
    assert path.read_text() == before  # the batch's own report is left as it was
    assert {f: f.read_bytes() for f in own} == own  # and so are the format's own files it wrote
    (new,) = [p for p in reports.glob("*-rejudged*.json")]
    report = json.loads(new.read_text())
    old = json.loads(before)
    (case,) = report["cases"]
    assert case["verdict"] == "FAIL", case
    assert case.get("run_verdicts") in (None, [], ["FAIL", "FAIL"]), case  # skilljack rules on the mean alone
    judged = case.get("judge_verdict") or case["details"]["judge"]  # skilljack words its scores in details
    assert "rejudge" in judged["model"] and "rejudge" in report["judge"]["model"], (judged, report["judge"])
    assert "rejudge" in case["fingerprint"]["judge"]  # the fingerprint names the judge that decided
    assert case.get("usage") == old["cases"][0].get("usage")  # nothing new was spent on agents
    assert case.get("artifacts") == old["cases"][0].get("artifacts")  # the runs' records stay where they are
    assert (reports / case["artifacts"]).is_dir()
    assert report["summary"]["failed"] == 1 and report["id"].endswith("-rejudged")
    assert "FAIL" in out.stdout and str(new) in out.stdout
    if file.name == "evals.json":  # the re-judged gradings: beside the new report, failed
        gradings = sorted((new.with_suffix("") / "files").glob("eval-1/run-*/grading.json"))
        assert len(gradings) == 2, gradings
        assert all(not e["passed"] for g in gradings for e in json.loads(g.read_text())["expectations"])


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
@pytest.mark.parametrize("make", [_skill_creator, _skilljack], ids=["skill-creator", "skilljack"])
def test_a_judge_that_fails_on_the_rejudge_is_error(
    engine: str, make, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """The re-judge's grader or judge answers no JSON: every run it judged is ERROR, never PASS or FAIL."""
    file, reports, path = _ran(engine, make, tmp_path, runs=1)
    model_env.state.judge_default = "garbage"
    try:
        out = _evalens("rejudge", str(path))
    finally:
        model_env.state.judge_default = "pass"
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr[-3000:]
    (new,) = reports.glob("*-rejudged*.json")
    (case,) = json.loads(new.read_text())["cases"]
    assert case["verdict"] == "ERROR", case
    assert "grader error" in case["reason"] or "judge error" in case["reason"], case


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_trigger_set_batch_is_not_rejudged_and_says_why(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    skill = tmp_path / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(GREETER_SKILL)
    queries = skill / "evals" / "trigger-eval.json"
    queries.write_text(
        json.dumps(
            [
                {
                    "query": f"greet me SCENARIO=needs-skill NEEDS={GREETER_KEY} JUDGE=server",
                    "should_trigger": True,
                }
            ]
        )
    )
    ran = _evalens("run", str(queries), "--engine", engine, *MODEL[engine], "--runs", "1")
    (path,) = (skill / "evals" / "reports").glob("*.json")
    out = _evalens("rejudge", str(path))
    assert out.returncode == 2, ran.stderr[-2000:] + out.stderr[-2000:]
    assert "cannot re-judge a" in out.stderr and "judge" in out.stderr.split("cannot re-judge a", 1)[1]
    assert not list((skill / "evals" / "reports").glob("*-rejudged*.json"))
