"""The units × cells matrix (issue #25): units matched by file and name across reports, one column per engine ·
model, k/N with the Wilson interval and the cost, and an empty cell for a unit a cell did not run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core.models.uaaps import ReportAgent, Usage
from evalens.runner.matrix import matrix
from tests.ci_helpers import make_case, make_report, write
from tests.in_process import evalens as evalens_cli


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
    out = evalens_cli(
        [
            "report",
            "matrix",
            str(write(claude, tmp_path / "a.json")),
            str(write(codex, tmp_path / "b.json")),
            "--json",
        ]
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


def _arm_cells(engine: str, model: str) -> list:
    """One engine's two arms: the skill (reference) passes both units, no skill passes only ``wave``; the
    reference's report compared with the other's, as ``evalens eval --arms`` writes it."""
    from evalens.core.models.baseline import ArmSource, ReportArms
    from evalens.runner.arms import comparison

    skill = _cell(
        engine, model, [make_case("greet", "PASS", file="a.yaml"), make_case("wave", "PASS", file="b.yaml")]
    )
    none = _cell(
        engine, model, [make_case("greet", "FAIL", file="a.yaml"), make_case("wave", "PASS", file="b.yaml")]
    )
    skill.arm = ArmSource(name="skill", label="skill", kind="skill")
    none.arm = ArmSource(name="no-skill", label="no skill", kind="no-skill")
    skill.arms = ReportArms(reference=skill.arm, comparisons=[comparison(skill, none, none.arm, "x.json")])
    return [skill, none]


def test_matrix_of_engines_and_arms_has_a_column_per_cell_and_arm_and_each_engines_uplift() -> None:
    m = matrix([*_arm_cells("claude-code", "sonnet"), *_arm_cells("codex", "gpt-5")])
    assert m.columns == [
        "claude-code · sonnet · skill",
        "claude-code · sonnet · no skill",
        "codex · gpt-5 · skill",
        "codex · gpt-5 · no skill",
    ]
    assert list(m.uplift) == ["Δ vs no skill · claude-code · sonnet", "Δ vs no skill · codex · gpt-5"]
    # by hand: greet 1/1 against 0/1 is +100 points; Newcombe's lower bound 1 − √(0.7935² + 0.7935²) = −0.12
    # (the Wilson intervals of 1/1 and 0/1 are [0.2065, 1] and [0, 0.7935]); wave 1/1 against 1/1 is 0
    for column in m.uplift.values():
        assert column[0] == "▲ +100 pts [\u221212, +100]" and column[1].startswith("= 0 pts [")
    # the units pooled with the paired interval, per engine: 2/2 against 1/2
    assert [line.split(" (all units)")[0] for line in m.pooled] == [
        "claude-code · sonnet: skill vs no skill",
        "codex · gpt-5: skill vs no skill",
    ]
    assert all(
        "▲ +50 pts vs no skill [" in p and p.endswith("Newcombe paired over 2 units") for p in m.pooled
    )
    table = m.table().splitlines()
    assert table[0].split("  ")[-1].strip() == "Δ vs no skill · codex · gpt-5" and table[-1] == m.pooled[-1]
    data = m.as_json()
    assert data["pooled"] == m.pooled and data["rows"][0]["uplift"][
        "Δ vs no skill · codex · gpt-5"
    ].startswith("▲")
    # one engine's arms alone (evalens eval --arms): the uplift's heading needs no cell
    one = matrix(_arm_cells("codex", "gpt-5"))
    assert list(one.uplift) == ["Δ vs no skill"] and one.pooled[0].startswith("skill vs no skill (all units)")
    assert one.only([1]).uplift == {"Δ vs no skill": [one.uplift["Δ vs no skill"][1]]}


def test_page_and_show_of_an_arms_matrix_cell_report(tmp_path: Path, capsys, monkeypatch) -> None:
    """The HTML page and ``evalens show`` of any cell report of an engines × arms run have the whole matrix:
    one column per engine · model · arm, each engine's uplift column and its pooled line."""
    from evalens.cli.main import main
    from evalens.runner.matrix import cell_report_name
    from evalens.runner.report_html import render_html
    from evalens.runner.run_view import load_view
    from tests.runner.test_compare_pages import _parse

    folder = tmp_path / "evals" / "reports"
    reports = [*_arm_cells("claude-code", "sonnet"), *_arm_cells("codex", "gpt-5")]
    paths = [write(r, folder / cell_report_name("2026-02-22T14-30-00Z", i)) for i, r in enumerate(reports, 1)]
    grid = matrix(reports)
    page = _parse(render_html(load_view(paths[2])))
    head, greet, wave = page.tables["matrix-table"]
    assert head == [
        "unit",
        *grid.columns[:2],
        grid.columns[2] + " (this report)",
        grid.columns[3],
        *grid.uplift,
    ]
    assert (
        greet[-2:] == ["▲ +100 pts [\u221212, +100]"] * 2
        and greet[2].startswith("FAIL")
        and greet[4].startswith("FAIL")
    )
    assert page.lists["pooled"][-2:] == grid.pooled
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["show", str(paths[0])]) == 0
    out = capsys.readouterr().out
    assert "codex · gpt-5 · no skill" in out and grid.pooled[1] in out


def test_matrix_run_with_arms_refuses_shard(tmp_path: Path, capsys) -> None:
    """``--shard`` of an engines × arms run is refused before anything runs: each cell's arms are compared in
    one report, which a shard holding part of a unit's arms cannot make."""
    from evalens.cli.main import main

    argv = ["eval", "--package", str(tmp_path), "--engine", "claude-code,codex", "--arms", "skill,no-skill"]
    assert main([*argv, "--shard", "1/2"]) == 2
    err = capsys.readouterr().err
    assert "--shard cannot split a matrix run with --arms" in err and "shard the matrix without --arms" in err
