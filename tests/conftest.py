"""Shared test helpers: paths of the repo, the example package and the shared corpus."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# Tests that fall back from bubblewrap on purpose (EVALENS_NO_BWRAP=1) must not be refused when the suite itself
# runs in CI (CI=true makes `--sandbox required` the default); tests of that default unset this or pass the flag.
os.environ.setdefault("EVALENS_SANDBOX", "preferred")

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "pdf-tools"
CORPUS = REPO.parent / "shared" / "corpus"


@pytest.fixture
def example_pkg(tmp_path: Path) -> Path:
    """A private copy of the example package (tests may edit it)."""
    dest = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("reports"))
    (dest / "evals" / "reports").mkdir()
    return dest
