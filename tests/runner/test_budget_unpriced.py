"""Which batches ``--max-cost`` can hold before any run (runner/budget.py, issue 44): Claude Code reports each
run's cost; Codex only tokens, priced from the table when it knows the model, never its CLI-chosen default."""

from __future__ import annotations

from evalens.runner.budget import refuse_unpriced, unpriced_before


def test_only_runs_that_cannot_be_priced_are_named() -> None:
    assert unpriced_before("claude-code", None) is None  # the CLI reports the cost
    assert unpriced_before("codex", "gpt-5-codex") is None  # in the shipped table
    assert unpriced_before("codex", "gpt-5-2025-08-07") is None  # priced as gpt-5 (its prefix)
    assert "default model is chosen by the CLI" in (unpriced_before("codex", None) or "")
    assert "no price for gpt-unknown" in (unpriced_before("codex", "gpt-unknown") or "")


def test_max_cost_refuses_unless_told_otherwise_or_nothing_would_run() -> None:
    assert "--max-cost cannot hold" in (refuse_unpriced("codex", None, 1.0, False) or "")
    assert refuse_unpriced("codex", None, 1.0, True) is None  # --allow-unpriced
    assert refuse_unpriced("codex", None, None, False) is None  # no --max-cost: nothing to hold
    assert refuse_unpriced("codex", None, 0.0, False) is None  # a zero budget starts no run
    assert refuse_unpriced("claude-code", None, 1.0, False) is None
