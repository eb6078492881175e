"""`evalens run` interrupted by a signal says how to finish the batch, as `evalens eval` does (issue 23 item 4), on
the real CLIs against the fake model.

A skill-creator `evals.json` with three evals runs once each. While the second eval's agent runs, the `evalens`
process gets SIGINT (claude) or SIGTERM (codex): it exits 128+n, writes a partial report (`interrupted: true`, the
first eval PASS, the others "not run: interrupted") and prints `finish it: evalens run --resume DIR`. Running that
command keeps the first eval's run, runs the other two, and completes the same report.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import jsonschema
import pytest

from tests.runner.runner_helpers import agents_available, signals_delivered, surviving

pytestmark = pytest.mark.agents

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((ROOT / "schemas" / "uaaps-eval-report.schema.json").read_text())
MODEL = {"claude-code": [], "codex": ["--model", "gpt-5-codex"]}
SKILL_MD = "---\nname: greeting\ndescription: Writes greetings.\n---\nWrite a greeting.\n"
FINISH = re.compile(
    r"^evalens run: interrupted; partial report: (\S+) \(finish it: (evalens run --resume \S+)\)$"
)


def _evals(marker: str) -> dict:
    def one(id_: int, scenario: str) -> dict:
        return {
            "id": id_,
            "prompt": f"Greet SCENARIO={scenario} MARKER={marker} JUDGE=pass",
            "expected_output": "a greeting",
            "assertions": ["greets"],
        }

    return {"skill_name": "greeting", "evals": [one(1, "pass"), one(2, "slow-once"), one(3, "pass")]}


@pytest.mark.parametrize(
    ("engine", "sig"), [("claude-code", signal.SIGINT), ("codex", signal.SIGTERM)], ids=["claude", "codex"]
)
def test_an_interrupted_file_batch_prints_the_command_that_finishes_it(
    engine: str, sig: signal.Signals, tmp_path: Path, model_env, sandbox_dir: Path
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
    argv = [
        sys.executable,
        "-m",
        "evalens",
        "run",
        str(evals),
        "--engine",
        engine,
        "--runs",
        "1",
        *MODEL[engine],
    ]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=signals_delivered
    )
    try:
        deadline = time.monotonic() + 180
        while not surviving(f"evalens-slow-{marker}"):  # eval 2's agent is running
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "eval 2 never started"
            time.sleep(0.05)
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig, (proc.returncode, err[-3000:])
    assert "Traceback" not in err, err[-3000:]
    assert surviving(f"evalens-slow-{marker}") == [], "the agent was killed"

    found = [m for m in (FINISH.match(x) for x in err.splitlines()) if m]
    assert len(found) == 1, err[-3000:]
    line = found[0]
    partial, command = Path(line.group(1)), line.group(2).split()
    reports = skill / "evals" / "reports"
    assert [*reports.glob("*.json")] == [partial] and command[-1] == str(partial.with_suffix(""))
    report = json.loads(partial.read_text())
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["interrupted"] is True
    assert [(c["name"], c["verdict"], c.get("reason")) for c in report["cases"]] == [
        ("1", "PASS", report["cases"][0].get("reason")),
        ("2", "SKIP", "not run: interrupted"),
        ("3", "SKIP", "not run: interrupted"),
    ]

    assert command[:3] == ["evalens", "run", "--resume"]
    resumed = subprocess.run(
        [sys.executable, "-m", *command], capture_output=True, text=True, timeout=300
    )  # the printed command, as a user would paste it
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "resuming: 1 finished run(s) kept, 2 to run" in resumed.stderr, resumed.stderr[-3000:]
    assert [*reports.glob("*.json")] == [partial], "the resume completes the same report"
    report = json.loads(partial.read_text())
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report.get("interrupted") is not True
    assert [(c["name"], c["verdict"]) for c in report["cases"]] == [
        ("1", "PASS"),
        ("2", "PASS"),
        ("3", "PASS"),
    ]
    log = read_log(partial.with_suffix("") / "run-log.jsonl")
    assert [(e.unit.name, e.run) for e in log.events if type(e).__name__ == "RunFinish"] == [
        ("1", 1),
        ("2", 1),
        ("3", 1),
    ], "eval 1 ran once, eval 2 finished only after the resume"
    assert log.end is not None and not log.end.interrupted
