"""Headless Neovim 0.7.2 and 0.11: :EvalensTurns opens at the newest turn and follows the running case as turns
arrive, unless the user scrolled up (issue 27 #10: it opened at the oldest turn and stayed there)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.editors.doc_images import nvim_capture
from tests.editors.test_neovim import _nvim

pytestmark = pytest.mark.editors

DRIVER = REPO / "tests" / "editors" / "nvim" / "turns.lua"


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_turns_buffer_follows_the_newest_turn(version: str, tmp_path: Path):
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    out = tmp_path / "out.json"
    env = dict(
        os.environ,
        EVALENS_NVIM_OUT=str(out),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    rtp = REPO / "editors" / "nvim"
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "--cmd", f"set rtp+={rtp}", "-c", f"luafile {DRIVER}"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    result = json.loads(out.read_text()) if out.exists() else {}
    assert proc.returncode == 0 and not result.get("error"), (result, proc.stderr[-2000:])
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
