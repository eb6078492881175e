"""The VS Code extension's own unit tests (node:test, the vscode API faked) in the fast tier.

They need Node and the extension's node_modules, not an editor, so they do not wait for the code-server end-to-end
test (issue #22); about 12 s, most of it tsc.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import REPO

EXT_DIR = REPO / "vscode-extension"


def test_extension_unit_tests():
    """The extension's own unit tests (node:test, vscode API faked) run in CI through this wrapper."""
    if not (EXT_DIR / "node_modules" / ".bin" / "tsc").exists():
        pytest.skip("vscode-extension/node_modules missing (run .ci/install-vscode.sh)")
    proc = subprocess.run(
        ["npm", "test", "--silent"], cwd=EXT_DIR, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout, proc.stdout[-2000:]
