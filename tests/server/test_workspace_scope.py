"""Issue 28 B7 against the real server: commands that run agents or write files stay inside the workspace folders.
(A request whose id is a fraction is answered -32600: tests/server/test_protocol.py, on its shared server.)"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import EXAMPLE
from tests.server.raw_client import RawServer


def _two_packages(tmp_path: Path) -> tuple[Path, Path]:
    inside = tmp_path / "ws" / "pdf-tools"
    outside = tmp_path / "elsewhere" / "pdf-tools"
    for dest in (inside, outside):
        shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("reports"))
    return inside, outside


def _command(s: RawServer, command: str, arg: dict) -> dict:
    return s.call("workspace/executeCommand", {"command": command, "arguments": [arg]}, timeout=60)


def test_commands_outside_the_workspace_are_refused(tmp_path: Path) -> None:
    inside, outside = _two_packages(tmp_path)
    case_rel = "evals/cases/01-extract-text.yaml"
    broken = "evals/cases/03-broken.yaml"
    with RawServer() as s:
        s.initialize(root_uri=(tmp_path / "ws").as_uri())
        for arg in (
            {"uri": (outside / case_rel).as_uri(), "dryRun": True},
            {"uri": (outside / case_rel).as_uri()},
        ):
            for command in ("evalens.runCase", "evalens.runFile"):
                reply = _command(s, command, arg)
                assert reply.get("error", {}).get("code") == -32803, (command, arg, reply)
                assert "outside the workspace folders" in reply["error"]["message"]
        reply = _command(s, "evalens.runAll", {"uri": (outside / case_rel).as_uri()})
        assert "outside the workspace folders" in reply.get("error", {}).get("message", ""), reply

        skill = outside / "skills" / "pdf-tools" / "SKILL.md"
        s.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": skill.as_uri(),
                    "languageId": "markdown",
                    "version": 1,
                    "text": skill.read_text(),
                }
            },
        )
        before = sorted(p.name for p in (outside / "evals" / "cases").iterdir())
        reply = _command(s, "evalens.newCase", {"uri": skill.as_uri(), "reveal": False})
        assert "outside the workspace folders" in reply.get("error", {}).get("message", ""), reply
        assert sorted(p.name for p in (outside / "evals" / "cases").iterdir()) == before

        target = outside / "evals" / "fixtures" / "report.pdf"
        reply = _command(s, "evalens.createFile", {"uri": (outside / broken).as_uri(), "path": str(target)})
        assert "outside the workspace folders" in reply.get("error", {}).get("message", ""), reply
        assert not target.exists()

        # inside the workspace the same commands work
        reply = _command(s, "evalens.runCase", {"uri": (inside / case_rel).as_uri(), "dryRun": True})
        assert "result" in reply, reply
        inside_target = inside / "evals" / "fixtures" / "report.pdf"
        reply = _command(
            s, "evalens.createFile", {"uri": (inside / broken).as_uri(), "path": str(inside_target)}
        )
        assert reply.get("result", {}).get("created") is True, reply
