"""Headless Neovim 0.7.2 and 0.11 with the README's setup: ``:EvalensRunMatrix claude-code skill,no-skill`` on a
case of a package starts the server's whole comparison (issue 41; runner/comparison.py's plan, as the CLI runs
it) with the real ``claude`` against the scripted model. It asks first (every case once per engine and arm),
then both arms run, the reference last, and the matrix's table is shown; the package holds the two reports,
named as the CLI names them, the reference's with the comparison."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.editors.nvim_session import Neovim, claude_or_skip
from tests.fakemodel.server import FakeModelServer
from tests.server.run_fixtures import two_case_pkg

pytestmark = pytest.mark.editors


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_evalens_compare_runs_every_arm_and_shows_the_matrix(version: str, tmp_path: Path) -> None:
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    pkg = two_case_pkg(tmp_path / "pkg")
    case_file = pkg / "evals" / "cases" / "10-pass.yaml"
    (tmp_path / "run").mkdir()
    with FakeModelServer(idle_timeout=600, log_dir=tmp_path / "fakemodel-log") as fake:
        ran = nvim.run_driver(
            "run_matrix.lua",
            tmp_path / "run",
            cwd=pkg,
            timeout=900,
            model=fake,
            sandboxes=True,
            env={
                "EVALENS_CASE_FILE": str(case_file),
                "EVALENS_ENGINES": "claude-code",
                "EVALENS_ARMS": "skill,no-skill",
            },
        )
    result = ran.result
    assert ran.leftovers == []
    [asked] = result["asked"]
    assert "Compare claude-code × skill,no-skill" in asked["question"] and "runs 2 times" in asked["question"]
    table = "\n".join(result["table"])
    assert "greet " in table and "greet-missing" in table and "no skill" in table, table
    reports = sorted(p.name for p in (pkg / "evals" / "reports").glob("*.json"))
    assert len(reports) == 2 and reports[0].endswith("-arm-1.json") and reports[1].endswith("-arms.json"), (
        reports
    )
    reference = json.loads((pkg / "evals" / "reports" / reports[1]).read_text())
    assert [c["arm"]["name"] for c in reference["arms"]["comparisons"]] == ["no-skill"], reference["arms"]
