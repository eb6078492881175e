"""A `claude plugin eval` grader written from evalens's skeleton over LSP (issue 45 #5, as for the other formats):
its rubric left as the skeleton wrote it is the ``skeleton-placeholder`` error on the rubric, with no ignore
offered; the case's "▶ Run" lens answers ERROR with
the reason and the fake model gets no request (no agent, no judge); once the user writes the rubric the error
goes."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from evalens.core.formats.registry import by_id
from evalens.core.placeholders import GRADER_RUBRIC, refusal
from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.fakemodel.server import FakeModelServer
from tests.server.run_fixtures import lenses, run_lens, start_run_client, stop_run_client, wait_until

OWN = "The reply greets Ada by name."


def _have_claude() -> bool:
    """A run's preflight asks for the CLI before it reaches the refusal, so the run needs it installed (the
    refusal itself starts nothing)."""
    try:
        find_binary("claude", "EVALENS_CLAUDE_BIN")
    except EngineNotFound:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not _have_claude(), reason="claude CLI not installed (run .ci/install-agents.sh)"
)


def _plugin(root: Path) -> Path:
    """A plugin with one case, `greet`: its prompt.md and an empty grader file; returns the case folder."""
    plugin = root / "greet-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "greet-plugin", "version": "0.1.0"}')
    case = plugin / "evals" / "greet"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("---\nruns: 1\n---\n\nSCENARIO=done Greet Ada.\n")
    (case / "graders" / "criteria.md").write_text("")
    return case


def _open(client: LanguageClient, path: Path) -> str:
    """Open ``path`` as the Markdown an editor opens it as (the shared helper opens YAML or JSON)."""
    uri = from_fs_path(str(path))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="markdown", version=1, text=path.read_text()
            )
        )
    )
    return uri


def _change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def _placeholder(client: LanguageClient, uri: str, present: bool) -> list[types.Diagnostic]:
    def found() -> list[types.Diagnostic]:
        return [d for d in client.diagnostics.get(uri, []) if d.code == "skeleton-placeholder"]

    await wait_until(lambda: bool(found()) == present, timeout=30)
    return found()


async def test_the_grader_skeleton_is_an_error_and_its_case_is_refused(tmp_path: Path):
    case = _plugin(tmp_path)
    with FakeModelServer(idle_timeout=300) as fake:
        client = await start_run_client(fake, tmp_path, "visual-studio-code")
        try:
            grader = case / "graders" / "criteria.md"
            uri = _open(client, grader)
            fmt = by_id("plugin-eval-grader")
            assert fmt is not None
            text = fmt.skeleton(False) or ""  # the grader skeleton as written, its rubric left as it is
            assert GRADER_RUBRIC in text
            _change(client, uri, 2, text)
            (left,) = await _placeholder(client, uri, True)
            assert left.severity == types.DiagnosticSeverity.Error
            assert left.range.start.line == text.splitlines().index(GRADER_RUBRIC)
            assert "will not judge a placeholder" in left.message
            actions = await client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=left.range,
                    context=types.CodeActionContext(diagnostics=[left]),
                )
            )
            titles = [a.title for a in actions or []]
            assert not any(t.startswith("Ignore `skeleton-placeholder`") for t in titles), titles

            grader.write_text(text)  # saved as the skeleton left it: the run reads the disk
            prompt = _open(client, case / "prompt.md")
            found = await lenses(client, prompt)
            run = next(lens for lens in found if lens.command and lens.command.title == "▶ Run")
            result = await run_lens(client, run, timeout=120)
            why = refusal("the `criteria` grader's criteria (graders/criteria.md)", GRADER_RUBRIC)
            assert result["verdict"] == "ERROR" and result["reason"] == why, result
            assert fake.records == []  # no agent, no judge

            _change(client, uri, 3, text.replace(GRADER_RUBRIC, OWN))
            assert await _placeholder(client, uri, False) == []
        finally:
            await stop_run_client(client)
