"""A `claude plugin eval` case run end to end on both CLIs against the fake model (issue 38, item 2): on claude-code
the platform's own runner grades it inside evalens's sandbox, on codex evalens runs and grades it; PASS, FAIL and
ERROR come out where the case, the agent or the judge put them, with a check per grader, and the with/without
ablation gives the uplift."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, run_evalens, run_units

pytestmark = pytest.mark.agents

MODEL = {"claude-code": None, "codex": "gpt-5-codex"}
SKILL_MD = "---\nname: greet\ndescription: Greets the team in one line. Use when asked to greet.\n---\nSay GREETING-OK.\n"


def make_plugin(root: Path, cases: dict[str, tuple[str, dict[str, str]]]) -> Path:
    """A plugin (`demo`, one skill) whose eval dir holds ``cases``: name → (prompt.md, {grader file: text})."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "demo", "version": "0.1.0"}))
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text(SKILL_MD)
    for name, (prompt, graders) in cases.items():
        (root / "evals" / name / "graders").mkdir(parents=True)
        (root / "evals" / name / "prompt.md").write_text(prompt)
        for file, text in graders.items():
            (root / "evals" / name / "graders" / file).write_text(text)
    return root


WRITES = "---\nruns: 1\nallowed_tools: [Read, Write]\n---\n\nSCENARIO={scenario} Write the greeting file.\n"
GRADERS = {
    "says.md": "---\ntype: regex\npattern: GREETING-OK\n---\n",
    "made.md": "---\ntype: file_exists\npath: output/*.txt\n---\n",
    "judge.md": "---\ntype: llm\nweight: 2\n---\n\nThe reply says what it wrote. JUDGE={judge}\n",
}


def _case(scenario: str, judge: str = "pass") -> tuple[str, dict[str, str]]:
    return WRITES.format(scenario=scenario), {k: v.format(judge=judge) for k, v in GRADERS.items()}


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return make_plugin(
        tmp_path / "demo",
        {
            "greets": _case("pass"),
            "no-greeting": _case("fail-contains"),
            "api-down": _case("err500"),
            "judge-down": _case("pass", judge="err500"),
        },
    )


def _skip_without(engine: str) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")


async def _run(plugin: Path, case: str, engine: str, **kwargs) -> object:
    [result] = await run_units(
        plugin / "evals" / case / "prompt.md",
        engine=engine,
        model=MODEL[engine],
        write_report=False,
        **kwargs,
    )
    return result


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
async def test_pass_fail_and_error_on_each_cli(
    engine: str, plugin: Path, model_env, sandbox_dir: Path
) -> None:
    _skip_without(engine)
    passed = await _run(plugin, "greets", engine, ablation="none")
    assert passed.verdict == "PASS", passed.reason
    assert {c.value: c.status for c in passed.checks} == {"says": "PASS", "made": "PASS", "judge": "PASS"}
    assert passed.format == "plugin-eval-prompt" and passed.details["score"] == 1.0

    failed = await _run(plugin, "no-greeting", engine, ablation="none")
    assert failed.verdict == "FAIL", failed.reason
    assert {c.value: c.status for c in failed.checks}["says"] == "FAIL"
    assert failed.details["score"] == pytest.approx(0.75)  # judge (2) and made (1) of 4
    assert "says" in failed.reason and "0.75" in failed.reason

    agent_down = await _run(plugin, "api-down", engine, ablation="none")
    assert agent_down.verdict == "ERROR", agent_down.reason
    assert "500" in agent_down.reason

    judge_down = await _run(plugin, "judge-down", engine, ablation="none")
    assert judge_down.verdict == "ERROR", judge_down.reason  # a grader that could not grade is no FAIL
    assert "judge" in judge_down.reason


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
async def test_the_ablation_delta_is_the_uplift(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """The greeting skill is what makes the agent greet (`needs-skill`): with the plugin the case scores 1,
    without it 0.5 (the file is written either way), so Δ is +0.50 and the uplift is with 1/1 against 0/1; the
    `tool_used: Skill` grader is with-only, absent from the without arm."""
    _skip_without(engine)
    prompt = "---\nruns: 1\nallowed_tools: [Read, Write, Skill]\n---\n\nSCENARIO=needs-skill NEEDS=Greets Greet please.\n"
    graders = {
        "says.md": "---\ntype: regex\npattern: GREETING-OK\n---\n",
        "made.md": "---\ntype: file_exists\npath: output/*.txt\n---\n",
        "skill.md": "---\ntype: tool_used\ntool: Skill\nmin: 0\n---\n",
    }
    plugin = make_plugin(tmp_path / "demo", {"skilled": (prompt, graders)})
    result = await _run(plugin, "skilled", engine)
    assert result.verdict == "PASS", result.reason
    assert result.details["score"] == 1.0 and result.details["score_without"] == 0.5
    assert result.details["delta"] == 0.5 and "Δ +0.50" in result.reason
    assert result.uplift is not None and (result.uplift.passed, result.uplift.baseline_passed) == (1, 0)
    assert "skill" not in {g["name"] for g in result.details["graders_without"]}
    assert "skill" not in {c.value for c in result.checks}  # with-only: shown in details, not scored


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
async def test_repeats_flaky(engine: str, tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    """Two runs, the first greets and the second does not (`alt-fail-pass` cycles per agent run, so the marker
    keeps this test's runs apart): FAIL, state FLAKY, through the shared repeat loop."""
    _skip_without(engine)
    marker = tmp_path.name[-12:].replace("_", "")
    prompt = (
        f"---\nruns: 1\nallowed_tools: [Read, Write]\n---\n\nSCENARIO=alt-fail-pass MARKER={marker} Greet.\n"
    )
    plugin = make_plugin(tmp_path / "demo", {"flaky": (prompt, {"says.md": GRADERS["says.md"]})})
    [result] = await run_units(
        plugin / "evals" / "flaky" / "prompt.md",
        engine=engine,
        model=MODEL[engine],
        write_report=False,
        runs=2,
        ablation="none",
    )
    assert result.run_verdicts == ["FAIL", "PASS"] and result.state == "FLAKY", result.reason


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_record_then_replay_without_the_model(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """`evalens run --record` keeps each run's model traffic (on claude-code: the eval runner's children, the
    without arm and the judge's votes) as a cassette; `--replay` with the model gone gives the same verdict."""
    _skip_without(engine)
    plugin = make_plugin(tmp_path / "demo", {"greets": _case("pass")})
    file = str(plugin / "evals" / "greets" / "prompt.md")
    model = ["--model", MODEL[engine]] if MODEL[engine] else []
    recorded = run_evalens("run", file, "--engine", engine, "--runs", "1", "--record", *model)
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert list((plugin / "evals" / "cassettes").rglob("*.json"))
    gone = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    replayed = run_evalens("run", file, "--engine", engine, "--runs", "1", "--replay", *model, env=gone)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "PASS  greets" in replayed.stdout, replayed.stdout


async def test_claude_code_refuses_a_plugin_eval_without_evalens_sandbox(
    tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The platform's runner loads the plugin's hooks and servers: where bubblewrap cannot confine it, the run is
    refused before any agent (never run on the host with the engine's own sandbox only)."""
    _skip_without("claude-code")
    from dataclasses import replace

    from evalens.runner import session as session_module
    from evalens.runner.session import UsageError

    real = session_module.plan_sandbox
    monkeypatch.setattr(
        session_module, "plan_sandbox", lambda *a: replace(real(*a), enforced=False, method="engine")
    )
    plugin = make_plugin(tmp_path / "demo", {"greets": _case("pass")})
    with pytest.raises(UsageError, match="only inside its own sandbox"):
        await _run(plugin, "greets", "claude-code")


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
async def test_a_link_out_of_the_plugin_is_never_followed(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """The eval files are hostile: a plugin whose skill links to a host file is ERROR naming the link, and the
    host file's content reaches no sandbox (the copy refuses it before any agent starts)."""
    _skip_without(engine)
    secret = tmp_path / "host-secret.txt"
    secret.write_text("HOST-SECRET-CONTENT\n")
    plugin = make_plugin(tmp_path / "demo", {"greets": _case("pass")})
    (plugin / "skills" / "greet" / "notes.md").symlink_to(secret)
    result = await _run(plugin, "greets", engine, ablation="none")
    assert result.verdict == "ERROR", result.reason
    assert "link out of" in result.reason, result.reason
    assert "HOST-SECRET-CONTENT" not in (result.output_snippet or "")
