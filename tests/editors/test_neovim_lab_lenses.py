"""Headless Neovim 0.7.2 and 0.11 with the README's setup, on a package whose reports hold an ``--arms``
reference report and a real trigger-set run where pdf-tools steals one of greeter's queries (issues 25 and 26):
pdf-tools' SKILL.md shows the reference arm's uplift over each arm, and greeter's trigger set says over each query
which skill fired. The buffers as drawn (lines and lens virtual text) land in build/e2e/nvim-lab/ (the dumps in
docs/img/ are copied from there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.editors.lens_package import ARMS_TITLES, FIRED, STOLEN, prepare_lens_package
from tests.editors.nvim_session import Neovim, claude_or_skip, example_package

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "nvim-lab"


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_arms_and_trigger_lenses_in_neovim(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    pkg = example_package(tmp_path)
    (pkg / "evals" / "reports").mkdir()
    trigger_set = prepare_lens_package(pkg)
    skill_md = pkg / "skills" / "pdf-tools" / "SKILL.md"
    env = {"EVALENS_SKILL_MD": str(skill_md), "EVALENS_TRIGGER_SET": str(trigger_set)}
    result = nvim.run_driver("lab_lenses.lua", tmp_path, cwd=pkg, timeout=180, env=env).result
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
