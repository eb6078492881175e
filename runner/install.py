"""Install a skill package into a sandbox workspace the way the chosen engine discovers it.

Skills go to the engine's skills folder, ``hooks/hooks.json`` becomes project hook settings (script paths made
absolute), ``rules/*.md`` become CLAUDE.md / AGENTS.md, agents become Claude Code subagents
(``.claude/agents/<name>.md``; Codex has no project subagent folder), and a minimal ``package.agent.json`` is
generated — the
UAAPS eval flow's "install the package" step (formats.md §2.7).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core.regular_files import read_regular
from evalens.runner.engines.base import Engine, SandboxPaths
from evalens.runner.sandbox import PathEscape, copy_confined

PACKAGE_COPY = ".evalens-package"  # holds hook scripts and helper files, relative to the workspace
ROOT_VARS = ("${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT", "${PACKAGE_ROOT}", "$PACKAGE_ROOT")
COPIED_DIRS = ("hooks", "scripts", "bin")


class PackageError(Exception):
    """The package cannot be installed (e.g. malformed hooks.json); the message names the file."""


@dataclass(slots=True)
class PackageInfo:
    """What the runner reports and installs about a package."""

    root: Path
    name: str
    version: str | None
    skills: dict[str, Path] = field(default_factory=dict)  # name → skill directory
    hooks: dict[str, Any] = field(
        default_factory=dict
    )  # normalised Claude-style event map (relative commands)
    rules: list[Path] = field(default_factory=list)
    agents: dict[str, Path] = field(default_factory=dict)  # name → agent markdown (AGENT.md or <name>.md)


def _pascal_event(event: str) -> str:
    """``preToolUse`` / ``pre-tool-use`` / ``PreToolUse`` → ``PreToolUse`` (what both CLIs expect)."""
    parts = re.split(r"[-_\s]+", event)
    if len(parts) > 1:
        return "".join(p[:1].upper() + p[1:] for p in parts)
    return event[:1].upper() + event[1:]


def _normalise_hooks(data: Any, source: Path) -> dict[str, Any]:
    events = data.get("hooks", data) if isinstance(data, dict) else None
    if not isinstance(events, dict):
        raise PackageError(f"{source}: expected an object with a `hooks` map of events")
    out: dict[str, Any] = {}
    for event, groups in events.items():
        if not isinstance(groups, list):
            raise PackageError(f"{source}: hooks.{event} must be a list")
        norm_groups = []
        for group in groups:
            if not isinstance(group, dict):
                raise PackageError(f"{source}: hooks.{event} entries must be objects")
            if "hooks" in group:
                handlers = group["hooks"]
            else:  # flat form {command, matcher, timeout}
                handlers = [{k: v for k, v in group.items() if k != "matcher"}]
            norm_handlers = []
            for handler in handlers:
                handler = dict(handler)
                handler.setdefault("type", "command")
                norm_handlers.append(handler)
            norm = {"hooks": norm_handlers}
            if "matcher" in group:
                norm["matcher"] = group["matcher"]
            norm_groups.append(norm)
        out[_pascal_event(str(event))] = norm_groups
    return out


# package.agent.json, hooks/hooks.json, rules files: the repository's, read like eval files (regular, bounded)
MANIFEST_LIMIT = 4 << 20


def _read_json(path: Path) -> Any:
    """A package file's JSON, read like an eval file; :class:`PackageError` naming it when it cannot be."""
    try:
        return json.loads(read_regular(path, MANIFEST_LIMIT).decode("utf-8"))
    except OSError as exc:
        raise PackageError(f"{path}: cannot read: {exc.strerror}") from exc
    except ValueError as exc:
        raise PackageError(f"{path}: not valid JSON ({exc})") from exc


def read_package(root: Path) -> PackageInfo:
    """Read name, version, skills, hooks and rules from a package root (no copying)."""
    name, version = root.name, None
    manifest = root / "package.agent.json"
    if manifest.is_file():
        data = _read_json(manifest)
        if isinstance(data, dict):
            name = str(data.get("name") or name)
            version = str(data["version"]) if data.get("version") is not None else None
    info = PackageInfo(root=root, name=name, version=version)
    skills_base = root / "skills"
    if skills_base.is_dir():
        for entry in sorted(skills_base.iterdir()):
            if (entry / "SKILL.md").is_file() or (entry / "skill.md").is_file():
                info.skills[entry.name] = entry
    hooks_file = root / "hooks" / "hooks.json"
    if hooks_file.is_file():
        info.hooks = _normalise_hooks(_read_json(hooks_file), hooks_file)
    agents_base = root / "agents"
    if agents_base.is_dir():
        for entry in sorted(agents_base.iterdir()):
            if entry.is_dir() and (entry / "AGENT.md").is_file():
                info.agents[entry.name] = entry / "AGENT.md"
            elif entry.suffix == ".md" and entry.is_file():
                info.agents[entry.stem] = entry
    rules_base = root / "rules"
    if rules_base.is_dir():
        info.rules = sorted(p for p in rules_base.glob("*.md") if p.is_file())
    return info


def _absolute_command(command: str, copy_root: Path) -> str:
    """Point a hook command at the installed copy: expand root variables and make a relative script absolute."""
    for var in ROOT_VARS:
        command = command.replace(var, str(copy_root))
    try:
        first = shlex.split(command)[0] if command.strip() else ""
    except ValueError:
        return command
    rel = first[2:] if first.startswith("./") else first
    if rel and not rel.startswith(("/", "$", "~")) and (copy_root / rel).exists():
        command = shlex.quote(str(copy_root / rel)) + command.strip()[len(first) :]
    return command


def install_package(info: PackageInfo, engine: Engine, paths: SandboxPaths) -> list[str]:
    """Install into ``paths.workspace``; returns the workspace-relative paths written (excluded from checks)."""
    ws = paths.workspace
    written: list[str] = []
    for name, src in info.skills.items():
        dest = ws / engine.skills_dir / name
        copy_confined(src, dest, info.root, what="skill file")
        written.append(f"{engine.skills_dir}/{name}")
    copy_root = ws / PACKAGE_COPY
    if info.hooks:
        for dirname in COPIED_DIRS:
            src = info.root / dirname
            if src.is_dir():
                copy_confined(src, copy_root / dirname, info.root, what="package file")
        hooks = json.loads(json.dumps(info.hooks))
        for groups in hooks.values():
            for group in groups:
                for handler in group["hooks"]:
                    if isinstance(handler.get("command"), str):
                        handler["command"] = _absolute_command(handler["command"], copy_root)
        engine.install_hooks(paths, hooks)
        written.append(PACKAGE_COPY)
    if info.agents and engine.agents_dir:
        for name, src in info.agents.items():
            dest = ws / engine.agents_dir / f"{name}.md"
            dest.parent.mkdir(parents=True, exist_ok=True)
            copy_confined(src, dest, info.root, what="agent file")
            written.append(f"{engine.agents_dir}/{name}.md")
    if info.rules:
        root = info.root.resolve()
        for rule in info.rules:
            if root not in rule.resolve().parents:
                raise PathEscape(f"rules file `{rule}` is a link out of {info.root}")
        text = "\n\n".join(read_regular(p, MANIFEST_LIMIT).decode("utf-8") for p in info.rules)
        (ws / engine.rules_file).write_text(text, encoding="utf-8")
        written.append(engine.rules_file)
    manifest = {
        "name": info.name,
        "version": info.version or "0.0.0",
        "skills": [f"skills/{n}" for n in info.skills],
    }
    if info.hooks:
        manifest["hooks"] = "hooks/hooks.json"
    (ws / "package.agent.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    written.append("package.agent.json")
    return written
