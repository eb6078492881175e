"""What one unit's verdict depends on, for every format: its own text, the skills, hooks, rules, agents, scripts,
bin and fixtures of its package, the eval config, the engine and its real version, the agent and judge models.

:func:`fingerprint_of` is the one definition, recorded with every result and recomputed for the lens, the Test
Explorer and ``--stale``. It is always computed from the inputs of the *next* run (:class:`NextRun`: flags or
settings, the eval config, the CLI's ``--version`` now), never from what the stored result says ran: a result
that says ``judge: claude-sonnet-4-5`` cannot vouch that the judge is still that. The eval file as a whole is
*not* an input: editing one case must not make the verdicts of the other cases in the same file stale, so each
unit contributes only its own value.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from evalens.core.documents import Language, parse
from evalens.core.index import evals_parent
from evalens.core.labels import PLUGIN_EVAL_FORMATS  # a case folder: both files are one unit
from evalens.runner.engines import get_engine
from evalens.runner.engines.base import binary_version
from evalens.runner.fingerprint import Fingerprint, build, changes, text_hash, tree_hash
from evalens.runner.judge import default_judge, resolve_judge
from evalens.runner.results import apply_repeats
from evalens.runner.suites import PACKAGE_FORMAT, names_per_file
from evalens.runner.suites.base import skill_root_of
from evalens.runner.suites.plugin_eval_paths import eval_dir_of, plugin_root_of

PACKAGE_PARTS = ("hooks", "rules", "agents", "scripts", "bin")  # every folder install.py copies or runs


@dataclass(frozen=True)
class NextRun:
    """The run inputs that are not package files, as the next run would take them: the CLI flags (or the
    editor's settings); unset values fall back to the eval config, then to the defaults. ``engine_version`` is
    given only by a run that just asked the CLI; otherwise the CLI is asked now."""

    engine: str | None = None
    agent_model: str | None = None
    judge: str | None = None
    no_judge: bool = False
    engine_version: str | None = None


_versions: dict[tuple[str, int], str | None] = {}


def engine_version_now(engine_name: str) -> str | None:
    """The installed CLI's real ``--version``, cached per (binary, mtime): a lens check costs one ``stat``."""
    try:
        binary = str(get_engine(engine_name).binary)
        key = (binary, os.stat(binary).st_mtime_ns)
    except Exception:  # noqa: BLE001 - an unknown engine or a CLI that is gone has no version
        return None
    if key not in _versions:
        _versions[key] = binary_version(binary)
    return _versions[key]


def _config_of(format_id: str, file: Path, root: Path) -> tuple[Path | None, dict[str, Any]]:
    """The eval config the next run reads (UAAPS: ``evals/eval-config.json``; skilljack: ``eval.config.yaml``
    beside the file) and its data (empty when unreadable)."""
    if format_id == PACKAGE_FORMAT:
        path = root / "evals" / "eval-config.json"
    elif format_id.startswith("skilljack"):
        path = file.parent / "eval.config.yaml"
    else:
        return None, {}
    if not path.is_file():
        return None, {}
    try:
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
        else:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, Exception):  # noqa: BLE001 - an unreadable config is hashed, not read
        data = {}
    return path, data if isinstance(data, dict) else {}


def run_inputs(format_id: str, file: Path, root: Path, nxt: NextRun) -> dict[str, str | None]:
    """``engine``, ``engine-version``, ``agent-model``, ``judge`` and ``config`` as the next run resolves them."""
    config_path, config = _config_of(format_id, file, root)
    engine = (
        nxt.engine
        or (config.get("engine") if isinstance(config.get("engine"), str) else None)
        or "claude-code"
    )
    judge_name = nxt.judge or (config.get("judge") if isinstance(config.get("judge"), str) else None)
    if nxt.no_judge:
        judge: str | None = "none"
    else:
        try:
            judge = resolve_judge(
                judge_name, default_provider=default_judge(engine), agent_model=nxt.agent_model
            ).model
        except Exception:  # noqa: BLE001 - an unknown provider: the run says so; the name is the input
            judge = judge_name
    config_hash = None
    if config_path is not None:
        try:
            config_hash = text_hash(config_path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            config_hash = None
    return {
        "engine": engine,
        "engine-version": nxt.engine_version or engine_version_now(engine),
        "agent-model": nxt.agent_model or "default",
        "judge": judge,
        "config": config_hash,
    }


NAME_KEYS = ("name", "id")  # a unit's own name: what it is called, not what it runs


def unit_text(value: Any) -> str:
    """The unit's own value as canonical JSON, without its name: reformatting or comments do not make a verdict
    stale, and neither does a rename (no agent or judge reads the name). Its hash is the fingerprint's ``unit``
    part and the content of the unit's identity (:mod:`evalens.runner.unit_identity`)."""
    return json.dumps(_unnamed(value), sort_keys=True, ensure_ascii=False, default=str)


def _unnamed(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    out = {k: v for k, v in value.items() if k not in NAME_KEYS}
    if isinstance(out.get("frontmatter"), dict) and "body" in out:  # a Markdown unit: its name is in front
        out["frontmatter"] = {k: v for k, v in out["frontmatter"].items() if k not in NAME_KEYS}
    return out


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


def unit_fingerprint(
    value: Any,
    *,
    package_root: Path,
    fixtures: Iterable[Path] = (),
    values: Mapping[str, str | None] | None = None,
) -> Fingerprint:
    """The fingerprint of one unit whose own value is ``value`` in a package rooted at ``package_root``.

    A skill folder that also holds the evals (skill-creator, writing-skills) is hashed without its ``evals/``
    folder: reports, results and other cases live there; the unit's own fixtures are hashed on their own.
    """
    root = package_root.resolve()
    folders: dict[str, Path] = dict(skill_folders(root))
    inside_skill = root in folders.values()  # a skill folder as the package: its scripts/ are in its own hash
    for part in PACKAGE_PARTS:
        if (root / part).exists() and not inside_skill:
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
        return {"frontmatter": doc.data, "body": "\n".join(doc.lines[doc.body_start_line :])}
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
    suffix = file.suffix.lower()
    language: Language = (
        "json" if suffix == ".json" else "markdown" if suffix in (".md", ".markdown") else "yaml"
    )
    return unit_value(parse(file.read_text(encoding="utf-8", errors="replace"), language), location)


def package_root_for(format_id: str, file: Path) -> Path:
    """The folder whose skills, hooks and rules the unit's run installs."""
    if not names_per_file(format_id):  # a package's case installs its package
        found = evals_parent(file.resolve())
        if found is not None:
            return found
    if format_id in PLUGIN_EVAL_FORMATS:  # a plugin's case installs the plugin
        return plugin_root_of(file.parent) or file.parent
    return skill_root_of(file)


def plugin_case_files(file: Path, root: Path) -> list[Path]:
    """What a `claude plugin eval` case's run reads besides the plugin: its whole folder (both case files, the
    graders, fixtures, the baseline transcript) and the eval dir's suite-wide mocks."""
    folder = file.resolve().parent
    eval_dir = eval_dir_of(root.resolve(), folder) or "evals"
    return [folder, root.resolve() / eval_dir / "mocks"]


def fixtures_for(format_id: str, root: Path, value: Any, file: Path | None = None) -> list[Path]:
    """Files the unit copies into the agent's workspace, by each format's own rule."""
    if format_id in PLUGIN_EVAL_FORMATS and file is not None:
        return plugin_case_files(file, root)
    if not isinstance(value, dict):
        return []
    if format_id == PACKAGE_FORMAT:
        raw, base = (
            (value.get("input") or {}).get("files") if isinstance(value.get("input"), dict) else None,
            root / "evals",
        )
    elif format_id == "skill-creator-evals":
        raw, base = value.get("files"), root
    elif format_id == "writing-skills-evals":
        raw, base = value.get("files"), root / "evals"
    else:
        return []
    return [base / f for f in raw or [] if isinstance(f, str)]


def fingerprint_of(result: Any, inputs: NextRun | None = None) -> Fingerprint | None:
    """The fingerprint of a result's unit as its *next* run would see it: the package now and ``inputs`` (the
    flags or settings of that run; None: the eval config's and the defaults). Nothing is taken from the result
    but where its unit is written. None when its eval file is gone. Blocking (reads and hashes files, may ask the
    CLI its version once): call it off the event loop."""
    if not result.case_file:
        return None
    file = Path(result.case_file)
    try:
        value = file_unit_value(file, result.location or [])
        root = package_root_for(result.format, file)
        return unit_fingerprint(
            value,
            package_root=root,
            fixtures=fixtures_for(result.format, root, value, file),
            values=run_inputs(result.format, file, root, inputs or NextRun()),
        )
    except OSError:
        return None


def finish_unit(result: Any, report_case: Any = None, inputs: NextRun | None = None) -> None:
    """Finish one unit's result for every face: repeat figures (FLAKY, interval, pass^k) and the fingerprint of
    what it depended on; mirrored onto its report case when the caller built that separately. Blocking (hashes
    files): call it off the event loop."""
    apply_repeats(result)
    fp = fingerprint_of(result, inputs)
    result.fingerprint = fp.to_json() if fp is not None else None
    if report_case is not None:
        report_case.verdict = result.verdict
        report_case.state = result.state if result.runs > 1 or result.state == "BUDGET" else None
        report_case.budget_stopped = result.budget_stopped or None
        report_case.pass_rate = result.pass_rate if result.runs > 1 else None
        report_case.pass_rate_interval = result.interval
        report_case.pass_hat_k = result.pass_hat_k
        report_case.pass_at_k = result.pass_at_k
        report_case.at_least_k = result.at_least_k
        report_case.fingerprint = result.fingerprint
        report_case.reason = result.reason or None


def staleness(result: Any, inputs: NextRun | None = None) -> list[str]:
    """What changed since ``result`` was recorded, against the inputs of the next run (empty: current, or no
    fingerprint to compare)."""
    if not result.fingerprint:
        return []
    current = fingerprint_of(result, inputs)
    if current is None:
        return ["the eval file is gone"] if result.case_file and not Path(result.case_file).exists() else []
    return stale_reasons(result.fingerprint, current)
