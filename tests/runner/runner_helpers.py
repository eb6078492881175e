"""Helpers for runner tests: scratch packages, case bodies, process checks."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BLOCK_HOOK = """#!/bin/sh
# Deny any tool call that touches blocked.txt: exit 2 + a reason on stderr (Claude Code and Codex semantics).
input=$(cat)
case "$input" in
  *blocked.txt*) echo "BLOCKED_BY_POLICY: writes to blocked.txt are forbidden" >&2; exit 2 ;;
esac
exit 0
"""


def make_package(
    root: Path,
    *,
    engine: str = "claude-code",
    cases: dict[str, dict] | None = None,
    timeout: float = 60,
    judge: str | None = None,
    network: bool = False,
    writable: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> Path:
    """A small skill package: one skill, a blocking PreToolUse hook, a fixture, and the given cases."""
    import yaml

    (root / "evals" / "cases").mkdir(parents=True)
    (root / "evals" / "fixtures").mkdir()
    (root / "evals" / "fixtures" / "data.txt").write_text("fixture data\n")
    (root / "skills" / "greeter").mkdir(parents=True)
    (root / "skills" / "greeter" / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Writes greetings into output/.\n---\nWrite a greeting.\n"
    )
    (root / "hooks").mkdir()
    hook = root / "hooks" / "block.sh"
    hook.write_text(BLOCK_HOOK)
    hook.chmod(0o755)
    (root / "hooks" / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Write|Edit|Bash",
                            "hooks": [{"type": "command", "command": "hooks/block.sh"}],
                        }
                    ]
                }
            }
        )
    )
    (root / "package.agent.json").write_text(
        json.dumps({"name": "test-pkg", "version": "1.2.3", "skills": ["skills/greeter"]})
    )
    config: dict = {
        "version": 1,
        "engine": engine,
        "timeout": timeout,
        "sandbox": {"network": network},
        "env": env or {"EVAL_CFG_VAR": "from-config"},
    }
    if writable is not None:
        config["sandbox"]["writable-paths"] = writable
    if judge:
        config["judge"] = judge
    (root / "evals" / "eval-config.json").write_text(json.dumps(config))
    for i, (name, body) in enumerate((cases or {}).items()):
        data = {"name": name, **body}
        data.setdefault("judge", {"criteria": "The agent did what was asked."})
        (root / "evals" / "cases" / f"{i:02d}-{name}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return root


def case(scenario: str, *, judge: str = "pass", extra: str = "", **expected) -> dict:
    """A case body whose prompt selects a fake-model scenario and whose criteria select the judge reply."""
    body: dict = {
        "input": {"prompt": f"SCENARIO={scenario} {extra}".strip()},
        "judge": {"criteria": f"The agent completed the task. JUDGE={judge}"},
    }
    exp = {k.replace("_", "-"): v for k, v in expected.items()}
    if exp:
        body["expected"] = exp
    return body


def surviving(marker: str) -> list[int]:
    """PIDs whose command line carries ``marker`` (processes that escaped cleanup)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = (
                    Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
            except OSError:
                continue
            if marker in cmdline and int(entry) != os.getpid():
                found.append(int(entry))
    return found


def kill_surviving(marker: str) -> None:
    """SIGKILL what :func:`surviving` finds; one that exits between the listing and the kill is already gone.

    Why: a test that kills a batch's group races the agent's own exit (``--die-with-parent`` takes it down a moment
    later), so a PID listed a millisecond ago may no longer exist, and that is the outcome the cleanup wanted.
    """
    for pid in surviving(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def agents_available(engine: str) -> bool:
    from evalens.runner.engines import EngineNotFound, get_engine

    try:
        get_engine(engine).binary  # noqa: B018 - resolving the binary is the check
    except EngineNotFound:
        return False
    return True


async def run_units(
    file: Path,
    *,
    cases: list[str] | None = None,
    runs: int = 1,
    timeout_ms: float | None = None,
    **kwargs: Any,
) -> list[Any]:
    """``runner.api.run_file`` on one eval file; the results of its units (what the lens and the CLI get)."""
    from evalens.runner.api import FileRunRequest, run_file

    outcome = await run_file(
        FileRunRequest(
            file=file,
            units=cases or [],
            runs=runs,
            timeout_seconds=timeout_ms / 1000 if timeout_ms else None,
            **kwargs,
        )
    )
    return outcome.results


def run_evalens(
    *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess:
    """``python -m evalens ARGS`` in this test's environment (plus ``env``), its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "evalens", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def creator_evals(root: Path, prompt: str) -> Path:
    """A skill-creator skill ``greeting`` under ``root`` with one eval (id 1, one assertion); its evals.json."""
    skill = root / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greeting\ndescription: Greets people.\n---\nSay hello.\n")
    evals = skill / "evals" / "evals.json"
    evals.write_text(
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {"id": 1, "prompt": prompt, "expected_output": "a greeting", "assertions": ["greets"]}
                ],
            }
        )
    )
    return evals


GREETER_KEY = "greet-key-42"
GREETER_SKILL = f"---\nname: greeter\ndescription: Writes greetings into output/. Key {GREETER_KEY}.\n---\nWrite a greeting.\n"


def greeter_suite(suite: Path, tasks: dict[str, str | None]) -> Path:
    """A skilljack suite under ``suite`` whose skill ``greeter`` carries the key the fake model's ``use-skill``
    scenario needs (the scripted agent greets, GREETING-OK, only when the CLI lists the skill): one task per
    ``tasks`` entry (id → the fake judge's ``JUDGE=`` token, None: checks only, no judge criteria), each
    expecting the skill to load and the greeting. Its tasks.yaml."""
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(GREETER_SKILL)
    body = "skill: greeter\ntasks:\n"
    for name, judge in tasks.items():
        token = f" JUDGE={judge}" if judge else ""
        body += (
            f"  - id: {name}\n"
            f'    prompt: "Greet {name} SCENARIO=use-skill NEEDS={GREETER_KEY}{token}"\n'
            "    expected_skill_load: greeter\n"
            "    deterministic: { expect_skill_activation: true, expect_marker: GREETING-OK }\n"
            + ("    criteria: { adherence: { weight: 1 } }\n" if judge else "")
        )
    (suite / "tasks.yaml").write_text(body)
    return suite / "tasks.yaml"


def signals_delivered() -> None:
    """``preexec_fn`` for an ``evalens`` started to be signalled: SIGINT, SIGTERM and SIGHUP back to their default.

    A shell's ``cmd &`` starts pytest with SIGINT ignored, its children inherit that, and evalens rightly keeps an
    ignored signal ignored (as under nohup); these tests are about a signal that is delivered."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def write_script(script: Path, text: str) -> None:
    """An executable file in the script's place, swapped in at once (the sandbox binds the file as it is when
    each attempt starts, so a test can change what the next attempt runs)."""
    fresh = script.with_name(script.name + ".new")
    fresh.write_text(text)
    fresh.chmod(0o755)
    os.replace(fresh, script)


def install_scripted_claude(
    monkeypatch: pytest.MonkeyPatch, sandbox_dir: Path, script: str, name: str = "scripted-claude"
) -> Path:
    """A shell script that stands in for `claude` (``EVALENS_CLAUDE_BIN``), beside the sandboxes where the
    sandbox can run it; its provider points nowhere, so no model is ever called. The caller unlinks it."""
    agent = sandbox_dir.parent / f"{name}-{sandbox_dir.name}"
    write_script(agent, script)
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(agent))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "scripted")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    return agent
