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


def unit_value(doc: Any, location: Iterable[str | int]) -> Any:
    """The unit's own value in a parsed document: the data at ``location`` (a whole Markdown file is its
    frontmatter and its body, since a task's body is its prompt)."""
    loc = list(location)
    if not loc and getattr(doc, "language", None) == "markdown":
        return {"frontmatter": doc.data, "body": "\n".join(doc.lines[doc.body_start_line:])}
    value = doc.data
    for part in loc:
        if isinstance(part, int) and isinstance(value, list) and 0 <= part < len(value):
            value = value[part]
        elif isinstance(part, str) and isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def file_unit_value(file: Path, location: Iterable[str | int]) -> Any:
    """:func:`unit_value` of a file on disk (parsed the way the editor parses it)."""
    from evalens.core.documents import Language, parse

    suffix = file.suffix.lower()
    language: Language = "json" if suffix == ".json" else "markdown" if suffix in (".md", ".markdown") else "yaml"
    return unit_value(parse(file.read_text(encoding="utf-8", errors="replace"), language), location)


def package_root_for(format_id: str, file: Path) -> Path:
    """The folder whose skills, hooks and rules the unit's run installs."""
    if format_id == "uaaps-case":
        for parent in file.resolve().parents:
            if parent.name == "evals":
                return parent.parent
    from evalens.runner.suites.base import skill_root_of

    return skill_root_of(file)


def fixtures_for(format_id: str, root: Path, value: Any) -> list[Path]:
    """Files the unit copies into the agent's workspace, by each format's own rule."""
    if not isinstance(value, dict):
        return []
    if format_id == "uaaps-case":
        raw, base = (value.get("input") or {}).get("files") if isinstance(value.get("input"), dict) else None, \
            root / "evals"
    elif format_id == "skill-creator-evals":
        raw, base = value.get("files"), root
    elif format_id == "writing-skills-evals":
        raw, base = value.get("files"), root / "evals"
    else:
        return []
    return [base / f for f in raw or [] if isinstance(f, str)]


def fingerprint_of(result: Any) -> Fingerprint | None:
    """The fingerprint of a result's unit as the package is *now* (None when its eval file is gone).
    Blocking (reads and hashes files): call it off the event loop."""
    if not result.case_file:
        return None
    file = Path(result.case_file)
    try:
        value = file_unit_value(file, result.location or [])
        root = package_root_for(result.format, file)
        return unit_fingerprint(value, package_root=root, fixtures=fixtures_for(result.format, root, value),
                                values={"engine": result.engine, "engine-version": result.engine_version,
                                        "agent-model": result.agent_model, "judge": result.judge_model})
    except OSError:
        return None


def finish_unit(result: Any, report_case: Any = None) -> None:
    """Finish one unit's result for every face: repeat figures (FLAKY, interval, pass^k) and the fingerprint of
    what it depended on; mirrored onto its report case when the caller built that separately. Blocking (hashes
    files): call it off the event loop."""
    from evalens.runner.results import apply_repeats

    apply_repeats(result)
    fp = fingerprint_of(result)
    result.fingerprint = fp.to_json() if fp is not None else None
    if report_case is not None:
        report_case.state = result.state if result.runs > 1 else None
        report_case.pass_rate_interval = result.interval
        report_case.pass_hat_k = result.pass_hat_k
        report_case.fingerprint = result.fingerprint
        report_case.reason = result.reason or None


def staleness(result: Any) -> list[str]:
    """What changed since ``result`` was recorded (empty: current, or no fingerprint to compare)."""
    if not result.fingerprint:
        return []
    current = fingerprint_of(result)
    if current is None:
        return ["the eval file is gone"] if result.case_file and not Path(result.case_file).exists() else []
    return stale_reasons(result.fingerprint, current)
