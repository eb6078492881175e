"""The "✗ N errors" lens follows a fix made outside the buffer (issue 27 #4): creating the missing file (the
quick fix) changes the count, and the server asks the editor to re-read lenses instead of leaving the old count
until the next keystroke. Real server, both client profiles (Neovim 0.7 has no lens refresh: it re-asks itself)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server.conftest import open_and_diagnose
from tests.server.run_fixtures import lens_titles, lenses


async def test_problem_lens_is_refreshed_when_the_missing_file_appears(
    client: LanguageClient, tmp_path: Path
):
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets people. Use when asked.\n---\nHi\n"
    )
    path = skill / "evals" / "evals.json"
    text = (
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Summarise the notes",
                        "expected_output": "a summary",
                        "files": ["evals/notes.md"],
                        "assertions": ["The reply summarises the notes"],
                    }
                ],
            },
            indent=2,
        )
        + "\n"
    )
    path.write_text(text)
    uri = from_fs_path(str(path))
    await open_and_diagnose(client, uri, text, "json")
    assert "✗ 1 error: fix to run" in lens_titles(await lenses(client, uri))
    before = client.lens_refreshes  # type: ignore[attr-defined]

    notes = skill / "evals" / "notes.md"
    notes.write_text("")  # what the CreateFile quick fix does; the editor's watcher reports it
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=from_fs_path(str(notes)), type=types.FileChangeType.Created)]
        )
    )

    if client.profile == "visual-studio-code":  # type: ignore[attr-defined]
        for _ in range(500):
            if client.lens_refreshes > before:  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.02)
        assert client.lens_refreshes > before  # type: ignore[attr-defined]
    titles = lens_titles(await lenses(client, uri))
    assert "✗ 1 error: fix to run" not in titles and "▶ Run: Summarise the notes" in titles, titles

    # a change that moves no problem asks for nothing
    settled = client.lens_refreshes  # type: ignore[attr-defined]
    (skill / "evals" / "other.md").write_text("x")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(
                    uri=from_fs_path(str(skill / "evals" / "other.md")), type=types.FileChangeType.Created
                )
            ]
        )
    )
    await lenses(client, uri)  # answered after the notification was handled
    assert client.lens_refreshes == settled  # type: ignore[attr-defined]
