"""mypy over the evalens packages (evalens.core, evalens.cli, evalens.server, evalens.runner) with zero errors.

The installed package maps ``evalens.server`` to ``server/`` and ``evalens.runner`` to ``runner/`` (pyproject's
``[tool.setuptools] package-dir``). mypy's command line has no such mapping and cannot follow the editable
install's import hook, so the check hands mypy's build API each file with the module name it is installed
under, read from that same package-dir: no link tree, and imports across the mapped folders resolve as
installed. The cache lives in ``build/mypy-cache``, so a second run takes seconds. Settings: ``[tool.mypy]``.

``.ci/run`` runs it as its own step before pytest (``python3 -m tests.project.test_typecheck``) and then sets
``EVALENS_LINT_STEPS_DONE=1`` so the test does not run mypy a second time; a plain ``pytest`` still runs it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

BUILD = REPO / "build"


def package_dirs() -> dict[str, Path]:
    """Package name -> folder, as pyproject's package-dir installs them (``evalens.server`` -> ``server/``)."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return {name: REPO / folder for name, folder in setuptools["package-dir"].items()}


def module_sources() -> list[tuple[str, str]]:
    """(path, installed module name) of every Python file of the package; a folder mapped to a subpackage
    of its own is that subpackage's, not its parent's."""
    dirs = package_dirs()
    mapped = {folder.resolve() for folder in dirs.values()}
    out: list[tuple[str, str]] = []
    for name, folder in dirs.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder)
            if "__pycache__" in rel.parts or any(
                (folder / Path(*rel.parts[: i + 1])).resolve() in mapped for i in range(len(rel.parts) - 1)
            ):
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out.append((str(path), ".".join([name, *parts])))
    return out


def run_mypy() -> tuple[list[str], int]:
    """mypy over the package as installed: its error lines (repository paths) and how many files it checked."""
    from mypy import build
    from mypy.main import process_options
    from mypy.modulefinder import BuildSource

    os.environ.setdefault("MYPY_FORCE_COLOR", "0")
    sources = [BuildSource(path, module, None) for path, module in module_sources()]
    _, options = process_options(
        [
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--cache-dir",
            str(BUILD / "mypy-cache"),
            "-c",
            "pass",
        ]
    )
    result = build.build(sources, options)
    prefix = str(REPO) + os.sep
    return [line.removeprefix(prefix) for line in result.errors], len(sources)


def test_every_installed_module_is_checked_under_its_installed_name():
    modules = dict((m, p) for p, m in module_sources())
    assert modules["evalens.server.wire"].endswith("server/wire.py")
    assert modules["evalens.runner.api"].endswith("runner/api.py")
    assert modules["evalens.core.engines"].endswith("evalens/core/engines.py")
    assert not any(m.startswith(("evalens.server.server.", "evalens.evalens")) for m in modules)


def test_mypy_reports_no_errors():
    if os.environ.get("EVALENS_LINT_STEPS_DONE"):
        pytest.skip("mypy ran as its own step of .ci/run")
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    errors, _ = run_mypy()
    assert not errors, "\n".join(errors[-60:])


if __name__ == "__main__":
    found, checked = run_mypy()
    print("\n".join(found))
    print(f"mypy: {len(found)} error line(s) in {checked} files")
    sys.exit(1 if found else 0)
