"""The run log's reader decides a file unit by its suite's own rule (issue 23 item 4), on the real CLIs against
the fake model: the result rebuilt from the log, the editor's restored state and the report agree.

A skilljack task runs twice; the agent's answer asks the fake judge for top scores on odd runs and bottom scores on
even ones (`alt-judged`), so adherence and output are 5 then 1, mean 3. Under a score threshold of 3 run 1 alone
passes, run 2 alone fails, and the mean meets the threshold: skilljack's rule says PASS where combining the runs'
verdicts would say FLAKY; under 3.5 the same runs are FAIL. A trigger query that should fire the skill fires in 1 of
2 runs (`alt-use-done`: the agent activates the skill on odd runs): a 50% hit rate meets the trigger threshold,
PASS, where the runs' verdicts say FLAKY.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available

pytestmark = pytest.mark.agents

MODEL = {"claude-code": [], "codex": ["--model", "gpt-5-codex"]}
SKILL_MD = "---\nname: greeting\ndescription: Writes greetings warmly.\n---\nWrite a warm greeting.\n"


def _run(file: Path, engine: str, *flags: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``evalens run FILE`` twice per unit; the process and its batch's report."""
    reports = {*file.parent.parent.glob("**/evals/reports/*.json")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "run",
            str(file),
            "--engine",
            engine,
            "--runs",
            "2",
            *MODEL[engine],
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=400,
    )
    [report] = {*file.parent.parent.glob("**/evals/reports/*.json")} - reports
    return proc, report


def _agree(report_path: Path, fmt: str, file: Path) -> list[tuple[str, str, list[str]]]:
    """Each unit's verdict in the report, checked equal to the log's reading of it and to the editor's state
    restored from the log alone (the report moved away: a batch killed before its report is read so)."""
    from evalens.runner.run_log import log_path, logged_results, read_log, unit_results
    from evalens.server.features import run_formats

    report = json.loads(report_path.read_text())
    reported = {c["name"]: c["verdict"] for c in report["cases"]}
    log = read_log(log_path(report_path))
    assert {r.name: r.verdict for r in unit_results(log)} == reported
    assert log.end is not None and sorted(log.end.verdicts.values()) == sorted(reported.values())
    report_path.rename(report_path.with_name(".moved"))
    try:
        assert {r.name: r.verdict for r in logged_results(log.path)} == reported
        restored = run_formats.restore(fmt, file, None)
        assert {name: r.verdict for name, (r, *_) in restored.items() if name in reported} == reported
    finally:
        report_path.with_name(".moved").rename(report_path)
    runs = {(e.unit.name, e.run): e.verdict for e in log.finished.values()}
    return [(name, verdict, [runs[(name, 1)], runs[(name, 2)]]) for name, verdict in reported.items()]


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_the_logs_reading_is_the_suites_rule(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    model_env.state.scenarios.update(
        {
            "alt-use-done": [{"cycle": ["use-skill", "done"]}],
            "judged-pass": [{"text": "DONE: greeted the team. JUDGE=pass"}],
            "judged-fail": [{"text": "DONE: greeted the team. JUDGE=fail"}],
            "alt-judged": [{"cycle": ["judged-pass", "judged-fail"]}],
        }
    )

    suite = tmp_path / "suite"
    (suite / "skills" / "greeting").mkdir(parents=True)
    (suite / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    tasks = suite / "tasks.yaml"

    def task(marker: str) -> str:  # a negative task (its check passes) with judge criteria
        return (
            "skill: greeting\ntasks:\n"
            f'  - id: greet\n    prompt: "What is an email? SCENARIO=alt-judged MARKER={marker}"\n'
            "    expected_skill_load: none\n    deterministic: { expect_skill_activation: false }\n"
            "    criteria: { adherence: { weight: 1 } }\n"
        )

    tasks.write_text(task(uuid.uuid4().hex[:12]))
    out = ["--output-dir", str(tmp_path / "results")]
    proc, report = _run(tasks, engine, *out, "--threshold-score", "3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _agree(report, "skilljack-tasks", tasks) == [("greet", "PASS", ["PASS", "FAIL"])]

    tasks.write_text(task(uuid.uuid4().hex[:12]))  # the same runs under a threshold their mean misses
    proc, report = _run(tasks, engine, *out, "--threshold-score", "3.5")
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert _agree(report, "skilljack-tasks", tasks) == [("greet", "FAIL", ["PASS", "FAIL"])]

    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    queries = skill / "evals" / "trigger-eval.json"
    marker = uuid.uuid4().hex[:12]
    queries.write_text(
        json.dumps(
            [
                {
                    "query": f"welcome the team warmly SCENARIO=alt-use-done NEEDS=warmly MARKER={marker}",
                    "should_trigger": True,
                }
            ]
        )
    )
    proc, report = _run(queries, engine)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [(name, verdict, runs)] = _agree(report, "trigger-evals", queries)
    assert (verdict, runs) == ("PASS", ["PASS", "FAIL"]), (name, verdict, runs)
