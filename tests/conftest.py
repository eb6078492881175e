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
SHARED_CORPUS = REPO.parent / "shared" / "corpus"
"""The full corpus, optional: CI puts ../shared beside the clone; a fresh clone has none (issue #22)."""
VENDORED_CORPUS = REPO / "tests" / "corpus" / "formats"
"""Its licence-permitting files, kept in the repository with the same layout (PROVENANCE.tsv says whence)."""
CORPUS = (
    SHARED_CORPUS
    if (SHARED_CORPUS / "MANIFEST.tsv").is_file() and not os.environ.get("EVALENS_NO_SHARED")
    else VENDORED_CORPUS
)
"""What corpus-driven tests read: the full corpus when it is there, else the vendored subset, so they never
fail or vanish for lack of it. ``EVALENS_NO_SHARED=1`` acts as a fresh clone with no ../shared beside it."""


@pytest.fixture
def example_pkg(tmp_path: Path) -> Path:
    """A private copy of the example package (tests may edit it)."""
    dest = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("reports"))
    (dest / "evals" / "reports").mkdir()
    return dest
