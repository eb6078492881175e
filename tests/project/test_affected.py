"""``python -m tests.affected`` finds the tests of a changed module by their imports (docs/CONTRIBUTING.md)."""

from __future__ import annotations

from tests import affected as af


def test_a_product_file_maps_to_its_installed_module() -> None:
    assert af.module_of(af.ROOT / "runner" / "ci" / "gate.py") == "evalens.runner.ci.gate"
    assert af.module_of(af.ROOT / "server" / "features" / "__init__.py") == "evalens.server.features"
    assert af.module_of(af.ROOT / "evalens" / "cli" / "run.py") == "evalens.cli.run"
    assert af.module_of(af.ROOT / "tests" / "project" / "test_affected.py") is None


def test_the_tests_that_import_a_module_are_found_and_deep_finds_more() -> None:
    gate = af.ROOT / "runner" / "ci" / "gate.py"
    direct = af.affected([gate])
    assert af.ROOT / "tests" / "runner" / "test_identity_readers.py" in direct
    assert all(p.name.startswith("test_") for p in direct)
    deep = af.affected([gate], deep=True)
    assert set(direct) < set(deep)  # the comment imports the gate: its tests count with --deep
    assert af.affected([af.ROOT / "tests" / "project" / "test_affected.py"]) == [
        af.ROOT / "tests" / "project" / "test_affected.py"
    ]


def test_untested_lists_only_modules_no_test_imports() -> None:
    names = af.untested()
    assert "evalens.runner.ci.gate" not in names
    assert set(names) <= set(af.product_modules())
