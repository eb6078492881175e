"""Headless Neovim 0.7.2 and 0.11, no server command set, on a system Python that refuses pip (issue 45, item 1):
``:EvalensInstall <folder of wheels>`` makes a private venv in stdpath('data')/evalens/venv and installs evalens
there with ``--no-index`` (every proxy points at a closed port, so a download would fail); ``:checkhealth evalens``
then names the command it runs, the venv's, and that it works; and the broken case opened next gets its
diagnostics from that server. Before, the plugin knew only ``evalens lsp`` from PATH and told the user to
``pip install evalens``, which Debian's python3 refuses (PEP 668) and which has no release to install.

The wheels are the ones the .vsix carries (vscode-extension/bundled/wheels, scripts/bundle_python.py), built
once per session. No agent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import DRIVERS, Neovim, example_package, keyless_env
from tests.editors.shared_build import build_lock

pytestmark = pytest.mark.editors

WHEELS = REPO / "vscode-extension" / "bundled" / "wheels"
SYSTEM_PYTHON = Path("/usr/bin/python3")
CLOSED = "http://127.0.0.1:9"
INIT = {
    "0.7": "vim.opt.runtimepath:append({rtp!r})\nrequire('evalens').setup({{}})\n",
    "0.11": "vim.opt.runtimepath:append({rtp!r})\nvim.lsp.enable('evalens')\n",
}


@pytest.fixture(scope="session")
def wheels() -> Path:
    """The bundled wheels, built from this checkout once (the dependency wheels are cached by bundle_python.py)."""
    with build_lock():  # the VS Code lanes package the same folder into their .vsix
        subprocess.run(
            [sys.executable, str(REPO / "vscode-extension" / "scripts" / "bundle_python.py")], check=True
        )
    return WHEELS


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_evalens_install_makes_a_private_venv_and_checkhealth_names_it(
    version: str, tmp_path: Path, wheels: Path
):
    nvim = Neovim.or_skip(version)
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"{SYSTEM_PYTHON} (Debian's python3) is not installed")
    refusal = subprocess.run(
        [str(SYSTEM_PYTHON), "-m", "pip", "install", "--dry-run", "--no-index", "evalens"],
        capture_output=True,
        text=True,
    )
    if "externally-managed-environment" not in refusal.stdout + refusal.stderr:
        pytest.skip(f"{SYSTEM_PYTHON} does not refuse pip (no PEP 668 marker)")
    pkg = example_package(tmp_path)
    init = tmp_path / "init.lua"
    init.write_text(INIT[version].format(rtp=str(REPO / "editors" / "nvim")))
    out = tmp_path / "result.json"
    env = keyless_env(
        tmp_path,
        PATH="/usr/bin:/bin",  # no pyenv, no .venv, no evalens: the python3 a Debian user has
        EVALENS_NVIM_OUT=str(out),
        EVALENS_INSTALL_SOURCE=str(wheels),
        EVALENS_CASE=str(pkg / "evals" / "cases" / "03-broken.yaml"),
        NO_PROXY="127.0.0.1,localhost",
        PIP_INDEX_URL=f"{CLOSED}/simple",
        **{k: CLOSED for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY")},
    )
    proc = nvim.headless(
        ["-u", str(init), "-c", f"luafile {DRIVERS / 'install.lua'}"], env=env, cwd=pkg, timeout=240
    )
    result = json.loads(out.read_text()) if out.exists() else {}
    assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])

    venv = tmp_path / "xdg" / "nvim" / "evalens" / "venv"
    python = str(venv / "bin" / "python")
    assert result["command_exists"], result
    assert result["cmd_before"] == ["evalens", "lsp"], result
    assert result["cmd_after"] == [python, "-I", "-m", "evalens", "lsp"], result
    assert result["base"]["exe"] == str(SYSTEM_PYTHON), result["base"]
    log = "\n".join(result["install_log"])
    assert (
        f"install --disable-pip-version-check --no-input --no-index --find-links {wheels} evalens" in log
    ), log
    assert "externally-managed" not in log, log
    assert "home = /usr/bin" in (venv / "pyvenv.cfg").read_text()
    # checkhealth says which command runs the server, where it comes from, and that it works
    health = result["health"]
    # the capture names the data folder as a user's would be, not this test's temporary one
    shown = health.replace(str(tmp_path / "xdg"), "~/.local/share")
    server_part = shown.split("evalens: running evals")[0].rstrip().splitlines()
    nvim_capture(
        version, "45-evalens-install-checkhealth", [":EvalensInstall " + str(wheels), "", *server_part]
    )
    assert (
        f"command: {python} -I -m evalens lsp (from the private venv of :EvalensInstall ({venv}))" in health
    ), health
    assert f"evalens 0.1.0 runs the server: {python} -I -m evalens lsp" in health, health
    # and the server that runs is that one, with the broken case's errors
    assert result["client_cmd"][0] == python, result["client_cmd"]
    assert any("pdf-tool" in d for d in result["diagnostics"]), result["diagnostics"]
