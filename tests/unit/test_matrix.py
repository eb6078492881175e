"""The units × cells matrix (issue #25): units matched by file and name across reports, one column per engine ·
model, k/N with the Wilson interval and the cost, and an empty cell for a unit a cell did not run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalens.core.models.uaaps import ReportAgent, Usage
from evalens.runner.matrix import matrix
from tests.unit.ci_helpers import make_case, make_report, write


def _cell(engine: str, model: str, cases: list) -> object:
    report = make_report(cases, agent=ReportAgent(model=model))
    return report.model_copy(update={"config": report.config.model_copy(update={"engine": engine})})


def test_matrix_rows_are_units_and_columns_cells(tmp_path: Path) -> None:
    claude = _cell(
        "claude-code",
        "sonnet",
        [
            make_case(
                "greet",
                "FAIL",
                file="evals/cases/greet.yaml",
                run_verdicts=["PASS", "FAIL", "PASS"],
                runs=3,
                usage=Usage(cost_usd=0.0123),
            ),
            make_case("only-here", "PASS", file="evals/cases/only.yaml"),
        ],
    )
    codex = _cell(
        "codex",
        "gpt-5",
        [make_case("greet", "PASS", file="evals/cases/greet.yaml", run_verdicts=["PASS"] * 3, runs=3)],
    )
    m = matrix([claude, codex])
    assert m.columns == ["claude-code · sonnet", "codex · gpt-5"]
    (greet, a, b), (only, c, d) = [(n, *cells) for n, cells in m.rows]
    assert greet == "greet" and only == "only-here" and d is None
    # by hand: Wilson of 2/3 is 20.8%–93.9%, of 3/3 43.9%–100%
    assert a is not None and a.text() == "FLAKY 2/3 [21%–94%] $0.0123"
    assert b is not None and b.text() == "PASS 3/3 [44%–100%]"
    assert "—" in m.table().splitlines()[-1]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "report",
            "matrix",
            str(write(claude, tmp_path / "a.json")),
            str(write(codex, tmp_path / "b.json")),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["columns"] == m.columns and data["rows"][0]["cells"][1]["interval"] == [0.4385, 1.0]
    two = matrix([codex, codex]).columns
    assert two == ["codex · gpt-5 #1", "codex · gpt-5 #2"]


def test_cells_from_engines_and_models() -> None:
    from evalens.runner.matrix import cells

    assert cells("claude-code,codex", None) == [("claude-code", None), ("codex", None)]
    assert cells("claude-code,codex", "claude-code=sonnet,codex=gpt-5,shared") == [
        ("claude-code", "sonnet"),
        ("claude-code", "shared"),
        ("codex", "gpt-5"),
        ("codex", "shared"),
    ]
    assert cells(None, "a,b") == [(None, "a"), (None, "b")]
    with pytest.raises(ValueError, match="claude-code is not one of --engine codex"):
        cells("codex", "claude-code=sonnet,gpt-5")


@pytest.mark.parametrize("count", [1, 2, 3, 7, 20])
def test_shards_split_by_cell_and_unit(count: int) -> None:
    from evalens.runner.matrix import shard_pairs

    labels = ["claude-code · sonnet", "claude-code · opus", "codex · gpt-5"]
    units = ["greet", "wave", "a:b", "long"]
    full = {(i, u) for i in range(len(labels)) for u in units}
    shards = shard_pairs(labels, units, count)
    assert len(shards) == count
    seen = [pair for shard in shards for pair in shard]
    assert len(seen) == len(set(seen)) and set(seen) == full  # every pair once, none twice
    sizes = [len(s) for s in shards]
    assert max(sizes) - min(sizes) <= 1  # dealt by count
    assert shard_pairs(labels, units, count) == shards  # every machine cuts the same split
    if count == 3:  # by pair, not by cell: a shard holds units of more than one cell
        assert all(len({i for i, _ in s}) > 1 for s in shards)
    known = {pair: 1.0 for pair in full} | {(2, "long"): 100.0}
    timed = shard_pairs(labels, units, 2, known)
    # by hand (longest first to the least-loaded shard): the 100 s pair alone, the eleven 1 s pairs together
    assert timed[0] == [(2, "long")] and len(timed[1]) == 11
