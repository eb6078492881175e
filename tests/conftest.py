"""Shared test helpers: paths of the repo, the example package and the shared corpus."""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# pytest keeps each test module with its asserts rewritten in __pycache__, unless bytecode writing is off, as
# PYTHONDONTWRITEBYTECODE turns it off on our machines: then every run, in every worker, rewrote every module again
# (collection 13.5 s, 3.7 s from the cache; issue #22). __pycache__ is ignored by git; the tests want the cache.
sys.dont_write_bytecode = False

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


WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
"""This pytest process under pytest-xdist (``gw0``, ``gw1``, …; ``main`` without it): paths outside ``tmp_path``
that a test rewrites carry it, so parallel workers never share them."""
AGENTS_LOCK = Path("/var/tmp/evalens-tests") / "agents.lock"
"""Agent tests hold it shared; the ones marked ``alone`` hold it exclusively (see ``_agents_take_turns``)."""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for ``--dist loadgroup``: the editors tier runs on one worker, one test after another (real
    editors, screenshots under build/e2e); the tests that share a module-scoped fixture of ours (one LSP server
    per client profile, a fake model, an attack arena) run on one worker, so it is set up once."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        if item.get_closest_marker("editors"):
            item.add_marker(pytest.mark.xdist_group(_editor_of(item)))
        elif _shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__ if item.module else item.nodeid))


_SECOND_VSCODE_LANE = frozenset(
    {
        "test_vscode_runs",
        "test_vscode_layout",
        "test_vscode_plugin_eval",
        "test_vscode_matrix",
        "test_vscode_restricted_mode",
    }
)
"""The VS Code modules of the editors tier's second browser lane. The two lanes hold about the same driving time
(each module's setup in the editors JUnit file, ``.ci-out/editors.xml``: about 5.5 minutes each); a new module
joins the shorter one."""


def _editor_of(item: pytest.Item) -> str:
    """The editors tier's group of ``item``: two lanes of browser-driven VS Code modules and one of Neovim, each
    run one module after another on its own worker (``.ci/run`` gives the tier three). The editors mostly wait
    on their UI and the fake model, so three of them share two cores without starving each other."""
    name = (item.module.__name__ if item.module else item.nodeid).rsplit(".", 1)[-1]
    if "vscode" in name or "vsix" in name or "run_page" in name:
        return "editors-vscode-2" if name in _SECOND_VSCODE_LANE else "editors-vscode-1"
    return "editors-neovim"


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        defs[-1].scope == "module" and (defs[-1].baseid or "").startswith("tests")
        for defs in info.name2fixturedefs.values()
    )


@pytest.fixture(autouse=True)
def _agents_take_turns(request: pytest.FixtureRequest) -> Iterator[None]:
    """Agent tests run side by side (pytest-xdist, or another session in the same machine) except those marked
    ``alone``: fork and disk bombs, and attacks that write into every reachable ``/proc/*/fd`` or count
    processes machine-wide, would hit or be counted in a neighbour's agents (all run as the same uid)."""
    if request.node.get_closest_marker("agents") is None:
        yield
        return
    AGENTS_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with AGENTS_LOCK.open("a") as lock:
        alone = request.node.get_closest_marker("alone") is not None
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def example_pkg(tmp_path: Path) -> Path:
    """A private copy of the example package (tests may edit it)."""
    dest = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("reports"))
    (dest / "evals" / "reports").mkdir()
    return dest


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the package once, before any test starts it in a subprocess: servers and CLI runs are started
    hundreds of times, and where ``PYTHONDONTWRITEBYTECODE`` is set (as on our machines) each start compiled
    every module from source again, about 0.2 s of CPU (issue #22). Only the controller does it, before the
    workers start; what is up to date is left as it is."""
    if WORKER != "main":
        return
    import compileall  # only here: the one session-wide step that needs it

    for folder in ("evalens", "server", "runner"):
        compileall.compile_dir(REPO / folder, quiet=2)
