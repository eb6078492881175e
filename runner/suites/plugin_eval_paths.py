"""Where a `claude plugin eval` case lives: its plugin, the eval dir it is under, the plugin's skills and what of
the plugin a run copies. Path arithmetic only (no engine, no judge), so the fingerprint (:mod:`evalens.runner.
depends`) and the server's report folder can ask it without loading the suite."""

from __future__ import annotations

import json
from pathlib import Path

from evalens.core.regular_files import read_regular_bytes

__all__ = ["copied_entries", "eval_dir_of", "plugin_root_of", "plugin_skills"]


def plugin_root_of(folder: Path) -> Path | None:
    """The plugin a case belongs to: the nearest folder above it with `.claude-plugin/plugin.json` or
    `plugin.json`, else the nearest holding a `skills/` folder (a skills-directory plugin)."""
    for parent in folder.resolve().parents:
        if (parent / ".claude-plugin" / "plugin.json").is_file() or (parent / "plugin.json").is_file():
            return parent
    for parent in folder.resolve().parents:
        if (parent / "skills").is_dir():
            return parent
    return None


def _manifest_eval_dir(root: Path) -> str | None:
    for path in (root / ".claude-plugin" / "plugin.json", root / "plugin.json"):
        raw = read_regular_bytes(str(path), 1 << 20, follow_links=False)
        if raw is None:
            continue
        try:
            data = json.loads(raw)
        except ValueError:
            return None
        experimental = data.get("experimental") if isinstance(data, dict) else None
        # a committed plugin.json is the repository's: any shape is read, none crashes the run or the server
        value = experimental.get("evals") if isinstance(experimental, dict) else None
        if isinstance(value, list):
            value = value[0] if value else None
        return value.strip("/") if isinstance(value, str) and value.strip("/") else None
    return None


def eval_dir_of(root: Path, folder: Path) -> str | None:
    """The eval dir (relative to the plugin) the case is under: the manifest's `experimental.evals`, else `evals/`;
    None when the case is under neither (the CLI would not find it)."""
    rel = folder.resolve().relative_to(root)
    for candidate in (_manifest_eval_dir(root), "evals"):
        if candidate and ".." not in Path(candidate).parts and not Path(candidate).is_absolute():
            parts = Path(candidate).parts
            if rel.parts[: len(parts)] == parts and len(rel.parts) > len(parts):
                return candidate
    return None


def plugin_skills(root: Path) -> dict[str, Path]:
    """The plugin's skills as a session installs them (name → SKILL.md): every `skills/<name>/SKILL.md`, or the
    root's own SKILL.md for a skills-directory plugin of one skill."""
    out: dict[str, Path] = {}
    skills = root / "skills"
    if skills.is_dir():
        for sub in sorted(skills.iterdir()):
            md = sub / "SKILL.md"
            if sub.is_dir() and not sub.is_symlink() and md.is_file():
                out[sub.name] = md
    if not out and (root / "SKILL.md").is_file():
        out[root.name] = root / "SKILL.md"
    return out


def copied_entries(root: Path, eval_dir: str, folder: Path) -> list[str]:
    """What of the plugin goes into the sandbox (relative paths): everything at its top but the eval dir, `.git`
    and skill workspaces, then of the eval dir only its `mocks/` and this case's folder, so the CLI loads this case
    alone (another case it refuses would fail the whole run) and the agent sees no other case."""
    top = Path(eval_dir).parts[0]
    out = [
        e.name
        for e in sorted(root.iterdir())
        if e.name not in (top, ".git") and not e.name.endswith("-workspace")
    ]
    mocks = root / eval_dir / "mocks"
    if mocks.is_dir():
        out.append(f"{eval_dir}/mocks")
    out.append(folder.resolve().relative_to(root).as_posix())
    return out
