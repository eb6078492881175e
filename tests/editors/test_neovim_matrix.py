"""Headless Neovim 0.7.2 and 0.11 with the README's setup on the package of a scripted two-engine, three-arm run
(issue #25; tests/editors/matrix_package.py: the real claude and codex against the scripted model in one run
--engine claude-code,codex --model codex=gpt-fake --arms skill,no-skill,without:references): the case's hover
shows its row of the matrix (one line per engine · model · arm cell: k/N, interval, cost; then each engine's uplift
per arm) and :EvalensMatrix the whole table with the pooled lines. What Neovim drew lands in
build/e2e/nvim-matrix/ (and docs/img/ with EVALENS_DOCS_IMG set, the package's temporary path written as
``pdf-tools``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.conftest import EXAMPLE, REPO
from tests.editors.doc_images import nvim_capture
from tests.editors.matrix_package import CODEX_MODEL, run_matrix
from tests.editors.test_neovim import _nvim, readme_init

pytestmark = pytest.mark.editors

DRIVER = REPO / "tests" / "editors" / "nvim" / "matrix.lua"
ARTIFACTS = REPO / "build" / "e2e" / "nvim-matrix"
CODEX = f"codex · {CODEX_MODEL}"
PASSED, FAILED = "PASS 2/2 [34%–100%]", "FAIL 0/2 [0%–66%]"
ARMS = {"skill": PASSED, "no skill": FAILED, "without references": PASSED}  # tables, per arm


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for name, env in (("claude", "EVALENS_CLAUDE_BIN"), ("codex", "EVALENS_CODEX_BIN")):
        try:
            find_binary(name, env)
        except EngineNotFound:
            pytest.skip(f"{name} CLI not installed (run .ci/install-agents.sh)")
    base = tmp_path_factory.mktemp("nvim-matrix")
    pkg = base / "pdf-tools"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("reports"))
    (pkg / "evals" / "reports").mkdir()
    run_matrix(pkg, base / "model-log")
    return pkg


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_hover_and_evalens_matrix_show_the_matrix(version: str, package: Path, tmp_path: Path):
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    init = tmp_path / "init.lua"
    init.write_text(readme_init(version))
    result_file = tmp_path / "result.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        EVALENS_NVIM_OUT=str(result_file),
        EVALENS_CASE_FILE=str(package / "evals" / "cases" / "20-tables.yaml"),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    proc = subprocess.run(
        [nvim, "--headless", "-u", str(init), "-c", f"luafile {DRIVER}"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=package,
        stdin=subprocess.DEVNULL,
    )
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    v = version.replace(".", "")
    for name in ("hover", "matrix"):
        # the package's temporary folder (/tmp/pytest-of-…) read as what it is, a copy of pdf-tools
        screen = [line.replace(str(package), "pdf-tools") for line in result[f"{name}_screen"]]
        (ARTIFACTS / f"nvim{v}-matrix-{name}.txt").write_text("\n".join(screen) + "\n")
        nvim_capture(version, f"matrix-{name}", screen)

    # the hover: the case's row, one line per cell (k/N, interval; claude's cost), then the uplift per arm
    rows = [line for line in result["hover_screen"] if "|" in line or "│" in line]
    shown = "\n".join(result["hover_screen"])
    assert "Matrix" in shown and "(6 cells" in shown, shown
    for arm, value in ARMS.items():
        claude = next(
            line for line in rows if "claude-code · " in line and f"· {arm} " in line and "Δ" not in line
        )
        assert value in claude and "$" in claude, shown
        codex = next(line for line in rows if f"{CODEX} · {arm} " in line and "Δ" not in line)
        assert value in codex, shown
    uplift = next(line for line in rows if f"Δ vs no skill · {CODEX}" in line)
    assert "▲ +100 pts [+7, +100]" in uplift, shown  # 2/2 against 0/2 (by hand in test_vscode_matrix.py)
    # :EvalensMatrix: every unit of the run, one row each, one column per engine · model · arm, the uplift
    table = result["matrix_screen"]
    head = next(line for line in table if line.startswith("unit "))
    assert (
        all(f"{CODEX} · {arm}" in head for arm in ARMS) and "Δ vs without references · claude-code" in head
    ), table
    tables = next(line for line in table if line.startswith("tables "))
    strict = next(line for line in table if line.startswith("strict-marker "))
    assert tables.count(PASSED) == 4 and tables.count(FAILED) == 2 and strict.count(FAILED) == 6, table
    assert sum("(all units)" in line for line in table) == 4, table  # each engine's arms pooled
    assert not any(
        "/tmp/pytest-" in line
        for name in ("hover", "matrix")
        for line in (ARTIFACTS / f"nvim{v}-matrix-{name}.txt").read_text().splitlines()
    )
    assert result["steps"] == ["hover", "hover-float", "matrix"]
