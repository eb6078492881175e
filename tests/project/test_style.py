"""House style is part of the build: ruff check and ruff format must pass on the whole tree."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.conftest import REPO


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed (it is in the test extras)")
def test_ruff_clean():
    if os.environ.get("EVALENS_LINT_STEPS_DONE"):
        pytest.skip("ruff ran as its own step of .ci/run")
    proc = subprocess.run(["ruff", "check", "."], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed (it is in the test extras)")
def test_ruff_format_clean():
    """A formatter that is not enforced drifts; the whole tree is formatted (#23)."""
    if os.environ.get("EVALENS_LINT_STEPS_DONE"):
        pytest.skip("ruff format --check ran as its own step of .ci/run")
    proc = subprocess.run(
        ["ruff", "format", "--check", "."], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
