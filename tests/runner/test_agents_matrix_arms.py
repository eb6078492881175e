"""Engines × arms in one run (issue #25): ``evalens eval --engine claude-code,codex --model codex=gpt-fake --arms
skill,no-skill,without:references`` on the real CLIs against the fake model's ``needs-skill`` scenario (the
scripted agent succeeds only when the CLI lists the skill): every unit in every engine · model · arm, one cell
report each, the reference arm's compared with its engine's other arms; the matrix has one column per
engine · model · arm and each engine's uplift per arm with the paired interval; the exit code is the reference
arms'."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from evalens.runner.matrix import batch_reports
from tests.runner.runner_helpers import agents_available, case, greeter_suite, make_package

pytestmark = pytest.mark.agents

KEY = "greet-key-42"
SKILL = (
    f"---\nname: greeter\ndescription: Writes greetings into output/. Key {KEY}.\n---\nWrite a greeting.\n"
)
ARMS = "skill,no-skill,without:references"


def test_every_engine_runs_every_arm_in_one_matrix(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    for engine in ("claude-code", "codex"):
        if not agents_available(engine):
            pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        cases={
            "greet": case("needs-skill", extra=f"NEEDS={KEY}", contains=["GREETING-OK"]),
            "greet-again": case("needs-skill", extra=f"NEEDS={KEY}", contains=["GREETING-OK"]),
        },
    )
    skill = pkg / "skills" / "greeter"
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "references").mkdir()
    (skill / "references" / "style.md").write_text("Greet warmly.\n")
    argv = ["--engine", "claude-code,codex", "--model", "codex=gpt-fake", "--arms", ARMS, "--jobs", "2"]
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge", "--json", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]  # the no-skill arms' failures never fail the command
    grid = json.loads(out.stdout)
    claude = grid["columns"][0].rsplit(" · ", 1)[0]
    assert claude.startswith("claude-code · ")
    arms = ["skill", "no skill", "without references"]
    assert grid["columns"] == [f"{claude} · {a}" for a in arms] + [f"codex · gpt-fake · {a}" for a in arms]
    for row in grid["rows"]:
        states = [c["state"] for c in row["cells"]]
        # the key is in the description, which without:references keeps
        assert states == ["PASS", "FAIL", "PASS"] * 2, (row["unit"], states, out.stderr[-3000:])
        # each unit's uplift per engine: 1/1 against 0/1 is +100 points, Newcombe's interval −12 to +100
        assert row["uplift"] == {
            f"Δ vs no skill · {claude}": "▲ +100 pts [\u221212, +100]",
            f"Δ vs without references · {claude}": row["uplift"][f"Δ vs without references · {claude}"],
            "Δ vs no skill · codex · gpt-fake": "▲ +100 pts [\u221212, +100]",
            "Δ vs without references · codex · gpt-fake": row["uplift"][
                "Δ vs without references · codex · gpt-fake"
            ],
        }
        assert all(v.startswith("= 0 pts [") for k, v in row["uplift"].items() if "references" in k)
    # the units pooled per engine with the paired interval: by hand, 2 units passed with the skill and failed
    # without → paired (both, worse, better, neither) = (0, 0, 2, 0): d = +1, Newcombe's paired [0.07, 1]
    pooled = [p for p in grid["pooled"] if "vs no skill (all units)" in p]
    assert pooled == [
        f"{claude}: skill vs no skill (all units): ▲ +100 pts vs no skill [+7, +100] · Newcombe paired over 2 units",
        "codex · gpt-fake: skill vs no skill (all units): ▲ +100 pts vs no skill [+7, +100] · Newcombe paired "
        "over 2 units",
    ], grid["pooled"]
    # six cell reports of one batch: each its engine, model and arm; each engine's reference compared
    reports = pkg / "evals" / "reports"
    cells = batch_reports(next(reports.glob("*-cell-1.json")))
    assert len(cells) == 6
    read = [json.loads(p.read_text()) for p in cells]
    assert [(r["config"]["engine"], r["arm"]["name"]) for r in read] == [
        (e, a) for e in ("claude-code", "codex") for a in ARMS.split(",")
    ]
    assert all(r["agent"]["model"] == "gpt-fake" for r in read[3:])
    for ref in (read[0], read[3]):
        assert [c["arm"]["name"] for c in ref["arms"]["comparisons"]] == ["no-skill", "without:references"]
        assert ref["arms"]["comparisons"][0]["uplift"]["interval"] == [0.07, 1.0]
    # evalens show of any cell report prints the same matrix
    show = subprocess.run(
        [sys.executable, "-m", "evalens", "show", str(cells[4])],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
        timeout=60,
    )
    assert show.returncode == 0, show.stderr[-2000:]
    assert "codex · gpt-fake · without references" in show.stdout and pooled[1] in show.stdout, show.stdout


def test_an_eval_file_runs_the_same_matrix_of_engines_and_arms(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """``evalens run tasks.yaml --engine claude-code,codex --model codex=gpt-fake --arms skill,no-skill``: a
    skilljack suite gets the package's comparison (runner/comparison.py, one plan for every format): every task in
    every engine · model · arm, one cell report each in the suite's reports folder, each engine's reference arm
    compared with its other arm, one matrix, one JUnit suite per cell; the no-skill arm never fails the command."""
    for engine in ("claude-code", "codex"):
        if not agents_available(engine):
            pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    suite = tmp_path / "suite"
    greeter_suite(suite, {"ann": None, "bob": None})
    junit = tmp_path / "junit.xml"
    argv = ["--engine", "claude-code,codex", "--model", "codex=gpt-fake", "--arms", "skill,no-skill"]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "run",
            str(suite / "tasks.yaml"),
            "--runs",
            "1",
            "--no-judge",
            "--json",
        ]
        + ["--output-dir", str(tmp_path / "results"), "--junit", str(junit), *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=900,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    grid = json.loads(
        out.stdout
    )  # under --json, stdout is the matrix alone (the batches' lines go to stderr)
    claude = grid["columns"][0].rsplit(" · ", 1)[0]
    assert claude.startswith("claude-code · ")
    assert grid["columns"] == [f"{claude} · skill", f"{claude} · no skill"] + [
        "codex · gpt-fake · skill",
        "codex · gpt-fake · no skill",
    ]
    for row in grid["rows"]:
        assert [c["state"] for c in row["cells"]] == ["PASS", "FAIL"] * 2, (row, out.stderr[-3000:])
        assert row["uplift"]["Δ vs no skill · codex · gpt-fake"] == "▲ +100 pts [\u221212, +100]", row
    cells = batch_reports(next((suite / "evals" / "reports").glob("*-cell-1.json")))
    read = [json.loads(p.read_text()) for p in cells]
    assert [(r["config"]["engine"], r["arm"]["name"]) for r in read] == [
        (e, a) for e in ("claude-code", "codex") for a in ("skill", "no-skill")
    ]
    for ref in (read[0], read[2]):
        (compared,) = ref["arms"]["comparisons"]
        assert compared["arm"]["name"] == "no-skill" and compared["uplift"]["interval"] == [0.07, 1.0]
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert len(suites) == 2 and all(s.get("failures") == "0" for s in suites), junit.read_text()


BIN_ENV = {"claude-code": "EVALENS_CLAUDE_BIN", "codex": "EVALENS_CODEX_BIN"}


@pytest.mark.parametrize("missing", ["claude-code", "codex"])
def test_a_cell_whose_cli_is_missing_is_an_error_column_and_an_error_suite(
    missing: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Issue 44: with one CLI missing, a matrix run exited 2 but its table had one column and its JUnit one
    green suite: the cell that never ran disappeared. Its column is now ERROR for every unit, with the reason,
    and the JUnit has its suite with an error per unit; the exit code stays 2. Each CLI is the missing one
    once, the other the one that runs."""
    present = "codex" if missing == "claude-code" else "claude-code"
    if not agents_available(present):
        pytest.skip(f"{present} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(tmp_path / "pkg", cases={"greet": case("pass", contains=["GREETING-OK"])})
    junit = tmp_path / "junit.xml"
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge", "--json"]
        + ["--engine", "claude-code,codex", "--model", "codex=gpt-fake", "--junit", str(junit)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", BIN_ENV[missing]: str(tmp_path / "no-such-cli")},
        timeout=600,
    )
    assert out.returncode == 2, out.stderr[-3000:]
    grid = json.loads(out.stdout)
    assert len(grid["columns"]) == 2, grid["columns"]
    where = 0 if missing == "claude-code" else 1
    assert grid["columns"][where].startswith(f"{missing} · "), grid["columns"]
    [row] = grid["rows"]
    assert row["cells"][where]["state"] == "ERROR" and row["cells"][1 - where]["state"] == "PASS", row
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("errors") for s in suites] == (["1", "0"] if where == 0 else ["0", "1"]), ET.tostring(
        ET.parse(junit).getroot()
    )[:2000]
    [error] = suites[where].iter("error")
    assert "the cell did not run" in (error.get("message") or "") and "no-such-cli" in error.get(
        "message", ""
    )
    # the batch's cell reports include the one that never ran (evalens show draws the same matrix)
    assert len(batch_reports(next((pkg / "evals" / "reports").glob("*-cell-1.json")))) == 2


@pytest.mark.parametrize("missing", ["claude-code", "codex"])
def test_an_eval_files_cell_whose_cli_is_missing_is_an_error_column_too(
    missing: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """The same for an eval file's matrix (issue 44's rule, now that a file runs a matrix): the cell whose CLI is
    missing is an ERROR column for every task, with the reason, and an erroring JUnit suite; exit code 2."""
    present = "codex" if missing == "claude-code" else "claude-code"
    if not agents_available(present):
        pytest.skip(f"{present} CLI not installed (run .ci/install-agents.sh)")
    suite = tmp_path / "suite"
    greeter_suite(suite, {"hello": None})
    junit = tmp_path / "junit.xml"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "run",
            str(suite / "tasks.yaml"),
            "--runs",
            "1",
            "--no-judge",
            "--json",
        ]
        + ["--engine", "claude-code,codex", "--model", "codex=gpt-fake", "--junit", str(junit)]
        + ["--output-dir", str(tmp_path / "results")],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", BIN_ENV[missing]: str(tmp_path / "no-such-cli")},
        timeout=600,
    )
    assert out.returncode == 2, out.stderr[-3000:]
    grid = json.loads(out.stdout)
    where = 0 if missing == "claude-code" else 1
    assert len(grid["columns"]) == 2 and grid["columns"][where].startswith(f"{missing} · "), grid["columns"]
    [row] = grid["rows"]
    assert row["cells"][where]["state"] == "ERROR" and row["cells"][1 - where]["state"] == "PASS", (
        row,
        out.stderr[-3000:],
    )
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("errors") for s in suites] == (["1", "0"] if where == 0 else ["0", "1"]), junit.read_text()
    [error] = suites[where].iter("error")
    assert "the cell did not run" in (error.get("message") or "") and "no-such-cli" in error.get(
        "message", ""
    )
