"""The docs' editor captures come from the e2e tests: with ``EVALENS_DOCS_IMG`` set (never in CI, so a test
run does not rewrite the docs) a test also writes what it saw to docs/img/. The code-server drivers take the
same switch for their PNG screenshots (``shot`` in tests/editors/vscode/lib.js); Neovim's are text captures:
the buffer's lines with the virtual text Neovim draws after them."""

from __future__ import annotations

import os

from tests.conftest import REPO

DOCS_IMG = REPO / "docs" / "img"
ENV = "EVALENS_DOCS_IMG"


def nvim_capture(version: str, name: str, lines: list[str]) -> None:
    """Write ``docs/img/nvim<07|011>-<name>.txt`` when ``EVALENS_DOCS_IMG`` is set; else nothing."""
    if not os.environ.get(ENV):
        return
    v = version.replace(".", "")
    (DOCS_IMG / f"nvim{v}-{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
