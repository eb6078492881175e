"""Capture the event streams the unit tests of the stream readers read (``tests/data/streams/``).

Each installed CLI runs one scripted conversation against the fake model (``tests/fakemodel``), outside any
sandbox: a skill activation, a file write, a write a PreToolUse hook denies, and for Claude Code the tools a newer
CLI offers (ToolSearch, a subagent through Task/Agent), then the final text. The stdout lines are written as
``<engine>-<version>.jsonl`` with the run's folders replaced by ``<ws>``, so a test reads exactly what that CLI
printed. Run it after installing a new CLI (``EVALENS_TOOLS_DIR`` or ``EVALENS_CLAUDE_BIN``/``EVALENS_CODEX_BIN``
pick which one)::

    python3 -m tests.runner.capture_streams
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.fakemodel import FakeModelServer

OUT = Path(os.environ.get("EVALENS_CAPTURE_DIR") or Path(__file__).resolve().parents[1] / "data" / "streams")
"""Where the streams go: the committed ones, or ``$EVALENS_CAPTURE_DIR`` (the canary compares two CLIs there)."""
BLOCK_HOOK = """#!/bin/sh
grep -q blocked.txt || exit 0
echo 'BLOCKED_BY_POLICY: writes to output/blocked.txt are forbidden' >&2
exit 2
"""
SKILL = "---\nname: greeter\ndescription: Greets people. Use when asked to greet.\n---\nWrite a greeting.\n"
COMMON = [
    {"write": {"path": "output/result.txt", "content": "hello from the fake agent\n"}},
    {"write": {"path": "output/blocked.txt", "content": "nope\n"}},
]
SCENARIOS = {
    "capture-claude-code": [
        {"tool": "Skill", "input": {"skill": "greeter"}},
        *COMMON,
        {"tool": "ToolSearch", "input": {"query": "select:Monitor", "max_results": 1}},
        {
            "tool": "Agent",
            "input": {
                "description": "say done",
                "prompt": "SCENARIO=done",
                "subagent_type": "general-purpose",
            },
        },
        {"text": "DONE GREETING-OK"},
    ],
    "capture-codex": [
        {"shell": "cat .agents/skills/greeter/SKILL.md"},
        *COMMON,
        {"text": "DONE GREETING-OK"},
    ],
}


def _workspace(root: Path, engine: str) -> Path:
    ws = root / "ws"
    hook = root / "block.sh"
    hook.write_text(BLOCK_HOOK)
    hook.chmod(0o755)
    hooks = {"PreToolUse": [{"matcher": "Write|Bash", "hooks": [{"type": "command", "command": str(hook)}]}]}
    skills = ".claude/skills" if engine == "claude-code" else ".agents/skills"
    (ws / skills / "greeter").mkdir(parents=True)
    (ws / skills / "greeter" / "SKILL.md").write_text(SKILL)
    if engine == "claude-code":
        (ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return ws


def capture(engine: str, fake: FakeModelServer) -> Path:
    # cycle: engines.base imports the runner's engine registry, which a plain `import tests...` must not pay for
    from evalens.runner.engines import get_engine

    eng = get_engine(engine)
    version = str(eng.version() or "unknown").split()[0 if engine == "claude-code" else -1]
    root = Path(tempfile.mkdtemp(prefix="evalens-capture-", dir="/var/tmp"))
    try:
        ws = _workspace(root, engine)
        home = root / "home"
        home.mkdir()
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
        prompt = f"SCENARIO=capture-{engine} greet, then write the files"
        if engine == "claude-code":
            env |= {
                "IS_SANDBOX": "1",
                "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
                "ANTHROPIC_API_KEY": "k",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0",
            }
            argv = [str(eng.binary), "-p", prompt, "--output-format", "stream-json", "--verbose"]
            argv += [
                "--include-hook-events",
                "--setting-sources",
                "project",
                "--dangerously-skip-permissions",
            ]
        else:
            codex_home = root / "codex-home"
            codex_home.mkdir()
            (codex_home / "config.toml").write_text(
                'model = "gpt-fake"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n'
                f'[model_providers.fake]\nname = "fake"\nbase_url = "{fake.openai_base_url}"\n'
                'env_key = "FAKE_API_KEY"\nwire_api = "responses"\nsupports_websockets = false\n'
                "request_max_retries = 0\nstream_max_retries = 0\n[analytics]\nenabled = false\n"
                "[features]\nplugins = false\n"
            )
            env |= {"CODEX_HOME": str(codex_home), "FAKE_API_KEY": "k"}
            argv = [
                str(eng.binary),
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--sandbox",
                "workspace-write",
            ]
            argv += ["--", prompt]
        out = subprocess.run(
            argv, cwd=ws, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL
        )
        text = re.sub(re.escape(str(root)), "<root>", out.stdout)
        OUT.mkdir(parents=True, exist_ok=True)
        target = OUT / f"{engine}-{version}.jsonl"
        target.write_text(text)
        return target
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    with FakeModelServer(scenarios=SCENARIOS, idle_timeout=300) as fake:
        for engine in sys.argv[1:] or ["claude-code", "codex"]:
            target = capture(engine, fake)
            print(f"{target}: {len(target.read_text().splitlines())} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
