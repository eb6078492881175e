"""Headless Neovim 0.7.2 and 0.11 with the README's setup: the "Optimize description with the trigger set…" code
action on a SKILL.md description (issue 26 item 4) runs the optimizer (the real ``claude``, the scripted judge)
and offers the held-out winner; "Apply the rewrite" puts it in the buffer, which stays unsaved."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.conftest import EXAMPLE, REPO
from tests.editors.lens_package import OPT_SKILL, optimize_rewrites, prepare_optimize
from tests.editors.test_neovim import _nvim, readme_init
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors

DRIVER = REPO / "tests" / "editors" / "nvim" / "optimize.lua"


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_optimize_description_code_action(version: str, tmp_path: Path):
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    try:
        find_binary("claude", "EVALENS_CLAUDE_BIN")
    except EngineNotFound:
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")
    pkg = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("reports"))
    prepare_optimize(pkg)
    skill_md = pkg / "skills" / "opt-greeter" / "SKILL.md"
    overfit, better = optimize_rewrites()
    init = tmp_path / "init.lua"
    init.write_text(readme_init(version))
    result_file = tmp_path / "result.json"
    sandboxes = Path(tempfile.mkdtemp(prefix="evn-"))  # short: sandbox bridge sockets have a 108-byte limit
    sandboxes.chmod(0o711)
    scenarios = {"propose-rewrites": [{"text": json.dumps({"descriptions": [overfit, better]})}]}
    with FakeModelServer(idle_timeout=600, scenarios=scenarios, log_dir=tmp_path / "model-log") as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
        env.update(
            ANTHROPIC_BASE_URL=fake.anthropic_base_url,
            ANTHROPIC_API_KEY="test-key-not-real",
            EVALENS_SANDBOX_DIR=str(sandboxes),
            EVALENS_AGENT_RETRIES="0",
            EVALENS_NVIM_OUT=str(result_file),
            EVALENS_SKILL_MD=str(skill_md),
            XDG_STATE_HOME=str(tmp_path / "xdg"),
            XDG_DATA_HOME=str(tmp_path / "xdg"),
            XDG_CACHE_HOME=str(tmp_path / "xdg"),
            XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        )
        try:
            proc = subprocess.run(
                [nvim, "--headless", "-u", str(init), "-c", f"luafile {DRIVER}"],
                capture_output=True,
                text=True,
                timeout=600,
                env=env,
                cwd=pkg,
                stdin=subprocess.DEVNULL,
            )
        finally:
            shutil.rmtree(sandboxes, ignore_errors=True)
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])
    (asked,) = result["prompts"]
    assert asked["items"] == ["Apply the rewrite", "Discard"], asked
    assert asked["prompt"].startswith("evalens: rewrite 2 wins (held-out +0.86 ["), asked
    assert result["lines"][2] == f"description: {json.dumps(better)}", result["lines"]
    assert result["modified"] is True  # in the buffer, for the user to review and save
    assert skill_md.read_text() == OPT_SKILL
