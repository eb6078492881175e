"""Headless Neovim 0.7.2 and 0.11: :EvalensTurns opens at the newest turn and follows the running case as turns
arrive, unless the user scrolled up (issue 27 #10: it opened at the oldest turn and stayed there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import Neovim

pytestmark = pytest.mark.editors


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_turns_buffer_follows_the_newest_turn(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    run = nvim.run_driver("turns.lua", tmp_path, cwd=tmp_path, timeout=60, readme=False)
    result = run.result
    assert not result.get("error"), (result, run.proc.stderr[-2000:])
    assert result["opened_at"] == result["opened_count"] > 60  # at the newest turn, not the oldest
    assert result["followed_line"] == "💬 second run"  # followed to the newest turn of the next run
    assert result["stayed_at"] == 3  # scrolled up to read: left there
    nvim_capture(
        version,
        "fix-10-turns-newest",
        [
            f"Neovim {version}: :EvalensTurns after 60 turns ({result['opened_count']} lines), the cursor (>) on the newest",
            *result["screen"],
        ],
    )
