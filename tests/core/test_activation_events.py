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
    globs = [e for e in _activation_events() if e.startswith("workspaceContains:")]
    assert globs == [f"workspaceContains:{k.glob}" for k in kinds.file_kinds()]
    for glob in ("**/task.md", "**/*trigger*.json", "**/evals/**/*.json"):
        assert f"workspaceContains:{glob}" in _activation_events()


def test_an_open_run_page_wakes_it_after_a_reload():
    """Issue 45 #10: VS Code restores a run page (a webview of type ``evalens.run``) only through the extension's
    panel serializer, so the extension wakes for it; nothing else but the file kinds wakes it."""
    others = [e for e in _activation_events() if not e.startswith("workspaceContains:")]
    assert others == ["onWebviewPanel:evalens.run"]
