"""Issue 42, attack 11: the rule-tuning config a repository commits is read like an eval file. A committed
``evalens.toml -> /dev/stdin`` made the server read its own LSP channel (no diagnostics, no hover, ever); a link
to ``/dev/zero`` ended in a ``MemoryError`` traceback. Both now give one message naming the file and why, at once, and the server goes on."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.server.raw_client import RawServer

CASE = "name: ok\ninput:\n  prompt: Summarise the file.\njudge:\n  criteria: Mentions the title.\n"


def _published(s: RawServer, uri: str, timeout: float = 15) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [m for m in s.notifications("textDocument/publishDiagnostics") if m["params"]["uri"] == uri]
        if found:
            return found
        time.sleep(0.02)
    raise TimeoutError(f"no diagnostics for {uri}")


@pytest.mark.parametrize("target", ["/dev/stdin", "/dev/zero", "fifo"])
def test_a_config_link_to_a_device_or_fifo_is_named_not_read(tmp_path: Path, target: str) -> None:
    pkg = tmp_path / "pkg"
    cases = pkg / "evals" / "cases"
    cases.mkdir(parents=True)
    (pkg / ".git").mkdir()  # the config search stops here
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
        target = str(tmp_path / "fifo")
    (pkg / "evalens.toml").symlink_to(target)
    case = cases / "ok.yaml"
    case.write_text(CASE)
    uri = case.as_uri()
    with RawServer() as s:
        s.initialize(root_uri=pkg.as_uri())
        s.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": CASE}},
        )
        _published(s, uri)  # the case is validated: the server did not block on the config
        shown: list[str] = []
        deadline = time.monotonic() + 10
        while not shown and time.monotonic() < deadline:
            shown = [m["params"]["message"] for m in s.notifications("window/showMessage")]
            time.sleep(0.02)
        assert any("evalens.toml: cannot read: it is" in m and "not a regular file" in m for m in shown), (
            shown
        )
        started = time.monotonic()
        hover = s.call(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}},
            timeout=10,
        )
        assert time.monotonic() - started < 5
        assert "error" not in hover, hover
