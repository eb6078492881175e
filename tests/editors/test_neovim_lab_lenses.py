"""Headless Neovim 0.7.2 and 0.11 with the README's setup, on a package whose reports hold an ``--arms``
reference report and a real trigger-set run where pdf-tools steals one of greeter's queries (issues 25 and 26):
pdf-tools' SKILL.md shows the reference arm's uplift over each arm, and greeter's trigger set says over each query
which skill fired. The buffers as drawn (lines and lens virtual text) land in build/e2e/nvim-lab/ (the dumps in
docs/img/ are copied from there)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.conftest import EXAMPLE, REPO
from tests.editors.lens_package import ARMS_TITLES, FIRED, STOLEN, prepare_lens_package
from tests.editors.test_neovim import _nvim, readme_init

pytestmark = pytest.mark.editors

DRIVER = REPO / "tests" / "editors" / "nvim" / "lab_lenses.lua"
ARTIFACTS = REPO / "build" / "e2e" / "nvim-lab"


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_arms_and_trigger_lenses_in_neovim(version: str, tmp_path: Path):
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    try:
        find_binary("claude", "EVALENS_CLAUDE_BIN")
    except EngineNotFound:
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")
    pkg = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("reports"))
    (pkg / "evals" / "reports").mkdir()
    trigger_set = prepare_lens_package(pkg)
    skill_md = pkg / "skills" / "pdf-tools" / "SKILL.md"
    init = tmp_path / "init.lua"
    init.write_text(readme_init(version))
    result_file = tmp_path / "result.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        EVALENS_NVIM_OUT=str(result_file),
        EVALENS_SKILL_MD=str(skill_md),
        EVALENS_TRIGGER_SET=str(trigger_set),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    proc = subprocess.run(
        [nvim, "--headless", "-u", str(init), "-c", f"luafile {DRIVER}"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=pkg,
        stdin=subprocess.DEVNULL,
    )
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    v = version.replace(".", "")
    (ARTIFACTS / f"nvim{v}-arms-lens.txt").write_text("\n".join(result["arms_screen"]) + "\n")
    (ARTIFACTS / f"nvim{v}-trigger-lens.txt").write_text("\n".join(result["trigger_screen"]) + "\n")

    # the arms lens: on the SKILL.md's first line, drawn as virtual text there
    arms = [t for t in result["arms_lenses"] if t["title"] in ARMS_TITLES]
    assert sorted(t["title"] for t in arms) == sorted(ARMS_TITLES), result["arms_lenses"]
    assert {t["line"] for t in arms} == {0}
    first = result["arms_screen"][0]
    assert all(title in first for title in ARMS_TITLES), first
    # the trigger lens: over each query, from the real run's report (greeter fired; pdf-tools stole the other)
    lines = trigger_set.read_text().splitlines()
    by_title = {t["title"]: t["line"] for t in result["trigger_lenses"]}
    assert FIRED in by_title and STOLEN in by_title, result["trigger_lenses"]
    assert "greet-key-7" in lines[by_title[FIRED]] or "greet-key-7" in lines[by_title[FIRED] + 1], lines
    stolen_at = by_title[STOLEN]
    assert "NEEDS=tables" in "\n".join(lines[stolen_at : stolen_at + 2]), lines
    screen = "\n".join(result["trigger_screen"])
    assert FIRED in screen and STOLEN in screen, screen
