"""mypy over the evalens packages (evalens.core, evalens.cli, evalens.server, evalens.runner) with zero errors.

The installed package maps ``evalens.server`` to ``server/`` and ``evalens.runner`` to ``runner/``
(pyproject's package-dir), which mypy cannot follow through the editable install's import hook, so the test
lays the package out as it is installed: a tree of symbolic links under ``build/`` (ignored by git). The
cache lives there too, so a second run takes seconds. Settings: ``[tool.mypy]`` in pyproject.toml.

``.ci/run`` runs it as its own step before pytest (``python3 -m tests.unit.test_typecheck``) and then sets
``EVALENS_LINT_STEPS_DONE=1`` so the test does not run mypy a second time; a plain ``pytest`` still runs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO

BUILD = REPO / "build"
MAPPED = {"server": "server", "runner": "runner", "schemas": "schemas"}  # evalens.<key> -> folder


def shadow_tree() -> str:
    root = BUILD / "mypy-shadow"
    pkg = root / "evalens"
    if pkg.exists():
        shutil.rmtree(pkg)
    pkg.mkdir(parents=True)
    for entry in (REPO / "evalens").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    for name, folder in MAPPED.items():
        (pkg / name).symlink_to(REPO / folder)
    return str(root)


def run_mypy() -> subprocess.CompletedProcess[str]:
    """mypy over the package as installed; stdout with repository paths."""
    root = shadow_tree()
    env = {**os.environ, "MYPY_FORCE_COLOR": "0"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--cache-dir",
            str(BUILD / "mypy-cache"),
            "-p",
            "evalens",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    proc.stdout = proc.stdout.replace("evalens/server/", "server/").replace("evalens/runner/", "runner/")
    return proc


def test_mypy_reports_no_errors():
    if os.environ.get("EVALENS_LINT_STEPS_DONE"):
        pytest.skip("mypy ran as its own step of .ci/run")
    if shutil.which("mypy") is None and not _importable("mypy"):
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    proc = run_mypy()
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


if __name__ == "__main__":
    result = run_mypy()
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    sys.exit(result.returncode)
