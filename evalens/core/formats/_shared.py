"""Small helpers shared by the skilljack, writing-skills, skill-creator and SKILL.md formats.

They work on plain values and spans so each rule stays a few lines; nothing here knows a file kind.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path as FsPath
from typing import Any

from evalens.core.documents import ParsedDocument, Path, parse
from evalens.core.formats.base import RuleContext
from evalens.core.js_regex import js_regex_error  # noqa: F401 - the one translation, shared with the runner
from evalens.core.problems import Edit, Fix, Problem, Severity, Span

VAGUE_WORDS = (
    "appropriate",
    "appropriately",
    "reasonable",
    "reasonably",
    "good",
    "well",
    "properly",
    "correctly",
    "nice",
    "sensible",
    "adequate",
    "helpful",
    "quality",
    "correct",
)
_CONCRETE = re.compile(
    r"\d|`[^`]+`|\"[^\"]+\"|'[^']{2,}'|\b[\w-]+\.(?:[a-z]{1,5})\b|/\w|"
    r"\b(?:contains?|includ(?:e|es|ing)|lists?|mentions?|names?|exactly|at least|at most|must not|never|"
    r"every|each|all|only|no more than|matches|equals?|header|column|row|table|file|line)\b",
    re.IGNORECASE,
)


def is_vague(criteria: str) -> bool:
    """Vague wording with nothing a judge could check ("responds appropriately")."""
    words = set(re.findall(r"[a-z]+", criteria.lower()))
    return bool(words & set(VAGUE_WORDS)) and not _CONCRETE.search(criteria)


def is_concrete(criteria: str) -> bool:
    return bool(_CONCRETE.search(criteria))


def path_escape(value: str) -> str | None:
    """Why a relative path is unsafe (absolute, drive letter, ``..`` escape), or None."""
    if not value:
        return "is empty"
    if value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", value) or value.startswith("~"):
        return "is absolute"
    norm = posixpath.normpath(value.replace("\\", "/"))
    if norm == ".." or norm.startswith("../"):
        return "escapes its root with `..`"
    return None


_EXTRA_VAGUE = {"thing", "things", "stuff", "working", "works", "right", "nicely", "fine", "proper"}
_GLOSS = re.compile(r"\(\s*\S+\s+\S+[^)]*\)")
"""A parenthetical of two words or more: the author says what the general word means here."""
_GENERIC = {
    "is",
    "it",
    "the",
    "a",
    "an",
    "produces",
    "returns",
    "gives",
    "has",
    "does",
    "output",
    "outputs",
    "result",
    "results",
    "response",
    "answer",
    "done",
    "success",
    "succeeds",
    "successful",
    "completes",
    "complete",
    "passes",
    "pass",
    "valid",
    "ok",
    "okay",
    "finishes",
    "helps",
    "responds",
    "answers",
    "work",
}
"""Words that say only that something happened; a short assertion made of them alone names nothing to check."""


def inner(doc: ParsedDocument, span: Span) -> Span:
    """A scalar's text without its quotes, so replacing it keeps the quoting style."""
    return doc.unquoted(span)


def replace_fix(doc: ParsedDocument, path: Path, new: str, title: str | None = None) -> Fix:
    """A fix that replaces the scalar at ``path`` (keeping its quotes), the new text escaped as those quotes
    need: a backslash or a quote written raw between JSON's (or YAML's double) quotes would break the file."""
    span = doc.span_for(path)
    body = inner(doc, span)
    quote = doc.lines[span.start_line][span.start_col] if body != span else ""
    text = json.dumps(new)[1:-1] if quote == '"' else new.replace("'", "''") if quote == "'" else new
    return Fix(title or f"Change to `{new}`", (Edit(body, text),))


def problem(
    doc: ParsedDocument,
    path: Path,
    severity: Severity,
    code: str,
    message: str,
    *,
    on_key: bool = False,
    fixes: list[Fix] | None = None,
    data: dict[str, Any] | None = None,
) -> Problem:
    """A problem on the value (or key) at ``path``, with ``path`` in its data for code actions."""
    return Problem(
        doc.span_for(path, prefer_key=on_key),
        severity,
        code,
        message,
        fixes=list(fixes or []),
        data={"path": list(path), **(data or {})},
    )


def creatable(base: FsPath, entry: str) -> dict[str, Any] | None:
    """``{"create_file": path}`` for a referenced file that does not exist, so editors can offer to create it
    (``server/features/code_actions.py``); None for a folder entry or a path that exists as something else."""
    if not entry.strip() or entry.endswith(("/", "\\")) or FsPath(entry).is_absolute():
        return None
    target = base / entry
    try:
        return None if target.exists() or target.is_symlink() else {"create_file": str(target)}
    except (OSError, ValueError):  # a name over 255 bytes, a NUL
        return None


def skills_in(base: FsPath) -> dict[str, FsPath]:
    """Skills in a skills folder: ``<name>/SKILL.md`` (or ``skill.md``), or a root-level ``SKILL.md``
    (skilljack copies that one as ``<folder name>/SKILL.md``)."""
    out: dict[str, FsPath] = {}
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return out
    for entry in entries:
        if entry.is_dir():
            for name in ("SKILL.md", "skill.md"):
                md = entry / name
                if md.is_file():
                    out[entry.name] = md
                    break
        elif entry.name in ("SKILL.md", "skill.md"):
            out[base.name] = entry
    return out


def skill_names(skills: dict[str, FsPath] | None) -> set[str]:
    """The names skills answer to: their folder names (what skilljack copies) and their SKILL.md ``name``s
    (what the agent loads them by)."""
    return set(skills or {}) | {n for md in (skills or {}).values() if (n := frontmatter_name(md))}


def frontmatter_name(skill_md: FsPath) -> str | None:
    """The ``name`` in a SKILL.md's frontmatter, if readable."""
    try:
        text = skill_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    data = parse(text, "markdown").data
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


_IDENTIFIER = re.compile(
    r"(?<![\w-])--?[a-z][\w-]*|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*|\b\w+_\w+\b|\b\w+\(|\b[A-Z]{2,}\b"
)


_PAST_LATIN = re.compile("[^\x00-\u024f]+")
"""Runs of characters past Latin Extended-B: the regex skips Latin text in C, and only what it finds is looked
at one character at a time (a loop over every character of every expectation was a sixth of validating a large
evals.json)."""


def other_script(text: str) -> bool:
    """Whether ``text`` has letters outside the Latin script (CJK, Cyrillic, …), where the English word lists
    and lengths below mean nothing."""
    return any(c.isalpha() for run in _PAST_LATIN.findall(text) for c in run)


def is_unfalsifiable(text: str) -> bool:
    """An expectation a grader cannot fail: too short to say anything ("Produces output"), or a short one
    resting on a vague word ("Does the thing", "Works appropriately"). Flags, identifiers, acronyms, numbers and
    quoted values count as concrete; text in another script is left alone (no word list fits it)."""
    if len(text.strip()) < 4:
        return True
    if other_script(text) or is_concrete(text) or _IDENTIFIER.search(text) or _GLOSS.search(text):
        return False
    words = re.findall(r"[A-Za-z']+", text.lower())
    vague = _EXTRA_VAGUE | set(VAGUE_WORDS)
    if len(words) <= 2:
        # brevity alone is not vagueness: "Runs lint" names what a grader looks for; "Produces output" does not
        return bool(set(words) & vague) or all(w in _GENERIC for w in words)
    return len(words) <= 8 and bool(set(words) & vague)


_NAMES_DATA = re.compile(
    r"\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b|(?:^|\s)\.{0,2}/\w|\w/\w|`[^`]+`|\"[^\"]+\"|https?://"
)
"""What a request names as its data: a file name (``api.md``), a path (``./evals/x``, ``docs/api``), a quoted or
backticked value, a URL."""


def is_bare_prompt(prompt: str) -> bool:
    """A prompt too bare to be a realistic request: three words at most ("Do the thing."). Slash commands (``/design-score URL``)
    are how users invoke skills, and other scripts pack more into fewer characters, so both are left alone; a
    short prompt that names its file or data ("tighten up ./docs/api.md") is what the hint asks for."""
    text = prompt.strip()
    if text.startswith("/") or other_script(text) or _NAMES_DATA.search(text):
        return False
    return len(text.split()) <= 3


_TERM = re.compile(r"[A-Za-z][A-Za-z0-9_]{3,}")
_CODE_TERM = re.compile(
    r"\b([A-Za-z_]\w{3,})(?=\.[A-Za-z_]|\()|(?<=\.)([A-Za-z_]\w{3,})\b|"
    r"\b(?:import|require\(|from)\s*['\"]?([A-Za-z_][\w-]{3,})"
)
"""A name the input's code uses: called (``hash(``), a member or its object (``bcrypt.hash``), imported. Words of
its comments and prose do not count: "handles errors" is vague whether or not a comment says "errors"."""


def input_terms(texts: list[str]) -> frozenset[str]:
    """The names a case's input files use in code, lowercased: an assertion that names one of them ("the bcrypt
    usage" of a fixture that calls ``bcrypt.hash``) names something the grader can find in the output."""
    return frozenset(t.lower() for text in texts for m in _CODE_TERM.finditer(text) for t in m.groups() if t)


def names_input_term(text: str, terms: frozenset[str]) -> bool:
    """Whether ``text`` names a term of the case's inputs other than a vague or generic word: those say nothing
    whichever file they also occur in."""
    if not terms:
        return False
    vague = _EXTRA_VAGUE | set(VAGUE_WORDS) | _GENERIC
    return any(w in terms and w not in vague for w in (t.lower() for t in _TERM.findall(text)))


def is_abstract_request(prompt: str, opener: re.Pattern[str]) -> bool:
    """A "Build me a …" request with nothing concrete after it. The opener alone is how people talk; the prompt
    is abstract only when it is also short and names no file, number, quoted value, command or path."""
    if not opener.search(prompt) or is_concrete(prompt) or _IDENTIFIER.search(prompt):
        return False
    return len(prompt.split()) <= 12


def near_miss_keys_only(doc: ParsedDocument, problems: list[Problem]) -> list[Problem]:
    """For open formats (their own tools ignore keys they do not read): an unknown key is kept only as a likely
    typo of a known key the mapping lacks; a repository's own bookkeeping keys are not problems."""
    out: list[Problem] = []
    for p in problems:
        if p.code == "unknown-key":
            path = tuple((p.data or {}).get("path", ()))
            near = (p.data or {}).get("suggestion")
            parent = doc.node_at_path(path[:-1])
            if not near or (parent is not None and parent.get(near) is not None):
                continue
            p.severity = Severity.WARNING
        out.append(p)
    return out


_DOC_CACHE: dict[str, tuple[float, Any]] = {}


def document_data(ctx: RuleContext, language: str) -> Any:
    """The plain data of the file a context belongs to: the open document when the caller put it on the
    context (``ctx.doc``), else the file on disk (cached by modification time)."""
    doc = getattr(ctx, "doc", None)
    if doc is not None:
        return doc.data
    path = FsPath(ctx.file_path)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    hit = _DOC_CACHE.get(ctx.file_path)
    if hit and hit[0] == mtime:
        return hit[1]
    try:
        data = parse(path.read_text(encoding="utf-8"), language).data  # type: ignore[arg-type]
    except (OSError, UnicodeDecodeError):
        return None
    if len(_DOC_CACHE) >= 32:  # hover touches few files; keep the cache small
        _DOC_CACHE.pop(next(iter(_DOC_CACHE)))
    _DOC_CACHE[ctx.file_path] = (mtime, data)
    return data


def path_error(value: str) -> str | None:
    """Why a path relative to a root is unsafe (absolute, drive letter, ``..`` escape), or None."""
    return path_escape(value)


def whole_checkout(root: FsPath) -> bool:
    """Whether a plugin or eval case folder is part of a git work tree, the one place a missing file can be told
    from one that was never copied: a plugin folder copied out of its repository, an archive excerpt or a corpus
    that keeps only some files has no `.git` at its root (the first folder up with `.git` or a LICENSE), and there
    a path that does not resolve proves nothing."""
    for folder in (root, *root.parents)[:12]:
        if (folder / ".git").exists():
            return True
        if any(folder.glob("LICENSE*")):
            return False  # a project root without git (as index.container_root): never the tree above it
    return False
