"""Headless Neovim 0.7.2 and 0.11 with the README's setup: a lens run of a buffer with unsaved edits asks
"Save and run" / "Run the saved file" and runs the version chosen; "＋ New eval case" on SKILL.md writes a new
case file and puts the cursor on its prompt. No agent: the dry run shows which version of the file ran."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE, REPO
from tests.editors.test_neovim import _nvim, readme_init

pytestmark = pytest.mark.editors

DRIVER = REPO / "tests" / "editors" / "nvim" / "authoring.lua"


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_save_and_run_and_new_case(version: str, tmp_path: Path):
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    pkg = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("reports"))
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    saved = case.read_text()
    init = tmp_path / "init.lua"
    init.write_text(readme_init(version))
    result_file = tmp_path / "result.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        EVALENS_NVIM_OUT=str(result_file),
        EVALENS_SKILL_MD=str(pkg / "skills" / "pdf-tools" / "SKILL.md"),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    proc = subprocess.run(
        [nvim, "--headless", "-u", str(init), str(case), "-c", f"luafile {DRIVER}"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=pkg,
        stdin=subprocess.DEVNULL,
    )
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])

    # asked once per run, in words that say what a run reads
    assert result["modified_before"] is True
    prompts = result["prompts"]
    assert len(prompts) == 3 and prompts[0]["items"] == ["Save and run", "Run the saved file"]
    assert result["run_all_dismissed"] is True  # :EvalensRunAll asked as well; dismissed, nothing ran
    assert prompts[0]["prompt"] == "01-extract-text.yaml has unsaved changes; a run reads the saved file"
    # "Run the saved file": the plan is the saved one, the buffer stays unsaved
    assert "Dry run of extract-text" in result["run_saved"] and "'EXTRACTED'" in result["run_saved"]
    assert result["modified_after_run_saved"] is True
    # "Save and run": saved first, so the run reads the edit
    assert "'SAVED-EDIT'" in result["save_and_run"], result["save_and_run"]
    assert result["modified_after_save"] is False
    assert case.read_text() == saved.replace("EXTRACTED", "SAVED-EDIT", 1)

    new = result["new_case"]
    assert new["name"] == str(pkg / "evals" / "cases" / "04-pdf-tools-new-case.yaml")
    assert new["lines"][:4] == [
        "name: pdf-tools-new-case",
        "target: skill:pdf-tools",
        "input:",
        '  prompt: ""',
    ]
    assert new["cursor"] == [4, 11]  # between the prompt's quotes
