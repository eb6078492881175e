"""Issue 28 against the real `claude` and `codex` CLIs and a scripted model: a hostile reply cannot hang a run
through an eval file's regex (B4), nor steer the judge by writing its own prompt sections (B3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available

pytestmark = pytest.mark.agents

ENGINES = ["claude-code", "codex"]
KEY = "hardening-key-28"
SKILL = f"---\nname: greeter\ndescription: Writes greetings. Key {KEY}.\n---\nWrite a greeting.\n"


def _activate_then(text: str) -> list[dict]:
    return [{"activate": "{listed_skill}"}, {"text": text}]


SCENARIOS = {
    "redos-a": [{"needs_skill": {"then": "redos-a-go", "else": "done"}}],
    "redos-a-go": _activate_then("a" * 34 + "!"),
    "redos-b": [{"needs_skill": {"then": "redos-b-go", "else": "done"}}],
    "redos-b-go": _activate_then("a" * 40 + "!"),
}


@pytest.fixture(scope="module")
def hostile_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
    with FakeModelServer(log_dir=tmp_path_factory.mktemp("hardening-model"), idle_timeout=600,
                         scenarios=SCENARIOS) as fake:
        yield fake


def _env(fake: FakeModelServer, sandbox_dir: Path) -> dict[str, str]:
    return {**os.environ, "EVALENS_SANDBOX_DIR": str(sandbox_dir), "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
            "ANTHROPIC_API_KEY": "test-key", "OPENAI_BASE_URL": fake.openai_base_url, "OPENAI_API_KEY": "test-key"}


@pytest.mark.parametrize("engine", ENGINES)
def test_backtracking_regex_cannot_hang_a_run(engine: str, tmp_path: Path, hostile_model: FakeModelServer,
                                              sandbox_dir: Path) -> None:
    """B4: `expect_regex: ["^(a+)+$"]` against `a`×34 + `!` hung `evalens run` forever; now it answers at once
    (FAIL, no match), and a pattern the bounded engine cannot finish either is ERROR "check timed out"."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed")
    suite = tmp_path / "suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(SKILL)
    (suite / "tasks.yaml").write_text(
        "skill: greeter\ntasks:\n"
        f"  - id: issue-pattern\n    prompt: \"Greet SCENARIO=redos-a NEEDS={KEY}\"\n"
        "    expected_skill_load: greeter\n    deterministic: { expect_regex: ['^(a+)+$'] }\n"
        f"  - id: alternation\n    prompt: \"Greet SCENARIO=redos-b NEEDS={KEY}\"\n"
        "    expected_skill_load: greeter\n    deterministic: { expect_regex: ['^(a|aa)+$'] }\n")
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "evalens", "run", str(suite / "tasks.yaml"), "--engine", engine,
                          *model, "--timeout", "60000", "--no-judge", "--output-dir", str(tmp_path / "results")],
                         capture_output=True, text=True, env=_env(hostile_model, sandbox_dir), timeout=240)
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    assert time.monotonic() - started < 200
    results = json.loads(next((tmp_path / "results").glob("*.json")).read_text())
    text = json.dumps(results["tasks"])
    assert "check timed out: expect_regex[0] /^(a|aa)+$/ ran longer than 2 s" in text, text[-3000:]
    assert "/^(a+)+$/ did not match" in text, text[-3000:]
    assert out.returncode == 1, out.stdout
