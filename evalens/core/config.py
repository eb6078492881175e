"""The user's rule tuning: ``[tool.evalens]`` in pyproject.toml or an ``evalens.toml``, found like ruff finds its
configuration (the nearest file up the tree), plus the editor's ``evalens.rules`` and the CLI's flags.

Config files are parsed once per (path, mtime, size); a lookup costs a few ``stat`` calls, never a read.
Invalid entries are reported as messages and skipped, never raised.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from evalens.core.formats import registry
from evalens.core.problems import Severity
from evalens.core.regular_files import read_regular
from evalens.core.rules import is_known, suggest_code

#: What a rule can be set to; None means "off".
LEVELS: dict[str, Severity | None] = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "info": Severity.INFO,
    "hint": Severity.HINT,
    "off": None,
}
LEVEL_WORDS = ", ".join(LEVELS)
#: Looked for in each folder, first match wins (the order ruff uses for its own files).
CONFIG_NAMES = (".evalens.toml", "evalens.toml", "pyproject.toml")
SETTINGS = ("rules", "ignore", "per-format", "per-file")
PREFERENCES = ("editorFirst", "filesystemFirst", "editorOnly")
KEEP = object()  # "not configured": the rule keeps the severity it was emitted with


@dataclass(frozen=True, slots=True)
class RuleLevels:
    """Rule code (or glob such as ``schema-*``) → level; exact codes win over globs."""

    exact: Mapping[str, Severity | None] = field(default_factory=dict)
    globs: tuple[tuple[re.Pattern[str], Severity | None], ...] = ()

    def get(self, code: str) -> Any:
        """The configured level (a Severity or None for off), or ``KEEP``."""
        if code in self.exact:
            return self.exact[code]
        for pattern, level in self.globs:
            if pattern.fullmatch(code):
                return level
        return KEEP

    def __bool__(self) -> bool:
        return bool(self.exact or self.globs)


@dataclass(frozen=True, slots=True)
class FileConfig:
    """One parsed config file (``path`` None: no file applies)."""

    path: Path | None
    rules: RuleLevels = RuleLevels()
    per_format: Mapping[str, RuleLevels] = field(default_factory=dict)
    per_file: tuple[tuple[re.Pattern[str], RuleLevels], ...] = ()
    errors: tuple[str, ...] = ()

    def level(self, code: str, format_id: str | None, file_path: str) -> Any:
        """The most specific setting: per-file, then per-format, then ``rules``."""
        if self.per_file and self.path is not None:
            rel = _relative(file_path, self.path.parent)
            if rel is not None:
                name = rel.rsplit("/", 1)[-1]
                for pattern, levels in reversed(self.per_file):
                    if pattern.fullmatch(rel) or pattern.fullmatch(name):
                        if (found := levels.get(code)) is not KEEP:
                            return found
        if format_id is not None and (by_format := self.per_format.get(format_id)):
            if (found := by_format.get(code)) is not KEEP:
                return found
        return self.rules.get(code)


NO_FILE = FileConfig(None)


@dataclass(frozen=True, slots=True)
class Tuning:
    """Everything that tunes the problems of one file: its config file and the editor's or CLI's overrides."""

    file: FileConfig = NO_FILE
    overrides: RuleLevels = RuleLevels()
    preference: str = "editorFirst"
    select: frozenset[str] | None = None  # CLI ``--select``: only these codes (globs allowed) are reported

    def level(self, code: str, format_id: str | None, file_path: str) -> Any:
        """The level a code gets in ``file_path`` (Severity, None for off, or ``KEEP``)."""
        if self.select is not None and not any(code == s or _glob(s).fullmatch(code) for s in self.select):
            return None
        if self.preference == "editorOnly":
            return self.overrides.get(code)
        from_file = self.file.level(code, format_id, file_path)
        from_editor = self.overrides.get(code)
        if self.preference == "filesystemFirst":
            return from_file if from_file is not KEEP else from_editor
        return from_editor if from_editor is not KEEP else from_file

    @property
    def errors(self) -> tuple[str, ...]:
        return self.file.errors


# --------------------------------------------------------------------------------------------- parsing


@cache
def _glob(pattern: str) -> re.Pattern[str]:
    """A rule or path glob: ``**`` crosses folders, ``*`` and ``?`` do not."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            c = pattern[i]
            out.append("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c))
            i += 1
    return re.compile("".join(out))


def _relative(file_path: str, root: Path) -> str | None:
    try:
        rel = os.path.relpath(file_path, root)
    except ValueError:  # another drive (Windows)
        return None
    rel = rel.replace(os.sep, "/")
    return None if rel.startswith("../") else rel


def parse_levels(table: Any, where: str, errors: list[str]) -> RuleLevels:
    """``{code: level}`` from a config table or the editor setting; bad entries become messages."""
    if not isinstance(table, Mapping):
        errors.append(f"{where} must be a table of rule = level (levels: {LEVEL_WORDS}).")
        return RuleLevels()

    exact: dict[str, Severity | None] = {}
    globs: list[tuple[str, Severity | None]] = []
    for code, raw in table.items():
        if code in SETTINGS and not isinstance(raw, str):
            errors.append(
                f"{where}: `{code}` is a top-level setting; in TOML it goes before the first [table]."
            )
            continue
        word = raw.lower() if isinstance(raw, str) else None
        if word not in LEVELS:
            errors.append(f"{where}: `{code} = {raw!r}`: the level must be one of {LEVEL_WORDS}.")
            continue
        if "*" in code or "?" in code:
            globs.append((code, LEVELS[word]))
        elif not is_known(code):
            near = suggest_code(code)
            errors.append(
                f"{where}: `{code}` is not an evalens rule"
                + (f"; did you mean `{near}`?" if near else " (see docs/rules.md).")
            )
        else:
            exact[code] = LEVELS[word]
    globs.sort(key=lambda g: -len(g[0]))  # the most specific glob first
    return RuleLevels(exact, tuple((_glob(p), lvl) for p, lvl in globs))


def parse_config(data: Mapping[str, Any], where: str, path: Path | None) -> FileConfig:
    """A ``[tool.evalens]`` table (or an evalens.toml document) as a FileConfig."""
    errors: list[str] = []
    for key in data:
        if key not in SETTINGS:
            errors.append(f"{where}: unknown setting `{key}` (known: {', '.join(SETTINGS)}).")
    rules_table = (
        dict(data.get("rules", {})) if isinstance(data.get("rules", {}), Mapping) else data.get("rules")
    )
    ignore = data.get("ignore", [])
    if not (isinstance(ignore, list) and all(isinstance(c, str) for c in ignore)):
        errors.append(f"{where}: `ignore` must be a list of rule codes.")
    elif isinstance(rules_table, dict):
        rules_table = {**{c: "off" for c in ignore}, **rules_table}
    rules = parse_levels(rules_table, f"{where} [rules]", errors)
    per_format: dict[str, RuleLevels] = {}
    raw_formats = data.get("per-format", {})
    if not isinstance(raw_formats, Mapping):
        errors.append(f"{where}: `per-format` must be a table of format id = {{rule = level}}.")
        raw_formats = {}
    known_formats = format_ids()
    for fid, table in raw_formats.items():
        if fid not in known_formats:
            errors.append(
                f"{where} [per-format]: `{fid}` is not a format id (known: {', '.join(known_formats)})."
            )
            continue
        per_format[fid] = parse_levels(table, f"{where} [per-format.{fid}]", errors)
    per_file: list[tuple[re.Pattern[str], RuleLevels]] = []
    raw_files = data.get("per-file", {})
    if not isinstance(raw_files, Mapping):
        errors.append(f'{where}: `per-file` must be a table of "glob" = {{rule = level}}.')
        raw_files = {}
    for pattern, table in raw_files.items():
        per_file.append(
            (_glob(pattern.strip("/")), parse_levels(table, f'{where} [per-file."{pattern}"]', errors))
        )
    return FileConfig(path, rules, per_format, tuple(per_file), tuple(errors))


def format_ids() -> list[str]:
    registry.candidates("")  # loads every format module
    return [f.id for f in registry.FORMATS]


CONFIG_LIMIT = 4 << 20  # bytes of an evalens.toml / pyproject.toml read at most (a real one is a few KB)


def load_config_file(path: Path) -> FileConfig | None:
    """Parse one config file; None for a pyproject.toml without ``[tool.evalens]`` (the search goes on)."""
    import tomllib  # lazy: ~45 ms (its regexes compile at import), not needed before the server answers (issue 43)

    try:
        # read like an eval file: a committed `evalens.toml -> /dev/stdin` made the server read its own LSP
        # channel, and `-> /dev/zero` ended in a MemoryError (#42); a FIFO or a device is refused unread
        doc = tomllib.loads(read_regular(path, CONFIG_LIMIT).decode("utf-8"))
    except OSError as exc:
        return FileConfig(path, errors=(f"{path}: cannot read: {exc.strerror}",))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return FileConfig(path, errors=(f"{path}: invalid TOML: {exc}",))
    if path.name == "pyproject.toml":
        tool = doc.get("tool")
        section = tool.get("evalens") if isinstance(tool, dict) else None
        if section is None:
            return None
        if not isinstance(section, dict):
            return FileConfig(path, errors=(f"{path}: `[tool.evalens]` must be a table.",))
        return parse_config(section, f"{path} [tool.evalens]", path)
    return parse_config(doc, str(path), path)


class ConfigCache:
    """Finds and caches the config file that applies to a path.

    ``stop_at`` are folders the search does not go above (workspace folders); it also stops at a folder
    holding ``.git`` and at the file system root. Parsed files are keyed by (mtime, size), so an edited
    config is picked up at the next lookup. With ``ttl`` > 0 the folder-to-file resolution is remembered that
    many seconds (one ``stat`` per lookup instead of a walk up the tree); call ``forget`` when files appear or
    vanish (the server does on watched-file events).
    """

    def __init__(self, stop_at: Iterable[str | Path] = (), ttl: float = 0.0) -> None:
        self.stop_at = {os.path.normcase(os.path.abspath(p)) for p in stop_at}
        self.ttl = ttl
        self._parsed: dict[str, tuple[tuple[int, int], FileConfig | None]] = {}
        self._resolved: dict[str, tuple[float, str | None]] = {}
        self._lock = threading.Lock()

    def set_roots(self, stop_at: Iterable[str | Path]) -> None:
        self.stop_at = {os.path.normcase(os.path.abspath(p)) for p in stop_at}
        self.forget()

    def forget(self) -> None:
        with self._lock:
            self._resolved.clear()

    def for_file(self, file_path: str | Path) -> FileConfig:
        start = os.path.dirname(os.path.abspath(file_path))
        if self.ttl > 0:
            with self._lock:
                hit = self._resolved.get(start)
            if hit is not None and time.monotonic() - hit[0] < self.ttl:
                if hit[1] is None:
                    return NO_FILE
                found = self._stat_and_load(hit[1])
                if found is not None:
                    return found
        path, found = self._walk(start)
        if self.ttl > 0:
            with self._lock:
                if len(self._resolved) >= 4096:  # a long session sees many folders: stay bounded
                    self._resolved.clear()
                self._resolved[start] = (time.monotonic(), path)
        return found

    def _walk(self, folder: str) -> tuple[str | None, FileConfig]:
        while True:
            for name in CONFIG_NAMES:
                candidate = os.path.join(folder, name)
                found = self._stat_and_load(candidate)
                if found is not None:
                    return candidate, found
            parent = os.path.dirname(folder)
            if (
                parent == folder
                or os.path.normcase(folder) in self.stop_at
                or os.path.exists(os.path.join(folder, ".git"))
            ):
                return None, NO_FILE
            folder = parent

    def _stat_and_load(self, path: str) -> FileConfig | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._parsed.get(path)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        parsed = load_config_file(Path(path))
        with self._lock:
            self._parsed[path] = (stamp, parsed)
        return parsed


def editor_levels(raw: Any, errors: list[str]) -> RuleLevels:
    """The ``evalens.rules`` editor setting (``{code: level}``); None or missing means no overrides."""
    if raw is None:
        return RuleLevels()
    return parse_levels(raw, "evalens.rules setting", errors)
