"""Headless Neovim 0.7.2 and 0.11 with the README's setup: reloading a case with `:e!` while its evalens client
is still starting keeps one client for the root (issue 45 #5: 0.7.2 started a second server, and every
diagnostic was drawn twice). The 0.7 recipe asked ``client_is_stopped``, which is true for a client that has not
answered ``initialize`` yet. No agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.nvim_session import Neovim, example_package

pytestmark = pytest.mark.editors


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_one_client_per_root_whatever_the_timing(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    pkg = example_package(tmp_path)
    case = pkg / "evals" / "cases" / "03-broken.yaml"  # it has diagnostics to count
    result = nvim.run_driver("reload.lua", tmp_path, open_file=case, cwd=pkg, timeout=120).result
    assert result["version"] == version
    assert result["clients"] == 1 and result["buffer_clients"] == 1, result
    assert result["diagnostics"] > 0 and result["drawn_twice"] == 0, result
