"""Where bubblewrap cannot run (macOS, WSL without it, locked-down Linux), evalens configures the engine's own
sandbox as strictly as it goes and says `sandboxed: engine` (issue 40 item 4). Bubblewrap is hidden from evalens
here (``EVALENS_NO_BWRAP=1``); the engines' own sandboxes still find the system's, as they would on such a machine
where theirs works (Seatbelt on macOS). On both CLIs: the report says `engine`, the engine's sandbox is configured
(Claude Code's sandbox settings, Codex's workspace-write with network off), a network probe from the agent's shell
is blocked, `--sandbox required` refuses such a run and `--sandbox engine` accepts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, make_package, run_evalens

pytestmark = pytest.mark.agents

ENGINES = ["claude-code", "codex"]
JUDGES = {"claude-code": "claude-judge-test", "codex": "openai:gpt-judge-test"}
MODEL = {"claude-code": [], "codex": ["--model", "gpt-fake"]}


@pytest.mark.parametrize("engine", ENGINES)
def test_without_bubblewrap_the_engines_own_sandbox_is_configured_and_named(
    engine: str,
    tmp_path: Path,
    model_env,
    sandbox_dir: Path,
    probe_port: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    monkeypatch.setenv("EVALENS_NO_BWRAP", "1")
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge=JUDGES[engine],
        cases={"probe": case("network-probe", extra=f"PROBE_PORT={probe_port}")},
    )
    base = ("eval", "--package", str(pkg), *MODEL[engine], "--json")
    refused = run_evalens(*base, "--sandbox", "required", timeout=240)
    assert refused.returncode == 2 and "--sandbox engine" in refused.stderr, refused.stderr[-2000:]

    out = run_evalens(
        *base, "--sandbox", "engine", "--keep-sandbox", "--github-output",
        env={"GITHUB_OUTPUT": str(tmp_path / "gh-out")}, timeout=240,
    )  # fmt: skip
    assert out.returncode in (0, 1), out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["sandbox"]["method"] == "engine" and report["sandbox"]["enforced"] is False
    assert "sandboxed=engine" in (tmp_path / "gh-out").read_text()
    [unit] = report["cases"]
    assert "NET-BLOCKED" in (unit.get("agent_output_snippet") or ""), unit  # the engine's sandbox held
    kept = [p for p in sandbox_dir.iterdir() if p.is_dir()]
    assert kept, "no sandbox kept"
    workspace = kept[0] / "ws"
    if engine == "claude-code":
        settings = json.loads((workspace / ".claude" / "settings.json").read_text())
        assert settings["sandbox"]["enabled"] is True and settings["sandbox"]["failIfUnavailable"] is True
        assert settings["sandbox"]["allowUnsandboxedCommands"] is False
        assert settings["sandbox"]["network"]["allowedDomains"] == []
    else:
        config = (kept[0] / "config" / "config.toml").read_text()
        assert "network_access = false" in config
