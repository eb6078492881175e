"""The model bridge against a hostile agent, on both real CLIs (issue 42, attacks 5, 6 and 9).

- The agent never holds the key: its environment has a per-run placeholder, and the fake model receives the real
  key, which the host-side bridge wrote in. An agent that prints its environment (or sends it anywhere) leaks
  nothing.
- The agent's shell calling the bridge itself, around its CLI, is counted against ``--max-tokens-per-run``: the
  run is ERROR naming the limit, where the engine's own report (two calls) would have stayed far inside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalens.runner.record import records_for
from tests.runner.runner_helpers import agents_available, case, make_package, run_evalens

pytestmark = pytest.mark.agents

ENGINES = ["claude-code", "codex"]
JUDGES = {"claude-code": "claude-judge-test", "codex": "openai:gpt-judge-test"}
MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}
REAL = {
    "ANTHROPIC_API_KEY": "fake-anthropic-key-REAL-7f3a9c",
    "OPENAI_API_KEY": "fake-openai-key-REAL-7f3a9c",
}


def _runner_env(work: Path, fake_model: Any) -> dict[str, str]:
    """The environment of evalens run as the unprivileged runner in ``work``: the real keys, the fake model, no
    workflow opt-in to agent network (a test that wants one passes the flag)."""
    import os

    return {
        **{k: v for k, v in os.environ.items() if k != "EVALENS_ALLOW_AGENT_NETWORK"},
        **REAL,
        "EVALENS_SANDBOX_DIR": str(work / "sandboxes"),
        "HOME": str(work / "home"),
        "ANTHROPIC_BASE_URL": fake_model.anthropic_base_url,
        "OPENAI_BASE_URL": fake_model.openai_base_url,
        "EVALENS_AGENT_RETRIES": "0",
        "NO_COLOR": "1",
    }


def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in REAL.items():
        monkeypatch.setenv(var, value)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_agent_holds_a_placeholder_and_the_upstream_gets_the_real_key(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    _keys(monkeypatch)
    pkg = make_package(
        tmp_path / "pkg", engine=engine, judge=JUDGES[engine], cases={"probe": case("env-probe")}
    )
    first = len(model_env.records)
    out = run_evalens("eval", "--package", str(pkg), *MODEL[engine], "--json", timeout=240)
    assert out.returncode in (0, 1), out.stderr[-3000:]
    report = out.stdout
    agent_calls = [r for r in model_env.records[first:] if not r.get("judge")]
    assert agent_calls, "the agent made no model call"
    real = REAL["ANTHROPIC_API_KEY" if engine == "claude-code" else "OPENAI_API_KEY"]
    assert {r["key"] for r in agent_calls} == {real}  # the bridge wrote the real key in, on the host
    [unit] = json.loads(report)["cases"]
    newest = max((pkg / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    [(_, record)] = records_for(newest, unit.get("artifacts"))
    output = record.output if record is not None else ""
    assert output.startswith("env:"), unit  # the probe ran and its environment is in the answer
    written = [p for p in pkg.rglob("*") if p.is_file()]
    for value in REAL.values():  # not in the answer, the report, the records or any artifact
        assert value not in report and not [p for p in written if value.encode() in p.read_bytes()]
    if engine == "claude-code":  # Codex keeps key variables out of its shell's environment anyway
        assert "ANTHROPIC_API_KEY=evalens-bridge-anthropic-api-key-" in output
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_the_shells_own_calls_through_the_bridge_count_against_the_token_limit(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        timeout=120,
        cases={"burn": case("bridge-burn", contains=["GREETING-OK"])},
    )
    first = len(model_env.records)
    out = run_evalens(
        "eval", "--package", str(pkg), *MODEL[engine], "--max-tokens-per-run", "200", "--json", timeout=300
    )
    [unit] = json.loads(out.stdout)["cases"]
    burned = [r for r in model_env.records[first:] if not r.get("tools") and not r.get("judge")]
    if engine == "codex" and not burned:
        # Codex's own sandbox (nested in bubblewrap, network off) kept its shell from the bridge: nothing spent
        assert unit["verdict"] == "PASS", unit
        return
    # 24 tokens a call at the fake: the shell's 30 calls pass 200 long before they end, and the run stops
    assert out.returncode == 1, out.stderr[-3000:]
    assert unit["verdict"] == "ERROR" and "token limit" in unit["reason"], unit
    assert "--max-tokens-per-run 200" in unit["reason"]
    assert len(burned) < 30, "the bridge let calls through after the limit"
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_configs_network_needs_the_workflows_opt_in_under_a_required_sandbox(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack 6: `sandbox.network: true` is the repository's to write, so a pull request could give its agent
    the network; under a required sandbox (CI's default) only the workflow's own opt-in lets it. With the opt-in
    the agent still holds only a placeholder key."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    _keys(monkeypatch)
    monkeypatch.delenv("EVALENS_ALLOW_AGENT_NETWORK", raising=False)
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        network=True,
        cases={"ok": case("pass", contains=["GREETING-OK"])},
    )
    first = len(model_env.records)
    args = ("eval", "--package", str(pkg), *MODEL[engine], "--sandbox", "required", "--json")
    refused = run_evalens(*args, timeout=240)
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert "sandbox.network: true" in refused.stderr and "--allow-agent-network" in refused.stderr
    assert model_env.records[first:] == []  # refused before any agent started
    allowed = run_evalens(*args, "--allow-agent-network", timeout=240)
    assert allowed.returncode == 0, allowed.stderr[-3000:]
    [unit] = json.loads(allowed.stdout)["cases"]
    assert unit["verdict"] == "PASS", unit
    real = REAL["ANTHROPIC_API_KEY" if engine == "claude-code" else "OPENAI_API_KEY"]
    assert {r["key"] for r in model_env.records[first:] if not r.get("judge")} == {real}
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_the_agent_cannot_rewrite_the_settings_that_decide_a_block(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    """Attack 10: an agent that adds a deny rule (or a hook) to the project settings its CLI reloads mid-run
    must not earn `agent-blocked`: the settings folders are read-only in the sandbox, and a permission denial is
    never counted as the package's hook."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        cases={"tamper": case("settings-tamper", agent_blocked=True)},
    )
    out = run_evalens("eval", "--package", str(pkg), *MODEL[engine], "--json", timeout=240)
    [unit] = json.loads(out.stdout)["cases"]
    assert unit["verdict"] == "FAIL", unit  # nothing of the package blocked anything
    assert out.returncode == 1
    newest = max((pkg / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    [(_, record)] = records_for(newest, unit.get("artifacts"))
    assert record is not None and not record.blocked
    settings = ".claude" if engine == "claude-code" else ".codex"
    tool_output = json.dumps(record.model_dump(mode="json"))
    assert f"TAMPER-DENIED-{settings}" in tool_output and f"TAMPER-OK-{settings}" not in tool_output
    assert list(sandbox_dir.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_as_the_unprivileged_runner_the_key_stays_on_the_host_and_the_bridge_meters(
    engine: str, runner_work: Path, fake_model
) -> None:
    """Attacks 6b and 9 as GitHub's ubuntu-latest runs evalens: an unprivileged user (root drops to one here).
    The agent's environment holds the placeholder, the fake receives the real key, and the shell's own calls
    through the bridge stop the run at the token limit."""
    import subprocess

    from tests.runner.test_agents_sandbox import evalens_command

    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    work = runner_work
    pkg = make_package(
        work / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        timeout=120,
        cases={"probe": case("env-probe"), "burn": case("bridge-burn", contains=["GREETING-OK"])},
    )
    env = _runner_env(work, fake_model)
    first = len(fake_model.records)
    argv = [*evalens_command("unprivileged", work), "eval", "--package", str(pkg), *MODEL[engine]]
    out = subprocess.run(
        [*argv, "--max-tokens-per-run", "200", "--json"], env=env, capture_output=True, text=True, timeout=500
    )
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    cases = {c["name"]: c for c in json.loads(out.stdout)["cases"]}
    real = REAL["ANTHROPIC_API_KEY" if engine == "claude-code" else "OPENAI_API_KEY"]
    mine = fake_model.records[first:]
    assert {r["key"] for r in mine if r.get("tools")} == {
        real
    }  # the agent CLI's own calls, keyed on the host
    for value in REAL.values():
        assert value not in out.stdout and value not in out.stderr
        assert not [p for p in pkg.rglob("*") if p.is_file() and value.encode() in p.read_bytes()]
    burned = [
        r for r in mine if not r.get("tools") and not r.get("judge") and r["reply"]["text"] == "Eval run"
    ]
    if engine == "codex" and not burned:
        assert cases["burn"]["verdict"] == "PASS", cases["burn"]  # Codex's own sandbox kept its shell off
    else:
        assert cases["burn"]["verdict"] == "ERROR" and "token limit" in cases["burn"]["reason"], cases["burn"]
    assert list((work / "sandboxes").iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_as_the_unprivileged_runner_network_needs_the_opt_in_and_settings_stay_read_only(
    engine: str, runner_work: Path, fake_model
) -> None:
    """Attacks 6 and 10 as GitHub's ubuntu-latest runs evalens (an unprivileged user). A pull request's
    ``sandbox.network: true`` is refused under a required sandbox before any agent starts; with the workflow's
    opt-in the run goes ahead, and an agent that rewrites the settings its CLI reloads earns no
    ``agent-blocked``: the settings folders are read-only for this uid too."""
    import subprocess

    from tests.runner.test_agents_sandbox import evalens_command

    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    work = runner_work
    pkg = make_package(
        work / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        network=True,
        cases={
            "ok": case("pass", contains=["GREETING-OK"]),
            "tamper": case("settings-tamper", agent_blocked=True),
        },
    )
    env = _runner_env(work, fake_model)
    argv = [*evalens_command("unprivileged", work), "eval", "--package", str(pkg), *MODEL[engine]]
    argv += ["--sandbox", "required", "--json"]
    first = len(fake_model.records)
    refused = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
    assert refused.returncode == 2, refused.stdout[-2000:] + refused.stderr[-2000:]
    assert "sandbox.network: true" in refused.stderr and "--allow-agent-network" in refused.stderr
    assert fake_model.records[first:] == []  # refused before any agent started
    allowed = subprocess.run(
        [*argv, "--allow-agent-network"], env=env, capture_output=True, text=True, timeout=500
    )
    assert "Traceback" not in allowed.stderr, allowed.stderr[-3000:]
    cases = {c["name"]: c for c in json.loads(allowed.stdout)["cases"]}
    assert cases["ok"]["verdict"] == "PASS", cases["ok"]
    assert cases["tamper"]["verdict"] == "FAIL", cases["tamper"]  # nothing of the package blocked anything
    assert allowed.returncode == 1
    newest = max((pkg / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    [(_, record)] = records_for(newest, cases["tamper"].get("artifacts"))
    assert record is not None and not record.blocked
    settings = ".claude" if engine == "claude-code" else ".codex"
    tool_output = json.dumps(record.model_dump(mode="json"))
    assert f"TAMPER-DENIED-{settings}" in tool_output and f"TAMPER-OK-{settings}" not in tool_output
    assert list((work / "sandboxes").iterdir()) == []
