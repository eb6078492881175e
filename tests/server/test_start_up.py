"""``evalens lsp`` answers ``initialize`` before its feature modules load (issue 43, server/startup.py): the
answer is the one the full registration gives, only what it needs is imported before it is written, and the
messages that come before the features have loaded are handled, in order, once they have."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import client_capabilities

from evalens.server import startup
from evalens.server.server import create_server
from tests.conftest import REPO
from tests.server.raw_client import RawServer, frame

OPTIONS = {"evalens": {"maxParallelRuns": 3, "codeLens": False}}


def _capabilities(editor: str) -> dict[str, Any]:
    caps: dict[str, Any] = default_converter().unstructure(client_capabilities(editor))
    return caps


def _initialize(editor: str) -> dict[str, Any]:
    return {
        "processId": None,
        "rootUri": None,
        "capabilities": _capabilities(editor),
        "initializationOptions": OPTIONS,
    }


class _Writer:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))


def test_the_manifest_is_what_the_features_register():
    """``server/capabilities.json`` (what the answer is built from) is the live registration's; after a change
    to a feature's options or commands, ``python -m evalens.server.startup`` writes it again."""
    assert startup.read_manifest() == startup.full_record(), "run: python -m evalens.server.startup"


async def test_the_lazy_answer_is_the_full_registrations():
    """The real process (placeholders) answers exactly what a server with every feature registered answers:
    every capability, trigger character, legend and command name, for VS Code's and Neovim's capabilities."""
    for editor in ("visual-studio-code", "neovim"):
        server = create_server()
        writer = _Writer()
        server.protocol.set_writer(writer)  # type: ignore[arg-type]
        server.protocol.dispatch(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _initialize(editor)}
        )
        eager = next(m for m in writer.sent if m.get("id") == 1)
        with RawServer() as lazy:
            answer = lazy.call("initialize", _initialize(editor))
        assert "error" not in answer
        assert answer["result"] == eager["result"], editor
        commands = answer["result"]["capabilities"]["executeCommandProvider"]["commands"]
        assert commands == startup.read_manifest()["commands"]
        assert server.settings.max_parallel_runs == 3  # the eager server applied the options at once


PROBE = r"""
import sys
from pygls import io_

OUT = sys.argv[1]
_write = io_.StdoutWriter.write


def write(self, data):
    if not getattr(write, "done", False):
        write.done = True
        with open(OUT, "w") as f:
            f.write("\n".join(sorted(sys.modules)))
    return _write(self, data)


io_.StdoutWriter.write = write
from evalens.cli import main

raise SystemExit(main(["lsp"]))
"""


def test_the_answer_waits_for_no_model_and_no_feature():
    """What is imported when the initialize answer is written: pygls, lsprotocol and the server's shell, not
    pydantic, PyYAML, the wire models, the validation path, the formats or any feature module."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _initialize("neovim")})
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "modules.txt"
        done = subprocess.run(
            [sys.executable, "-c", PROBE, str(out)],
            input=frame(body),
            capture_output=True,
            timeout=60,
            cwd=REPO,
        )
        assert b'"capabilities"' in done.stdout, done.stderr.decode()[-2000:]
        modules = set(out.read_text().split())
    assert "pygls.lsp.server" in modules and "evalens.server.startup" in modules  # the probe saw the answer
    heavy = {
        m
        for m in modules
        if m.split(".")[0] in ("pydantic", "pydantic_core", "yaml", "regex", "jsonschema")
        or m.startswith(("evalens.server.features", "evalens.core.models", "evalens.core.formats."))
        or m
        in (
            "evalens.server.wire",
            "evalens.server.settings",
            "evalens.server.convert",
            "evalens.core.validate",
            "evalens.core.config",
            "evalens.core.index",
            "evalens.core.schema_check",
            "evalens.core.documents",
            "importlib.metadata",
            "pkg_resources",
        )
    }
    assert not heavy, sorted(heavy)


def test_what_comes_before_the_features_are_loaded_is_handled_in_order(tmp_path: Path):
    """initialize, initialized, didOpen, a completion and didChange in one write: the placeholders answer
    none of them; each is handled by its feature, in order, with the initialization options applied."""
    pkg = tmp_path / "pdf-tools"
    shutil.copytree(REPO / "examples" / "pdf-tools", pkg)
    case = pkg / "evals" / "cases" / "01-extract-text.yaml"
    text = case.read_text(encoding="utf-8")
    uri = case.as_uri()
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _initialize("visual-studio-code")},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "textDocument/completion",
            "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
        },
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [{"text": text + "bogus_key: 1\n"}],
            },
        },
        {"jsonrpc": "2.0", "id": 3, "method": "evalens/stats", "params": {}},
    ]
    with RawServer(cwd=pkg) as server:
        server.auto_answer = True
        server.send_raw(b"".join(frame(json.dumps(m)) for m in messages))
        assert "result" in server.response(1, 30)
        completion = server.response(2, 30)
        assert "error" not in completion and completion["result"], completion
        stats = server.response(3, 30)
        assert "error" not in stats, stats
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            published = [
                m["params"]
                for m in server.notifications(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
                if m["params"]["uri"] == uri
            ]
            if published and published[-1].get("version") == 2:
                break
        assert published and published[-1].get("version") == 2, published
        assert any("bogus_key" in d["message"] for d in published[-1]["diagnostics"]), published[-1]
        assert "placeholder" not in server.stderr()
