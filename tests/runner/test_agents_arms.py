"""Ablation arms (``--arms``, docs/baseline.md#ablation-arms) on the real CLIs against the fake model's
``needs-skill`` scenario, whose scripted agent succeeds only when the CLI lists the skill in its request: one
batch and one report per arm, the reference arm's report holding the comparison, its verdicts the exit code."""

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
SKILL = (
    f"---\nname: greeter\ndescription: Writes greetings into output/. Key {KEY}.\n---\nWrite a greeting.\n"
)


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_arms_compare_each_install_with_the_reference(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={
            "greet": case("needs-skill", extra=f"NEEDS={KEY}", contains=["GREETING-OK"]),
            "greet-again": case("needs-skill", extra=f"NEEDS={KEY}", contains=["GREETING-OK"]),
        },
    )
    skill = pkg / "skills" / "greeter"
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "references").mkdir()
    (skill / "references" / "style.md").write_text("Greet warmly.\n")
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), *model, "--no-judge", "--json"]
        + ["--arms", "no-skill,skill,without:references"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]  # the no-skill arm's failures never fail the command
    report = json.loads(out.stdout)
    assert report["arm"] == {"name": "skill", "label": "skill", "kind": "skill"}
    assert [c["verdict"] for c in report["cases"]] == ["PASS", "PASS"]
    arms = report["arms"]
    assert arms["reference"]["name"] == "skill"
    none, bare = arms["comparisons"]
    assert none["arm"]["label"] == "no skill" and none["method"] == "newcombe-paired"
    up = none["uplift"]
    # by hand: 2 units, both passed with the skill and failed without → paired (both, worse, better, neither)
    # = (0, 0, 2, 0): d = +1, Newcombe's paired interval [0.0700, 1]
    assert (up["passed"], up["counted"], up["baseline_passed"], up["baseline_counted"]) == (2, 2, 0, 2)
    assert up["difference"] == 1.0 and up["interval"] == [0.07, 1.0]
    assert none["units"]["greet"]["difference"] == 1.0
    assert bare["arm"] == {
        "name": "without:references",
        "label": "without references",
        "kind": "without",
        "part": "references",
    }
    assert bare["uplift"]["difference"] == 0.0  # the key is in the description, which the arm keeps
    reports = pkg / "evals" / "reports"
    for comparison, verdict in ((none, "FAIL"), (bare, "PASS")):
        other = json.loads((reports / comparison["report"]).read_text())
        assert other["arm"] == comparison["arm"] and {c["verdict"] for c in other["cases"]} == {verdict}
    assert "▲ +100 pts vs no skill" in out.stderr and "skill vs no skill (all units)" in out.stderr, (
        out.stderr[-2000:]
    )
    assert "Newcombe paired over 2 units" in out.stderr
    newest = max(reports.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    assert newest.name.endswith("-arms.json")  # the editor's newest report is the reference arm's
    show = subprocess.run(
        [sys.executable, "-m", "evalens", "show", str(pkg)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=60,
    )
    assert show.returncode == 0, show.stderr[-2000:]
    assert "skill vs no skill (all units): ▲ +100 pts vs no skill [+7, +100]" in show.stdout, show.stdout[
        -3000:
    ]
    # each unit's own uplift (1/1 against 0/1: Newcombe's interval over its runs, −12 to +100) in its row
    assert show.stdout.count("[−12, +100]") == 2, show.stdout[-3000:]


JUDGES = {"claude-code": "claude-judge-test", "codex": "openai:gpt-judge-test"}


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_arms_are_judged_pairwise_with_the_order_swapped(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """With a judge, each unit's reference output and no-skill output are judged twice, the order swapped: the
    consistent judge (it prefers the output holding the greeting) gives a win, the judge that always answers
    "A" (position bias) a tie."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={
            "consistent": case("needs-skill", judge="pass", extra=f"NEEDS={KEY}", contains=["GREETING-OK"]),
            "biased": case("needs-skill", judge="prefer-a", extra=f"NEEDS={KEY}", contains=["GREETING-OK"]),
        },
    )
    (pkg / "skills" / "greeter" / "SKILL.md").write_text(SKILL)
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), *model, "--json"]
        + ["--judge", JUDGES[engine], "--arms", "no-skill,skill"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert [c["verdict"] for c in report["cases"]] == ["PASS", "PASS"], report["cases"]
    (none,) = report["arms"]["comparisons"]
    pairwise = none["pairwise"]
    assert (pairwise["wins"], pairwise["ties"], pairwise["losses"], pairwise["errors"]) == (1, 1, 0, 0), (
        pairwise
    )
    units = pairwise["units"]
    assert (units["consistent"]["first"], units["consistent"]["second"]) == ("A", "B")
    assert units["consistent"]["result"] == "win"
    assert (units["biased"]["first"], units["biased"]["second"], units["biased"]["result"]) == (
        "A",
        "A",
        "tie",
    )
    line = "skill vs no skill, judged pairwise (each unit twice, the order swapped): 1 win, 1 tie, 0 losses"
    assert line in out.stderr, out.stderr[-2000:]
    show = subprocess.run(
        [sys.executable, "-m", "evalens", "show", str(pkg)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=60,
    )
    assert line in show.stdout, show.stdout[-3000:]


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_run_arms_compare_a_skilljack_suite(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """``evalens run tasks.yaml --arms no-skill,skill``: the same arms as ``evalens eval --arms`` (one
    implementation, runner/arms.py): one batch and report per arm, the reference's report with the uplift."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    suite = tmp_path / "suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(SKILL)
    task = (
        '    prompt: "Greet {who} SCENARIO=use-skill NEEDS=' + KEY + '"\n    expected_skill_load: greeter\n'
    )
    checks = "    deterministic: { expect_skill_activation: true, expect_marker: GREETING-OK }\n"
    (suite / "tasks.yaml").write_text(
        "skill: greeter\ntasks:\n"
        + "".join(f"  - id: {who}\n" + task.format(who=who) + checks for who in ("ann", "bob"))
    )
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "run", str(suite / "tasks.yaml"), "--engine", engine, *model]
        + [
            "--runs",
            "1",
            "--no-judge",
            "--output-dir",
            str(tmp_path / "results"),
            "--arms",
            "no-skill,skill",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]  # the no-skill arm never fails it
    reports = [json.loads(p.read_text()) for p in suite.rglob("reports/*.json")]
    (ref,) = [r for r in reports if r.get("arms")]
    assert ref["arm"]["name"] == "skill" and [c["verdict"] for c in ref["cases"]] == ["PASS", "PASS"]
    (none,) = ref["arms"]["comparisons"]
    # by hand, as for evalens eval: (both, worse, better, neither) = (0, 0, 2, 0): d = +1, [0.0700, 1]
    assert none["arm"]["label"] == "no skill" and none["method"] == "newcombe-paired"
    assert none["uplift"]["difference"] == 1.0 and none["uplift"]["interval"] == [0.07, 1.0]
    other = [r for r in reports if (r.get("arm") or {}).get("name") == "no-skill"]
    assert len(other) == 1 and {c["verdict"] for c in other[0]["cases"]} == {"FAIL"}
    assert "skill vs no skill (all units): ▲ +100 pts vs no skill [+7, +100]" in out.stderr, out.stderr[
        -2000:
    ]


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_crashed_arm_makes_its_pairwise_comparison_error_never_a_win(
    engine: str, tmp_path: Path, sandbox_dir: Path
) -> None:
    """Issue 44: the no-skill arm's run met HTTP 500 and the CLI's "API Error: 500" text was shown to the
    pairwise judge as that arm's output, so the reference "won" over an arm that never ran. A unit whose run
    on either arm did not complete is ERROR in the pairwise tally, and the judge is never asked about it."""
    from tests.fakemodel import FakeModelServer

    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases={"greet": case("skill-or-crash", judge="pass", extra=f"NEEDS={KEY}", contains=["GREETING-OK"])},
    )
    (pkg / "skills" / "greeter" / "SKILL.md").write_text(SKILL)
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    scenarios = {"skill-or-crash": [{"needs_skill": {"then": "pass", "else": "err500"}}]}
    log = tmp_path / "fake-log"
    with FakeModelServer(log_dir=log, scenarios=scenarios) as fake:
        env = {
            **os.environ,
            "COLUMNS": "200",
            "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
            "OPENAI_BASE_URL": fake.openai_base_url,
            "ANTHROPIC_API_KEY": "test-key",
            "OPENAI_API_KEY": "test-key",
            "EVALENS_AGENT_RETRIES": "0",
        }
        out = subprocess.run(
            [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), *model, "--json"]
            + ["--judge", JUDGES[engine], "--arms", "no-skill,skill"],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    assert out.returncode == 0, out.stderr[-3000:]  # the reference arm passed
    report = json.loads(out.stdout)
    assert [c["verdict"] for c in report["cases"]] == ["PASS"], report["cases"]
    (none,) = report["arms"]["comparisons"]
    other = json.loads((pkg / "evals" / "reports" / none["report"]).read_text())
    assert [c["verdict"] for c in other["cases"]] == ["ERROR"], other["cases"]  # the arm did crash
    pairwise = none["pairwise"]
    assert (pairwise["wins"], pairwise["ties"], pairwise["losses"], pairwise["errors"]) == (0, 0, 0, 1), (
        pairwise
    )
    unit = pairwise["units"]["greet"]
    assert unit["result"] == "ERROR" and "other arm's run did not complete" in unit["reason"], unit
    asked = [p.read_text() for p in log.glob("*-body.json")]
    assert not [b for b in asked if "Outputs to compare" in b], "the judge was asked to compare a crashed run"
    assert "0 wins, 0 ties, 0 losses, 1 error" in out.stderr, out.stderr[-2000:]
