"""``--jobs N`` for an eval file (issue 41: the shared options mean the same for every format): up to N units
run at once, each on its own view of the session, and what the batch reports comes out as it would one unit
after another: the results and the format's own results file in the file's order, each unit's run records its
own and numbered from 1, the budget and ``--baseline`` kept. A scripted `claude` that takes a moment per run
shows the overlap in the batch's run log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.runner.api import FileRunRequest, run_file
from evalens.runner.session import AgentSession
from tests.in_process import evalens
from tests.runner.runner_helpers import install_scripted_claude

SLOW_CLAUDE = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (scripted)"; exit 0; fi
prompt="$2"
sleep 0.6
case "$prompt" in *ERRME*) echo "scripted crash" >&2; exit 3 ;; esac
text="DONE GREETING-OK"
echo '{"type":"system","subtype":"init","model":"scripted-model","session_id":"s-1"}'
echo "{\\"type\\":\\"result\\",\\"subtype\\":\\"success\\",\\"is_error\\":false,\\"result\\":\\"$text\\",\\"session_id\\":\\"s-1\\"}"
"""


def _suite(root: Path, n: int = 4) -> Path:
    (root / "skills" / "greeting").mkdir(parents=True)
    (root / "skills" / "greeting" / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets people by name.\n---\nGreet.\n"
    )
    tasks = "skill: greeting\ntasks:\n" + "".join(
        f'  - id: t{i}\n    prompt: "Say hello{" ERRME" if i == 1 else ""}"\n'
        "    expected_skill_load: none\n    deterministic: { expect_skill_activation: false }\n"
        for i in range(n)
    )
    (root / "tasks.yaml").write_text(tasks)
    return root / "tasks.yaml"


@pytest.fixture
def slow_claude(monkeypatch: pytest.MonkeyPatch, sandbox_dir: Path):
    agent = install_scripted_claude(monkeypatch, sandbox_dir, SLOW_CLAUDE, name="slow-claude")
    yield agent
    agent.unlink(missing_ok=True)


def _records(report_path: Path) -> dict[str, list[dict]]:
    """Each unit's run records as the report's artifacts hold them (``<report>/<unit>/run-N/record.json``)."""
    report = json.loads(report_path.read_text())
    out: dict[str, list[dict]] = {}
    for case in report["cases"]:
        folder = report_path.parent / case["artifacts"]
        out[case["name"]] = [json.loads(p.read_text()) for p in sorted(folder.glob("run-*/record.json"))]
    return out


def _most_in_flight(report_path: Path) -> int:
    """The most runs the batch's run log shows started and not yet finished at once (its events are appended
    as they happen: the runner's own account, not a timer in the test)."""
    log = report_path.with_suffix("") / "run-log.jsonl"
    flying, most = 0, 0
    for line in log.read_text().splitlines():
        event = json.loads(line)["event"]
        flying += {"run-start": 1, "run-finish": -1}.get(event, 0)
        most = max(most, flying)
    return most


@pytest.mark.parametrize("jobs", [1, 3])
async def test_units_run_at_once_and_report_as_one_after_another(
    tmp_path: Path, slow_claude: Path, sandbox_dir: Path, jobs: int
) -> None:
    tasks = _suite(tmp_path / "suite")
    outcome = await run_file(
        FileRunRequest(
            file=tasks,
            runs=2,
            jobs=jobs,
            no_judge=True,
            output_dir=tmp_path / "results",
            output=tmp_path / "report.json",
        )
    )
    assert [r.name for r in outcome.results] == ["t0", "t1", "t2", "t3"]  # the file's order
    assert [r.verdict for r in outcome.results] == ["PASS", "ERROR", "PASS", "PASS"]
    assert outcome.exit_code == 1
    records = _records(tmp_path / "report.json")
    assert {name: len(runs) for name, runs in records.items()} == {"t0": 2, "t1": 2, "t2": 2, "t3": 2}
    for name, runs in records.items():  # each unit's own runs, numbered from 1, never another unit's
        assert [r["run_index"] for r in runs] == [1, 2], name
        assert {r["unit"] for r in runs} == {name}
    assert _most_in_flight(tmp_path / "report.json") == jobs
    [results_file] = (tmp_path / "results").glob("*.json")  # skilljack's own results: the file's order too
    assert [t["task"]["id"] for t in json.loads(results_file.read_text())["tasks"]] == [
        "t0",
        "t1",
        "t2",
        "t3",
    ]


async def test_a_spent_budget_stops_new_units_at_once_too(
    tmp_path: Path, slow_claude: Path, sandbox_dir: Path
) -> None:
    """``--max-tokens 0`` refuses every unit before it starts, with the reason, whatever ``--jobs`` says."""
    tasks = _suite(tmp_path / "suite")
    outcome = await run_file(
        FileRunRequest(
            file=tasks, runs=1, jobs=4, no_judge=True, max_tokens=0, output_dir=tmp_path / "results"
        )
    )
    assert {r.verdict for r in outcome.results} == {"SKIP"}
    assert all("budget" in (r.reason or "") for r in outcome.results), [r.reason for r in outcome.results]


async def test_with_a_baseline_each_side_is_its_own(
    tmp_path: Path, slow_claude: Path, sandbox_dir: Path
) -> None:
    """``--baseline no-skill --jobs 3``: every unit's own runs and its baseline's, each side's records marked
    and kept apart; the uplift section names every unit."""
    tasks = _suite(tmp_path / "suite", n=3)
    outcome = await run_file(
        FileRunRequest(
            file=tasks,
            runs=1,
            jobs=3,
            no_judge=True,
            baseline="no-skill",
            allow_unisolated_baseline=True,
            output_dir=tmp_path / "results",
            output=tmp_path / "report.json",
        )
    )
    assert [r.name for r in outcome.results] == ["t0", "t1", "t2"]
    report = json.loads((tmp_path / "report.json").read_text())
    assert [c["name"] for c in report["baseline"]["cases"]] == ["t0", "t1", "t2"]
    own = _records(tmp_path / "report.json")
    assert all(rec.get("baseline") in (None, "") for runs in own.values() for rec in runs)
    [results_file] = (tmp_path / "results").glob("*.json")  # the results file holds the skill's own runs only
    assert [t["task"]["id"] for t in json.loads(results_file.read_text())["tasks"]] == ["t0", "t1", "t2"]


async def test_a_units_repeats_run_at_once_as_a_packages_case_runs_do(
    tmp_path: Path, slow_claude: Path, sandbox_dir: Path
) -> None:
    """One scheduler for every format (runner/scheduling.py): ``--jobs 3`` lets a file unit's three runs go at
    once, each on its own view of the session; its records still come back numbered 1, 2, 3."""
    tasks = _suite(tmp_path / "suite", n=1)
    outcome = await run_file(
        FileRunRequest(
            file=tasks,
            runs=3,
            jobs=3,
            no_judge=True,
            output_dir=tmp_path / "results",
            output=tmp_path / "r.json",
        )
    )
    assert [(r.name, r.verdict, r.runs) for r in outcome.results] == [("t0", "PASS", 3)]
    assert _most_in_flight(tmp_path / "r.json") == 3
    assert [r["run_index"] for r in _records(tmp_path / "r.json")["t0"]] == [1, 2, 3]


async def test_with_runs_auto_a_units_runs_go_one_after_another(
    tmp_path: Path, slow_claude: Path, sandbox_dir: Path
) -> None:
    """``--runs auto``: each run decides whether another starts, so one unit never has two in flight, whatever
    ``--jobs`` allows."""
    tasks = _suite(tmp_path / "suite", n=1)
    outcome = await run_file(
        FileRunRequest(
            file=tasks,
            runs=5,
            runs_auto=True,
            jobs=3,
            no_judge=True,
            output_dir=tmp_path / "results",
            output=tmp_path / "r.json",
        )
    )
    assert [(r.verdict, r.runs, r.details["stopped"]) for r in outcome.results] == [
        ("PASS", 4, "decided-pass")
    ]
    assert _most_in_flight(tmp_path / "r.json") == 1


def test_a_unit_view_shares_the_preflight_and_owns_its_runs() -> None:
    """:meth:`AgentSession.for_unit` without a preflight: the view's records are its own until merged."""
    session = AgentSession.__new__(AgentSession)
    session.records, session.unit, session.kept, session.install = [("a", 1)], "", [], None
    view = session.for_unit("b")
    view.records.append(("b", 2))
    view.kept.append("/kept-b")
    assert session.records == [("a", 1)] and session.unit == "" and session.kept == []
    session.take_records(view)
    assert session.records == [("a", 1), ("b", 2)] and session.kept == ["/kept-b"]


def test_the_verb_takes_jobs_for_an_eval_file(tmp_path: Path, slow_claude: Path, sandbox_dir: Path) -> None:
    tasks = _suite(tmp_path / "suite")
    out = evalens(
        ["run", tasks, "--no-judge", "--runs", "1", "--jobs", "4", "-o", tmp_path / "r.json", "--json"],
        cwd=tasks.parent,
    )
    assert out.returncode == 1, out.stderr  # t1 errs
    assert _most_in_flight(tmp_path / "r.json") == 4
    out = evalens(["run", tasks, "--jobs", "0", "--dry-run"], cwd=tasks.parent)
    assert out.returncode == 2 and "--jobs must be at least 1" in out.stderr


def test_runs_auto_stops_each_unit_when_decided(tmp_path: Path, slow_claude: Path, sandbox_dir: Path) -> None:
    """``--runs auto:MAX`` for an eval file, as for a package's case (tests/runner/test_adaptive_runs.py): a
    steady unit stops once its Wilson interval clears the threshold (4 passes), an erring one (ERROR is not
    counted) runs MAX times; the report and the summary say why each stopped, the runs never started are no
    runs at all."""
    tasks = _suite(tmp_path / "suite", n=2)
    out = evalens(
        ["run", tasks, "--no-judge", "--runs", "auto:5", "--jobs", "2", "-o", tmp_path / "r.json"],
        cwd=tasks.parent,
    )
    assert out.returncode == 1, out.stderr
    cases = {c["name"]: c for c in json.loads((tmp_path / "r.json").read_text())["cases"]}
    good, erring = cases["t0"], cases["t1"]
    # skilljack rules a task by its runs' mean scores (no per-run verdicts in the report): each run's own
    # verdict still decides when to stop
    assert (good["verdict"], good["runs"], good["details"]["stopped"]) == ("PASS", 4, "decided-pass")
    assert (erring["verdict"], erring["runs"], erring["details"]["stopped"]) == ("ERROR", 5, "max-reached")
    assert {n: len(r) for n, r in _records(tmp_path / "r.json").items()} == {"t0": 4, "t1": 5}
    assert "(decided-pass)" in out.stdout and "(max-reached)" in out.stdout, out.stdout
    out = evalens(["run", tasks, "--runs", "auto:0", "--dry-run"], cwd=tasks.parent)
    assert out.returncode == 2 and "auto[:MAX]" in out.stderr
    out = evalens(["run", tasks, "--runs", "auto", "--runs-threshold", "2", "--dry-run"], cwd=tasks.parent)
    assert out.returncode == 2 and "--runs-threshold must be between 0 and 1" in out.stderr


async def test_each_unit_names_its_own_kept_sandbox(
    tmp_path: Path, slow_claude: Path, sandbox_dir: Path
) -> None:
    """``--keep-sandbox --jobs 3``: a unit's result names the sandbox its own run kept, never one another unit in
    flight kept last."""
    import shutil

    tasks = _suite(tmp_path / "suite")
    outcome = await run_file(
        FileRunRequest(
            file=tasks, runs=1, jobs=3, no_judge=True, keep_sandbox=True, output_dir=tmp_path / "results"
        )
    )
    kept = [r.sandbox_path for r in outcome.results]
    try:
        assert all(kept) and len(set(kept)) == 4, kept  # four units, four sandboxes, each named once
    finally:
        for folder in kept:
            shutil.rmtree(folder, ignore_errors=True)
