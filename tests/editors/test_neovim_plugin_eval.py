"""Headless Neovim 0.7.2 and 0.11 with the README's setup on a Claude Code plugin's `claude plugin eval` cases (issue
38): the "▶ Run" lens on each case's prompt.md runs it (on claude-code: the real `claude plugin eval` in evalens's
sandbox, against the scripted fake model), and the verdict drawn on the lens line is the one the run's report
holds: PASS for ``greets``, FAIL for ``no-greeting``. A second Neovim, a new server, shows the same verdicts from
the report without running anything, and cases run by the CLI itself show the verdicts of its own result
documents. The buffers as drawn land in build/e2e/nvim-plugin-eval/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.editors.nvim_session import Neovim, claude_or_skip
from tests.editors.plugin_eval_package import (
    FAIL_CASE,
    PASS_CASE,
    expected_titles,
    prompt_md,
    reported,
    restored_titles,
    run_the_cli,
    write_plugin,
)
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "nvim-plugin-eval"


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_plugin_eval_case_runs_from_the_lens(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    plugin = write_plugin(tmp_path)
    files = [prompt_md(plugin, PASS_CASE), prompt_md(plugin, FAIL_CASE)]
    env = {"EVALENS_CASES": "\n".join(str(f) for f in files)}
    (tmp_path / "run").mkdir()
    (tmp_path / "reload").mkdir()
    with FakeModelServer(idle_timeout=600, log_dir=tmp_path / "fakemodel-log") as fake:
        ran = nvim.run_driver(
            "plugin_eval.lua",
            tmp_path / "run",
            cwd=plugin,
            timeout=900,
            model=fake,
            sandboxes=True,
            env={**env, "EVALENS_RUN": "1"},
        )
    assert ran.leftovers == []
    restored = nvim.run_driver(
        "plugin_eval.lua",
        tmp_path / "reload",
        cwd=plugin,
        timeout=180,
        env={**env, "EVALENS_NVIM_TIMEOUT": "90"},
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    v = version.replace(".", "")
    for label, driver in (("run", ran), ("reload", restored)):
        for case, seen in zip((PASS_CASE, FAIL_CASE), driver.result["cases"], strict=True):
            (ARTIFACTS / f"nvim{v}-{case}-{label}.txt").write_text("\n".join(seen["screen"]) + "\n")

    results = reported(plugin)
    assert results[PASS_CASE].verdict == "PASS" and results[FAIL_CASE].verdict == "FAIL", results
    assert results[FAIL_CASE].details["score"] == pytest.approx(0.75)  # the regex grader (1 of 4) failed
    titles = expected_titles(plugin)
    assert titles[PASS_CASE].startswith("✓ PASS") and titles[FAIL_CASE].startswith("✗ FAIL: score 0.75"), (
        titles
    )
    for driver in (ran, restored):
        pass_seen, fail_seen = driver.result["cases"]
        for case, seen in ((PASS_CASE, pass_seen), (FAIL_CASE, fail_seen)):
            # the case's lenses are on the prompt.md's first line, and the verdict is drawn there
            assert seen["lens_line"] == 0 and "▶ Run" in seen["lenses_before"], seen
            assert seen["verdict_lens"] == titles[case], (case, seen["lenses"])
            assert titles[case] in seen["rendered"], (case, seen["rendered"])


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_the_clis_own_results_show_on_the_lens(version: str, tmp_path: Path):
    """The cases run by `claude plugin eval` itself, never by evalens (no evalens report exists): Neovim opened
    afterwards shows each case's verdict from the CLI's ``evals/results/<ts>/aggregate-result.json``."""
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    plugin = write_plugin(tmp_path)
    (tmp_path / "home").mkdir()
    with FakeModelServer(idle_timeout=600, log_dir=tmp_path / "fakemodel-log") as fake:
        documents = run_the_cli(plugin, fake, tmp_path / "home")
    assert not (plugin / "evals" / "reports").exists()
    titles = restored_titles(plugin)
    assert titles[PASS_CASE].startswith("✓ PASS"), titles
    assert titles[FAIL_CASE].startswith("✗ FAIL: score 0.75"), titles  # the CLI's own score
    env = {
        "EVALENS_CASES": "\n".join(str(prompt_md(plugin, c)) for c in (PASS_CASE, FAIL_CASE)),
        "EVALENS_NVIM_TIMEOUT": "90",
    }
    result = nvim.run_driver("plugin_eval.lua", tmp_path, cwd=plugin, timeout=180, env=env).result
    for case, seen in zip((PASS_CASE, FAIL_CASE), result["cases"], strict=True):
        assert seen["verdict_lens"] == titles[case], (case, seen["lenses"], documents[case])
        assert titles[case] in seen["rendered"], (case, seen["rendered"])
