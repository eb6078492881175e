"""``evalens eval --runs auto[:MAX]`` and ``--judge-repeats K`` (issue #25) with a scripted stand-in for `claude`:
a steady case stops once its Wilson interval clears the threshold, the report says why each case stopped, runs
never started are not SKIP runs; repeated judgements give a flip rate per case and the batch's agreement."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.ci_helpers import validate_junit
from tests.in_process import evalens as evalens_cli
from tests.runner.runner_helpers import case, make_package


def _eval(pkg: Path, *args: str) -> subprocess.CompletedProcess:
    return evalens_cli(["eval", "--package", str(pkg), "--no-judge", "--json", *args], env=dict(os.environ))


def test_runs_auto_stops_each_case_when_decided(
    tmp_path: Path,
    scripted_claude: Path,
    sandbox_dir: Path,
) -> None:
    pkg = make_package(
        tmp_path / "pkg",
        cases={
            "good": case("pass", contains=["GREETING-OK"]),
            "bad": {**case("pass", contains=["GREETING-OK"]), "input": {"prompt": "FAILME"}},
        },
    )
    out = _eval(pkg, "--runs", "auto:6", "--jobs", "2")
    assert out.returncode == 1, out.stderr[-2000:]
    cases = {c["name"]: c for c in json.loads(out.stdout)["cases"]}
    # 4/4 passes: Wilson 0.51..1, wholly above 0.5; 0/4: 0..0.49, wholly below
    good, bad = cases["good"], cases["bad"]
    assert good["run_verdicts"] == ["PASS"] * 4 and good["details"]["stopped"] == "decided-pass"
    assert good["verdict"] == "PASS" and good["pass_hat_k"] == 1.0 and good["runs"] == 4
    assert bad["run_verdicts"] == ["FAIL"] * 4 and bad["details"]["stopped"] == "decided-fail"
    assert "decided-pass" in out.stderr and "decided-fail" in out.stderr  # the summary table says why
    # MAX below what a decision needs: every case runs MAX times and says so
    out = _eval(pkg, "good", "--runs", "auto:3")
    assert out.returncode == 0, out.stderr[-2000:]
    (only,) = json.loads(out.stdout)["cases"]
    assert only["run_verdicts"] == ["PASS"] * 3 and only["details"]["stopped"] == "max-reached"
    # a fixed count records no stop reason; a bad spec is a usage error
    out = _eval(pkg, "good", "--runs", "2")
    assert out.returncode == 0 and "stopped" not in json.loads(out.stdout)["cases"][0].get("details", {})
    assert _eval(pkg, "--runs", "auto:0").returncode == 2
    assert _eval(pkg, "--runs", "auto", "--runs-threshold", "2").returncode == 2


def test_judge_repeats_in_the_report(
    tmp_path: Path,
    scripted_claude: Path,
    fake_model,
    monkeypatch,
    sandbox_dir: Path,
) -> None:
    """``--judge-repeats 3`` with the fake judge: a judge that flips makes the case FAIL with its flip rate; the
    report carries the batch's agreement (by hand: [P,F,P] and [P,P,P] → α = 0)."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.anthropic_base_url)
    pkg = make_package(
        tmp_path / "pkg",
        cases={
            "steady": case("pass", judge="pass", contains=["GREETING-OK"]),
            "flipping": case("pass", judge="alternate", contains=["GREETING-OK"]),
        },
    )
    out = evalens_cli(
        ["eval", "--package", str(pkg), "--judge", "claude-judge", "--json", "--judge-repeats", "3"]
    )
    assert out.returncode == 1, out.stderr[-2000:]
    report = json.loads(out.stdout)
    cases = {c["name"]: c for c in report["cases"]}
    assert cases["steady"]["verdict"] == "PASS" and cases["steady"]["judge_flip_rate"] == 0.0
    assert cases["steady"]["judge_verdicts"] == ["PASS"] * 3
    flipping = cases["flipping"]
    assert flipping["verdict"] == "FAIL" and flipping["judge_verdicts"] == ["PASS", "FAIL", "PASS"]
    assert flipping["judge_flip_rate"] == 0.6667 and "disagreed" in flipping["judge_verdict"]["reason"]
    assert report["judge"]["repeats"] == 3 and report["judge"]["agreement"] == 0.0


def test_matrix_run_prints_units_by_cells(
    tmp_path: Path,
    scripted_claude: Path,
    sandbox_dir: Path,
) -> None:
    """``--model a,b``: one batch (and report) per cell, then the matrix; the exit code is the worst cell's."""
    pkg = make_package(
        tmp_path / "pkg",
        cases={
            "good": case("pass", contains=["GREETING-OK"]),
            "bad": {**case("pass", contains=["GREETING-OK"]), "input": {"prompt": "FAILME"}},
        },
    )
    junit = tmp_path / "junit.xml"
    out = _eval(pkg, "--model", "model-a,model-b", "--runs", "2", "--junit", str(junit))
    assert out.returncode == 1, out.stderr[-2000:]
    # one JUnit document for the whole matrix (a cell's own file once overwrote the one before), valid for
    # the strict consumers: one testsuite per cell, the cell in each case's classname
    doc = validate_junit(junit.read_text())
    suites = doc.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "test-pkg [default engine · model-a]",
        "test-pkg [default engine · model-b]",
    ]
    for suite in suites:
        cases = {c.get("name"): c for c in suite.findall("testcase")}
        assert set(cases) == {"good", "bad"} and {c.get("classname") for c in cases.values()} == {
            suite.get("name")
        }
        assert cases["bad"].find("failure") is not None and cases["good"].find("failure") is None
    data = json.loads(out.stdout)
    # the scripted CLI reports one model whatever it is asked for: the two cells stay apart by number
    assert data["columns"] == ["claude-code · scripted-model #1", "claude-code · scripted-model #2"]
    rows = {r["unit"]: r["cells"] for r in data["rows"]}
    assert [c["state"] for c in rows["good"]] == ["PASS", "PASS"]
    assert [(c["passed"], c["counted"]) for c in rows["bad"]] == [(0, 2), (0, 2)]
    assert "cell default engine · model-a" in out.stderr and "cell default engine · model-b" in out.stderr
    assert len(list((pkg / "evals" / "reports").glob("*-cell-*.json"))) == 2
    assert _eval(pkg, "--model", "codex=gpt-5").returncode == 2  # bound to an engine not asked for
    assert _eval(pkg, "--model", "a,b", "--dry-run").returncode == 2


def test_sharded_matrix_run_splits_cells_by_unit(
    tmp_path: Path,
    scripted_claude: Path,
    sandbox_dir: Path,
) -> None:
    """``--model a,b --shard K/2``: the 2 cells × 2 units split by pair, one report per cell in each shard (an
    empty one where the shard has no unit of the cell); each cell's shards merge, two cells' never do."""
    pkg = make_package(
        tmp_path / "pkg",
        cases={
            "good": case("pass", contains=["GREETING-OK"]),
            "other": case("pass", contains=["GREETING-OK"]),
        },
    )
    reports = pkg / "evals" / "reports"
    held: dict[tuple[int, str], list[str]] = {}
    for k in (1, 2):
        out = _eval(pkg, "--model", "model-a,model-b", "--shard", f"{k}/2")
        assert out.returncode == 0, out.stderr[-2000:]
        assert f"shard {k}/2: 2 of 4 cell × unit pair(s), balanced by count" in out.stderr
        for path in sorted(reports.glob(f"*-shard-{k}-of-2-cell-*.json")):
            data = json.loads(path.read_text())
            held[(k, data["shard"]["cell"])] = [c["name"] for c in data["cases"]]
    cells = ["default engine · model-a", "default engine · model-b"]
    assert sorted({cell for _k, cell in held}) == cells and len(held) == 4
    for cell in cells:  # each unit once per cell, over the two shards
        assert sorted(held[(1, cell)] + held[(2, cell)]) == ["good", "other"]
    parts = sorted(reports.glob("*-shard-*-of-2-cell-1.json"))
    merged = evalens_cli(["report", "merge", *map(str, parts), "-o", str(tmp_path / "m.json")])
    assert merged.returncode == 0, merged.stderr
    assert sorted(c["name"] for c in json.loads((tmp_path / "m.json").read_text())["cases"]) == [
        "good",
        "other",
    ]
    mixed = [
        sorted(reports.glob("*-shard-1-of-2-cell-1.json"))[0],
        sorted(reports.glob("*-shard-2-of-2-cell-2.json"))[0],
    ]
    refused = evalens_cli(["report", "merge", *map(str, mixed), "-o", str(tmp_path / "x.json")])
    assert refused.returncode == 2 and "different cells of a matrix run" in refused.stderr, refused.stderr
