"""The SKILL.md lens of an ``--arms`` run (docs/baseline.md#ablation-arms): one lens per arm the reference was
compared with, from the package's newest report that has the comparison:
``▲ +40 pts vs no skill [+12, +68] · claude-code`` (the units pooled, with the paired interval)."""

from __future__ import annotations

import logging
from pathlib import Path

from evalens.server import uris
from evalens.server.server import EvalensServer
from lsprotocol import types

log = logging.getLogger(__name__)
SEARCHED = 20  # newest reports read for an arms section
_seen: dict[Path, tuple[int, list[str]]] = {}  # report → (its mtime, the lens titles it gives)


def _package_root(skill_md: Path) -> Path | None:
    """The nearest folder above the SKILL.md holding ``evals/reports`` (a UAAPS package: skills/<name>/)."""
    for folder in list(skill_md.parents)[:4]:
        if (folder / "evals" / "reports").is_dir():
            return folder
    return None


def _titles(report_path: Path) -> list[str]:
    """The lens titles of one report (none without an arms section); read once per version of the file."""
    mtime = report_path.stat().st_mtime_ns
    cached = _seen.get(report_path)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    from evalens.runner.baseline import uplift_text
    from evalens.runner.report import NotAReport, load_report

    try:
        report = load_report(report_path)
    except NotAReport:
        titles: list[str] = []
    else:
        arms = report.arms
        engine = report.config.engine
        titles = [
            f"{uplift_text(c.uplift)} · {engine}"
            for c in (arms.comparisons if arms is not None else [])
            if c.uplift is not None
        ]
    _seen[report_path] = (mtime, titles)
    return titles


def titles_for(skill_md: Path) -> list[str]:
    """The newest arms comparison of the package holding ``skill_md``, as lens titles."""
    from evalens.runner.report import reports_newest_first

    root = _package_root(skill_md)
    if root is None:
        return []
    for path in reports_newest_first(root, SEARCHED):
        try:
            titles = _titles(path)
        except OSError:
            continue
        if titles:
            return titles
    return []


def lenses(ls: EvalensServer, uri: str) -> list[types.CodeLens]:
    """Title-only lenses on the SKILL.md's first line (nothing to run from them)."""
    validation = ls.validation_for(uri)
    if validation is None or validation.format is None or validation.format.id != "skill-md":
        return []
    path = uris.path_of(uri)
    if not path:
        return []
    start = types.Position(line=0, character=0)
    return [
        types.CodeLens(range=types.Range(start=start, end=start), command=types.Command(title=t, command=""))
        for t in titles_for(Path(path))
    ]
