"""Which tests cover a changed module: ``python -m tests.affected [PATH…] [--since REF] [--deep] [--run]``.

Why: the test tree is still organised by harness (``unit``, ``lsp``, ``runner``, ``editors``), not by module, so a
developer who changed ``runner/ci/gate.py`` could not tell which of some 300 test files exercise it (issue 41 item
5). This reads every test file's imports (``ast``, no import is executed: a second or less) and answers with the
test files that import the changed modules, directly or (``--deep``) through other product modules, as a pytest
command of the fast tier. ``--untested`` lists the product modules no test imports directly.

Paths map to modules the way the package is installed (``pyproject.toml``: ``evalens.runner`` is ``runner/``,
``evalens.server`` is ``server/``).
"""

from __future__ import annotations

import argparse
import ast
import functools
import shlex
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Installed package → folder in the checkout (pyproject.toml's package-dir).
PACKAGES = {"evalens.runner": ROOT / "runner", "evalens.server": ROOT / "server", "evalens": ROOT / "evalens"}
SKIP = {"corpus", "data", "node_modules", "__pycache__", "fixtures", "vscode"}


def module_of(path: Path) -> str | None:
    """The installed module name of a product file (None: not product code)."""
    path = path.resolve()
    for package, folder in sorted(PACKAGES.items(), key=lambda kv: -len(str(kv[1]))):
        try:
            rel = path.relative_to(folder)
        except ValueError:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts and parts[-1] == "__init__":
            parts.pop()
        return ".".join([package, *parts])
    return None


def product_modules() -> dict[str, Path]:
    """Every product module and its file."""
    out: dict[str, Path] = {}
    for folder in PACKAGES.values():
        for file in folder.rglob("*.py"):
            if "__pycache__" in file.parts:
                continue
            name = module_of(file)
            if name is not None:
                out.setdefault(name, file)
    return out


@functools.cache
def imports_of(file: Path) -> frozenset[str]:
    """The modules a file imports (``from a.b import c`` counts ``a.b`` and ``a.b.c``: ``c`` may be a module)."""
    try:
        tree = ast.parse(file.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return frozenset()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(out)


def test_files() -> list[Path]:
    return [
        f
        for f in (ROOT / "tests").rglob("*.py")
        if not SKIP & set(f.relative_to(ROOT / "tests").parts) and f.name != "affected.py"
    ]


def importers(changed: set[str], deep: bool) -> set[str]:
    """``changed`` and (``deep``) every product module that imports one of them, transitively."""
    if not deep:
        return set(changed)
    graph = {name: imports_of(file) for name, file in product_modules().items()}
    found = set(changed)
    while True:
        more = {name for name, uses in graph.items() if name not in found and uses & found}
        if not more:
            return found
        found |= more


def affected(paths: Iterable[Path], deep: bool = False) -> list[Path]:
    """The test files that import a module of ``paths`` (test files among ``paths`` are themselves)."""
    paths = [p.resolve() for p in paths]
    tests = {p for p in paths if p.is_relative_to(ROOT / "tests") and p.suffix == ".py"}
    changed = {m for p in paths if (m := module_of(p)) is not None}
    wanted = importers(changed, deep)
    for file in test_files():
        if imports_of(file) & wanted:
            tests.add(file.resolve())
    return sorted(t for t in tests if t.name.startswith("test_"))


def untested() -> list[str]:
    """Product modules that no test file imports directly."""
    used: set[str] = set()
    for file in test_files():
        used |= imports_of(file)
    return sorted(name for name in product_modules() if name not in used and not name.endswith("__main__"))


def changed_since(ref: str) -> list[Path]:
    """The checkout's files changed since ``ref`` (committed, staged or not), as git names them."""
    out = subprocess.run(
        ["git", "-C", str(ROOT), "diff", "--name-only", ref, "--"], capture_output=True, text=True, check=True
    )
    return [ROOT / line for line in out.stdout.splitlines() if line.endswith(".py")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.affected", description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="*", type=Path, help="changed files (default: --since HEAD)")
    p.add_argument("--since", metavar="REF", help="the files changed since git ref REF")
    p.add_argument(
        "--deep", action="store_true", help="also the tests of modules that import the changed ones"
    )
    p.add_argument("--run", action="store_true", help="run them (the fast tier: not agents, not editors)")
    p.add_argument("--untested", action="store_true", help="list the product modules no test imports")
    args = p.parse_args(argv)
    if args.untested:
        names = untested()
        print("\n".join(names))
        print(
            f"{len(names)} of {len(product_modules())} product modules are imported by no test",
            file=sys.stderr,
        )
        return 0
    paths = list(args.paths) or changed_since(args.since or "HEAD")
    found = affected(paths, args.deep)
    rel = [str(f.relative_to(ROOT)) for f in found]
    command = [sys.executable, "-m", "pytest", "-q", "-m", "not agents and not editors", *rel]
    if not rel:
        print("no test imports the changed modules (try --deep)", file=sys.stderr)
        return 0
    if args.run:
        return subprocess.run(command, cwd=ROOT).returncode
    print("\n".join(rel))
    print(shlex.join(["python3", *command[1:]]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
