"""Issue 42: a cloned repository opened in VS Code, untrusted, runs nothing of its own and starts no agent.

The workspace opens in Restricted Mode (workspace trust on, its prompt off). Its ``.vscode/settings.json`` names a
server of its own (``evalens.server.path`` → a script in the repository that leaves a marker) and server
arguments. VS Code ignores both there (``restrictedConfigurations``), so the server is the one the user's settings
name; it still checks the files (the broken case's errors show), every run lens is locked and opens the trust
editor, and the fake model receives no request. One code-server start for the module
(tests/editors/code_server.py); screenshots in build/e2e/vscode-restricted/.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.editors.code_server import REPO, code_server_session, step

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-restricted"


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    run = tmp_path_factory.mktemp("vscode-restricted")
    marker = run / "WORKSPACE-SERVER-RAN"

    def prepare(ws: Path) -> None:
        evil = ws / "tools" / "server.sh"
        evil.parent.mkdir(parents=True)
        evil.write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 1\n")
        evil.chmod(0o755)
        (ws / ".vscode").mkdir(exist_ok=True)
        (ws / ".vscode" / "settings.json").write_text(
            json.dumps({"evalens.server.path": str(evil), "evalens.server.args": ["--pwn"]})
        )

    with code_server_session(
        run, ARTIFACTS, "drive_restricted.js", {}, prepare=prepare, timeout=300, untrusted=True
    ) as result:
        result["marker"] = str(marker)
        yield result


def test_an_untrusted_workspace_is_checked_but_runs_nothing(session):
    for name in ("workbench", "diagnostics", "locked-lens", "lens-opens-trust"):
        step(session, name)
    assert session.get("restrictedIndicator"), "the workspace did not open in Restricted Mode"
    lenses = session.get("lenses") or []
    segments = [part.strip() for lens in lenses for part in lens.split("|")]
    assert any(part.startswith("▶ Run eval") for part in segments), lenses
    unlocked = [part for part in segments if part != "Dry run" and "Restricted Mode" not in part]
    assert not unlocked, lenses  # every lens that would start an agent is locked; a dry run plans only
    assert not os.path.exists(session["marker"]), "the workspace's evalens.server.path ran"
    requests = ARTIFACTS / "fakemodel" / "requests.jsonl"
    assert not requests.exists() or not requests.read_text().strip(), "an agent or a judge called the model"
    assert "--pwn" not in session["ext_log"], "the workspace's evalens.server.args reached the server"
