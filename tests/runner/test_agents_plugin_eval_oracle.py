"""The platform as the oracle (issue 38): Claude Code's own `claude plugin eval` loads the fixture plugin's cases
against the fake model, and the cases it refuses are exactly those evalens reports an error on (`bad-*`;
tests/core/test_formats_plugin_eval.py holds evalens's side). A CLI release that loosens or tightens its loader
shows up here as a named case, not as a silent drift."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from evalens.core.validate import validate_file
from evalens.runner.engines import get_engine
from tests.runner.runner_helpers import agents_available

pytestmark = pytest.mark.agents

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "plugin_eval" / "demo"


def _refused_by_the_cli(plugin: Path, home: Path, base_url: str) -> tuple[set[str], str]:
    claude = str(get_engine("claude-code").binary)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "DISABLE_AUTOUPDATER": "1",
    }
    out = subprocess.run(
        [claude, "plugin", "eval", str(plugin), "--trust-plugin", "--no-publish", "--runs", "1",
         "--ablation", "none", "--json", str(home / "result.json")],
        capture_output=True, text=True, timeout=600, env=env, cwd=plugin, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    text = out.stdout + out.stderr
    refused = set(re.findall(r"✗ \S*?/evals/([\w.-]+)", text))
    return refused, text


def test_claude_code_refuses_exactly_the_cases_evalens_flags_as_errors(tmp_path: Path, model_env) -> None:
    if not agents_available("claude-code"):
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")
    plugin = tmp_path / "demo"
    shutil.copytree(DEMO, plugin)
    home = tmp_path / "home"
    home.mkdir()
    refused, text = _refused_by_the_cli(plugin, home, model_env.anthropic_base_url)
    cases = sorted(p.name for p in (plugin / "evals").iterdir() if p.is_dir() and p.name != "results")
    flagged = {
        c
        for c in cases
        if any(
            p.severity.name == "ERROR"
            for f in (plugin / "evals" / c).rglob("*")
            if f.is_file()
            for p in validate_file(f).problems
        )
    }
    assert refused == {c for c in cases if c.startswith("bad-")}, text[
        -4000:
    ]  # the fixtures' own split holds
    assert flagged == refused, (sorted(flagged ^ refused), text[-4000:])
    result = json.loads((home / "result.json").read_text())
    loaded = {c["name"] for c in result["cases"]}
    assert loaded == {c for c in cases if not c.startswith("bad-")}  # each case's name is its folder's
