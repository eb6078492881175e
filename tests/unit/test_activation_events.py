"""The VS Code extension wakes for evalens's file kinds only (issue 27 #1): not for any YAML file (a folder with
just config.yaml got an install offer), and for every kind, task.md, trigger sets and evals/**/*.json included."""

from __future__ import annotations

import json

from evalens.core import kinds
from tests.conftest import REPO


def _activation_events() -> list[str]:
    manifest = json.loads((REPO / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
    return manifest["activationEvents"]


def test_no_activation_on_a_language():
    assert not [e for e in _activation_events() if e.startswith("onLanguage")]


def test_activation_globs_are_the_file_kinds():
    """Regenerate from evalens/core/kinds.py when this fails: the same globs the document selector uses."""
    assert _activation_events() == [f"workspaceContains:{k.glob}" for k in kinds.file_kinds()]
    for glob in ("**/task.md", "**/*trigger*.json", "**/evals/**/*.json"):
        assert f"workspaceContains:{glob}" in _activation_events()
