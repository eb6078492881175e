"""A batch killed mid-run and resumed (issue 21 item 8, issue 23 item 4), on the real CLIs against the fake model.

`evalens eval` runs three cases; while the second one's agent runs, the whole process group is SIGKILLed (no
handler runs, no report is written). The run log then holds the first case's finished run and the second's start
only. The first case is renamed in place; `evalens eval --resume REPORT_DIR` keeps the finished run (under the new
name, not run again), runs the second and third, and writes one complete report that agrees with the log. Once a
case's text changes, resuming is refused with exit 2 naming it.
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

from tests.runner.runner_helpers import agents_available, case, kill_surviving, make_package, surviving

pytestmark = pytest.mark.agents

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((ROOT / "schemas" / "uaaps-eval-report.schema.json").read_text())
LOG_SCHEMA = json.loads((ROOT / "schemas" / "evalens-run-log.schema.json").read_text())
MODEL = {"claude-code": [], "codex": ["--model", "gpt-5-codex"]}


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_killed_batch_resumes_only_what_did_not_finish(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    from evalens.runner.run_log import read_log, unit_results

    marker = uuid.uuid4().hex[:12]
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        timeout=120,
        cases={
            "a": case("pass", contains=["GREETING-OK"]),
            "b": case("slow-once", extra=f"MARKER={marker}", contains=["GREETING-OK"]),
            "c": case("pass", contains=["GREETING-OK"]),
        },
    )
    argv = [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge", *MODEL[engine]]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while not surviving(f"evalens-slow-{marker}"):  # b's agent is running: a finished, c not started
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "b's agent never started"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        kill_surviving(f"evalens-slow-{marker}")  # an agent outside the killed group (own session)

    reports = pkg / "evals" / "reports"
    assert list(reports.glob("*.json")) == [], "a SIGKILLed batch wrote no report"
    [folder] = [p for p in reports.iterdir() if p.is_dir()]
    log = read_log(folder / "run-log.jsonl")
    finished = {k[1]: e.verdict for k, e in log.finished.items()}
    assert finished == {"evals/cases/00-a.yaml::a": "PASS"}, finished
    assert ("evals/cases/01-b.yaml::b" in {k[1] for k in log.started}) and log.end is None
    a_record = folder / "a" / "record.json"
    a_written = a_record.stat().st_mtime_ns

    case_a = pkg / "evals" / "cases" / "00-a.yaml"
    case_a.write_text(case_a.read_text().replace("name: a", "name: a-renamed"))
    resumed = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--resume", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    [report_path] = list(reports.glob("*.json"))
    assert report_path.with_suffix("") == folder
    report = json.loads(report_path.read_text())
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report.get("interrupted") is not True
    assert [(c["name"], c["verdict"]) for c in report["cases"]] == [
        ("a-renamed", "PASS"),
        ("b", "PASS"),
        ("c", "PASS"),
    ]
    assert a_record.stat().st_mtime_ns == a_written, "the finished run ran again"

    log = read_log(folder / "run-log.jsonl")
    for line in (folder / "run-log.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), LOG_SCHEMA)
    after_resume = log.events[[type(e).__name__ for e in log.events].index("BatchResume") :]
    assert after_resume[0].kept == 1 and after_resume[0].rerun == 2
    assert after_resume[0].renamed == {"evals/cases/00-a.yaml::a-renamed": "evals/cases/00-a.yaml::a"}
    rerun = [e.unit.name for e in after_resume if type(e).__name__ == "RunStart"]
    assert rerun == ["b", "c"], rerun
    # the report is a view of the log: the units rebuilt from the log alone say the same
    rebuilt = [(r.name, r.verdict, r.reason) for r in unit_results(log)]
    assert rebuilt == [(c["name"], c["verdict"], c.get("reason")) for c in report["cases"]]
    assert log.end is not None and set(log.end.verdicts.values()) == {"PASS"}

    # the inputs changed since the batch started: refused, nothing runs, the report stays
    case_c = pkg / "evals" / "cases" / "02-c.yaml"
    case_c.write_text(case_c.read_text().replace("GREETING-OK", "GREETING-OK-2"))
    before = report_path.read_bytes()
    refused = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--resume", str(report_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2, refused.stderr
    assert "the eval inputs changed since the batch started" in refused.stderr
    assert "c: the unit's own text changed" in refused.stderr
    assert report_path.read_bytes() == before
    assert surviving(f"evalens-slow-{marker}") == []
