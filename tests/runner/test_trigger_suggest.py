"""``evalens triggers suggest`` against the scripted judge (no agent CLI runs): new should / should-not queries
as a diff of the trigger set in its own shape, repeats left out, nothing written (docs/triggers.md)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakemodel import FakeModelServer
from tests.in_process import evalens as evalens_cli

PROPOSAL = {
    "should_trigger": ["Write a birthday greeting for Ann", "greet the team <warmly>"],
    "should_not_trigger": ["Merge these two PDFs", "write a greeting for Bob"],
}


@pytest.fixture(scope="module")
def judge_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
    with FakeModelServer(
        log_dir=tmp_path_factory.mktemp("suggest-model"),
        idle_timeout=600,
        scenarios={"suggest-queries": [{"text": json.dumps(PROPOSAL)}]},
    ) as server:
        yield server


def suggest(skill: Path, server: FakeModelServer, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "ANTHROPIC_BASE_URL": server.anthropic_base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "OPENAI_BASE_URL": server.openai_base_url,
        "OPENAI_API_KEY": "test-key",
    }
    env.pop("ANTHROPIC_AUTH_TOKEN", None)
    return evalens_cli(["triggers", "suggest", str(skill), *args], env=env)


def skill(root: Path, name: str, description: str) -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nbody\n")
    return root / name


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_suggest_prints_new_queries_as_a_diff_and_writes_nothing(
    engine: str, tmp_path: Path, judge_model: FakeModelServer
) -> None:
    greeter = skill(tmp_path, "greeter", "Writes greetings. SCENARIO=suggest-queries")
    skill(tmp_path / "others", "pdf-tools", "Merges and splits PDF files.")
    (greeter / "evals").mkdir()
    existing = [{"query": "write a greeting for Bob", "should_trigger": True}]
    (greeter / "evals" / "trigger-eval.json").write_text(json.dumps(existing, indent=2) + "\n")
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    out = suggest(
        greeter, judge_model, "--engine", engine, *model, "--with-installed", str(tmp_path / "others")
    )
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    assert "already in the set: write a greeting for Bob" in out.stdout
    assert (
        "2 should-trigger and 1 should-not-trigger queries proposed (review; nothing was written)"
        in out.stdout
    )
    assert '+    "query": "greet the team <warmly>",' in out.stdout
    assert '+    "query": "Merge these two PDFs",\n+    "should_trigger": false' in out.stdout
    assert json.loads((greeter / "evals" / "trigger-eval.json").read_text()) == existing  # untouched
    # the judge was told about the other installed skill, for near misses
    bodies = [b.read_text() for b in judge_model.state.log_dir.glob("*-body.json")]  # type: ignore[union-attr]
    assert any("- pdf-tools: Merges and splits PDF files." in b for b in bodies)


def test_suggest_keeps_the_variant_shape(tmp_path: Path, judge_model: FakeModelServer) -> None:
    greeter = skill(tmp_path, "greeter", "Writes greetings. SCENARIO=suggest-queries")
    (greeter / "evals").mkdir()
    variant = {"skill_name": "greeter", "should_trigger": ["hi"], "should_not_trigger": []}
    (greeter / "evals" / "trigger-cases.json").write_text(json.dumps(variant))
    out = suggest(greeter, judge_model, "--count", "1")
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    assert '+    "Write a birthday greeting for Ann"' in out.stdout
    assert '+    "Merge these two PDFs"' in out.stdout and "greet the team" not in out.stdout  # --count 1
