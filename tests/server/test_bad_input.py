"""Hostile documents: each yields a clear diagnostic quickly and the server keeps answering."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.core.test_documents import BOMB
from tests.server.conftest import open_and_diagnose

BAD_INPUTS = {
    "alias-bomb": ("yaml", BOMB, "alias"),
    "huge": ("yaml", "name: a\n" + "# padding padding padding padding\n" * 330_000, "MB"),
    "tabs": ("yaml", "name: a\ninput:\n\tprompt: x\n", "tab"),
    "duplicate-keys": (
        "yaml",
        "name: a\nname: b\ninput: {prompt: x}\njudge: {criteria: x}\n",
        "Duplicate key",
    ),
    "multi-doc": ("yaml", "name: a\n---\nname: b\n", "Several YAML documents"),
    "binary": ("yaml", "name: a\x00\x01\n", "NUL"),
    "json-comments": ("json", '{\n  // hi\n  "version": 1, "engine": "codex"\n}', "Comments are not allowed"),
    "json-trailing-comma": ("json", '{"version": 1, "engine": "codex",}', "Trailing comma"),
}


@pytest.mark.parametrize("kind", list(BAD_INPUTS))
async def test_bad_input_is_diagnosed_fast(client: LanguageClient, tmp_path: Path, kind: str):
    language, text, needle = BAD_INPUTS[kind]
    warm = from_fs_path(str(tmp_path / "pkg" / "evals" / "cases" / "warm.yaml"))
    await open_and_diagnose(client, warm, "name: warm\n", "yaml")
    elapsed = float("inf")
    for attempt in range(3):  # best of three: the machine may be busy with other tests
        name = "eval-config.json" if language == "json" else f"cases/bad{attempt}.yaml"
        path = tmp_path / f"pkg{attempt}" / "evals" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        uri = from_fs_path(str(path))
        started = time.perf_counter()
        diags = await open_and_diagnose(client, uri, text, language)
        elapsed = min(elapsed, time.perf_counter() - started)
        if elapsed < 0.2:
            break
    assert any(needle.lower() in d.message.lower() for d in diags), [d.message for d in diags]
    assert all(d.range.start.line >= 0 for d in diags)
    limit = 0.2 if kind != "huge" else 1.0  # the 10 MB case includes moving 10 MB through the JSON-RPC pipe
    assert elapsed < limit, f"{kind}: {elapsed * 1000:.0f} ms"
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=warm), position=types.Position(line=0, character=0)
        )
    )
    assert hover is None or hover.contents  # still answering
