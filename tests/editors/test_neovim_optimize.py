"""Headless Neovim 0.7.2 and 0.11 with the README's setup: the "Optimize description with the trigger set…" code
action on a SKILL.md description (issue 26 item 4) runs the optimizer (the real ``claude``, the scripted judge)
and offers the held-out winner; "Apply the rewrite" puts it in the buffer, which stays unsaved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.editors.lens_package import OPT_SKILL, optimize_rewrites, prepare_optimize
from tests.editors.nvim_session import Neovim, claude_or_skip, example_package
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_optimize_description_code_action(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    pkg = example_package(tmp_path)
    prepare_optimize(pkg)
    skill_md = pkg / "skills" / "opt-greeter" / "SKILL.md"
    overfit, better = optimize_rewrites()
    scenarios = {"propose-rewrites": [{"text": json.dumps({"descriptions": [overfit, better]})}]}
    with FakeModelServer(idle_timeout=600, scenarios=scenarios, log_dir=tmp_path / "model-log") as fake:
        env = {"EVALENS_AGENT_RETRIES": "0", "EVALENS_SKILL_MD": str(skill_md)}
        run = nvim.run_driver(
            "optimize.lua", tmp_path, cwd=pkg, timeout=600, env=env, model=fake, sandboxes=True
        )
    result = run.result
    (asked,) = result["prompts"]
    assert asked["items"] == ["Apply the rewrite", "Discard"], asked
    assert asked["prompt"].startswith("evalens: rewrite 2 wins (held-out +0.86 ["), asked
    assert result["lines"][2] == f"description: {json.dumps(better)}", result["lines"]
    assert result["modified"] is True  # in the buffer, for the user to review and save
    assert skill_md.read_text() == OPT_SKILL
