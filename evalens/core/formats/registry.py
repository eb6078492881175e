"""The registry of file formats and format detection (path glob confirmed by content, or a modeline).

Formats are tried in order; the first whose glob matches and whose content check says YES wins. A path
match whose content belongs to another tool is a LOOKALIKE: it gets one hint instead of a wall of errors.
"""

from __future__ import annotations

import importlib
import os.path
import pkgutil
import re
import threading
from dataclasses import dataclass
from functools import lru_cache

import evalens.core.formats as pkg
from evalens.core.documents import Language, ParsedDocument, parse
from evalens.core.formats.base import Format, Match
from evalens.core.regular_files import read_regular_bytes

FORMATS: list[Format] = []
"""Every format module registers its formats when it loads (``_ensure_loaded`` loads them all, in
``LOAD_ORDER``). None is imported here: the server answers ``initialize`` before any loads (issue 43)."""


def register(fmt: Format, *, first: bool = False) -> None:
    """Add a format (format modules call this on import)."""
    if any(f.id == fmt.id for f in FORMATS):
        return
    if first:
        FORMATS.insert(0, fmt)
    else:
        FORMATS.append(fmt)


def all_formats() -> list[Format]:
    """Every registered format, in detection order (loads the format modules)."""
    _ensure_loaded()
    return list(FORMATS)


def by_id(format_id: str) -> Format | None:
    _ensure_loaded()
    return next((f for f in FORMATS if f.id == format_id), None)


def by_schema_file(name: str) -> Format | None:
    _ensure_loaded()
    return next((f for f in FORMATS if f.schema_file and name.endswith(f.schema_file)), None)


_MODELINE = re.compile(r"#\s*evalens:\s*format\s*=\s*([\w-]+)")
_YLS_MODELINE = re.compile(r"#\s*yaml-language-server:\s*\$schema=(\S+)")


def language_of(path: str) -> Language:
    lower = path.lower()
    if lower.endswith(".json"):
        return "json"
    if lower.endswith((".md", ".markdown")):
        return "markdown"
    return "yaml"


def modeline_format(text: str, doc: ParsedDocument | None) -> Format | None:
    """An explicit override: ``# evalens: format=<id>``, a yaml-language-server ``$schema`` modeline naming
    one of our schemas, or a JSON ``"$schema"`` member naming one."""
    head = text[:2000]
    m = _MODELINE.search(head)
    if m and (fmt := by_id(m.group(1))):
        return fmt
    m = _YLS_MODELINE.search(head)
    if m and (fmt := by_schema_file(m.group(1))):
        return fmt
    if doc is not None and isinstance(doc.data, dict) and isinstance(doc.data.get("$schema"), str):
        return by_schema_file(doc.data["$schema"])
    return None


@dataclass(slots=True)
class Detection:
    """The outcome of detection: the format (or None), the parsed document, and whether it is a look-alike."""

    format: Format | None
    doc: ParsedDocument | None
    lookalike: Format | None = None


def candidates(path: str) -> list[Format]:
    """Formats whose globs match ``path`` (cached: start-up scans ask for thousands of paths)."""
    _ensure_loaded()
    return list(_candidates(path, len(FORMATS)))


@lru_cache(maxsize=8192)
def _candidates(path: str, _n_formats: int) -> tuple[Format, ...]:
    return tuple(f for f in FORMATS if f.path_matches(path))


def link_placeholder(path: str, text: str) -> bool:
    """Whether ``text`` is a symbolic link checked out as a file (git with ``core.symlinks=false`` writes the
    link's target path as the file's only content): one relative path naming an existing file next to it. The
    target is checked where it lives; the placeholder is not a broken eval file."""
    target = text.strip()
    if (
        not target
        or len(target) > 1024
        or any(c.isspace() for c in target)
        or "/" not in target
        or target.startswith(("/", "{", "[", "-", "#"))
    ):
        return False

    return os.path.isfile(os.path.join(os.path.dirname(path), target))


def detect(path: str, text: str, previous: ParsedDocument | None = None) -> Detection:
    """Pick the format of a file from its path, content and modeline; parse it once (``previous``, the parse
    of the version before an edit, lets ``parse`` re-parse only the edited item)."""
    if len(text) <= 1024 and "\n" not in text.rstrip() and link_placeholder(path, text):
        return Detection(None, None)
    cands = candidates(path)
    language = cands[0].language if cands else language_of(path)
    has_modeline = "evalens:" in text[:2000] or "$schema" in text[:4000]
    if not cands and not has_modeline:
        sniffed = _sniff(path, text)
        if sniffed is None:
            return Detection(None, None)
        cands = [sniffed]
        language = sniffed.language
    doc = parse(text, language, previous)
    forced = modeline_format(text, doc) if has_modeline else None
    if forced is not None:
        if forced.language != language:
            doc = parse(text, forced.language)
        return Detection(forced, doc)
    if not doc.ok:  # syntax errors: trust the path (unless the format says such a file is not its own)
        claimed = [f for f in cands if f.claims_unparsed(path, doc)]
        return Detection(claimed[0] if claimed else None, doc)
    lookalike = None
    for fmt in cands:
        if fmt.language != doc.language:
            continue
        match = fmt.detect(path, doc.data)
        if match is Match.YES:
            return Detection(fmt, doc)
        if match is Match.LOOKALIKE and lookalike is None:
            lookalike = fmt
    return Detection(None, doc, lookalike)


def sniffs(path: str) -> bool:
    """Whether a file no glob claims is claimed by a format's content sniff (reads at most 64 KB), so
    folder walks find trigger sets and tasks files with arbitrary names."""
    _ensure_loaded()
    lower = path.lower().replace("\\", "/")
    if not lower.endswith(".json") and not (lower.endswith((".yaml", ".yml")) and "/evals/" in lower):
        return False  # YAML sniffing only happens under evals/ (skilljack suites); keep scans cheap

    raw = read_regular_bytes(path, 65535)  # never blocks on a FIFO
    if raw is None:
        return False
    return _sniff(path, raw.decode("utf-8", errors="replace")) is not None


def _sniff(path: str, text: str) -> Format | None:
    """Formats that can live under any name (e.g. trigger eval sets) declare ``sniff``."""
    _ensure_loaded()
    for fmt in FORMATS:
        sniff = getattr(fmt, "sniff", None)
        if sniff is not None and sniff(path, text):
            return fmt
    return None


_loaded = False
_load_lock = threading.Lock()


def _ensure_loaded() -> None:
    """Import the other format modules (each registers itself); done lazily to keep start-up fast.

    Thread-safe: the server's start-up scan and its first didOpen may both get here at once, and neither
    may see a half-filled registry.
    """
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return

        names = sorted(
            (
                info.name
                for info in pkgutil.iter_modules(pkg.__path__)
                if info.name not in {"base", "registry"} and not info.name.startswith("_")
            ),
            key=_load_rank,
        )
        for name in names:
            importlib.import_module(f"{pkg.__name__}.{name}")
        # a module imported earlier elsewhere (the runner imports trigger_sets) registered out of turn
        rank = {name: i for i, name in enumerate(names)}
        # one assignment: readers on other threads (by_id) never see the list mid-sort
        FORMATS[:] = sorted(
            FORMATS, key=lambda fmt: rank.get(type(fmt).__module__.rpartition(".")[2], len(rank))
        )
        _candidates.cache_clear()
        _loaded = True


#: Detection order of the format modules: the first that claims a file wins, so where two claim the same glob
#: (``grading.json``) the order decides. Modules not named here follow, by name.
LOAD_ORDER = (
    "uaaps",
    "writing_skills",
    "skill_creator",
    "skill_md",
    "skilljack",
    "skilljack_config",
    "trigger_sets",
)


def _load_rank(name: str) -> tuple[int, str]:
    return (LOAD_ORDER.index(name) if name in LOAD_ORDER else len(LOAD_ORDER), name)
