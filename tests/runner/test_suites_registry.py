"""The registry of runnable formats (``runner/suites/__init__.py``): the one place a face asks what a format's
runs are, so no face branches on a format id (issue 41)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.core.formats.registry import all_formats
from evalens.core.formats.uaaps import UaapsCase
from evalens.runner.api import FileRunRequest, RunError, RunRequest, request_for
from evalens.runner.suites import (
    PACKAGE_FORMAT,
    RUNNABLE_FORMATS,
    SUITES,
    names_per_file,
    runnable,
    suite_for,
)


def test_every_runnable_format_is_a_format_the_core_registry_detects():
    known = {f.id for f in all_formats()}
    assert PACKAGE_FORMAT == UaapsCase.id
    assert RUNNABLE_FORMATS <= known, RUNNABLE_FORMATS - known
    assert all(suite_for(fid) is not None for fid in SUITES)


def test_a_packages_case_is_keyed_by_its_package_and_every_other_unit_by_its_file():
    assert runnable(PACKAGE_FORMAT) and not names_per_file(PACKAGE_FORMAT)
    assert all(runnable(fid) and names_per_file(fid) for fid in SUITES)
    assert not runnable("skill-md") and not names_per_file("skill-md") and not runnable(None)


def test_one_builder_makes_the_request_of_any_format(tmp_path: Path):
    case = tmp_path / "pkg" / "evals" / "cases" / "a.yaml"
    options = {"runs": 2, "timeout": 30.0, "agent_model": "m"}
    package = request_for(PACKAGE_FORMAT, case, [], options, package_root=tmp_path / "pkg", jobs=2)
    assert isinstance(package, RunRequest)
    assert (package.cases, package.jobs, package.runs, package.timeout) == ([str(case)], 2, 2, 30.0)
    whole = request_for(PACKAGE_FORMAT, tmp_path / "pkg", [], options, package_root=tmp_path / "pkg")
    assert isinstance(whole, RunRequest) and whole.cases == []  # the package itself: every case

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "eval.config.yaml").write_text("output:\n  dir: out\n")
    tasks = suite / "tasks.yaml"
    file = request_for("skilljack-tasks", tasks, ["t1"], options)
    assert isinstance(file, FileRunRequest)
    assert (file.units, file.runs, file.agent_model) == (["t1"], 2, "m")
    # anchored to the suite's folder, not the caller's working directory
    assert file.config == suite / "eval.config.yaml" and file.output_dir == suite / "out"

    with pytest.raises(RunError):
        request_for(PACKAGE_FORMAT, tmp_path / "loose.yaml", [], options)  # no package above it
