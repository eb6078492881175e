"""Per-run overrides (issue 27): the engine, model and budget a run command carries are laid over the editor's
settings for that batch only, the settings themselves unchanged; a bad override is refused with its name."""

from __future__ import annotations

import pytest
from evalens.server.features.run_focus import overridden
from evalens.server.settings import Settings
from pygls.exceptions import JsonRpcInvalidParams


def test_overrides_lay_over_the_settings_for_one_batch() -> None:
    settings = Settings()
    settings.update({"engine": "codex", "run": {"maxTokens": 5000}})
    batch = overridden(settings, {"engine": "claude-code", "model": "claude-haiku-4-5", "maxCost": 0.5})
    assert (batch.engine, batch.model, batch.run.max_cost, batch.run.max_tokens) == (
        "claude-code",
        "claude-haiku-4-5",
        0.5,
        5000,
    )
    assert (settings.engine, settings.model, settings.run.max_cost) == ("codex", None, None)
    assert overridden(settings, {"uri": "file:///x"}) is settings  # nothing to override


@pytest.mark.parametrize(
    ("arg", "name"),
    [
        ({"engine": ""}, "engine"),
        ({"model": 3}, "model"),
        ({"maxCost": -1}, "maxCost"),
        ({"maxCost": True}, "maxCost"),
    ],
)
def test_a_bad_override_is_refused_by_name(arg: dict, name: str) -> None:
    with pytest.raises(JsonRpcInvalidParams, match=name):
        overridden(Settings(), arg)
