"""The package index: what a skill package holds (skills, hooks, agents, fixtures, cases).

Cross-file rules, completion and definition all ask this one index. It is cached per package root and
dropped when the server learns that files changed (watched files, saves, edits of case files).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from evalens.core.documents import parse
from evalens.core.problems import Span
from evalens.core.regular_files import read_regular_bytes

TextReader = Callable[[Path], str | None]
_NAME_LINE = re.compile(r"^(name)[ \t]*:[ \t]*([^#\n]*?)[ \t]*(?:#.*)?$", re.MULTILINE)


def read_disk(path: Path) -> str | None:
    """A regular file's text (never a FIFO or device, at most 16 MB), else None."""
    raw = read_regular_bytes(path, 16 << 20)
    if raw is None or len(raw) > 16 << 20:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass(slots=True)
class SkillInfo:
    name: str
    path: Path  # SKILL.md
    description: str = ""


@dataclass(slots=True)
class HookInfo:
    event: str
    path: Path  # hooks.json
    line: int = 0


@dataclass(slots=True)
class CaseRef:
    name: str
    path: Path
    span: Span


def normalise_event(event: str) -> str:
    """`pre-tool-use`, `PreToolUse` and `pre_tool_use` name the same hook event."""
    return re.sub(r"[-_\s]", "", event).lower()


def evals_parent(path: Path) -> Path | None:
    """The folder holding the nearest ``evals/`` above ``path`` (``<root>/evals/cases/x.yaml`` → ``<root>``): a
    UAAPS case's package, whose eval config, cases and reports live there. None when no ``evals/`` is above it."""
    return next((p.parent for p in path.parents if p.name == "evals"), None)


def find_package_root(path: Path) -> Path | None:
    """The package a file belongs to: the parent of its nearest ``evals/`` or ``skills/`` ancestor."""
    path = path.resolve() if not path.is_absolute() else path
    for parent in [path, *path.parents]:
        if parent.name in {"evals", "skills"} and parent != path:
            return parent.parent
    return None


def package_of_folder(folder: Path) -> Path | None:
    """The package a command started in ``folder`` works on: the folder when it holds ``evals/``, its parent
    when it is the package's ``evals/`` or ``skills/`` itself, else the package around it. A file's package is
    :func:`find_package_root`'s (which never takes the path itself for the ``evals/`` folder it names)."""
    if (folder / "evals").is_dir():
        return folder
    if folder.name in {"evals", "skills"} and folder.is_dir():
        return folder.parent
    return find_package_root(folder)


def frontmatter_fields(text: str) -> dict[str, str]:
    """`name` and `description` from a SKILL.md without a full parse (fast, tolerant)."""
    doc = parse(text, "markdown")
    if isinstance(doc.data, dict):
        return {k: str(v) for k, v in doc.data.items() if isinstance(v, str | int | float)}
    return {}


_CONTAINER_MARKERS = (".claude-plugin", "package.agent.json", ".git")
_WALK_SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", "build", "dist", ".tools"}


def container_root(path: Path) -> Path:
    """The plugin, package or repository a file belongs to, for resolving skill names: the nearest ancestor
    holding ``.claude-plugin/``, ``package.agent.json`` or ``.git``, the parent of the nearest ``skills/``
    folder, or a folder with a LICENSE (a project without git), whichever comes first; else the skill folder
    (the parent of ``evals/``)."""
    path = path if path.is_absolute() else path.absolute()
    parents = list(path.parents)[:8]
    for parent in parents:
        if any((parent / m).exists() for m in _CONTAINER_MARKERS):
            return parent
        if parent.name == "skills":
            return parent.parent
        if any(parent.glob("LICENSE*")) and parent != path.parent:
            return parent  # a project root without git (a download, a vendored copy): never the tree above it
    here = path.parent
    return here.parent if here.name == "evals" else here


def scan_skills(root: Path, reader: TextReader = read_disk, limit: int = 1000) -> dict[str, Path]:
    """Every SKILL.md under ``root`` by the ``name`` in its frontmatter and by its folder's name; bounded, and
    blind to dependency and build folders."""
    out: dict[str, Path] = {}
    visited = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _WALK_SKIP)
        visited += 1
        if visited > 5000 or len(out) >= limit:
            break
        for fname in ("SKILL.md", "skill.md"):
            if fname in filenames:
                md = Path(dirpath) / fname
                name = frontmatter_fields(reader(md) or "").get("name") or md.parent.name
                out.setdefault(name.strip(), md)
                out.setdefault(md.parent.name, md)  # the folder a skill is installed under names it too
                break
    return out


@dataclass
class PackageIndex:
    """Lazily computed facts about one package root; cheap to rebuild."""

    root: Path
    reader: TextReader = read_disk
    cache: IndexCache | None = None

    @property
    def evals_dir(self) -> Path:
        return self.root / "evals"

    @cached_property
    def skills(self) -> dict[str, SkillInfo]:
        out: dict[str, SkillInfo] = {}
        base = self.root / "skills"
        if base.is_dir():
            for entry in sorted(base.iterdir()):
                skill_md = entry / "SKILL.md"
                if not skill_md.is_file():
                    skill_md = entry / "skill.md"
                if skill_md.is_file():
                    fields = frontmatter_fields(self.reader(skill_md) or "")
                    out[entry.name] = SkillInfo(entry.name, skill_md, fields.get("description", ""))
        return out

    @cached_property
    def hooks(self) -> dict[str, HookInfo]:
        """Events configured in ``hooks/hooks.json`` (Claude Code style or a flat event map)."""
        path = self.root / "hooks" / "hooks.json"
        text = self.reader(path) if path.is_file() else None
        if not text:
            return {}
        try:
            data = json.loads(text)
        except ValueError:
            return {}
        events = data.get("hooks", data) if isinstance(data, dict) else {}
        out: dict[str, HookInfo] = {}
        if isinstance(events, dict):
            lines = text.splitlines()
            for event in events:
                line = next((i for i, s in enumerate(lines) if f'"{event}"' in s), 0)
                out[normalise_event(event)] = HookInfo(event, path, line)
        return out

    @cached_property
    def agents(self) -> dict[str, Path]:
        base = self.root / "agents"
        if not base.is_dir():
            return {}
        out: dict[str, Path] = {}
        for entry in sorted(base.iterdir()):
            if entry.is_dir():
                out[entry.name] = entry
            elif entry.suffix == ".md":
                out[entry.stem] = entry
        return out

    @cached_property
    def fixtures(self) -> list[str]:
        """Every file under ``evals/`` except cases and reports, relative to ``evals/``."""
        out: list[str] = []
        base = self.evals_dir
        if not base.is_dir():
            return out
        for dirpath, dirnames, filenames in os.walk(base):
            rel_dir = os.path.relpath(dirpath, base)
            if rel_dir == ".":
                dirnames[:] = [d for d in dirnames if d not in {"cases", "reports"}]
            for name in filenames:
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                if rel != "eval-config.json":
                    out.append(rel.replace(os.sep, "/"))
        return sorted(out)

    @cached_property
    def case_files(self) -> list[Path]:
        base = self.evals_dir / "cases"
        if not base.is_dir():
            return []
        return sorted(p for p in base.iterdir() if p.suffix in {".yaml", ".yml"} and p.is_file())

    @cached_property
    def case_names(self) -> dict[str, list[CaseRef]]:
        """Case name → every case file declaring it (for duplicate detection and selection).

        Reads only the top-level ``name:`` line of each file: a 1,000-case package is indexed in
        milliseconds, and a file too broken to parse still reports its name.
        """
        out: dict[str, list[CaseRef]] = {}
        for path in self.case_files:
            text = self.reader(path)
            m = _NAME_LINE.search(text) if text is not None else None
            if m is None or text is None:
                continue
            value = m.group(2)
            line = text.count("\n", 0, m.start())
            col = m.start(2) - m.start()
            if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
                value = value[1:-1]
            out.setdefault(value, []).append(
                CaseRef(value, path, Span(line, col, line, col + len(m.group(2))))
            )
        return out

    def fixture_exists(self, rel: str) -> bool:
        try:
            return (self.evals_dir / rel).is_file()
        except (OSError, ValueError):  # a name over 255 bytes (ENAMETOOLONG), a NUL
            return False

    @cached_property
    def package_name(self) -> str:
        manifest = self.root / "package.agent.json"
        text = self.reader(manifest) if manifest.is_file() else None
        if text:
            try:
                name = json.loads(text).get("name")
                if isinstance(name, str):
                    return name
            except (ValueError, AttributeError):
                pass
        return self.root.name


def skill_catalog(file_path: str | Path, index: PackageIndex | None = None) -> dict[str, Path]:
    """Skills of the plugin or package ``file_path`` belongs to, by SKILL.md ``name`` (cached when an index
    cache is at hand, so a folder walk happens once per plugin, not once per file)."""
    root = container_root(Path(file_path))
    if index is not None and index.cache is not None:
        return index.cache.catalog(root)
    hit = _UNCACHED.get(root)
    if hit is None or time.monotonic() - hit[0] > 5:  # no index cache to invalidate it: keep it briefly
        if len(_UNCACHED) > 16:
            _UNCACHED.clear()
        hit = _UNCACHED[root] = (time.monotonic(), scan_skills(root))
    return hit[1]


_UNCACHED: dict[Path, tuple[float, dict[str, Path]]] = {}


MAX_INDEXES = 256
"""Package indexes kept at once (a server that has seen thousands of packages must not keep them all)."""


class IndexCache:
    """One index per package root; ``invalidate`` drops what a file change may have altered."""

    def __init__(self, reader: TextReader = read_disk) -> None:
        self.reader = reader
        self._by_root: dict[Path, PackageIndex] = {}
        self._catalogs: dict[Path, dict[str, Path]] = {}

    def catalog(self, root: Path) -> dict[str, Path]:
        found = self._catalogs.get(root)
        if found is None:
            if len(self._catalogs) >= MAX_INDEXES:
                self._catalogs.pop(next(iter(self._catalogs)))
            found = self._catalogs[root] = scan_skills(root, self.reader)
        return found

    def __len__(self) -> int:
        """How many package indexes are kept (bounded by MAX_INDEXES)."""
        return len(self._by_root)

    def for_file(self, path: Path) -> PackageIndex | None:
        root = find_package_root(path)
        if root is None:
            return None
        index = self._by_root.get(root)
        if index is None:
            if len(self._by_root) >= MAX_INDEXES:  # the oldest package goes (rebuilt cheaply if needed)
                self._by_root.pop(next(iter(self._by_root)))
            index = self._by_root[root] = PackageIndex(root, self.reader, self)
        return index

    def invalidate(self, path: Path | None = None) -> None:
        if path is None:
            self._by_root.clear()
            self._catalogs.clear()
            return
        for stale in [r for r in self._catalogs if r in path.parents]:
            del self._catalogs[stale]
        root = find_package_root(path)
        if root is not None:
            self._by_root.pop(root, None)
