"""Headless Neovim 0.7.2 and 0.11: the "Create empty `report.pdf`" quick fix (a CreateFile with ignoreIfExists)
creates the file on disk, as VS Code does; Neovim by itself only added a buffer (issue 27 #2). The case's
"✗ N errors" lens then counts one problem fewer without a keystroke: Neovim neither watches files nor honours
workspace/codeLens/refresh, so it kept the old count (issue 27 #4). No agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import Neovim, example_package

pytestmark = pytest.mark.editors


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_create_file_quick_fix_writes_the_file(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    pkg = example_package(tmp_path)
    target = pkg / "evals" / "fixtures" / "report.pdf"
    assert not target.exists()
    case = pkg / "evals" / "cases" / "03-broken.yaml"
    env = {"EVALENS_CREATE_TARGET": str(target)}
    result = nvim.run_driver(
        "create_file.lua", tmp_path, open_file=case, cwd=pkg, timeout=180, env=env
    ).result
    assert any("Create empty `report.pdf`" in t for t in result["offered"]), result
    assert target.is_file() and target.read_bytes() == b""
    assert result["buffer"] is True
    before = int(result["lens_before"].split()[1])
    assert result["lens_followed"], result
    assert result["lens_after"] == f"✗ {before - 1} errors: fix to run", result
    assert result["diagnostic_gone"], result  # the fixture-missing problem itself is gone too
    nvim_capture(
        version,
        "fix-2-create-file",
        [
            f"Neovim {version}: evals/cases/03-broken.yaml, cursor on the fixture-missing problem",
            *result["screen_before"],
            "",
            ":lua vim.lsp.buf.code_action()  offers:",
            *(f"    {t}" for t in result["offered"]),
            "picked: Create empty `report.pdf`",
            f"evals/fixtures/report.pdf on disk: {target.is_file()} ({target.stat().st_size} bytes)",
            "",
            "the buffer afterwards, no keystroke:",
            *result["screen_after"],
        ],
    )
    nvim_capture(
        version,
        "fix-4-problems-lens",
        [
            f"Neovim {version}: evals/cases/03-broken.yaml",
            f"lens before the quick fix: {result['lens_before']}",
            "picked: Create empty `report.pdf` (no keystroke after it)",
            f"lens after:                {result['lens_after']}",
            "",
            *result["screen_after"],
        ],
    )
