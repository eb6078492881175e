"""Neovim's README names every setting the server reads (issue 45 #10: `evalens.skillProfile` decides how every
SKILL.md is judged, yet VS Code did not offer it and Neovim's README did not name it): a Neovim user has no
settings UI, so the README's settings paragraph is the only place to learn one exists."""

from __future__ import annotations

from evalens.server.settings import Settings
from tests.conftest import REPO

#: what the server reads that no Neovim user sets: VS Code's remembered "Run Overrides" quick pick
EDITOR_STATE = {"runOverrides"}


def test_every_server_setting_is_named_in_the_neovim_readme() -> None:
    text = (REPO / "editors" / "nvim" / "README.md").read_text(encoding="utf-8")
    start = text.index("Settings (`settings = { evalens = { ... } }`)")
    paragraph = text[start : text.index("\n\n", start)]
    names = {field.alias or name for name, field in Settings.model_fields.items()} - EDITOR_STATE
    missing = sorted(n for n in names if f"`{n}`" not in paragraph and f"`{n} " not in paragraph)
    assert missing == [], missing
