"""The command line: validate output/exit codes, schema export, packaging of the schemas."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import EXAMPLE, REPO
from tests.in_process import evalens as evalens_cli


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return evalens_cli([*args], cwd=cwd)


def test_validate_example_prints_lines_and_fails():
    proc = run("validate", str(EXAMPLE))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert any(
        ":10:3: warning: `agent-blockd` is not a field of `expected`; did you mean `agent-blocked`?" in ln
        for ln in lines
    )
    assert all(ln.startswith(str(EXAMPLE)) for ln in lines)
    assert all("01-extract-text" not in ln for ln in lines)


def test_validate_json_output_and_clean_exit(tmp_path):
    proc = run("validate", "--format", "json", str(EXAMPLE / "evals" / "cases" / "03-broken.yaml"))
    data = json.loads(proc.stdout)
    assert {p["code"] for p in data["problems"]} >= {"unknown-key", "path-escape", "fixture-missing"}
    assert data["files"][0]["format"] == "uaaps-case"
    proc = run("validate", str(EXAMPLE / "evals" / "cases" / "01-extract-text.yaml"))
    assert proc.returncode == 0 and proc.stdout == ""


def test_validate_counts_only_what_it_checked(tmp_path):
    """The closing count leaves out files no format claimed, and says a look-alike's one hint apart: it is not a
    problem with the file (issue #39)."""
    (tmp_path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")
    (tmp_path / "evals.json").write_text(
        json.dumps([{"prompt": "Summarise the report", "expected_output": "A summary"}]), encoding="utf-8"
    )
    (tmp_path / "SKILL.md").write_text("---\nname: x\ndescription: d\n---\nBody\n", encoding="utf-8")
    proc = run("validate", str(tmp_path))
    assert proc.stderr.strip().endswith("; 1 file(s) left to another tool")
    assert proc.stderr.strip().splitlines()[-1].startswith("1 file(s) checked, ")
    assert ", 1 error(s), 0 other problem(s)" in proc.stderr  # the name/folder mismatch; the hint apart


def test_validate_missing_path():
    proc = run("validate", "/nonexistent/evals")
    assert proc.returncode == 1 and "no such file" in proc.stderr


def test_help_and_version():
    assert run("--help").returncode == 0
    assert "evalens" in run("--version").stdout


def test_wheel_ships_schemas_and_namespaced_packages(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("evalens-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "evalens/schemas/uaaps-eval-case.schema.json" in names
    assert "evalens/core/rules.toml" in names  # the rule catalog (diagnostic docs links, config checks)
    assert "evalens/server/server.py" in names and "evalens/core/documents.py" in names
    assert not any(n.startswith(("server/", "runner/")) for n in names)


def test_precommit_hook_declared():
    text = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "evalens validate" in text or "entry: evalens" in text


def test_every_package_folder_is_listed_for_the_wheel():
    """A subpackage missing from pyproject's ``packages`` is absent from the wheel (a plain pip install then
    fails with ModuleNotFoundError): every folder with an ``__init__.py`` under a mapped package must be listed."""
    import tomllib

    repo = Path(__file__).resolve().parents[2]
    setup = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setup["packages"])
    found = set()
    for package, folder in setup["package-dir"].items():
        base = repo / folder
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base).parts
            if any(p in ("node_modules", "build", "__pycache__") or p.startswith(".") for p in rel):
                continue
            name = ".".join((package, *rel))
            if package == "evalens" and rel and rel[0] in ("server", "runner", "schemas"):
                continue  # mapped to their own folders
            found.add(name)
    assert found - listed == set(), f"missing from pyproject packages: {sorted(found - listed)}"
