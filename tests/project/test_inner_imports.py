"""Imports inside functions are the exception, and each one says why (#23 item 7).

A function-level import hides a dependency from readers and tools. It stays only
where lazy loading is measured to matter (a heavy SDK kept out of `evalens
validate` or the server's start) or where a real import cycle forces it. The
reason is written as a ``# lazy: …`` or ``# cycle: …`` comment on the import's
line or in the comment lines directly above it (one comment may head a group of
consecutive imports). The second half checks the "measured to matter" side: the
light entry points must not load the heavy libraries.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("evalens", "runner", "server")
REASON = ("# lazy:", "# cycle:")


def _reasoned(lines: list[str], lineno: int) -> bool:
    """True when the import at ``lineno`` (1-based) carries or sits under a reason."""
    if any(tag in lines[lineno - 1] for tag in REASON):
        return True
    i = lineno - 2
    while i >= 0:
        text = lines[i].strip()
        if text.startswith("#"):
            if any(text.startswith(tag) for tag in REASON):
                return True
        elif not (text.startswith(("import ", "from ")) or text.endswith((",", "(")) or text == ")"):
            return False
        i -= 1
    return False


def unexplained_imports(package: str) -> list[str]:
    """Every import inside a function of ``package`` that gives no reason."""
    found: list[str] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for fn in ast.walk(ast.parse(source)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and not _reasoned(lines, node.lineno):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return sorted(set(found))


@pytest.mark.parametrize("package", PACKAGES)
def test_every_inner_import_says_why(package: str) -> None:
    missing = unexplained_imports(package)
    assert not missing, (
        f"{len(missing)} imports inside functions without '# lazy:' or '# cycle:':\n"
        + "\n".join(missing[:60])
    )


def test_reason_detection() -> None:
    """The checker itself: a reason above a group counts, an unrelated comment does not."""
    lines = [
        "def f():",
        "    # lazy: the SDK takes 2 s to import",
        "    import anthropic",
        "    from openai import (",
        "        OpenAI,",
        "    )",
        "    x = 1",
        "    import json",
        "    # just a note",
        "    import yaml",
        "    import re  # cycle: re imports us",
    ]
    assert _reasoned(lines, 3)
    assert _reasoned(lines, 4)
    assert not _reasoned(lines, 8)
    assert not _reasoned(lines, 10)
    assert _reasoned(lines, 11)


def _loaded_after(code: str, modules: list[str]) -> list[str]:
    probe = (
        code
        + "\nimport sys\nprint('LOADED:' + ','.join(m for m in MODS if m in sys.modules), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", f"MODS = {modules!r}\n" + probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    marker = [line for line in out.stderr.splitlines() if line.startswith("LOADED:")]
    return [m for m in marker[-1].removeprefix("LOADED:").split(",") if m]


HEAVY_SDKS = ["anthropic", "openai"]


def test_validate_loads_no_sdk_no_server_no_runner() -> None:
    """`evalens validate` is what pre-commit hooks run: measured, anthropic alone costs 2-3 s to import."""
    code = (
        "import sys\nsys.argv = ['evalens', 'validate', 'examples']\n"
        "from evalens.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
    )
    assert _loaded_after(code, [*HEAVY_SDKS, "pygls", "evalens.server", "evalens.runner.sandbox"]) == []


def test_server_start_loads_no_sdk() -> None:
    """The language server answers its first request before any judge SDK is needed."""
    assert _loaded_after("import evalens.server.server", HEAVY_SDKS) == []
