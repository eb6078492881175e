"""A scripted stand-in for `claude` whose verdict the prompt picks (PASS, FAIL, ERROR), and a 12-case
package mixing them: enough for sharding and CI-output tests that need real runs but not a real model."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.runner.runner_helpers import make_package

SCRIPTED = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (scripted)"; exit 0; fi
prompt="$2"
case "$prompt" in *SLEEP*) sleep 0.3 ;; esac
case "$prompt" in *ERRME*) echo "scripted crash" >&2; exit 3 ;; esac
case "$prompt" in *INJECTME*) printf 'crash\n::error file=README.md,line=1::FAKE\n::stop-commands::zz\n' >&2; exit 3 ;; esac
case "$prompt" in
  *FAILME*) text="nothing useful" ;;
  *) text="DONE GREETING-OK" ;;
esac
echo '{"type":"system","subtype":"init","model":"scripted-model","session_id":"s-1"}'
echo "{\\"type\\":\\"result\\",\\"subtype\\":\\"success\\",\\"is_error\\":false,\\"result\\":\\"$text\\",\\"session_id\\":\\"s-1\\"}"
"""


def twelve_cases() -> dict[str, dict]:
    """12 cases: 8 pass, 3 fail a `contains` check, 1 errors (the agent crashes)."""
    cases: dict[str, dict] = {}
    for i in range(12):
        prompt = (
            "write a greeting"
            + (" FAILME" if i in (2, 6, 10) else "")
            + (" ERRME" if i == 9 else "")
            + (" SLEEP" if i in (0, 1) else "")
        )
        cases[f"case-{i:02d}"] = {
            "input": {"prompt": prompt},
            "expected": {"contains": ["GREETING-OK"]},
            "judge": {"criteria": "The agent greets."},
        }
    return cases


@pytest.fixture(name="scripted_agent")
def scripted_agent_fixture(monkeypatch: pytest.MonkeyPatch, sandbox_dir: Path) -> Iterator[Path]:
    """`claude` → the script, both by EVALENS_CLAUDE_BIN and first on PATH (the action's install step finds it)."""
    bindir = sandbox_dir.parent / f"scripted-bin-{sandbox_dir.name}"
    bindir.mkdir()
    agent = bindir / "claude"
    agent.write_text(SCRIPTED)
    agent.chmod(0o755)
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(agent))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "scripted")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv(
        "PATH", f"{bindir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    )
    yield agent
    import shutil

    shutil.rmtree(bindir, ignore_errors=True)


def twelve_case_package(
    root: Path, engine: str = "claude-code", cases: dict[str, dict] | None = None
) -> Path:
    return make_package(root, engine=engine, cases=cases or twelve_cases(), timeout=60)
