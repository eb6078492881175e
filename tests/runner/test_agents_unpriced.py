"""Issue 44: a ``--max-cost`` batch whose runs cannot be priced is refused before any run, unless
``--allow-unpriced`` (then it warns before the first run). Codex reports tokens only, and its newest default model
is not in the shipped price table, so the budget counted its runs as $0 and never stopped; evalens said so only
after the batch. Claude Code reports each run's cost, so its batches start as before. On both CLIs, through
``evalens eval`` and ``evalens run``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, creator_evals, make_package

pytestmark = pytest.mark.agents


def _evalens(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalens", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        timeout=300,
    )


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_max_cost_refuses_to_start_when_it_cannot_price_the_runs(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg", engine=engine, cases={"greet": case("pass", contains=["GREETING-OK"])}
    )
    before = len(model_env.records)
    # the CLI's default model (Codex: unknown until it runs) and a model no table prices
    for model in ([], ["--model", "gpt-unpriced-test"]):
        out = _evalens("eval", "--package", str(pkg), *model, "--no-judge", "--max-cost", "5", "--json")
        if engine == "claude-code":  # it reports each run's cost: the budget holds
            assert out.returncode == 0, out.stderr[-2000:]
            assert json.loads(out.stdout)["cases"][0]["verdict"] == "PASS"
            assert "cannot hold" not in out.stderr
            continue
        assert out.returncode == 2, out.stderr[-2000:]
        assert "--max-cost cannot hold" in out.stderr and "--allow-unpriced" in out.stderr, out.stderr[-2000:]
        if model:
            assert "no price for gpt-unpriced-test" in out.stderr, out.stderr[-2000:]
    if engine == "codex":
        assert len(model_env.records) == before, "a refused batch started an agent"
        # told otherwise: it runs, and says before the first run that those runs count $0
        out = _evalens("eval", "--package", str(pkg), "--no-judge", "--max-cost", "5", "--allow-unpriced")
        assert out.returncode == 0, out.stderr[-2000:]
        warned = out.stderr.find("cannot be priced")
        assert 0 <= warned < out.stderr.find("PASS"), out.stderr[-2000:]
        # a priced model starts as before
        table = tmp_path / "prices.json"
        table.write_text(json.dumps({"gpt-priced-test": {"input": 1.0, "output": 2.0}}))
        out = _evalens(
            "eval", "--package", str(pkg), "--no-judge", "--max-cost", "5", "--model", "gpt-priced-test",
            env={"EVALENS_PRICES": str(table)},
        )  # fmt: skip
        assert out.returncode == 0 and "cannot" not in out.stderr, out.stderr[-2000:]
    # evalens run (the file suites): the same rule
    evals = creator_evals(tmp_path, "Greet SCENARIO=pass JUDGE=pass")
    out = _evalens(
        "run", str(evals), "--engine", engine, "--runs", "1", "--max-cost", "5",
        "--output-dir", str(tmp_path / "out"),
    )  # fmt: skip
    if engine == "codex":
        assert out.returncode == 2 and "--max-cost cannot hold" in out.stderr, (out.stdout + out.stderr)[
            -2000:
        ]
    else:
        assert out.returncode in (0, 1) and "cannot hold" not in out.stderr, (out.stdout + out.stderr)[-2000:]
