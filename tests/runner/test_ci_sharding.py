"""Sharding on real runs: 3 shards of a 12-case package, merged, give the unsharded run's verdicts; the
split balances by the previous report's durations. The fast tier uses a scripted `claude`; one agents-tier
test does the same with the real `codex` against the fake model server (agent and judge)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from evalens.runner.report import load_report
from tests.in_process import evalens as evalens_cli
from tests.runner.ci_fixtures import scripted_agent_fixture, twelve_case_package, twelve_cases  # noqa: F401 - fixture
from tests.runner.runner_helpers import agents_available, case


def _eval(pkg: Path, out: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return evalens_cli(["eval", "--package", str(pkg), "-o", str(out), *args], env=dict(os.environ))


def _merge(*paths: Path, out: Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return evalens_cli(["report", "merge", *map(str, paths), "-o", str(out), *extra], env=dict(os.environ))


def _verdicts(path: Path) -> dict[str, str]:
    return {c.name: c.verdict for c in load_report(path).cases}


def _sharded_equals_unsharded(tmp_path: Path, pkg: Path, run_args: tuple[str, ...]) -> dict:
    whole = tmp_path / "whole.json"
    full = _eval(pkg, whole, *run_args)
    assert full.returncode == 1, full.stderr  # some cases fail by design
    shard_paths = []
    for k in (1, 2, 3):
        path = tmp_path / f"shard-{k}" / "report.json"
        out = _eval(
            pkg,
            path,
            *run_args,
            "--shard",
            f"{k}/3",
            "--durations",
            str(whole),
            "--junit",
            str(tmp_path / f"shard-{k}" / "junit.xml"),
        )
        assert out.returncode in (0, 1), out.stderr
        assert f"shard {k}/3" in out.stderr and "balanced by durations" in out.stderr
        shard_paths.append(path)
    merged = tmp_path / "merged.json"
    done = _merge(*shard_paths, out=merged)
    assert done.returncode == 0, done.stderr
    assert _verdicts(merged) == _verdicts(whole)
    assert [c.name for c in load_report(merged).cases] == [c.name for c in load_report(whole).cases]
    report = load_report(merged)
    assert report.summary == load_report(whole).summary
    marks = [load_report(p).shard for p in shard_paths]
    assert [m.index for m in marks] == [1, 2, 3] and len({m.split for m in marks}) == 1
    assert all(m.balanced_by == "durations" and m.units == 12 for m in marks)
    assert (
        sorted(len(load_report(p).cases) for p in shard_paths)
        and sum(len(load_report(p).cases) for p in shard_paths) == 12
    )
    assert [s.path for s in report.shards] == [str(p) for p in shard_paths]
    return {"whole": whole, "shards": shard_paths, "merged": merged}


def test_three_shards_merged_equal_the_unsharded_run(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    pkg = twelve_case_package(tmp_path / "pkg")
    paths = _sharded_equals_unsharded(tmp_path, pkg, ("--no-judge", "--jobs", "4"))
    verdicts = _verdicts(paths["merged"])
    assert sorted(verdicts.values()).count("FAIL") == 3 and list(verdicts.values()).count("ERROR") == 1
    # every shard's JUnit holds exactly its own cases
    names = [set(_verdicts(p)) for p in paths["shards"]]
    for k, path in enumerate(paths["shards"], start=1):
        junit = (path.parent / "junit.xml").read_text()
        assert junit.count("<testcase ") == len(names[k - 1])
    # `evalens show` reads the merged report, transcripts included (artifact paths rewritten by the merge)
    page = tmp_path / "merged.html"
    shown = evalens_cli(["show", str(paths["merged"]), "--html", "-o", str(page)])
    assert shown.returncode == 0, shown.stderr
    html = page.read_text()
    assert all(name in html for name in verdicts)
    one = evalens_cli(["show", str(paths["merged"]), "case-09"])
    assert one.returncode == 0 and "scripted crash" in one.stdout, one.stdout + one.stderr
    assert list(sandbox_dir.iterdir()) == []


def test_split_uses_prior_durations_and_empty_shards_still_merge(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    from evalens.core.models.uaaps import EvalReport

    cases = {f"c{i}": case("pass", contains=["GREETING-OK"]) for i in range(4)}
    pkg = twelve_case_package(tmp_path / "pkg", cases=cases)
    # a previous report in evals/reports/ says c0 takes as long as the three others together
    prior = {
        "version": 1,
        "id": "prior",
        "timestamp": "2026-01-01T00:00:00Z",
        "config": {"engine": "claude-code"},
        "summary": {"total": 4, "passed": 4, "failed": 0, "pass_rate": 1.0},
        "cases": [
            {"name": f"c{i}", "verdict": "PASS", "duration_seconds": 90.0 if i == 0 else 30.0}
            for i in range(4)
        ],
    }
    EvalReport.model_validate(prior)
    (pkg / "evals" / "reports").mkdir()
    (pkg / "evals" / "reports" / "prior.json").write_text(json.dumps(prior))
    split = evalens_cli(["report", "split", "--package", str(pkg), "--shards", "2", "--json"])
    assert split.returncode == 0, split.stderr
    plan = json.loads(split.stdout)
    assert plan["balanced_by"] == "durations" and plan["shards"] == [["c0"], ["c1", "c2", "c3"]]
    assert plan["loads"] == [90.0, 90.0]
    # without a previous report the split is by count
    by_count = evalens_cli(
        ["report", "split", "--package", str(pkg), "--shards", "2", "--json", "--durations", str(tmp_path)]
    )
    assert json.loads(by_count.stdout)["shards"] == [["c0", "c2"], ["c1", "c3"]]
    # 6 shards of 4 cases: two are empty, still write a report, and all six merge into the whole suite
    missing = _eval(pkg, tmp_path / "x.json", "--shard", "1/6", "--durations", str(tmp_path / "nothing-here"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    outs = []
    for k in range(1, 7):
        out = tmp_path / f"s{k}.json"
        done = _eval(pkg, out, "--no-judge", "--shard", f"{k}/6")
        assert done.returncode == 0, done.stderr
        outs.append(out)
    assert [len(load_report(p).cases) for p in outs] == [1, 1, 1, 1, 0, 0]
    merged = _merge(*outs, out=tmp_path / "all.json")
    assert merged.returncode == 0, merged.stderr
    assert _verdicts(tmp_path / "all.json") == dict.fromkeys(cases, "PASS")
    refused = _merge(*outs[:5], out=tmp_path / "part.json")
    assert refused.returncode == 2 and "6/6 missing" in refused.stderr


@pytest.mark.agents
def test_codex_three_shards_merged_equal_the_unsharded_run(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available("codex"):
        pytest.skip("codex CLI not installed")
    cases = {}
    for i, name in enumerate(twelve_cases()):
        scenario = "fail-contains" if i in (2, 6) else "err500" if i == 9 else "pass"
        cases[name] = case(scenario, judge="fail" if i == 10 else "pass", contains=["GREETING-OK"])
    pkg = twelve_case_package(tmp_path / "pkg", engine="codex", cases=cases)
    paths = _sharded_equals_unsharded(
        tmp_path, pkg, ("--model", "gpt-fake", "--judge", "openai:gpt-fake", "--jobs", "4")
    )
    verdicts = _verdicts(paths["merged"])
    assert verdicts["case-02"] == verdicts["case-06"] == verdicts["case-10"] == "FAIL"
    assert verdicts["case-09"] == "ERROR" and list(verdicts.values()).count("PASS") == 8
    assert list(sandbox_dir.iterdir()) == []
