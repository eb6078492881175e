"""`evalens run` keeps a run log and resumes a killed batch (issue 23 item 4), on the real CLIs against the fake model.

A skill-creator `evals.json` with three evals runs twice each. While the second eval's second run is in its agent,
the whole process group is SIGKILLed (no report). The log holds the first eval's two runs and the second's first
run. The first eval is renamed in place (its id); `evalens run --resume REPORT_DIR` keeps those three runs (not run
again), runs the other three, and writes one report equal to a report of the whole file run afresh. Then a third
eval renamed in place keeps its last run: `evalens run --stale --dry-run` does not pick it, while an eval whose
text changed is picked, and the language server's restored state (``run_formats.restore``) holds it under its new
name; before the resume, that state is read from the killed batch's log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import jsonschema
import pytest

from tests.runner.runner_helpers import agents_available, kill_surviving, surviving

pytestmark = pytest.mark.agents

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((ROOT / "schemas" / "uaaps-eval-report.schema.json").read_text())
LOG_SCHEMA = json.loads((ROOT / "schemas" / "evalens-run-log.schema.json").read_text())
MODEL = {"claude-code": [], "codex": ["--model", "gpt-5-codex"]}
SKILL_MD = "---\nname: greeting\ndescription: Writes greetings.\n---\nWrite a greeting.\n"
SAME = (
    "name",
    "verdict",
    "state",
    "reason",
    "checks",
    "run_verdicts",
    "pass_rate",
    "fingerprint",
    "judge_verdict",
)


def _evals(marker: str) -> dict:
    def one(id_: int, scenario: str) -> dict:
        return {
            "id": id_,
            "prompt": f"Greet SCENARIO={scenario} MARKER={marker} JUDGE=pass",
            "expected_output": "a greeting",
            "assertions": ["greets"],
        }

    return {"skill_name": "greeting", "evals": [one(1, "pass"), one(2, "slow-second"), one(3, "pass")]}


def _run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalens", "run", *args], capture_output=True, text=True, timeout=timeout
    )


def _cases(report: dict) -> list[dict]:
    """A report's units, what a run decides of them (no clocks, ids or paths)."""
    out = []
    for case in report["cases"]:
        kept = {k: case.get(k) for k in SAME}
        kept["judge_verdict"] = {k: v for k, v in (case.get("judge_verdict") or {}).items() if k != "model"}
        out.append(kept)
    return out


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_killed_file_batch_resumes_only_the_runs_that_did_not_finish(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    from evalens.runner.run_log import read_log

    marker = uuid.uuid4().hex[:12]
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    evals = skill / "evals" / "evals.json"
    evals.write_text(json.dumps(_evals(marker), indent=2))
    flags = ["--engine", engine, "--runs", "2", *MODEL[engine]]
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalens", "run", str(evals), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while not surviving(f"evalens-slow-{marker}"):  # eval 2's second run is in its agent
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "eval 2's second run never started"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        kill_surviving(f"evalens-slow-{marker}")  # an agent outside the killed group (own session)

    reports = skill / "evals" / "reports"
    assert list(reports.glob("*.json")) == [], "a SIGKILLed batch wrote no report"
    [folder] = [p for p in reports.iterdir() if p.is_dir()]
    log = read_log(folder / "run-log.jsonl")
    finished = sorted((k[1], k[2], e.verdict) for k, e in log.finished.items())
    assert finished == [
        ("evals/evals.json::1", 1, "PASS"),
        ("evals/evals.json::1", 2, "PASS"),
        ("evals/evals.json::2", 1, "PASS"),
    ], finished
    assert ("evals/evals.json::2", 2) in {(k[1], k[2]) for k in log.started} and log.end is None
    assert all(e.data and e.data["agent"]["output"] for e in log.finished.values()), (
        "a run keeps what it combines from"
    )

    # the language server's restored state reads the log of the killed batch (its finished runs)
    from evalens.server.features import run_formats

    data = json.loads(evals.read_text())
    restored = run_formats.restore("skill-creator-evals", evals, data)
    assert restored["1"][0].verdict == "PASS" and restored["1"][1] == str(folder / "run-log.jsonl")
    assert restored["1"][0].run_verdicts == ["PASS", "PASS"] and "3" not in restored

    data["evals"][0]["id"] = 11  # renamed in place: the same eval
    evals.write_text(json.dumps(data, indent=2))
    resumed = _run("--resume", str(folder))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    [report_path] = list(reports.glob("*.json"))
    assert report_path.with_suffix("") == folder
    report = json.loads(report_path.read_text())
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report.get("interrupted") is not True
    assert [(c["name"], c["verdict"], c["run_verdicts"]) for c in report["cases"]] == [
        ("11", "PASS", ["PASS", "PASS"]),
        ("2", "PASS", ["PASS", "PASS"]),
        ("3", "PASS", ["PASS", "PASS"]),
    ]
    kept_record = folder / report["cases"][0]["artifacts"].split("/", 1)[-1] / "run-1" / "record.json"
    assert kept_record.is_file(), "a kept run's record is in the report"

    log = read_log(folder / "run-log.jsonl")
    for line in (folder / "run-log.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), LOG_SCHEMA)
    names = [type(e).__name__ for e in log.events]
    after = log.events[names.index("BatchResume") :]
    assert after[0].kept == 3 and after[0].rerun == 3
    assert after[0].renamed == {"evals/evals.json::11": "evals/evals.json::1"}
    rerun = [(e.unit.name, e.run) for e in after if type(e).__name__ == "RunStart"]
    assert rerun == [("2", 2), ("3", 1), ("3", 2)], rerun
    assert log.end is not None and log.end.verdicts == {
        "evals/evals.json::11": "PASS",
        "evals/evals.json::2": "PASS",
        "evals/evals.json::3": "PASS",
    }

    # the same file run whole, afresh: the same report but for clocks, ids and paths
    whole = _run(str(evals), *flags, "--report", str(tmp_path / "whole.json"))
    assert whole.returncode == 0, whole.stderr[-3000:]
    assert _cases(json.loads((tmp_path / "whole.json").read_text())) == _cases(report)

    # a renamed eval keeps its run state for --stale; an eval whose text changed is stale
    data["evals"][2]["id"] = 33
    data["evals"][1]["expected_output"] = "a warm greeting"
    evals.write_text(json.dumps(data, indent=2))
    restored = run_formats.restore("skill-creator-evals", evals, data)  # the server keeps it too
    assert restored["33"][0].verdict == "PASS" and "3" not in restored
    assert restored["33"][1] == str(report_path)
    stale = _run(str(evals), *flags, "--stale", "--dry-run", timeout=120)
    assert stale.returncode == 0, stale.stderr
    assert "evalens run: 2: stale: " in stale.stderr, stale.stderr
    assert "33" not in stale.stderr and "33" not in stale.stdout.split(), (stale.stdout, stale.stderr)
    assert stale.stdout.split("\n")[0].startswith("2\t"), stale.stdout


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_renamed_skilljack_task_keeps_its_run_state(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """A `tasks.yaml` task renamed in place keeps its last run for `evalens run --stale` (and the editor's
    restored state); a task whose prompt changed is stale; the batch's log holds one unit-run per task."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    from evalens.runner.run_log import read_log
    from evalens.server.features import run_formats

    suite = tmp_path / "suite"
    (suite / "skills" / "greeting").mkdir(parents=True)
    (suite / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    tasks = suite / "tasks.yaml"
    body = (
        "skill: greeting\ntasks:\n"
        '  - id: {a}\n    prompt: "What is an email? SCENARIO=done"\n    expected_skill_load: none\n'
        "    deterministic: {{ expect_skill_activation: false }}\n"
        '  - id: b\n    prompt: "{b}"\n    expected_skill_load: none\n'
        "    deterministic: {{ expect_skill_activation: false }}\n"
    )
    tasks.write_text(body.format(a="a", b="What is a letter? SCENARIO=done"))
    flags = ["--engine", engine, "--runs", "1", "--no-judge", *MODEL[engine]]
    ran = _run(str(tasks), *flags, "--output-dir", str(tmp_path / "results"))
    assert ran.returncode == 0, ran.stderr[-3000:]
    [log_file] = list((suite / "evals" / "reports").glob("*/run-log.jsonl"))
    log = read_log(log_file)
    assert sorted((k[1], e.verdict) for k, e in log.finished.items()) == [
        ("tasks.yaml::a", "PASS"),
        ("tasks.yaml::b", "PASS"),
    ]
    assert all("score" in e.data["figures"] for e in log.finished.values())

    tasks.write_text(body.format(a="a-renamed", b="What is a postcard? SCENARIO=done"))
    stale = _run(str(tasks), *flags, "--stale", "--dry-run", timeout=120)
    assert stale.returncode == 0, stale.stderr
    assert "evalens run: b: stale: " in stale.stderr, stale.stderr
    assert "a-renamed" not in stale.stderr + stale.stdout, (stale.stdout, stale.stderr)
    restored = run_formats.restore("skilljack-tasks", tasks, None)
    assert restored["a-renamed"][0].verdict == "PASS" and "a" not in restored
