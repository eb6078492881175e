"""`evalens run FILE` (the formats other than UAAPS cases) with the CI flags: 3 shards of a skilljack suite,
merged, give the unsharded run's verdicts; JUnit and annotations point into tasks.yaml. Scripted `claude`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from evalens.runner.report import load_report
from tests.ci_helpers import validate_junit
from tests.in_process import evalens as evalens_cli
from tests.runner.ci_fixtures import scripted_agent_fixture  # noqa: F401 - fixture

SKILL_MD = "---\nname: greeting\ndescription: Greets people by name.\n---\nGreet.\n"


def _suite(root: Path, n: int = 12) -> Path:
    (root / "skills" / "greeting").mkdir(parents=True)
    (root / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    tasks = "skill: greeting\ntasks:\n" + "".join(
        f'  - id: t{i}\n    prompt: "What is an email?{" ERRME" if i in (4, 10) else ""}"\n'
        "    expected_skill_load: none\n    deterministic: { expect_skill_activation: false }\n"
        for i in range(n)
    )
    (root / "tasks.yaml").write_text(tasks)
    return root / "tasks.yaml"


def _run(tasks: Path, *args: str) -> subprocess.CompletedProcess:
    return evalens_cli(
        [
            "run",
            str(tasks),
            "--no-judge",
            "--runs",
            "1",
            "--output-dir",
            str(tasks.parent / "results"),
            *args,
        ],
        env=dict(os.environ),
        cwd=tasks.parent,
    )


def test_run_file_shards_merge_to_the_unsharded_verdicts(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    tasks = _suite(tmp_path / "suite")
    whole = tmp_path / "whole.json"
    full = _run(tasks, "--report", str(whole), "--junit", str(tmp_path / "whole.xml"), "--annotations", "on")
    assert full.returncode == 1, full.stderr
    errors = [line for line in full.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 2 and all("title=evalens ERROR%3A t" in e for e in errors)
    lines = tasks.read_text().splitlines()
    for error in errors:  # each annotation sits on its task's `- id:` line
        name = error.split("ERROR%3A ")[1].split("::")[0]
        line = int(error.split(",line=")[1].split(",")[0])
        assert lines[line - 1].strip() == f"- id: {name}", error
    paths = []
    for k in (1, 2, 3):
        path = tmp_path / f"s{k}.json"
        out = _run(tasks, "--report", str(path), "--shard", f"{k}/3", "--durations", str(whole))
        assert out.returncode in (0, 1) and "balanced by durations" in out.stderr, out.stderr
        paths.append(path)
    merged = tmp_path / "all.json"
    done = evalens_cli(
        ["report", "merge", *map(str, paths), "-o", str(merged), "--junit", str(tmp_path / "all.xml")]
    )
    assert done.returncode == 0, done.stderr
    before, after = load_report(whole), load_report(merged)
    assert [(c.name, c.verdict) for c in after.cases] == [(c.name, c.verdict) for c in before.cases]
    assert [c.name for c in after.cases][:3] == ["t0", "t1", "t2"] and after.cases[
        -1
    ].name == "t11"  # file order
    assert after.summary == before.summary and after.summary.errored == 2
    # Longest first by the whole run's durations (which vary with load, so the counts may be 3/4/5): every shard
    # gets work, and no shard's expected time exceeds the greedy bound (an even share plus the longest task).
    took = {c.name: c.duration_seconds or 0.0 for c in before.cases}
    loads = [sum(took[c.name] for c in load_report(p).cases) for p in paths]
    assert (
        sum(len(load_report(p).cases) for p in paths) == 12
        and min(len(load_report(p).cases) for p in paths) >= 1
    )
    assert max(loads) <= sum(took.values()) / 3 + max(took.values()) + 1e-9, (loads, took)
    assert (tmp_path / "all.xml").read_text().count("<testcase ") == 12
    for xml in ("whole.xml", "all.xml"):  # the strict consumers' schemas (Jenkins xunit, Ant)
        validate_junit((tmp_path / xml).read_text())
    assert list(sandbox_dir.iterdir()) == []


def test_action_runs_an_eval_file(tmp_path: Path, scripted_agent: Path, sandbox_dir: Path) -> None:
    from tests.conftest import REPO
    from tests.runner.actions_emulator import Emulator, base_env

    workspace = tmp_path / "repo"
    _suite(workspace / "suite", n=5)
    run = Emulator(
        REPO, workspace, {"eval-file": "suite/tasks.yaml", "no-judge": "true", "cases": "t0 t4"}, base_env()
    ).run(tmp_path / "steps")
    assert run.steps["validate"].returncode == 0, run.steps["validate"].stdout
    assert run.steps["run"].returncode == 1, run.steps["run"].stderr
    assert (run.outputs["total"], run.outputs["passed"], run.outputs["errored"]) == ("2", "1", "1")
    (annotation,) = [x for x in run.steps["run"].stdout.splitlines() if x.startswith("::error")]
    assert annotation.startswith("::error file=suite/tasks.yaml,line=")
    assert load_report(workspace / run.outputs["report-path"]).cases[0].format == "skilljack-tasks"


def test_run_file_requires_the_sandbox_in_ci(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path, monkeypatch
) -> None:
    """CI=true and a sandbox bubblewrap cannot enforce: `evalens run` refuses before any agent starts, unless
    the run opts in with --sandbox preferred (and then the report says it was not sandboxed)."""
    tasks = _suite(tmp_path / "suite", n=2)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("EVALENS_NO_BWRAP", "1")
    monkeypatch.delenv("EVALENS_SANDBOX", raising=False)
    refused = _run(tasks, "--report", str(tmp_path / "r.json"))
    assert refused.returncode == 2 and "the sandbox is required" in refused.stderr, refused.stderr
    assert not (tmp_path / "r.json").exists()
    opted = _run(tasks, "--report", str(tmp_path / "r.json"), "--sandbox", "preferred", "--github-output")
    assert opted.returncode == 0, opted.stderr
    assert load_report(tmp_path / "r.json").sandbox.enforced is False
