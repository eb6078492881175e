"""``evalens run``: skilljack scoring, grading files and trigger metrics without agents; then end-to-end runs
with the real ``claude`` CLI against the fake model server (marked ``agents``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from evalens.cli import run as cli_run
from evalens.core.index import IndexCache
from evalens.core.validate import validate_text
from evalens.runner import judge
from evalens.runner.session import AgentResult
from evalens.runner.suites import skilljack as sj
from evalens.runner.suites import skilljack_files as sjf
from evalens.runner.suites import trigger_sets as ts
from evalens.runner.suites.skilljack import SjTask
from tests.conftest import CORPUS

GREETING_MD = (
    "---\nname: greeting\ndescription: Greets the user. Use when someone says hello.\n---\nSay hi.\n"
)


def task(**over: Any) -> SjTask:
    base: dict[str, Any] = {
        "id": "gr-001",
        "prompt": "hi",
        "expected": "greeting",
        "criteria": {},
        "checklist": [],
        "det": {"expect_skill_activation": True},
        "skills": {},
    }
    base.update(over)
    return SjTask(**base)


def skill_call(name: str = "greeting") -> dict[str, Any]:
    return {"tool": "Skill", "input": {"skill": name}}


def test_deterministic_positive_negative_and_wrong_skill() -> None:
    ok, details, disc = sj.deterministic(task(), AgentResult(output="x", tools=[skill_call()]))
    assert (ok, disc) == (True, True) and details == ["Skill activated correctly: greeting"]
    ok, details, _ = sj.deterministic(task(), AgentResult(output="x"))
    assert not ok and details == ["Expected skill activation but no skill was loaded"]
    ok, details, _ = sj.deterministic(task(), AgentResult(tools=[skill_call("other")]))
    assert details == ["Wrong skill activated: expected 'greeting', got 'other'"]
    neg = task(expected="none", det={"expect_skill_activation": False, "expect_marker": "X"})
    ok, details, disc = sj.deterministic(neg, AgentResult(tools=[skill_call()]))
    assert not ok and not disc and details[0] == "Unexpected skill activation: greeting (false positive)"
    assert details[1].startswith("Note: non-activation assertions")
    ok, details, _ = sj.deterministic(neg, AgentResult(error="boom"))
    assert not ok and details == ["Task errored: boom"]  # a negative task whose agent crashed did not pass
    codex = AgentResult(skills=["greeting"])  # Codex: activation from the SKILL.md read, no Skill tool
    assert sj.deterministic(task(), codex)[0]


def test_deterministic_output_checks() -> None:
    det = {
        "expect_skill_activation": True,
        "expect_marker": "greeting_success",
        "expect_tool_calls": ["Read"],
        "expect_no_tool_calls": ["Bash"],
        "expect_contains": ["Hello"],
        "expect_not_contains": ["ERROR"],
        "expect_regex": ["(?<w>[Hh]ello)"],
        "expect_file_exists": ["out/a.txt", "../etc/passwd"],
    }
    res = AgentResult(
        output="Hello! GREETING_SUCCESS",
        tools=[skill_call(), {"tool": "Read", "input": {}}],
        workspace_files=["out/a.txt"],
    )
    ok, details, _ = sj.deterministic(task(det=det), res)
    assert not ok  # only the path outside the working directory fails
    assert "../etc/passwd (outside working directory)" in details
    assert 'Marker found: "greeting_success"' in details and "No forbidden tools called" in details
    det["expect_file_exists"] = ["out/a.txt"]
    assert sj.deterministic(task(det=det), res)[0]
    res.tools.append({"tool": "Bash", "input": {}})
    assert "Forbidden tools were called: Bash" in sj.deterministic(task(det=det), res)[1]


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_javascript_check() -> None:
    det = {"expect_skill_activation": True, "expect_javascript": "output.length < 10"}
    assert sj.deterministic(task(det=det), AgentResult(output="short", tools=[skill_call()]))[0]
    assert not sj.deterministic(task(det=det), AgentResult(output="x" * 20, tools=[skill_call()]))[0]


def test_scores_merge_weights_and_aggregate() -> None:
    weights = {"discovery": 0.3, "adherence": 0.4, "output": 0.3}
    assert sj.weighted_score(weights, 1, 5, 5) == 1.0
    assert sj.weighted_score(weights, 0, 3, 1) == 0.2
    t = task(criteria={"discovery": {"weight": 0.5}, "adherence": {"weight": 0.5}})
    judged = {
        "discovery": 1,
        "adherence": 3,
        "output_quality": 5,
        "failure_category": "none",
        "reasoning": "r",
    }
    judge_only = sj.score_run(t, AgentResult(), None, judged, weights)
    assert judge_only.weighted == 0.75  # task weights: 0.5*1 + 0.5*(3-1)/4
    merged = sj.score_run(t, AgentResult(), (True, [], True), judged, weights)
    assert merged.weighted == sj.weighted_score(weights, 1, 3, 5)
    det_only = sj.score_run(t, AgentResult(), (False, ["x"], False), None, weights)
    assert (det_only.adherence, det_only.category) == (1.0, "discovery_failure")
    none = sj.score_run(t, AgentResult(), None, None, weights)
    assert none.reasoning.startswith("No scoring method available") and none.category == "agent_error"
    mean, rep = sj.aggregate([judge_only, merged, det_only])
    assert mean.reasoning.startswith("Aggregated over 3 runs: discovery 2/3")
    assert rep in (0, 1, 2)


def test_judge_reply_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert judge.strict_json_object('{"a": {"b": "}"}, "c": 1}') == {"a": {"b": "}"}, "c": 1}
    assert judge.strict_json_object('```json\n{"a": 1}\n```') == {"a": 1}
    for bad in ("no json", 'text {"a": 1} tail', '{"a": 1} {"a": 2}', "[1]"):
        with pytest.raises(ValueError):
            judge.strict_json_object(bad)

    async def reply(*_a: Any) -> dict[str, Any]:
        return {"discovery": "1", "adherence": None, "output_quality": 4, "failure_category": "weird"}

    monkeypatch.setattr(sj, "ask_json", reply)
    out = asyncio.run(sj.judge_task(None, task(), AgentResult(), 100))
    assert (out["discovery"], out["adherence"], out["output_quality"], out["failure_category"]) == (
        1,
        1,
        4,
        "none",
    )

    async def boom(*_a: Any) -> dict[str, Any]:
        from evalens.runner.judge import JudgeFailed

        raise JudgeFailed("judge call failed: APIStatusError (HTTP 500)")

    monkeypatch.setattr(sj, "ask_json", boom)
    out = asyncio.run(sj.judge_task(None, task(), AgentResult(skills=["greeting"]), 100))
    assert out["error"].startswith("judge call failed") and out["adherence"] == 1  # no heuristic scores


def test_loading_tasks_and_task_packages(tmp_path: Path) -> None:
    (tmp_path / "skills" / "greeting").mkdir(parents=True)
    (tmp_path / "skills" / "greeting" / "SKILL.md").write_text(GREETING_MD)
    (tmp_path / "tasks.yaml").write_text(
        textwrap.dedent("""
        skill: greeting
        defaults:
          expected_skill_load: greeting
          criteria: { discovery: { weight: 0.2, description: d }, output: {} }
        tasks:
          - id: a
            prompt: hi
            criteria: { discovery: { weight: 0.5 } }
            deterministic: { expect_marker: M }
    """)
    )
    skill, tasks = sj.load_tasks_yaml(tmp_path / "tasks.yaml", None)
    assert skill == "greeting" and list(tasks[0].skills) == ["greeting"]
    assert tasks[0].criteria == {
        "discovery": {"weight": 0.5, "description": "d"},
        "output": {"weight": 0.33, "description": ""},
    }
    assert tasks[0].det == {"expect_skill_activation": True, "expect_marker": "M"}
    (tmp_path / "t1").mkdir()
    (tmp_path / "t1" / "task.md").write_text(
        "---\nchecks:\n  marker: M\n  files_exist: [a]\nassertions: [x]\n---\nHi\n"
    )
    _, [pkg] = sj.load_task_md(tmp_path / "t1" / "task.md")
    assert (pkg.id, pkg.expected, pkg.prompt) == ("t1", "greeting", "Hi")
    assert pkg.det == {"expect_skill_activation": True, "expect_marker": "M", "expect_file_exists": ["a"]}


def test_results_json_is_valid_skilljack_results(tmp_path: Path) -> None:
    t = task()
    score = sj.score_run(
        t,
        AgentResult(),
        (True, ["Skill activated correctly: greeting"], True),
        None,
        {"discovery": 0.3, "adherence": 0.4, "output": 0.3},
    )
    mean, rep = sj.aggregate([score])
    args = argparse.Namespace(agent_model=None, judge=None, no_judge=True, engine="claude-code")
    report = sjf.build_results(
        "greeting",
        Path("tasks.yaml"),
        [t],
        [(t, [(AgentResult(), score)], mean, rep)],
        sjf.SjConfig(),
        args,
        0.8,
        4.0,
    )
    assert report["passed"] and report["summary"]["discoveryAccuracy"] == 1.0
    path = tmp_path / "results" / "greeting-1.json"
    path.parent.mkdir()
    path.write_text(json.dumps(report, indent=2))
    v = validate_text(str(path), path.read_text(), IndexCache())
    assert v.format is not None and v.format.id == "skilljack-results"
    assert [p for p in v.problems if p.severity <= 2] == []
    assert "| gr-001 |" in sjf.markdown_report(report, 100)


def test_trigger_metrics_and_loading(tmp_path: Path) -> None:
    rows = [("a", True, 1.0), ("b", True, 0.33), ("c", False, 0.0), ("d", False, 0.67)]
    assert ts.trigger_metrics(rows) == {
        "true_positives": 1,
        "false_positives": 1,
        "false_negatives": 1,
        "true_negatives": 1,
        "precision": 0.5,
        "recall": 0.5,
        "accuracy": 0.5,
    }
    variant = tmp_path / "t.json"
    variant.write_text(json.dumps({"skill_name": "x", "should_trigger": ["a"], "should_not_trigger": ["b"]}))
    assert ts.trigger_queries(variant) == ("x", [("a", True), ("b", False)])


def test_cli_usage_errors_and_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "evals" / "s" / "skills" / "greeting").mkdir(parents=True)
    (tmp_path / "evals" / "s" / "skills" / "greeting" / "SKILL.md").write_text(GREETING_MD)
    tasks = tmp_path / "evals" / "s" / "tasks.yaml"
    tasks.write_text(
        "skill: greeting\ntasks:\n  - id: a\n    prompt: hi\n    deterministic: {expect_marker: M}\n"
    )
    assert cli_run.main([str(tasks), "--dry-run", "--no-judge"]) == 0
    assert "a\texpected=-" in capsys.readouterr().out
    assert cli_run.main([str(tasks), "--dry-run", "--tasks", "zzz"]) == 2
    tasks.write_text("skill: greeting\ntasks:\n  - id: a\n  - id: a\n    prompt: hi\n")
    assert cli_run.main([str(tasks), "--dry-run"]) == 2
    assert "Duplicate task id 'a'" in capsys.readouterr().err
    other = tmp_path / "evals" / "cases" / "x.yaml"
    other.parent.mkdir(parents=True)
    other.write_text("name: x\ninput: {prompt: p}\njudge: {criteria: c}\n")
    assert cli_run.main([str(other)]) == 2
    assert "evalens eval" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- real CLI, fake model


def _claude() -> str | None:
    from evalens.runner.engines.base import EngineNotFound, find_binary

    try:
        return str(find_binary("claude", "EVALENS_CLAUDE_BIN"))
    except EngineNotFound:
        return None


SCENARIOS = {
    "greet": [
        {"tool": "Skill", "input": {"skill": "greeting"}},
        {"text": "Hello and welcome! GREETING_SUCCESS"},
    ],
    "plain": [{"text": "Use 'Dear name' in formal emails."}],
    "graded": [
        {
            "text": '{"results": [{"index": 1, "passed": true, "score": 4, "evidence": "said hello", '
            '"reasoning": "said hello"}]}'
        }
    ],
}


@pytest.fixture
def fake_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    if _claude() is None:
        pytest.skip("claude CLI not installed (.ci/install-agents.sh)")
    from tests.fakemodel import FakeModelServer

    with FakeModelServer(log_dir=tmp_path / "model-log", scenarios=SCENARIOS) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        sandboxes = Path("/var/tmp/evalens-tests") / f"{tmp_path.name}-{uuid.uuid4().hex[:8]}"
        sandboxes.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv("EVALENS_SANDBOX_DIR", str(sandboxes))
        yield fake
        assert not list(sandboxes.iterdir()), "a sandbox was left behind"
        shutil.rmtree(sandboxes, ignore_errors=True)


def _suite(tmp_path: Path, fp_scenario: str) -> Path:
    suite = tmp_path / "evals" / "greet"
    (suite / "skills" / "greeting").mkdir(parents=True)
    (suite / "skills" / "greeting" / "SKILL.md").write_text(GREETING_MD)
    (suite / "tasks.yaml").write_text(
        textwrap.dedent(f"""
        skill: greeting
        tasks:
          - id: gr-001
            prompt: "I just joined the team! SCENARIO=greet"
            expected_skill_load: greeting
            deterministic: {{ expect_marker: GREETING_SUCCESS, expect_tool_calls: [Skill] }}
          - id: gr-fp-001
            prompt: "What are good email greetings? SCENARIO={fp_scenario}"
            expected_skill_load: none
            deterministic: {{ expect_skill_activation: false }}
    """)
    )
    return suite / "tasks.yaml"


@pytest.mark.agents
def test_run_tasks_yaml_with_claude(fake_env: Any, tmp_path: Path) -> None:
    tasks = _suite(tmp_path, "plain")
    out = tmp_path / "results"
    assert cli_run.main([str(tasks), "--runs", "1", "--no-judge", "--output-dir", str(out)]) == 0
    [result] = list(out.glob("greeting-*.json"))
    data = json.loads(result.read_text())
    assert data["passed"] and data["summary"]["discoveryAccuracy"] == 1
    assert data["tasks"][0]["result"]["skillLoads"] == ["greeting"]
    assert result.with_suffix(".md").is_file()
    from tests.runner.runner_helpers import run_units

    verdicts = asyncio.run(run_units(tasks, cases=["gr-fp-001"], no_judge=True, output_dir=tmp_path / "r2"))
    assert [(v.name, v.verdict) for v in verdicts] == [("gr-fp-001", "PASS")]


@pytest.mark.agents
def test_false_positive_fails_the_run(fake_env: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = _suite(tmp_path, "greet")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    rc = cli_run.main(
        [
            str(tasks),
            "--runs",
            "1",
            "--no-judge",
            "--output-dir",
            str(tmp_path / "r"),
            "--tasks",
            "gr-fp-001",
            "--github-summary",
        ]
    )
    assert rc == 1
    data = json.loads(next((tmp_path / "r").glob("*.json")).read_text())
    assert data["tasks"][0]["score"]["failureCategory"] == "false_positive"
    assert "Discovery rate 0.0% below threshold 80%" in data["failureReasons"]
    assert "FAILED" in summary.read_text()


@pytest.mark.agents
def test_trigger_set_precision_recall(
    fake_env: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(GREETING_MD)
    (skill / "evals" / "trigger-eval.json").write_text(
        json.dumps(
            [
                {"query": "hello there SCENARIO=greet", "should_trigger": True},
                {"query": "email etiquette SCENARIO=plain", "should_trigger": False},
            ]
        )
    )
    out = tmp_path / "trigger.json"
    assert cli_run.main([str(skill / "evals" / "trigger-eval.json"), "--runs", "1", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["precision"] == 1.0 and "recall 1.0" in capsys.readouterr().out


@pytest.mark.agents
def test_grading_files_are_valid(fake_env: Any, tmp_path: Path) -> None:
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(GREETING_MD)
    (skill / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Say hello to the new team member SCENARIO=graded",
                        "expected_output": "a greeting",
                        "assertions": ["The reply greets the user with the word hello"],
                    }
                ],
            }
        )
    )
    rc = cli_run.main(
        [
            str(skill / "evals" / "evals.json"),
            "--runs",
            "1",
            "--judge-model",
            "claude-haiku-4-5",
            "--output-dir",
            str(tmp_path / "runs"),
        ]
    )
    assert rc == 0
    grading = tmp_path / "runs" / "eval-1" / "grading.json"
    v = validate_text(str(grading), grading.read_text(), IndexCache())
    assert v.format is not None and v.format.id == "skill-creator-grading" and v.problems == []
    (skill / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "version": "1.0",
                "skill": str(skill),
                "cases": [
                    {
                        "id": "says-hello",
                        "prompt": "Greet me SCENARIO=graded",
                        "expectations": [
                            {
                                "criterion": "says-hello",
                                "description": "Uses the word hello",
                                "required": True,
                            }
                        ],
                    }
                ],
            }
        )
    )
    rc = cli_run.main(
        [
            str(skill / "evals" / "evals.json"),
            "--runs",
            "1",
            "--judge-model",
            "claude-haiku-4-5",
            "--output-dir",
            str(tmp_path / "ws"),
        ]
    )
    assert rc == 0
    graded = tmp_path / "ws" / "grading" / "says-hello_v0_run1.json"
    v = validate_text(str(graded), graded.read_text(), IndexCache())
    assert v.format is not None and v.format.id == "writing-skills-grading"
    assert [p for p in v.problems if p.severity <= 2] == [], v.problems
    assert json.loads(graded.read_text())["overall"] == "pass"


def test_create_eval_template_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill = tmp_path / "evals" / "greet" / "skills" / "greeting"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(GREETING_MD)
    out = tmp_path / "evals" / "greet" / "tasks.yaml"
    assert cli_run.main(["--create-eval", str(skill), "-n", "4", "-o", str(out)]) == 0
    v = validate_text(str(out), out.read_text(), IndexCache())
    assert v.format is not None and v.format.id == "skilljack-tasks"
    assert [p.code for p in v.problems] == []
    ids = [c.name for c in v.format.cases(v.doc)]  # type: ignore[arg-type]
    assert ids == ["*", "gr-001", "gr-002", "gr-003", "gr-fp-001"]
    assert cli_run.main([str(out), "--dry-run", "--no-judge", "--json", str(tmp_path / "parsed.json")]) == 0
    parsed = json.loads((tmp_path / "parsed.json").read_text())
    assert parsed["tasks"][0]["criteria"][0] == {"dimension": "discovery", "weight": 0.3, "description": ""}


@pytest.mark.skipif(not (CORPUS / "skilljack-results-json").is_dir(), reason="corpus not found")
def test_rescore_results_reproduces_failure_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = next((CORPUS / "skilljack-results-json").glob("*vercel*"))
    dest = tmp_path / "evals" / "g" / "baselines" / "vercel.json"
    dest.parent.mkdir(parents=True)
    dest.write_text(src.read_text())
    original = json.loads(src.read_text())
    assert cli_run.main([str(dest), "--json", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.md")]) == 1
    again = json.loads((tmp_path / "r.json").read_text())
    assert again["failureReasons"] == original["failureReasons"]
    assert "FAILED" in (tmp_path / "r.md").read_text()


def test_a_metric_without_a_denominator_says_why_instead_of_none() -> None:
    """Issue 45: a trigger set read "✗ FAIL: precision None, recall 0.0"; every face words it through one function."""
    from evalens.runner.suites.trigger_sets import metric_words, trigger_metrics

    never_fired = trigger_metrics([("a", True, 0.0), ("b", False, 0.0)])
    assert (
        metric_words(never_fired, "precision", "recall")
        == "precision n/a (the skill fired on no query), recall 0.0"
    )
    none_wanted = trigger_metrics([("b", False, 1.0)])
    assert metric_words(none_wanted, "recall") == "recall n/a (no query should trigger)"
    assert (
        metric_words(trigger_metrics([("a", True, 1.0)]), "precision", "recall")
        == "precision 1.0, recall 1.0"
    )
