"""Headless Neovim 0.7.2 and 0.11 with the README's setup: a lens run of a buffer with unsaved edits asks
"Save and run" / "Run the saved file" and runs the version chosen; "＋ New eval case" on SKILL.md writes a new
case file and puts the cursor on its prompt. No agent: the dry run shows which version of the file ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.nvim_session import Neovim, example_package

pytestmark = pytest.mark.editors


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_save_and_run_and_new_case(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    pkg = example_package(tmp_path)
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    saved = case.read_text()
    skill_md = pkg / "skills" / "pdf-tools" / "SKILL.md"
    env = {"EVALENS_SKILL_MD": str(skill_md)}
    result = nvim.run_driver("authoring.lua", tmp_path, open_file=case, cwd=pkg, timeout=180, env=env).result

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
