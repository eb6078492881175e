"""``evalens validate`` honours evalens.toml, pyproject.toml ``[tool.evalens]`` and its rule flags."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE
from tests.in_process import evalens as evalens_cli

BROKEN = Path("evals") / "cases" / "03-broken.yaml"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return evalens_cli([*args], cwd=cwd)


def found(proc: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """code -> severity of the broken case's problems (JSON output)."""
    data = json.loads(proc.stdout)
    return {p["code"]: p["severity"] for p in data["problems"] if p["path"].endswith("03-broken.yaml")}


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    dest = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("reports"))
    (dest / ".git").mkdir()  # the search for config files stops here
    return dest


def test_baseline(pkg: Path):
    proc = run("validate", "--format", "json", ".", cwd=pkg)
    codes = found(proc)
    assert codes["unknown-key"] == "warning" and codes["path-escape"] == "error"
    assert all(
        p["url"] == f"https://evalens.dev/rules#{p['code']}" for p in json.loads(proc.stdout)["problems"]
    )


def test_evalens_toml(pkg: Path):
    (pkg / "evalens.toml").write_text(
        '[rules]\nunknown-key = "off"\npath-escape = "hint"\n'
        '[per-file."evals/cases/03-*"]\nvague-criteria = "error"\n'
    )
    codes = found(run("validate", "--format", "json", ".", cwd=pkg))
    assert "unknown-key" not in codes
    assert codes["path-escape"] == "hint" and codes["vague-criteria"] == "error"


def test_pyproject_section_from_a_subfolder(pkg: Path):
    (pkg / "pyproject.toml").write_text(
        '[project]\nname = "pdf-tools"\n\n[tool.evalens]\nignore = ["fixture-missing"]\n'
        '[tool.evalens.rules]\n"schema-*" = "info"\n'
    )
    codes = found(run("validate", "--format", "json", str(pkg / "evals" / "cases"), cwd=pkg / "evals"))
    assert "fixture-missing" not in codes and codes["schema-pattern"] == "info"


def test_flags_override_the_file(pkg: Path):
    (pkg / "evalens.toml").write_text('[rules]\nunknown-key = "off"\n')
    codes = found(
        run(
            "validate",
            "--format",
            "json",
            "--rule",
            "unknown-key=error",
            "--ignore",
            "path-escape,fixture-missing",
            ".",
            cwd=pkg,
        )
    )
    assert codes["unknown-key"] == "error" and "path-escape" not in codes and "fixture-missing" not in codes
    codes = found(run("validate", "--format", "json", "--select", "unknown-*", "--isolated", ".", cwd=pkg))
    assert codes == {"unknown-key": "warning", "unknown-target": "error"}


def test_errors_turned_off_make_a_clean_exit(pkg: Path):
    (pkg / "evalens.toml").write_text(
        '[rules]\nunknown-target = "warning"\nfixture-missing = "off"\n'
        'path-escape = "off"\nschema-pattern = "warning"\n'
    )
    proc = run("validate", str(BROKEN), cwd=pkg)
    assert proc.returncode == 0, proc.stdout
    assert "[unknown-target]" in proc.stdout and "warning" in proc.stdout


def test_invalid_config_is_one_clear_message_and_exit_2(pkg: Path):
    (pkg / "evalens.toml").write_text('[rules]\nunknown-key = "warn"\n')
    proc = run("validate", ".", cwd=pkg)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "evalens.toml [rules]: `unknown-key = 'warn'`: the level must be one of" in proc.stderr
    assert "Traceback" not in proc.stderr
    (pkg / "evalens.toml").write_text("[rules\n")
    proc = run("validate", ".", cwd=pkg)
    assert proc.returncode == 2 and "invalid TOML" in proc.stderr and proc.stderr.count("invalid TOML") == 1


def test_explicit_config_file(pkg: Path, tmp_path: Path):
    other = tmp_path / "strict.toml"
    other.write_text('[rules]\nvague-criteria = "error"\n')
    codes = found(run("validate", "--format", "json", "--config", str(other), ".", cwd=pkg))
    assert codes["vague-criteria"] == "error"
    proc = run("validate", "--config", str(tmp_path / "missing.toml"), ".", cwd=pkg)
    assert proc.returncode == 2 and "missing.toml" in proc.stderr
