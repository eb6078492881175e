"""``evalens triggers optimize`` on the real CLIs against the scripted model (docs/triggers.md): the scripted agent
fires the skill only when its listed description holds the key a query names (the fake's ``use-skill``), and the
scripted judge proposes two rewrites: one that adds the keys of every query (better on held-out queries too: it
is accepted) and one that adds only the training queries' keys (a training-only win: it is rejected)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available

pytestmark = pytest.mark.agents

LABELS = [True] * 6 + [False] * 2
HOLDOUT, SEED = 0.6, 0


def held_out() -> list[bool]:
    from evalens.runner.trigger_optimize import split

    return split(LABELS, HOLDOUT, SEED)


def keys() -> tuple[list[str], list[str]]:
    """The keys of the training and of the held-out should-trigger queries."""
    held = held_out()
    train = [f"opt-key-{i}" for i, w in enumerate(LABELS) if w and not held[i]]
    test = [f"opt-key-{i}" for i, w in enumerate(LABELS) if w and held[i]]
    return train, test


def rewrites() -> tuple[str, str]:
    train, test = keys()
    overfit = "Writes greetings for people. Keys " + " ".join(train) + "."
    better = "Writes greetings for people. Keys " + " ".join(train + test) + "."
    return overfit, better


@pytest.fixture(scope="module")
def optimize_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
    overfit, better = rewrites()
    scenarios: dict[str, list[dict[str, Any]]] = {
        "propose-rewrites": [{"text": json.dumps({"descriptions": [overfit, better]})}]
    }
    with FakeModelServer(
        log_dir=tmp_path_factory.mktemp("optimize-model"), idle_timeout=900, scenarios=scenarios
    ) as server:
        yield server


@pytest.fixture
def optimize_env(optimize_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> FakeModelServer:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", optimize_model.anthropic_base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", optimize_model.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    monkeypatch.setenv("EVALENS_AGENT_RETRIES", "0")
    return optimize_model


def greeter(root: Path) -> Path:
    skill = root / "greeter"
    (skill / "evals").mkdir(parents=True)
    # the scripted judge's scenario token rides in the current description, which the proposal prompt ends with;
    # the agent never sees it as the user's text (skill listings are the CLI's own context)
    (skill / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Writes greetings. SCENARIO=propose-rewrites\n---\nWrite a greeting.\n"
    )
    queries = [
        {"query": f"write a greeting number {i} SCENARIO=use-skill NEEDS=opt-key-{i}", "should_trigger": True}
        for i, w in enumerate(LABELS)
        if w
    ] + [{"query": f"what is the weather, case {i} SCENARIO=done", "should_trigger": False} for i in (6, 7)]
    (skill / "evals" / "trigger-eval.json").write_text(json.dumps(queries))
    return skill


def optimize(skill: Path, engine: str, *args: str) -> subprocess.CompletedProcess:
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    return subprocess.run(
        [sys.executable, "-m", "evalens", "triggers", "optimize", str(skill), "--engine", engine, *model]
        + ["--holdout", str(HOLDOUT), "--seed", str(SEED), "--timeout", "90", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=900,
    )


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_accepts_a_held_out_win_and_rejects_a_training_only_win(
    engine: str, tmp_path: Path, optimize_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    skill = greeter(tmp_path)
    (tmp_path / "pdf-tools").mkdir()
    (tmp_path / "pdf-tools" / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Handles PDFs.\n---\nx\n"
    )
    before = (skill / "SKILL.md").read_text()
    # a folder of skills that holds the skill itself too: it is left out, pdf-tools is installed beside it
    out = optimize(skill, engine, "--with-installed", str(tmp_path), "--json", str(tmp_path / "opt.json"))
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "split: 3 training and 5 held-out queries (seed 0)" in out.stdout
    assert "current: training 1/3 runs right, held-out 1/5" in out.stdout
    assert "rewrite 1: rejected: training 3/3 (was 1), held-out +0.00" in out.stdout, out.stdout
    assert "the held-out interval does not exclude 0 (a training-only win)" in out.stdout
    assert "rewrite 2: accepted: training 3/3 (was 1), held-out +0.80 [+0.19" in out.stdout, out.stdout
    assert "winner: rewrite 2 (review it; nothing was written)" in out.stdout
    _overfit, better = rewrites()
    assert f'+description: "{better}"' in out.stdout and "-description: Writes greetings." in out.stdout
    assert (skill / "SKILL.md").read_text() == before  # never written
    # the judge saw the co-installed skill (and only the training queries), never the held-out ones
    assert optimize_env.state.log_dir is not None
    asked = [
        b.read_text()
        for b in optimize_env.state.log_dir.glob("*-body.json")
        if "Write 3 different rewrites" in b.read_text()
    ]
    assert asked and all("- pdf-tools: Handles PDFs." in body for body in asked)
    train_keys, held_keys = keys()
    assert all(f"NEEDS={k}" in asked[-1] for k in train_keys)
    assert not any(f"NEEDS={k}" in body for body in asked for k in held_keys)
    result = json.loads((tmp_path / "opt.json").read_text())
    assert result["winner"] == "rewrite 2" and result["error"] is None
    assert [c["accepted"] for c in result["candidates"]] == [False, True]
    assert result["cost"]["agent_runs"] == 8 + 8 + 8 and result["cost"]["judge_calls"] == 1
    assert result["cost"]["tokens"] > 0
    if engine == "claude-code":
        assert result["cost"]["agent_usd"] > 0


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_max_cost_spent_is_an_error_not_a_verdict(
    engine: str, tmp_path: Path, optimize_env, sandbox_dir: Path
) -> None:
    """A budget spent before the current description ran: nothing was measured, so nothing is decided."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    skill = greeter(tmp_path)
    out = optimize(skill, engine, "--max-cost", "0")
    assert out.returncode == 1, out.stdout + out.stderr[-3000:]
    assert "ERROR: the current description's runs failed" in out.stdout and "budget spent" in out.stdout
    assert "cost: 0 agent run(s)" in out.stdout
