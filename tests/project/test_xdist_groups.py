"""``--dist loadgroup`` really groups (tests/conftest.py): a test sharing a module-scoped fixture runs under its
module's group. pytest 9.2 with pytest-xdist 3.8 silently stopped it (the nodeid no longer took xdist's suffix), a
module's lens tests split across two workers and one that reads what the others left failed; pyproject.toml pins
pytest below 9.2 until xdist follows."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def shared() -> str:
    return "one per module"


def test_a_test_sharing_a_module_fixture_runs_in_its_modules_group(
    shared: str, request: pytest.FixtureRequest
) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("not under pytest-xdist: there is no group to check")
    assert request.node.get_closest_marker("xdist_group") is not None
    if request.config.getvalue("loadgroup"):
        assert request.node.nodeid.endswith("@tests.project.test_xdist_groups"), request.node.nodeid
