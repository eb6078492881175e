"""Per-run overrides (issue 27): the engine, model and budget a run command carries are laid over the editor's
settings for that batch only, the settings themselves unchanged; a bad override is refused with its name."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from evalens.server.features.run_focus import overridden
from evalens.server.features.run_state import read_args
from evalens.server.settings import Settings
from evalens.server.wire import CaseCommandArgs


def _arg(raw: dict) -> CaseCommandArgs:
    """A run command's argument as the server reads it."""
    return read_args(CaseCommandArgs, (raw,), "evalens.runCase")


def test_overrides_lay_over_the_settings_for_one_batch() -> None:
    settings = Settings()
    settings.update({"engine": "codex", "run": {"maxTokens": 5000}})
    batch = overridden(settings, _arg({"engine": "claude-code", "model": "claude-haiku-4-5", "maxCost": 0.5}))
    assert (batch.engine, batch.model, batch.run.max_cost, batch.run.max_tokens) == (
        "claude-code",
        "claude-haiku-4-5",
        0.5,
        5000,
    )
    assert (settings.engine, settings.model, settings.run.max_cost) == ("codex", None, None)
    assert overridden(settings, _arg({"uri": "file:///x"})) is settings  # nothing to override


@pytest.mark.parametrize(
    ("arg", "name"),
    [
        ({"engine": ""}, "engine"),
        ({"engine": "   "}, "engine"),
        ({"engine": "e" * 201}, "engine"),
        ({"model": 3}, "model"),
        ({"maxCost": -1}, "maxCost"),
        ({"maxCost": True}, "maxCost"),
    ],
)
def test_a_bad_override_is_refused_by_name(arg: dict, name: str) -> None:
    with pytest.raises(JsonRpcInvalidParams, match=f"`{name}`"):
        _arg(arg)


def test_the_next_run_takes_the_remembered_overrides() -> None:
    """The editor's remembered overrides (``evalens.runOverrides``) are the next run's inputs: the stale check
    fingerprints against them (a run with a model override showed "· stale" at once), and a batch's own wins."""
    from evalens.server.features.run_focus import next_run

    settings = Settings()
    settings.update({"engine": "codex", "model": "gpt-5", "judge": "openai"})
    plain = next_run(settings)
    assert (plain.engine, plain.agent_model, plain.judge) == ("codex", "gpt-5", "openai")
    errors = settings.update({"runOverrides": {"engine": "claude-code", "model": "claude-e2e", "maxCost": 5}})
    assert errors == []
    nxt = next_run(settings)
    assert (nxt.engine, nxt.agent_model, nxt.judge) == ("claude-code", "claude-e2e", "openai")
    assert overridden(settings).run.max_cost == 5
    assert overridden(settings, _arg({"model": " claude-haiku-4-5 "})).model == "claude-haiku-4-5"  # stripped
    assert settings.model == "gpt-5"  # the settings themselves unchanged
    # cleared (the extension sends null for each unset override): the settings' values again
    settings.update({"runOverrides": {"engine": None, "model": None, "maxCost": None}})
    assert next_run(settings) == plain
    assert settings.update({"runOverrides": {"model": ""}}) != []  # refused by name, the rest kept
    assert next_run(settings) == plain
