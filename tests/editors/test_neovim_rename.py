"""Headless Neovim 0.7.2 and 0.11, the real server and `claude` against the fake model: a case renamed in the
editor keeps its run state (issue 27 #7). It used to keep only its lens: Show run said "no run recorded yet" and
`evalens eval --stale --dry-run` exited 2 with "no case named extract-text". The run log's unit identity (same
file, same content, a name no unit has any more) carries the run over to the new name."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import Neovim, claude_or_skip, example_package
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors

OLD, NEW = "extract-text", "text-extraction"
# the agent writes the file and quotes its first line: every check passes (as in the code-server e2e)
EXTRACT = {
    "extract": [
        {"write": {"path": "output/extracted.txt", "content": "Hello, World\n"}},
        {"text": 'EXTRACTED: the first line "Hello, World" was written to output/extracted.txt.'},
    ]
}


@pytest.fixture()
def fake_model(tmp_path: Path) -> Iterator[FakeModelServer]:
    with FakeModelServer(
        idle_timeout=600, default_scenario="extract", scenarios=EXTRACT, log_dir=tmp_path / "fakemodel-log"
    ) as fake:
        yield fake


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_renamed_case_keeps_its_run(version: str, tmp_path: Path, fake_model: FakeModelServer):
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    pkg = example_package(tmp_path)
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    assert case.read_text().startswith(f"name: {OLD}\n")
    run = nvim.run_driver(
        "rename.lua",
        tmp_path,
        open_file=case,
        cwd=pkg,
        timeout=240,
        env={"EVALENS_NEW_NAME": NEW},
        model=fake_model,
        sandboxes=True,
    )
    result = run.result
    assert result["version"] == version
    assert case.read_text().startswith(f"name: {NEW}\n")  # saved

    # the lens keeps the verdict under the new name
    assert result["verdict_before"].startswith("✓ PASS"), result
    assert result["verdict_after"].startswith("✓ PASS"), result
    # :EvalensShow and the "Show run" lens show the run, not "no run recorded yet"
    show = "\n".join(result["show"])
    assert "PASS" in show and "#### Turn 1" in show, show
    assert result["show_lens"] and result["show_lens_opened"], result
    assert not any("no run recorded yet" in n for n in result["notes"]), result["notes"]

    # the CLI follows the rename too: nothing changed but the name, so nothing is stale
    dry = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--stale", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=pkg,
        env=run.env,
    )
    said = dry.stdout + dry.stderr
    assert dry.returncode == 0, said
    assert f"no case named {OLD}" not in said, said
    assert "cases (1):" in said and "  block-secrets  [" in said, said  # only the case that never ran
    assert f"  {NEW}  [" not in said, said
    nvim_capture(
        version,
        "fix-7-rename-keeps-run",
        [
            f"Neovim {version}: 01-extract-text.yaml, run ({result['verdict_before']}), then renamed"
            f" {OLD} -> {NEW} and saved",
            *result["screen"][:3],
            "",
            f":EvalensShow on {NEW} (first lines)",
            *(f"    {line}" for line in result["show"][:12]),
            "",
            "$ evalens eval --stale --dry-run",
            *(f"    {line}" for line in said.strip().splitlines()[:12]),
            f"    (exit {dry.returncode})",
        ],
    )
