"""Issue 45, item 1: the first minute works on a system Python that refuses pip, with no network.

A fresh code-server profile with the built .vsix and no ``evalens.server.path``; the extension host's PATH has only
Debian's ``python3`` (PEP 668: its ``EXTERNALLY-MANAGED`` marker makes ``pip install`` refuse), with no evalens;
every proxy variable points at a closed port, so a download would fail. Before issue 45 the extension offered
"Install with pip" from a package index where evalens has no release, and that pip failed with
``externally-managed-environment``. Now it makes its own venv in its global storage from the wheels the .vsix
carries (``pip install --no-index``), without a question, and the broken case gets its diagnostics within a
minute. One code-server start for the module (tests/editors/code_server.py); screenshots in
build/e2e/vscode-first-minute/ (with EVALENS_DOCS_IMG set, the docs' ones in docs/img/ too).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.editors.code_server import REPO, code_server_session, step

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-first-minute"
SYSTEM_PYTHON = Path("/usr/bin/python3")
CLOSED = "http://127.0.0.1:9"  # nothing listens: any download through a proxy fails at once


def _refuses_pip(python: Path) -> str:
    """pip's refusal from ``python`` (PEP 668), or "" when it would install: the premise of this test."""
    r = subprocess.run(
        [str(python), "-m", "pip", "install", "--dry-run", "--no-index", "evalens"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return r.stdout + r.stderr if "externally-managed-environment" in r.stdout + r.stderr else ""


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"{SYSTEM_PYTHON} (Debian's python3) is not installed")
    stdlib = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not (Path(stdlib) / "EXTERNALLY-MANAGED").exists():
        pytest.skip(f"{SYSTEM_PYTHON} is not externally managed (no {stdlib}/EXTERNALLY-MANAGED)")
    # the premise: this Python refuses pip, and has no evalens of its own
    assert _refuses_pip(SYSTEM_PYTHON), "Debian's python3 should refuse pip install (PEP 668)"
    assert (
        subprocess.run([str(SYSTEM_PYTHON), "-I", "-c", "import evalens"], capture_output=True).returncode
        != 0
    )
    run = tmp_path_factory.mktemp("vscode-first-minute")
    with code_server_session(
        run,
        ARTIFACTS,
        "drive_first_minute.js",
        {},
        timeout=240,
        user_settings={"evalens.server.path": None, "evalens.server.args": None},
        env_overrides={
            "PATH": "/usr/bin:/bin",  # no pyenv, no .venv: the python3 a Debian user has
            **{k: CLOSED for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY")},
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "PIP_INDEX_URL": f"{CLOSED}/simple",
        },
    ) as result:
        result["venv"] = str(run / "ud" / "User" / "globalStorage" / "evalens.evalens" / "venv")
        yield result


def test_the_extension_installs_itself_and_shows_diagnostics_within_a_minute(session):
    """No question, no pip into the system Python: the bundled wheel goes into a private venv, offline, and the
    broken case's errors are drawn within a minute of opening the folder."""
    step(session, "diagnostics")
    assert session["secondsToDiagnostics"] < 60, session["timings"]
    assert any("pdf-tool" in p for p in session["problems"]), session["problems"]
    shown = session["onScreen"]
    assert any("setting up its Python environment" in t for t in shown), shown
    assert not any(w in t for t in shown for w in ("not installed", "could not start", "Install with pip")), (
        shown
    )


def test_the_private_venv_is_made_from_the_system_python_offline(session):
    """The venv lives in the extension's global storage, was made by Debian's python3 and holds the bundled wheel;
    the log names the interpreter with its full path and version and shows pip ran with --no-index."""
    step(session, "diagnostics")
    venv = Path(session["venv"])
    assert (venv / "bin" / "python").exists(), session["ext_log"][-3000:]
    cfg = (venv / "pyvenv.cfg").read_text()
    assert "home = /usr/bin" in cfg, cfg
    assert json.loads((venv / "evalens-install.json").read_text())["source"] == "bundle"
    log = session["ext_log"]
    assert "Python for evalens's environment: python3 (/usr/bin/python3, Python 3." in log, log[-3000:]
    assert "install --no-index --find-links" in log, log[-3000:]
    assert f"Starting the evalens server: {venv}/bin/python -I -m evalens lsp" in log, log[-3000:]
    assert "externally-managed-environment" not in log, log[-3000:]
