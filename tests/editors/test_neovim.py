"""Headless Neovim end to end: the README's own init snippet + editors/nvim, the real server, runner and `claude`
CLI against the fake model. Runs the "▶ Run eval" lens of the example package's first case and checks the
verdict lens and the diagnostics Neovim shows (Debian's 0.7.2 and PyPI's 0.11)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import (
    FAKE_KEY,
    Neovim,
    claude_or_skip,
    example_package,
    keyless_env,
    readme_init,  # noqa: F401  (test_neovim_matrix.py still imports it and _nvim from here)
)
from tests.editors.nvim_session import find_nvim as _nvim  # noqa: F401
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors


@pytest.fixture()
def fake_model(tmp_path: Path) -> Iterator[FakeModelServer]:
    """One server per test. Its first agent run sleeps in its shell, so the driver's cancel (sent once that run
    has reached the model: the request log says so) always lands while it is in flight, however fast the
    machine; the later runs answer at once (``done``)."""
    cycle = {"cancel-then-done": [{"cycle": ["slow"] + ["done"] * 7}]}
    with FakeModelServer(
        idle_timeout=600,
        default_scenario="cancel-then-done",
        scenarios=cycle,
        log_dir=tmp_path / "fakemodel-log",
    ) as fake:
        yield fake


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_run_lens_in_neovim(version: str, tmp_path: Path, fake_model: FakeModelServer):
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    pkg = example_package(tmp_path)
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    run = nvim.run_driver(
        "run_lens.lua",
        tmp_path,
        open_file=case,
        cwd=pkg,
        timeout=240,
        model=fake_model,
        sandboxes=True,
        env={"EVALENS_FAKE_LOG": str(tmp_path / "fakemodel-log" / "requests.jsonl")},
    )
    result = run.result
    assert result["version"] == version

    lines = case.read_text().splitlines()
    assert result["lens_line"] == lines.index("name: extract-text") == 0
    assert result["lenses_before"] == ["▶ Run eval", "Dry run", "Run 5×"]
    assert result.get("saw_cancel_lens"), result  # evalens/runState refreshed the lenses during the run
    reason = "output does not contain 'EXTRACTED'"  # the fake's default scenario answers "DONE"
    assert result["verdict_lens"] == f"✗ FAIL: {reason}"
    assert f"✗ FAIL: {reason}" in result["rendered"]  # drawn as virtual text on the `name:` line

    diags = result["diagnostics"]
    on_name = [d for d in diags if d["lnum"] == 0]
    assert len(on_name) == 1 and on_name[0]["severity"] == 1
    assert on_name[0]["message"] == f"eval FAIL: contains: {reason}"  # one line; hover has the rest
    # with virtual text on, the diagnostic beside the lens is a few cells, so the verdict lens stays on screen
    (drawn,) = result["diagnostic_virtual_text"]
    assert "eval FAIL" in drawn and len(drawn) <= 16, drawn
    assert result["k_is_buffer_mapping"], "K is hover in eval buffers"
    # the cancelled first run: announced, and no verdict lens from it
    notes = result["notes_after_cancel"]
    assert any(n.startswith("evalens: cancelled 1 run") for n in notes), notes
    assert any("Eval extract-text: cancelled" in n for n in notes), notes
    assert result["lenses_after_cancel"] == ["▶ Run eval", "Dry run", "Run 5×"]
    assert any("Eval extract-text: ✗ FAIL" in n for n in result["notes_at_end"]), result["notes_at_end"]
    marked = {d["lnum"]: d for d in diags if d["lnum"] != 0}
    contains_line = lines.index('    - "EXTRACTED"')
    created_line = lines.index("    - output/extracted.txt")
    assert set(marked) == {contains_line, created_line}
    assert marked[contains_line]["col"] == 6 and marked[contains_line]["message"] == f"contains: {reason}"
    assert "did not create output/extracted.txt" in marked[created_line]["message"]
    show = result["show"]  # :EvalensShow, from the case under the cursor
    assert show["filetype"] == "markdown" and not show["modifiable"] and show["readonly"], show
    text = "\n".join(show["lines"])
    assert "## FAIL extract-text" in text and f"- FAIL `contains` `EXTRACTED` — {reason}" in text
    assert "#### Turn 1: DONE" in text and " in / " in text  # the turn, and the tokens the fake reported
    assert show["foldmethod"] == "expr" and show["turn_fold_closed"] and not show["unit_fold_closed"]
    assert result["show_lens"] and result["show_lens_opened"]  # the "Show run" lens opens the same buffer
    compare = "\n".join(result.get("compare") or [])  # :EvalensCompare
    assert compare.startswith("# Compare extract-text") and "| verdict | " in compare, compare
    assert "Only one run of this unit so far" in compare, compare  # the cancelled run does not count
    assert result["last_report"]["filetype"] == "markdown", result.get("last_report")  # rendered, not JSON
    turns = result.get("turns") or []  # :EvalensTurns: what evalens/runTurn streamed while the case ran
    assert "── extract-text: the agent's turns ──" in turns and "💬 DONE" in turns, turns
    assert run.leftovers == []
    assert list((pkg / "evals" / "reports").glob("*.json"))  # the run wrote its report like the CLI
    nvim_capture(
        version,
        "fix-10-lens-stays-on-screen",
        [
            f"Neovim {version}: 01-extract-text.yaml after the run: the lens, then the verdict diagnostic's"
            f" virtual text ({drawn!r}; a namespace without a name, as 0.7's, is not in this dump)"
        ]
        + result["screen"][:8],
    )


REPEAT_CASE = """\
name: wobbly
description: The fake model fails the first run and passes the second
target: skill:pdf-tools
input:
  prompt: "Write a greeting into output/result.txt. SCENARIO=alt-fail-pass MARKER={marker}"
expected:
  contains:
    - "GREETING-OK"
judge:
  criteria: >
    The reply says that output/result.txt was written. JUDGE=pass
"""


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_run_repeat_and_run_failed_commands(version: str, tmp_path: Path, fake_model: FakeModelServer):
    """`:EvalensRunRepeat 2` makes a case that fails then passes FLAKY (lens and message), heads its runs' turns
    run 1/2 and run 2/2, and `:EvalensRunFailed` re-runs exactly that case (docs/repeats.md#in-the-editor)."""
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    pkg = example_package(tmp_path)
    for old in (pkg / "evals" / "cases").glob("*.yaml"):
        old.unlink()
    case = pkg / "evals" / "cases" / "01-wobbly.yaml"
    case.write_text(REPEAT_CASE.format(marker=f"m{os.urandom(5).hex()}"))
    run = nvim.run_driver(
        "run_repeat.lua", tmp_path, open_file=case, cwd=pkg, timeout=400, model=fake_model, sandboxes=True
    )
    result = run.result
    assert result["has_commands"] and result["lenses_before"] == ["▶ Run eval", "Dry run", "Run 5×"]
    assert result["verdict_lens"] == "≈ FLAKY 1/2", result
    # issue 45 #8: each run's turns headed run k/N, the first one included (it was unnumbered, the second "(run 2)")
    heads = [f"── wobbly (run {k}/2): the agent's turns ──" for k in (1, 2)]
    assert sorted(result["turn_heads"]) == heads, result["turn_heads"]  # the two runs may start at once
    after = result["turn_heads_after_failed"]
    assert sorted(after[:2]) == heads and after[2:] == ["── wobbly: the agent's turns ──"], after
    # :EvalensRunFailed asks first, as the batch lenses do (issue 45 #10), naming the failed case
    question = result["failed_question"]
    assert question.splitlines()[0].startswith("Run 1 eval (failed in 01-wobbly.yaml)? "), question
    assert "\n• wobbly" in question, question
    notes = result["notes"]
    (flaky,) = [n for n in notes if n.startswith("evalens: wobbly: FLAKY 1/2 passed (95% interval")]
    assert "flaky:" not in flaky and flaky.count("1/2") == 1, flaky  # FLAKY said once, as VS Code says it
    assert any(
        n.startswith("evalens: 1 run: 1 FAIL") or n.startswith("evalens: 1 run: 1 PASS") for n in notes
    ), notes
    assert run.leftovers == []


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_checkhealth_evalens(version: str, tmp_path: Path):
    """`:checkhealth evalens`: the server and its version, then `evalens doctor`'s checks (agent CLIs, keys,
    sandbox)."""
    nvim = Neovim.or_skip(version)
    report = tmp_path / "health.txt"
    proc = nvim.headless(
        [
            "-u",
            str(nvim.write_init(tmp_path)),
            "-c",
            "checkhealth evalens",
            "-c",
            f"write! {report}",
            "-c",
            "qall!",
        ],
        env=keyless_env(tmp_path, ANTHROPIC_API_KEY=FAKE_KEY),
        cwd=tmp_path,
        timeout=120,
    )
    text = report.read_text() if report.exists() else ""
    assert proc.returncode == 0 and text, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "evalens 0.1.0" in text and sys.executable in text, text  # found, with its version and command
    assert "claude-code CLI" in text and "codex CLI" in text, text
    assert "claude-code agent key" in text and FAKE_KEY not in text, text  # names, never values
    assert "sandbox:" in text and "bubblewrap" in text, text
