"""What one unit's verdict depends on, for every format: its own text, the skills, hooks, rules, agents and
fixtures of its package, the engine and its version, the agent and judge models.

:func:`unit_fingerprint` is recorded with every result; :func:`stale_reasons` compares a recorded fingerprint
with the package as it is now. The eval file as a whole is *not* an input: editing one case must not make the
verdicts of the other cases in the same file stale, so each unit contributes only its own value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evalens.runner.fingerprint import Fingerprint, build, changes, tree_hash

PACKAGE_PARTS = ("hooks", "rules", "agents")


def unit_text(value: Any) -> str:
    """The unit's own value as canonical JSON: reformatting or comments do not make a verdict stale."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def skill_folders(package_root: Path) -> dict[str, Path]:
    """``skill:<folder>`` → folder for each skill the run installs: ``skills/*/`` of a package, else the skill
    folder itself when the eval file lives inside one."""
    skills = package_root / "skills"
    found: dict[str, Path] = {}
    if skills.is_dir():
        for child in sorted(skills.iterdir()):
            if child.is_dir() and ((child / "SKILL.md").is_file() or (child / "skill.md").is_file()):
                found[f"skill:{child.name}"] = child
    if not found and ((package_root / "SKILL.md").is_file() or (package_root / "skill.md").is_file()):
        found[f"skill:{package_root.name}"] = package_root
    return found


def _fixtures_hash(paths: Iterable[Path]) -> str | None:
    listed = sorted({p for p in paths})
    if not listed:
        return None
    digest = hashlib.sha256()
    for path in listed:
        digest.update(f"{path.name}={tree_hash(path) or 'absent'}\n".encode())
    return digest.hexdigest()[:16]


def unit_fingerprint(value: Any, *, package_root: Path, fixtures: Iterable[Path] = (),
                     values: Mapping[str, str | None] | None = None) -> Fingerprint:
    """The fingerprint of one unit whose own value is ``value`` in a package rooted at ``package_root``.

    A skill folder that also holds the evals (skill-creator, writing-skills) is hashed without its ``evals/``
    folder: reports, results and other cases live there; the unit's own fixtures are hashed on their own.
    """
    root = package_root.resolve()
    folders: dict[str, Path] = dict(skill_folders(root))
    for part in PACKAGE_PARTS:
        if (root / part).exists():
            folders[part] = root / part
    exclude = [root / "evals"]
    fp = build(unit_text(value), folders=folders, values=values, exclude=exclude)
    parts = dict(fp.parts)
    fixture_hash = _fixtures_hash(fixtures)
    if fixture_hash is not None:
        parts["fixtures"] = fixture_hash
    return Fingerprint(parts)


def stale_reasons(recorded: Mapping[str, str] | None, current: Fingerprint) -> list[str]:
    """Why a recorded verdict no longer describes the unit (empty: it is current).

    A verdict recorded before evalens kept fingerprints has nothing to compare: it is not called stale.
    """
    old = Fingerprint.from_json(dict(recorded)) if recorded else None
    if old is None:
        return []
    return changes(old, current)
