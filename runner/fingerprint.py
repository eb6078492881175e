"""What a verdict depended on, as hashes, so a later edit can mark it stale and say why.

A result records one hash per input: the unit's own text, each skill folder, hooks, rules, agents, scripts, bin,
the eval config, the fixtures it copies, the engine and its version, the agent and judge models. Comparing two fingerprints names exactly the
inputs that changed ("skill pdf-tools changed", "engine 2.0.1 → 2.0.3"), which the lens, the Test Explorer and
``--stale`` all use. Folder hashes are cached per (path, mtime, size) of every file, so re-checking a package
whose files did not change reads nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = frozenset({".git", "__pycache__", "node_modules", ".venv", "reports", ".evalens"})
MAX_FILE_BYTES = 8 << 20  # larger files are hashed by size and mtime only

_file_cache: dict[tuple[str, int, int], str] = {}


def text_hash(text: str) -> str:
    """A short stable hash of text (line endings normalised, so a checkout on Windows is not 'changed')."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:16]


def _file_hash(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    cached = _file_cache.get(key)
    if cached is not None:
        return cached
    if st.st_size > MAX_FILE_BYTES:
        value = f"size:{st.st_size}:{st.st_mtime_ns}"
    else:
        value = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    if len(_file_cache) > 50_000:
        _file_cache.clear()
    _file_cache[key] = value
    return value


def tree_hash(root: Path, exclude: Iterable[Path] = ()) -> str | None:
    """Hash of every file under ``root`` (relative names and contents); None when ``root`` does not exist.

    Symlinks are hashed by their target text, never followed: a link out of the package must not make the
    verdict depend on (or read) the rest of the disk.
    """
    if not root.exists():
        return None
    if root.is_file():
        return _file_hash(root)
    skip = {p.resolve() for p in exclude}
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and (here / d).resolve() not in skip)
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                digest.update(f"L {rel} -> {os.readlink(path)}\n".encode())
            elif path.is_file() and path.resolve() not in skip:
                digest.update(f"F {rel} {_file_hash(path)}\n".encode())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Fingerprint:
    """One hash (or version text) per input a verdict depended on."""

    parts: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, str]:
        return dict(sorted(self.parts.items()))

    @classmethod
    def from_json(cls, data: object) -> Fingerprint | None:
        if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()
        ):
            return None
        return cls(dict(data))


def build(
    unit_text: str,
    *,
    folders: Mapping[str, Path] | None = None,
    values: Mapping[str, str | None] | None = None,
    exclude: Iterable[Path] = (),
) -> Fingerprint:
    """The fingerprint of one unit: ``unit`` is its own text; ``folders`` are hashed trees (a missing one is
    recorded as ``absent``); ``values`` are plain inputs such as ``engine``, ``engine-version``, ``judge``."""
    parts: dict[str, str] = {"unit": text_hash(unit_text)}
    excluded = list(exclude)
    for name, folder in (folders or {}).items():
        parts[name] = tree_hash(folder, excluded) or "absent"
    for name, value in (values or {}).items():
        if value is not None:
            parts[name] = value
    return Fingerprint(parts)


_LABELS = {
    "unit": "the unit's own text",
    "hooks": "hooks",
    "rules": "rules",
    "agents": "agents",
    "scripts": "scripts",
    "bin": "bin",
    "config": "eval config",
    "fixtures": "fixtures",
    "engine": "engine",
    "engine-version": "engine version",
    "agent-model": "agent model",
    "judge": "judge model",
}


def label(name: str) -> str:
    """A fingerprint part in words (``skill:pdf`` → ``skill pdf``), for messages that name what differs."""
    if name.startswith("skill:"):
        return f"skill {name[6:]}"
    return _LABELS.get(name, name)


def own_text_changed(reasons: list[str]) -> bool:
    """Whether ``reasons`` (what :func:`changes` said) include the unit's own text: the recorded result is of a
    case that no longer exists as written, so its failures no longer sit at their lines (the Test Explorer
    draws such a result outdated; issue 45)."""
    own = _LABELS["unit"]
    return any(reason.startswith(own) for reason in reasons)


def changes(old: Fingerprint, new: Fingerprint) -> list[str]:
    """What changed from ``old`` to ``new``, in words; empty when nothing did (the verdict is current)."""
    out: list[str] = []
    hashed = {"unit", "hooks", "rules", "agents", "scripts", "bin", "config", "fixtures"}
    for name in sorted(set(old.parts) | set(new.parts)):
        before, after = old.parts.get(name), new.parts.get(name)
        if before == after:
            continue
        said = label(name)
        if before is None:
            out.append(f"{said} added")
        elif after is None or after == "absent":
            out.append(f"{said} removed")
        elif name in hashed or name.startswith("skill:") or name.startswith("file:"):
            out.append(f"{said} changed")
        else:
            out.append(f"{said} {before} → {after}")
    return out
