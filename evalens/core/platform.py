"""Which agent platform a skill targets, inferred from evidence in the skill and its repository.

A SKILL.md's rules depend on who reads it: Claude Code accepts keys the agentskills specification (and its
``skills-ref`` validator) rejects. Location alone is not enough: many Claude Code skills live in plain
repositories, and some Claude Code plugins also ship to other agents. So the skill's own frontmatter, the
repository's agent files and its README's install instructions all count, and each conclusion names its evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from evalens.core.regular_files import read_regular_bytes

CLAUDE_ONLY_KEYS = (
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "context",
    "agent",
    "hooks",
    "when_to_use",
    "arguments",
    "disallowed-tools",
    "effort",
    "background",
    "paths",
    "shell",
)
"""Frontmatter keys only Claude Code reads: formats.md §6.4, and since then `when_to_use`, `arguments`,
`disallowed-tools`, `effort`, `background`, `paths`, `shell` (docs/skills of 2026-08-22; each accepted by
`claude plugin validate` 2.1.332, see ``shared/reference/platforms.md`` §1.1)."""

_CLAUDE_README = re.compile(
    r"~/\.claude/skills|\.claude/skills/|/plugin (?:install|marketplace)|"
    r"claude plugins? (?:install|add)|claude-plugin",
    re.IGNORECASE,
)
_OTHER_AGENTS_README = re.compile(
    r"\bnpx\s+skills\b|\.agents/skills|\.codex/skills|\.cursor/(?:skills|rules)|"
    r"\bgemini[- ]cli\b|\bopencode\b|\bagentskills(?:\.io)?\b",
    re.IGNORECASE,
)
_NPX_ADD = re.compile(
    r"\bnpx\s+(?:-y\s+)?skills(?:@\S+)?\s+(?:add|install|i)\s+([^\s`'\")\]]+)", re.IGNORECASE
)
"""`npx skills add <source>`: the multi-agent installer, with what it installs."""
_OTHER_AGENT_NAMES = re.compile(r"\b(?:Codex|Cursor|Windsurf|OpenCode|Gemini CLI|GitHub Copilot)\b")
"""Product names, case-sensitive: "the cursor" in prose is not an agent."""
_OTHER_AGENT_FILES = (
    ".cursor-plugin",
    ".agents",
    ".codex",
    ".gemini",
    "gemini-extension.json",
    ".opencode",
    "opencode.json",
    ".windsurf",
)
_CLAUDE_FILES = ("CLAUDE.md", ".claude")
_README_BYTES = 256 * 1024
_ROOT_MARKERS = (".git", ".claude-plugin", "package.agent.json")


@dataclass(slots=True)
class Platform:
    """The profile a SKILL.md is judged by, and why."""

    profile: str  # "agentskills" | "claude-code" | "uaaps"
    claude: list[str] = field(default_factory=list)  # evidence that Claude Code reads the skill
    others: list[str] = field(default_factory=list)  # evidence that other agents read it too
    forced: bool = False  # the user's `skillProfile` setting chose the profile, not the evidence
    frontmatter: list[str] = field(default_factory=list)  # the part of `claude` found in the skill's own keys

    @property
    def claude_only_repository(self) -> bool:
        """Claude Code profile on evidence beyond the skill's own keys (where it lives, a plugin manifest,
        ``CLAUDE.md``, a README installing into Claude Code): the repository targets Claude Code alone. A skill
        whose only evidence is its Claude-style keys may still be read by other agents."""
        return self.profile == "claude-code" and any(e not in self.frontmatter for e in self.claude)

    @property
    def multi_agent(self) -> bool:
        return bool(self.claude) and bool(self.others)

    def why(self) -> str:
        parts = [f"Claude Code: {', '.join(self.claude[:3])}"] if self.claude else []
        parts += [f"other agents: {', '.join(self.others[:3])}"] if self.others else []
        return "; ".join(parts) or "no platform evidence: the strict agentskills specification"


def frontmatter_evidence(data: Any) -> list[str]:
    """Claude Code evidence in the skill's own frontmatter: its extension keys, or ``allowed-tools`` as a YAML
    list (Claude Code's form; the specification writes a space-separated string)."""
    if not isinstance(data, dict):
        return []
    out = [f"`{k}`" for k in CLAUDE_ONLY_KEYS if k in data]
    if isinstance(data.get("allowed-tools"), list):
        out.append("`allowed-tools` as a list")
    return out


def _readme_evidence(folder: Path, own: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a folder's README says about who installs the skill (Claude Code, other agents). Cached by the file's
    identity and modification time: a repository's root README is read once for all its skills, again only when
    it changes."""
    for name in ("README.md", "readme.md", "README.MD", "Readme.md"):
        try:
            st = (folder / name).stat()
        except OSError:
            continue
        return _readme_evidence_of(str(folder / name), st.st_mtime_ns, st.st_size, own)
    return (), ()


def _installs_other(text: str, own: frozenset[str]) -> bool:
    """Whether a README mentions `npx skills` only to install something else (`npx skills add
    vercel-labs/agent-skills` as a dependency): that says how to get a third-party skill, not that this
    repository ships to other agents. A mention with no source, a placeholder or this repository's own name
    counts as shipping it."""
    mentions = re.findall(r"\bnpx\s+(?:-y\s+)?skills\b", text, re.IGNORECASE)
    adds = [m.group(1) for m in _NPX_ADD.finditer(text)]
    if not mentions or len(adds) < len(mentions):
        return False
    for source in adds:
        name = re.split(r"[@#]", source.rstrip("/").removesuffix(".git").rsplit("/", 1)[-1])[0].lower()
        if not name or "<" in source or source.startswith((".", "/")) or name in own:
            return False
    return True


@lru_cache(maxsize=256)
def _readme_evidence_of(
    path: str, _mtime_ns: int, _size: int, own: frozenset[str] = frozenset()
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    raw = read_regular_bytes(path, _README_BYTES)
    text = raw[:_README_BYTES].decode("utf-8", "replace") if raw is not None else ""
    claude = ("README installs into Claude Code",) if _CLAUDE_README.search(text) else ()
    hits = [m for m in (_OTHER_AGENTS_README.search(text), _OTHER_AGENT_NAMES.search(text)) if m is not None]
    if hits and hits[0].group(0).lower().startswith("npx") and _installs_other(text, own):
        rest = _OTHER_AGENTS_README.search(
            _NPX_ADD.sub(" ", re.sub(r"\bnpx\s+(?:-y\s+)?skills\b", " ", text))
        )
        hits = [m for m in (rest, _OTHER_AGENT_NAMES.search(text)) if m is not None]
    hit = hits[0] if hits else None
    return claude, (f"README mentions `{hit.group(0)}`",) if hit is not None else ()


def _own_names(folders: list[Path]) -> frozenset[str]:
    """Names this repository goes by: its folders from the skill up to the root, and a plugin manifest's `name`
    and `repository`, lowercased (what `npx skills add owner/<name>` would name to install it)."""
    names = {f.name.lower() for f in folders}
    for folder in folders:
        raw = read_regular_bytes(folder / ".claude-plugin" / "plugin.json", 64 * 1024)
        if raw is None:
            continue
        for key in ("name", "repository"):
            found = re.search(rf'"{key}"\s*:\s*"([^"]+)"', raw.decode("utf-8", "replace"))
            if found:
                names.add(found.group(1).rstrip("/").removesuffix(".git").rsplit("/", 1)[-1].lower())
    return frozenset(names)


def _ancestors(skill_md: Path, depth: int = 6) -> list[Path]:
    """The skill's folder up to its repository (or plugin/package) root, at most ``depth`` levels: a folder with
    no repository must not borrow evidence from whatever happens to sit above it, and a skill whose own folder is
    the root (a single-skill repository or plugin) stops there too, or the README of whatever holds the checkout
    would speak for it."""
    out: list[Path] = []
    for parent in list(skill_md.absolute().parents)[:depth]:
        out.append(parent)
        if any((parent / m).exists() for m in _ROOT_MARKERS):
            break
    return out


def infer_platform(skill_md: Path, data: Any = None) -> Platform:
    """The profile for a SKILL.md, from evidence.

    * Where Claude Code or UAAPS load skills from (``.claude/skills/``, a ``package.agent.json`` package) and
      ``.agents/skills/`` (the cross-agent folder) decide alone.
    * Otherwise Claude Code evidence (a ``.claude-plugin/plugin.json``, Claude-only frontmatter, ``CLAUDE.md`` or
      ``.claude/`` at the root, a README that installs into ``~/.claude/skills``) makes it a Claude Code skill,
      unless the repository also targets other agents (their plugin folders, a multi-agent installer in the
      README): then it is judged by the portable agentskills rules.
    """
    posix = skill_md.as_posix()
    fm = frontmatter_evidence(data)
    if "/.claude/skills/" in posix:
        return Platform("claude-code", ["`.claude/skills/`", *fm], frontmatter=fm)
    if "/.agents/skills/" in posix:
        return Platform("agentskills", fm, ["`.agents/skills/`"], frontmatter=fm)
    claude: list[str] = list(fm)
    others: list[str] = []
    folders = _ancestors(skill_md)
    own = _own_names(folders)
    for folder in folders:
        if (folder / "package.agent.json").is_file():
            return Platform("uaaps", claude, others, frontmatter=fm)
        if (folder / ".claude-plugin" / "plugin.json").is_file():
            claude.append("`.claude-plugin/plugin.json`")
        claude += [f"`{n}`" for n in _CLAUDE_FILES if (folder / n).exists()]
        others += [f"`{n}`" for n in _OTHER_AGENT_FILES if (folder / n).exists()]
        readme_claude, readme_others = _readme_evidence(folder, own)
        claude += readme_claude
        others += readme_others
    claude, others = list(dict.fromkeys(claude)), list(dict.fromkeys(others))
    if claude and not others:
        return Platform("claude-code", claude, others, frontmatter=fm)
    return Platform("agentskills", claude, others, frontmatter=fm)
