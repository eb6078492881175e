"""Does the skill help? ``--baseline no-skill | REF`` on the real CLIs against the fake model's ``needs-skill``
scenario, whose scripted agent succeeds only when the CLI lists the skill in its request (docs/baseline.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, make_package

pytestmark = pytest.mark.agents

KEY = "greet-key-42"
SKILL = "---\nname: greeter\ndescription: Writes greetings into output/. {extra}\n---\nWrite a greeting.\n"


def _eval(pkg: Path, engine: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    return subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), *model, *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
        cwd=cwd,
    )


def _package(root: Path, engine: str) -> Path:
    pkg = make_package(
        root,
        engine=engine,
        cases={
            "greet": case("needs-skill", extra=f"NEEDS={KEY}", contains=["GREETING-OK"]),
        },
    )
    (pkg / "skills" / "greeter" / "SKILL.md").write_text(SKILL.format(extra=f"Key {KEY}."))
    return pkg


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_baseline_no_skill_shows_the_uplift(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = _package(tmp_path / "pkg", engine)
    out = _eval(pkg, engine, "--runs", "3", "--jobs", "2", "--no-judge", "--baseline", "no-skill", "--json")
    assert out.returncode == 0, out.stderr[-3000:]  # the baseline's failures never fail the command
    report = json.loads(out.stdout)
    (greet,) = report["cases"]
    assert greet["verdict"] == "PASS" and greet["run_verdicts"] == ["PASS"] * 3
    up = greet["uplift"]
    assert (up["passed"], up["counted"], up["baseline_passed"], up["baseline_counted"]) == (3, 3, 0, 3)
    assert up["difference"] == 1.0 and up["interval"] == pytest.approx([0.2059, 1.0], abs=1e-4)
    assert up["against"] == "no skill" and up["tokens"] > 0 and up["baseline_tokens"] > 0
    if engine == "claude-code":
        assert up["cost_usd"] > 0 and up["baseline_cost_usd"] > 0
    base = report["baseline"]
    assert base["source"] == {"kind": "no-skill"} and base["label"] == "no skill"
    (b,) = base["cases"]
    assert b["name"] == "greet" and b["baseline"] is True and b["verdict"] == "FAIL"
    assert b["run_verdicts"] == ["FAIL"] * 3 and "GREETING-OK" in b["error"]
    assert base["summary"]["failed"] == 1 and base["uplift"]["difference"] == 1.0
    assert report["summary"]["passed"] == 1 and report["summary"]["failed"] == 0
    assert report["summary"]["uplift"] == base["uplift"]
    # every baseline run has its record, marked, and nothing of the package was installed for it
    reports = pkg / "evals" / "reports"
    folder = reports / b["artifacts"]
    for i in (1, 2, 3):
        record = json.loads((folder / f"run-{i}" / "record.json").read_text())
        assert record["baseline"] == "no skill" and record["verdict"] == "FAIL"
        assert not any("greeter" in f["path"] or "package.agent.json" in f["path"] for f in record["files"])
        mine = json.loads((reports / greet["artifacts"] / f"run-{i}" / "record.json").read_text())
        assert "baseline" not in mine and mine["verdict"] == "PASS"
    assert "▲ +100 pts vs no skill [+21, +100]" in out.stderr, out.stderr[-3000:]
    assert "with 3/3, without 0/3" in out.stderr
    show = subprocess.run(
        [sys.executable, "-m", "evalens", "show", str(pkg)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=60,
    )
    assert show.returncode == 0 and "▲ +100 pts vs no skill [+21, +100]" in show.stdout, show.stdout[-3000:]


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_baseline_ref_uses_the_skill_as_it_was(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At v1 the skill's description lacked the key the task needs; today's has it. The worktree is gone after."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    repo = tmp_path / "repo"
    pkg = _package(repo / "pkg", engine)
    skill = pkg / "skills" / "greeter" / "SKILL.md"
    skill.write_text(SKILL.format(extra="No key yet."))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "v1")
    _git(repo, "tag", "v1")
    commit = _git(repo, "rev-parse", "v1")
    skill.write_text(SKILL.format(extra=f"Key {KEY}."))  # today's skill, not committed
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    out = _eval(pkg, engine, "--runs", "2", "--no-judge", "--baseline", "v1", "--json")
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout)
    up = report["cases"][0]["uplift"]
    assert up["against"] == f"v1 ({commit[:7]})" and (up["passed"], up["baseline_passed"]) == (2, 0)
    assert up["difference"] == 1.0 and up["interval"] == pytest.approx([0.07, 1.0], abs=1e-4)
    assert report["baseline"]["source"] == {"kind": "ref", "ref": "v1", "commit": commit}
    (b,) = report["baseline"]["cases"]
    assert b["verdict"] == "FAIL" and b["run_verdicts"] == ["FAIL", "FAIL"]
    record = json.loads((pkg / "evals" / "reports" / b["artifacts"] / "run-1" / "record.json").read_text())
    assert record["baseline"] == f"v1 ({commit[:7]})"
    assert f"▲ +100 pts vs v1 ({commit[:7]})" in out.stderr
    # the temporary worktree is gone, and git no longer knows it
    assert list(temp.iterdir()) == [] or all(
        not p.name.startswith("evalens-baseline-") for p in temp.iterdir()
    )
    assert _git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert skill.read_text() == SKILL.format(extra=f"Key {KEY}.")  # today's files untouched


def _run(file: Path, engine: str, *args: str) -> subprocess.CompletedProcess:
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "run",
            str(file),
            "--engine",
            engine,
            *model,
            "--timeout",
            "60",
            *args,
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_trigger_set_with_baseline_reports_precision_and_recall_for_both(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    skill = tmp_path / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL.format(extra=f"Key {KEY}."))
    trigger = skill / "evals" / "trigger-eval.json"
    trigger.write_text(
        json.dumps(
            [
                {"query": f"write a greeting for Ann SCENARIO=use-skill NEEDS={KEY}", "should_trigger": True},
                {"query": f"write a greeting for Bob SCENARIO=use-skill NEEDS={KEY}", "should_trigger": True},
                {"query": "what is the weather SCENARIO=done", "should_trigger": False},
            ]
        )
    )
    out = _run(trigger, engine, "--runs", "1", "--baseline", "no-skill", "--json", str(tmp_path / "t.json"))
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "with the skill: precision 1.0, recall 1.0, accuracy 1.0" in out.stdout, out.stdout
    assert (
        "without (no skill): precision n/a (the skill fired on no query), recall 0.0, accuracy 0.3333"
        in out.stdout
    ), out.stdout
    report = json.loads((skill / "evals" / "reports").glob("*.json").__next__().read_text())
    base = report["baseline"]
    assert base["metrics"] == {
        "with": {"precision": 1.0, "recall": 1.0, "accuracy": 1.0},
        "without": {"precision": None, "recall": 0.0, "accuracy": 0.3333},
    }
    assert [c["verdict"] for c in base["cases"]] == ["FAIL", "FAIL", "PASS"]
    assert report["summary"]["uplift"]["difference"] == pytest.approx(0.6667, abs=1e-4)  # 3/3 right vs 1/3
    assert all(c["baseline"] for c in base["cases"])
    ups = {c["name"]: c["uplift"] for c in report["cases"]}
    assert ups["0"]["difference"] == 1.0 and ups["2"]["difference"] == 0.0
    assert "▲ +100 pts vs no skill" in out.stdout and "= 0 pts vs no skill" in out.stdout
    # the skill's own results file holds the skill's runs only
    own = json.loads((tmp_path / "t.json").read_text())
    assert own["precision"] == 1.0 and own["recall"] == 1.0
    first = base["cases"][0]
    record = json.loads((skill / "evals" / "reports" / first["artifacts"] / "record.json").read_text())
    assert record["baseline"] == "no skill" and record["skills_activated"] == []


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_skilljack_task_with_baseline(engine: str, tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    """A skilljack task that expects its skill to be activated: it passes with the skill, not without."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    suite = tmp_path / "suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(SKILL.format(extra=f"Key {KEY}."))
    (suite / "tasks.yaml").write_text(
        "skill: greeter\ntasks:\n  - id: greet\n"
        f'    prompt: "Greet Ann SCENARIO=use-skill NEEDS={KEY}"\n'
        "    expected_skill_load: greeter\n"
        "    deterministic: { expect_skill_activation: true, expect_marker: GREETING-OK }\n"
    )
    out = _run(
        suite / "tasks.yaml",
        engine,
        "--runs",
        "2",
        "--no-judge",
        "--baseline",
        "no-skill",
        "--output-dir",
        str(tmp_path / "results"),
        "--verbose",
    )
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    both = out.stdout + out.stderr
    assert "[greet] " in both and "[greet [no skill] #" in both, both[-3000:]  # live turns name the side
    assert "▲ +100 pts vs no skill" in out.stdout, out.stdout
    own = json.loads(next((tmp_path / "results").glob("*.json")).read_text())
    assert len(own["tasks"]) == 1  # skilljack's results file: the skill's runs only


async def test_graded_evals_keep_the_baseline_gradings_apart(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """skill-creator and writing-skills evals.json with a baseline: the baseline's gradings go to a `baseline/`
    folder that is never restored as the unit's own verdict (the fake grader passes both sides: `= 0 pts`)."""
    if not agents_available("claude-code"):
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")
    from evalens.runner.api import FileRunRequest, run_file
    from evalens.runner.suites.skill_creator import SkillCreatorSuite

    creator = tmp_path / "greeter"
    (creator / "evals").mkdir(parents=True)
    (creator / "SKILL.md").write_text(SKILL.format(extra=f"Key {KEY}."))
    evals = creator / "evals" / "evals.json"
    evals.write_text(
        json.dumps(
            {
                "skill_name": "greeter",
                "evals": [
                    {
                        "id": 1,
                        "prompt": f"Greet SCENARIO=needs-skill NEEDS={KEY} JUDGE=pass",
                        "expected_output": "a greeting",
                        "assertions": ["greets"],
                    }
                ],
            }
        )
    )
    outcome = await run_file(
        FileRunRequest(file=evals, runs=1, baseline="no-skill", judge_model="claude-judge-test")
    )
    (result,) = outcome.results
    assert result.verdict == "PASS" and result.uplift is not None and result.uplift.difference == 0.0
    assert outcome.report is not None and outcome.report.baseline is not None
    assert [c.verdict for c in outcome.report.baseline.cases] == ["PASS"]
    (stamp,) = (tmp_path / "greeter-workspace" / "runs").iterdir()
    assert (stamp / "eval-1" / "grading.json").is_file() and (
        stamp / "baseline" / "eval-1" / "grading.json"
    ).is_file()
    assert SkillCreatorSuite.result_files("skill-creator-evals", evals) == [stamp / "eval-1" / "grading.json"]
    writing = tmp_path / "hello"
    (writing / "evals").mkdir(parents=True)
    (writing / "SKILL.md").write_text(
        SKILL.format(extra=f"Key {KEY}.").replace("name: greeter", "name: hello")
    )
    cases = writing / "evals" / "evals.json"
    cases.write_text(
        json.dumps(
            {
                "version": "1.0",
                "skill": str(writing),
                "cases": [
                    {
                        "id": "greet",
                        "prompt": f"Greet me SCENARIO=needs-skill NEEDS={KEY} JUDGE=pass",
                        "expectations": [
                            {
                                "criterion": "uses-hello",
                                "description": "Uses the word hello",
                                "required": True,
                            }
                        ],
                    }
                ],
            }
        )
    )
    outcome = await run_file(
        FileRunRequest(file=cases, runs=1, baseline="no-skill", judge_model="claude-judge-test")
    )
    assert outcome.results[0].uplift is not None and outcome.report is not None
    grading = tmp_path / "hello-workspace" / "grading"
    assert (grading / "greet_v0_run1.json").is_file() and (
        grading / "baseline" / "greet_v0_run1.json"
    ).is_file()
    from evalens.runner.suites.writing_skills import WritingSkillsSuite

    assert [p.name for p in WritingSkillsSuite.result_files("writing-skills-evals", cases)] == [
        "greet_v0_run1.json"
    ]
