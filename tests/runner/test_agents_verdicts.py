"""The honest-verdict rules (docs/verdicts.md) on the real `claude` and `codex` CLIs against the fake model, for every
format: UAAPS through ``runner.api``; skilljack, skill-creator, writing-skills and trigger sets through
``runner.api.run_file`` (what ``evalens run``, the lens and the Test Explorer call).

Every unit's expected verdict is listed, and an expected ERROR names the reason its scenario causes: a unit that
ERRORs for any other reason (a broken fixture, a CLI that misbehaves) fails the test.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from evalens.runner.api import RunRequest, run_cases
from tests.runner.runner_helpers import agents_available, case, make_package

pytestmark = pytest.mark.agents

ENGINES = ["claude-code", "codex"]
JUDGES = {"claude-code": "claude-judge-test", "codex": "openai:gpt-judge-test"}
AGENT_MODELS = {"claude-code": None, "codex": "gpt-fake"}
SKILL_MD = "---\nname: greeting\ndescription: Greets new team members warmly.\n---\nSay hello and GREETING_SUCCESS.\n"


def need(engine: str) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed")


def assert_verdicts(got: dict[str, tuple[str, str]], expected: dict[str, tuple[str, str]]) -> None:
    """Same units, same verdicts, and each ERROR/FAIL for the reason its scenario causes (substring)."""
    assert set(got) == set(expected), (sorted(got), sorted(expected))
    wrong = {
        name: got[name]
        for name, (verdict, why) in expected.items()
        if got[name][0] != verdict or why.lower() not in got[name][1].lower()
    }
    assert not wrong, {"wrong": wrong, "expected": {n: expected[n] for n in wrong}}


# --------------------------------------------------------------------------- UAAPS (runner.api)


def _uaaps_cases() -> dict[str, dict]:
    return {
        "crash-expects-not-blocked": case("err500", agent_blocked=False),
        "crash-negative-only": case("err500", not_contains=["GREETING-OK"]),
        "echo-is-not-a-block": case("echo-blocked", agent_blocked=True),
        "echo-passes-not-blocked": case("echo-blocked", agent_blocked=False),
        "hook-blocks": case("hook-blocked", agent_blocked=True),
        "hook-blocks-unexpectedly": case("hook-blocked", agent_blocked=False),
        "judge-429": case("pass", judge="err429", contains=["GREETING-OK"]),
        "judge-500": case("pass", judge="err500", contains=["GREETING-OK"]),
        "judge-hangs": case("pass", judge="hang", contains=["GREETING-OK"]),
        "judge-garbage": case("pass", judge="garbage", contains=["GREETING-OK"]),
    }


UAAPS_EXPECTED = {
    "crash-expects-not-blocked": ("ERROR", "API status 500"),
    "crash-negative-only": ("ERROR", "API status 500"),
    "echo-is-not-a-block": ("FAIL", "no tool call was denied"),
    "echo-passes-not-blocked": ("PASS", ""),
    "hook-blocks": ("PASS", ""),
    # the reason is the hook's own words (not a raw JSON list of tool-output items)
    "hook-blocks-unexpectedly": ("FAIL", "the agent was blocked: PreToolUse"),
    "judge-429": ("ERROR", "HTTP 429"),
    "judge-500": ("ERROR", "HTTP 500"),
    "judge-hangs": ("ERROR", "did not answer within 4 s"),
    "judge-garbage": ("ERROR", "not the required JSON"),
}


def _post_tool_use_package(root: Path, engine: str) -> Path:
    """The blocking hook moved to PostToolUse: it still exits 2, but the write has already happened."""
    pkg = make_package(
        root,
        engine=engine,
        cases={
            "post-hook-expect-blocked": case("hook-blocked", agent_blocked=True),
            "post-hook-expect-not-blocked": case("hook-blocked", agent_blocked=False),
        },
    )
    hooks = json.loads((pkg / "hooks" / "hooks.json").read_text())
    hooks["hooks"] = {"PostToolUse": hooks["hooks"]["PreToolUse"]}
    (pkg / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return pkg


@pytest.mark.parametrize("engine", ENGINES)
async def test_uaaps_verdict_rules(engine: str, tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    need(engine)
    main = make_package(
        tmp_path / "main", engine=engine, cases=_uaaps_cases(), judge=JUDGES[engine], timeout=90
    )
    post = _post_tool_use_package(tmp_path / "post", engine)
    runs = [
        run_cases(RunRequest(package_root=main, jobs=4, agent_model=AGENT_MODELS[engine], judge_timeout=4)),
        run_cases(RunRequest(package_root=post, jobs=2, agent_model=AGENT_MODELS[engine], no_judge=True)),
    ]
    if (
        engine == "codex"
    ):  # Codex's default model: tools arrive as `additional_tools`, the shell via code mode
        default = make_package(
            tmp_path / "default",
            engine=engine,
            cases={
                "default-model-pass": case(
                    "pass", contains=["GREETING-OK"], files_created=["output/result.txt"]
                ),
                "default-model-blocked": case("hook-blocked", agent_blocked=True),
                "default-model-blocked-unexpectedly": case("hook-blocked", agent_blocked=False),
            },
        )
        runs.append(run_cases(RunRequest(package_root=default, jobs=2, no_judge=True)))
    t0 = time.monotonic()
    outcomes = await asyncio.gather(*runs)
    got = {r.name: (r.verdict, r.error or r.reason) for o in outcomes for r in o.results}
    expected = dict(UAAPS_EXPECTED)
    expected.update(
        {
            "post-hook-expect-blocked": ("FAIL", "no tool call was denied"),
            "post-hook-expect-not-blocked": ("PASS", ""),
        }
    )
    if engine == "codex":
        expected.update(
            {
                "default-model-pass": ("PASS", ""),
                "default-model-blocked": ("PASS", ""),
                "default-model-blocked-unexpectedly": (
                    "FAIL",
                    "the agent was blocked: PreToolUse hook: BLOCKED_BY_POLICY: writes to blocked.txt",
                ),
            }
        )
    assert_verdicts(got, expected)
    by_name = {r.name: r for o in outcomes for r in o.results}
    assert by_name["judge-hangs"].judge_verdict == "ERROR" and by_name["judge-429"].judge_verdict == "ERROR"
    assert time.monotonic() - t0 < 150  # a hanging judge costs its deadline, not minutes
    reason = by_name["hook-blocks-unexpectedly"].reason
    assert "BLOCKED_BY_POLICY: writes to blocked.txt are forbidden" in reason and "[{" not in reason, reason
    assert list(sandbox_dir.iterdir()) == []


async def test_rejudge_of_a_multi_run_report_rejudges_every_run(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Run 1's output makes the judge say PASS, run 2's FAIL: the case is FAIL, and stays FAIL when re-judged (it
    used to re-judge run 1 only and report PASS)."""
    need("codex")
    model_env.state.scenarios.update(
        {
            "says-judge-pass": [{"text": "DONE JUDGE=pass"}],
            "says-judge-fail": [{"text": "DONE JUDGE=fail"}],
            "alt-judge": [{"cycle": ["says-judge-pass", "says-judge-fail"]}],
        }
    )
    marker = uuid.uuid4().hex[:10]
    flaky = case("alt-judge", extra=f"MARKER={marker}")
    # no JUDGE token in the criteria: the judge's reply follows the one in each run's (quoted) output; the criteria
    # come after that output in the judge's prompt (#28), so a token there would decide every run
    flaky["judge"]["criteria"] = "The agent completed the task."
    pkg = make_package(tmp_path / "pkg", engine="codex", judge="openai:gpt-judge", cases={"flaky": flaky})
    outcome = await run_cases(RunRequest(package_root=pkg, agent_model="gpt-fake", runs=2, jobs=1))
    result = outcome.results[0]
    assert (result.verdict, result.run_verdicts) == ("FAIL", ["PASS", "FAIL"]), result
    out = await asyncio.to_thread(
        subprocess.run,
        [
            sys.executable,
            "-m",
            "evalens",
            "eval",
            "--rejudge",
            str(outcome.report_path),
            "--judge",
            "claude-rejudge",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    rejudged = json.loads(out.stdout)["cases"][0]
    assert rejudged["verdict"] == "FAIL" and rejudged["run_verdicts"] == ["PASS", "FAIL"]
    assert rejudged["pass_rate"] == 0.5 and rejudged["judge_verdict"]["model"] == "claude-rejudge"


# --------------------------------------------------------------------------- evalens run formats (runner.api.run_file)


def _formats_workspace(root: Path, marker: str) -> dict[str, Path]:
    suite = root / "suite"
    (suite / "skills" / "greeting").mkdir(parents=True)
    (suite / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    (suite / "tasks.yaml").write_text(
        textwrap.dedent(f"""\
        skill: greeting
        tasks:
          - id: neg-crash
            prompt: "What is an email? SCENARIO=err500"
            expected_skill_load: none
            deterministic: {{ expect_skill_activation: false }}
          - id: neg-ok
            prompt: "What is an email? SCENARIO=done"
            expected_skill_load: none
            deterministic: {{ expect_skill_activation: false }}
          - id: neg-judge-down
            prompt: "What is an email? SCENARIO=done JUDGE=err500"
            expected_skill_load: none
            deterministic: {{ expect_skill_activation: false }}
            criteria: {{ adherence: {{ weight: 1 }} }}
          - id: neg-flaky
            prompt: "What is an email? SCENARIO=flaky-agent MARKER={marker}"
            expected_skill_load: none
            deterministic: {{ expect_skill_activation: false }}
        """)
    )
    creator = root / "greeting"
    (creator / "evals").mkdir(parents=True)
    (creator / "SKILL.md").write_text(SKILL_MD)
    (creator / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Greet SCENARIO=done JUDGE=garbage",
                        "expected_output": "a greeting",
                        "assertions": ["greets", "is short", "is kind"],
                    },
                    {
                        "id": 2,
                        "prompt": "Greet SCENARIO=err500",
                        "expected_output": "a greeting",
                        "assertions": [],
                    },
                    {
                        "id": 3,
                        "prompt": "Greet SCENARIO=done",
                        "expected_output": "a greeting",
                        "assertions": [],
                    },
                    {
                        "id": 4,
                        "prompt": "Greet SCENARIO=done JUDGE=pass",
                        "expected_output": "a greeting",
                        "assertions": ["greets", "is short"],
                    },
                ],
            },
            indent=2,
        )
    )
    (creator / "evals" / "trigger-eval.json").write_text(
        json.dumps(
            [
                {"query": "how do I write an email SCENARIO=err500", "should_trigger": False},
                {"query": "what is the weather SCENARIO=done", "should_trigger": False},
            ],
            indent=2,
        )
    )
    (creator / "evals" / "trigger-slow.json").write_text(
        json.dumps([{"query": f"run the long job SCENARIO=slow MARKER={marker}", "should_trigger": False}])
    )
    writing = root / "hello"
    (writing / "evals").mkdir(parents=True)
    (writing / "SKILL.md").write_text(SKILL_MD.replace("name: greeting", "name: hello"))
    (writing / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "version": "1.0",
                "skill": str(writing),
                "cases": [
                    {
                        "id": "grader-down",
                        "prompt": "Greet me SCENARIO=done JUDGE=err429",
                        "expectations": [
                            {
                                "criterion": "uses-hello",
                                "description": "Uses the word hello",
                                "required": True,
                            }
                        ],
                    },
                    {
                        "id": "graded",
                        "prompt": "Greet me SCENARIO=done JUDGE=pass",
                        "expectations": [
                            {
                                "criterion": "uses-hello",
                                "description": "Uses the word hello",
                                "required": True,
                            }
                        ],
                    },
                ],
            },
            indent=2,
        )
    )
    return {
        "tasks": suite / "tasks.yaml",
        "creator": creator / "evals" / "evals.json",
        "trigger": creator / "evals" / "trigger-eval.json",
        "writing": writing / "evals" / "evals.json",
        "slow": creator / "evals" / "trigger-slow.json",
    }


FORMATS_EXPECTED = {
    ("tasks", "neg-crash"): ("ERROR", "API status 500"),
    ("tasks", "neg-ok"): ("PASS", ""),
    ("tasks", "neg-judge-down"): ("ERROR", "judge error"),
    ("tasks", "neg-flaky"): ("ERROR", "run 1/3: agent error (API status 500)"),
    ("creator", "1"): ("ERROR", "grader error"),
    ("creator", "2"): ("ERROR", "API status 500"),
    ("creator", "3"): ("SKIP", "nothing to grade"),
    ("creator", "4"): ("PASS", "2/2 assertions passed"),
    ("trigger", "0"): ("ERROR", "API status 500"),
    ("trigger", "1"): ("PASS", "triggered 0/1"),
    ("writing", "grader-down"): ("ERROR", "HTTP 429"),
    ("writing", "graded"): ("PASS", ""),
}


@pytest.mark.parametrize("engine", ENGINES)
async def test_evalens_run_formats_verdict_rules(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(engine)
    from tests.runner.runner_helpers import run_units as run_file

    monkeypatch.chdir(tmp_path)
    files = _formats_workspace(tmp_path / "ws", uuid.uuid4().hex[:10])
    model = AGENT_MODELS[engine]
    common = {"engine": engine, "model": model, "timeout_ms": 60000}
    got: dict[str, tuple[str, str]] = {}
    for key, kwargs in (
        ("tasks", {"cases": ["neg-crash", "neg-ok", "neg-judge-down"]}),
        ("tasks", {"cases": ["neg-flaky"], "runs": 3}),
        ("creator", {}),
        ("trigger", {}),
        ("writing", {}),
    ):
        verdicts = await run_file(files[key], output_dir=tmp_path / "out" / key, **common, **kwargs)
        got.update({f"{key}:{v.name}": (v.verdict, v.reason) for v in verdicts})
    # A timed-out agent: ERROR, also for a query that should not trigger.
    verdicts = await run_file(files["slow"], **{**common, "timeout_ms": 4000})
    got.update({f"slow:{v.name}": (v.verdict, v.reason) for v in verdicts})
    assert_verdicts(
        got,
        {
            **{f"{k}:{n}": v for (k, n), v in FORMATS_EXPECTED.items()},
            "slow:0": ("ERROR", "timed out after 4 s"),
        },
    )

    # The results files say the same (the lens restores verdicts from them).
    from evalens.runner.suites.graded import creator_unit
    from evalens.runner.suites.skilljack_files import skilljack_unit

    results = json.loads(next((tmp_path / "out" / "tasks").glob("*.json")).read_text())
    assert not results["passed"] and any(
        "failed (agent or judge error)" in r for r in results["failureReasons"]
    )
    for entry in results["tasks"]:
        unit = skilljack_unit(entry, results, (0.8, 4.0))
        assert unit.verdict == FORMATS_EXPECTED[("tasks", unit.name)][0], (
            unit.name,
            unit.verdict,
            unit.reason,
        )
    data = json.loads(files["creator"].read_text())
    for grading in (tmp_path / "out" / "creator").glob("eval-*/grading.json"):
        name = grading.parent.name[len("eval-") :]
        assert (
            creator_unit(name, json.loads(grading.read_text()), data).verdict
            == FORMATS_EXPECTED[("creator", name)][0]
        )
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_evalens_run_terminal_shows_the_agent_error_and_fails(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    need(engine)
    files = _formats_workspace(tmp_path / "ws", uuid.uuid4().hex[:10])
    model = ["--model", AGENT_MODELS[engine]] if AGENT_MODELS[engine] else []
    base = [
        sys.executable,
        "-m",
        "evalens",
        "run",
        "--engine",
        engine,
        *model,
        "--runs",
        "1",
        "--timeout",
        "60",
    ]
    creator = subprocess.run(
        [*base, str(files["creator"]), "--tasks", "2", "--output-dir", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(os.environ),
    )
    assert creator.returncode == 1, creator.stdout + creator.stderr
    assert "eval 2 run 1: ERROR — agent error (API status 500)" in creator.stdout
    assert "0/0" not in creator.stdout and "Traceback" not in creator.stderr
    trigger = subprocess.run(
        [*base, str(files["trigger"])], capture_output=True, text=True, timeout=180, env=dict(os.environ)
    )
    assert trigger.returncode == 1, trigger.stdout + trigger.stderr
    assert "ERROR should not trigger" in trigger.stdout and "API status 500" in trigger.stdout
    assert "1 ERROR (agent failed, not counted)" in trigger.stdout
    sj = subprocess.run(
        [*base, str(files["tasks"]), "--tasks", "neg-crash", "--output-dir", str(tmp_path / "sj")],
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(os.environ),
        cwd=tmp_path,
    )
    assert sj.returncode == 1 and "PASSED" not in sj.stdout, sj.stdout
    assert "ERROR neg-crash" in sj.stdout and "API status 500" in sj.stdout
    assert list(sandbox_dir.iterdir()) == []


# --------------------------------------------------------------------------- a plain pip install judges


def test_plain_pip_install_runs_a_case_through_the_judge(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Build the wheel, install it with no extras into a new venv, and run one case end to end through a judge
    (the anthropic SDK) against the fake model: the judge's SDK comes with `pip install evalens`."""
    need("codex")
    import shutil

    from evalens.runner.engines import get_engine

    repo = Path(__file__).resolve().parents[2]
    src = tmp_path / "src"
    src.mkdir()
    for part in ("pyproject.toml", "README.md", "evalens", "runner", "server", "schemas"):
        copy = shutil.copytree if (repo / part).is_dir() else shutil.copy
        copy(
            repo / part,
            src / part,
            **({"ignore": shutil.ignore_patterns("__pycache__")} if (repo / part).is_dir() else {}),
        )
    t0 = time.monotonic()
    build = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("evalens-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(wheel)], capture_output=True, text=True, timeout=400
    )
    assert install.returncode == 0, install.stderr[-3000:]
    pkg = make_package(
        tmp_path / "pkg",
        engine="codex",
        judge="claude-judge",
        cases={"judged": case("pass", contains=["GREETING-OK"])},
    )
    env = {**os.environ, "EVALENS_CODEX_BIN": str(get_engine("codex").binary)}
    out = subprocess.run(
        [str(venv / "bin" / "evalens"), "eval", "--package", str(pkg), "--model", "gpt-fake", "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    report = json.loads(out.stdout)
    (judged,) = report["cases"]
    assert judged["verdict"] == "PASS" and judged["judge_verdict"]["result"] == "PASS"
    assert (
        judged["judge_verdict"]["model"] == "claude-judge"
        and report["judge"]["model_provider"] == "anthropic"
    )
    doctor = subprocess.run(
        [str(venv / "bin" / "evalens"), "doctor", "--json", "--engine", "codex", "--judge", "claude-judge"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert json.loads(doctor.stdout)["ok"] is True, doctor.stdout
    print(f"fresh venv: build + install + run in {time.monotonic() - t0:.0f} s")


@pytest.mark.parametrize("engine", ENGINES)
async def test_block_evidence_the_agent_could_write_is_not_trusted(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """With `writable-paths`, Codex runs without its own nested sandbox, so the hook records its block comes from
    are writable by the agent's tool commands: a block there is ERROR, never PASS. Claude Code's blocks come from
    the event stream the runner owns and stay trusted."""
    need(engine)
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        writable=["output/"],
        timeout=90,
        cases={"hook-blocks": case("hook-blocked", agent_blocked=True)},
    )
    outcome = await run_cases(RunRequest(package_root=pkg, agent_model=AGENT_MODELS[engine], no_judge=True))
    got = {r.name: (r.verdict, r.error or r.reason) for r in outcome.results}
    if engine == "codex":
        assert_verdicts(got, {"hook-blocks": ("ERROR", "hook records cannot be verified")})
    else:
        assert_verdicts(got, {"hook-blocks": ("PASS", "")})
    assert list(sandbox_dir.iterdir()) == []
