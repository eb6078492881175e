"""The shipped schemas work unchanged in yaml-language-server through its ``$schema`` modeline."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pytest_lsp import client_capabilities

from tests.conftest import REPO

YLS = REPO / ".tools" / "yls" / "node_modules" / ".bin" / "yaml-language-server"


@pytest.mark.skipif(not YLS.exists(), reason="yaml-language-server not installed (.ci/setup.sh installs it)")
async def test_case_schema_in_yaml_language_server(tmp_path: Path):
    schema = REPO / "schemas" / "uaaps-eval-case.schema.json"
    case = tmp_path / "case.yaml"
    text = (
        f"# yaml-language-server: $schema={schema}\n"
        "name: Not Kebab\ninput:\n  prompt: hi\nexpected:\n  agent-blocked: maybe\njudge: {}\n"
    )
    case.write_text(text)
    client = LanguageClient("evalens-test", "1")
    got: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params: types.PublishDiagnosticsParams):
        got.put_nowait(params)

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def on_config(params):
        return [{"validate": True, "schemaStore": {"enable": False}} for _ in params.items]

    await client.start_io(str(YLS), "--stdio")
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri()
            )
        )
        client.initialized(types.InitializedParams())
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"yaml": {"validate": True, "schemaStore": {"enable": False}}}
            )
        )
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=case.as_uri(), language_id="yaml", version=1, text=text
                )
            )
        )
        messages: list[str] = []
        deadline = asyncio.get_running_loop().time() + 30
        while asyncio.get_running_loop().time() < deadline:
            params = await asyncio.wait_for(got.get(), 30)
            messages = [d.message for d in params.diagnostics]
            if messages:
                break
        joined = "\n".join(messages)
        assert "pattern" in joined.lower() or "does not match" in joined.lower(), joined
        assert "criteria" in joined, joined
        assert "boolean" in joined.lower(), joined
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
