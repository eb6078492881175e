"""The issue's scenario matrix on the real `claude` and `codex` CLIs against the fake model server.

Each engine's matrix is one `run_cases` call (jobs=4) plus, concurrently, a short-timeout run for the hanging
agent, so the whole matrix costs about as much as its slowest case.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import jsonschema
import pytest

from evalens.runner.api import RunRequest, run_cases
from tests.runner.runner_helpers import agents_available, case, make_package, surviving

REPORT_SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "uaaps-eval-report.schema.json"

JUDGES = {"claude-code": "claude-judge-test", "codex": "openai:gpt-judge-test"}
AGENT_MODELS = {"claude-code": None, "codex": "gpt-fake"}


def matrix_cases(probe_port: int) -> dict[str, dict]:
    return {
        "pass": case(
            "pass", contains=["GREETING-OK"], files_created=["output/result.txt"], not_contains=["ERROR"]
        ),
        "fail-contains": case("fail-contains", contains=["GREETING-OK"]),
        "fail-not-contains": case("forbidden", not_contains=["FORBIDDEN-TEXT"]),
        "missing-file": case("no-file", files_created=["output/result.txt"]),
        "blocked-expected": case("hook-blocked", agent_blocked=True),
        "blocked-unexpected": case("hook-blocked", agent_blocked=False),
        "api-error": case("err500", contains=["GREETING-OK"]),
        "judge-fail": case("pass", judge="fail", contains=["GREETING-OK"]),
        "judge-garbage": case("pass", judge="garbage", contains=["GREETING-OK"]),
        "env-allow-list": case(
            "env-probe", contains=["EVAL_CFG_VAR=from-config"], not_contains=["EVALENS_TEST_CANARY"]
        ),
        "network-off": case("network-probe", extra=f"PROBE_PORT={probe_port}", contains=["NET-BLOCKED"]),
        "writable-paths": case("write-probe", contains=["WRITE-DENIED"]),
        "traversal": {**case("pass"), "input": {"prompt": "SCENARIO=pass", "files": ["../secret.txt"]}},
    }


EXPECTED = {
    "pass": "PASS",
    "fail-contains": "FAIL",
    "fail-not-contains": "FAIL",
    "missing-file": "FAIL",
    "blocked-expected": "PASS",
    "blocked-unexpected": "FAIL",
    "api-error": "ERROR",
    "judge-fail": "FAIL",
    "judge-garbage": "ERROR",
    "env-allow-list": "PASS",
    "network-off": "PASS",
    "writable-paths": "PASS",
    "traversal": "ERROR",
}


@pytest.mark.agents
@pytest.mark.parametrize("engine", ["claude-code", "codex"])
async def test_scenario_matrix(
    engine: str,
    tmp_path: Path,
    model_env,
    sandbox_dir: Path,
    probe_port: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    from evalens.runner.sandbox import bubblewrap_usable

    monkeypatch.setenv("EVALENS_TEST_CANARY", "canary-must-not-leak")
    (tmp_path / "secret.txt").write_text("outside evals/")
    main = make_package(
        tmp_path / "pkg",
        engine=engine,
        cases=matrix_cases(probe_port),
        judge=JUDGES[engine],
        writable=["output/"],
        timeout=90,
    )
    marker = uuid.uuid4().hex[:12]
    slow = make_package(
        tmp_path / "slow", engine=engine, timeout=4, cases={"timeout": case("slow", extra=f"MARKER={marker}")}
    )
    before = len(model_env.records)

    outcome, slow_outcome = await asyncio.gather(
        run_cases(RunRequest(package_root=main, jobs=4, agent_model=AGENT_MODELS[engine])),
        run_cases(RunRequest(package_root=slow, no_judge=True, agent_model=AGENT_MODELS[engine])),
    )
    results = {r.name: r for r in outcome.results}
    got = {name: r.verdict for name, r in results.items()}
    expected = dict(EXPECTED)
    if not bubblewrap_usable():  # without bubblewrap network and writable paths are only requested
        expected.pop("network-off")
        expected.pop("writable-paths")
        got.pop("network-off")
        got.pop("writable-paths")
    if engine == "codex" and bubblewrap_usable():
        # writable-paths turns Codex's nested sandbox off, and with it the only guard of the hook records a Codex
        # block is read from: an unverifiable block is ERROR (test_agents_verdicts covers blocks without it).
        expected.update({"blocked-expected": "ERROR", "blocked-unexpected": "ERROR"})
    assert got == expected, {n: (r.verdict, r.reason) for n, r in results.items()}

    # The exact failing entries are reported.
    def failing(name: str) -> list[tuple[str, object]]:
        return [(c.kind, c.value) for c in results[name].checks if c.status == "FAIL"]

    assert failing("fail-contains") == [("contains", "GREETING-OK")]
    assert failing("fail-not-contains") == [("not_contains", "FORBIDDEN-TEXT")]
    assert failing("missing-file") == [("files_created", "output/result.txt")]
    if expected["blocked-unexpected"] == "FAIL":
        assert failing("blocked-unexpected") == [("agent_blocked", False)]
    assert results["judge-fail"].judge_verdict == "FAIL" and not failing("judge-fail")
    assert results["judge-garbage"].judge_verdict == "ERROR"
    assert "retry" in (results["judge-garbage"].error or "")
    assert results["pass"].judge_verdict == "PASS"
    assert results["pass"].judge_model == JUDGES[engine].split(":")[-1]
    assert "escapes" in (results["traversal"].error or "")
    assert results["api-error"].error and "GREETING-OK" not in (results["api-error"].output_snippet or "")
    assert results["pass"].engine_version and results["pass"].agent_model

    # No model request ever carried the traversal case (nothing was started for it), and the canary never left.
    new = model_env.records[before:]
    assert all("canary-must-not-leak" not in json.dumps(r) for r in new)

    # Timeout: ERROR, and nothing of the agent's tree survives.
    timeout_result = slow_outcome.results[0]
    assert timeout_result.verdict == "ERROR" and "timed out" in (timeout_result.error or "")
    assert surviving(f"evalens-slow-{marker}") == []

    # Report: spec fields, provenance, schema-valid; artifacts kept for re-judging; sandboxes gone.
    report_path = outcome.report_path
    assert report_path is not None and report_path.parent == main / "evals" / "reports"
    data = json.loads(report_path.read_text())
    jsonschema.validate(data, json.loads(REPORT_SCHEMA.read_text()))
    assert data["config"]["engine"] == engine and data["config"]["engine_version"]
    assert data["agent"]["model"] and data["judge"]["model_provider"] in ("anthropic", "openai")
    assert data["package"] == {"name": "test-pkg", "version": "1.2.3"}
    assert data["summary"]["total"] == len(EXPECTED)
    assert data["sandbox"]["enforced"] is bubblewrap_usable()
    by_name = {c["name"]: c for c in data["cases"]}
    assert by_name["pass"]["deterministic_checks"] == {
        "contains": "PASS",
        "not_contains": "PASS",
        "files_created": "PASS",
    }
    artifacts = report_path.parent / by_name["pass"]["artifacts"]
    assert (artifacts / "transcript.json").is_file() and (
        artifacts / "files" / "output" / "result.txt"
    ).is_file()
    assert list(sandbox_dir.iterdir()) == []
