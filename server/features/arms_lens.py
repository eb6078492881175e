"""The SKILL.md lens of an ``--arms`` run (docs/baseline.md#ablation-arms): one lens per arm the reference was
compared with, from the package's newest report that has the comparison:
``▲ +40 pts vs no skill [+12, +68] · claude-code`` (the units pooled, with the paired interval)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types

from evalens.server import uris
from evalens.server.server import EvalensServer

log = logging.getLogger(__name__)
SEARCHED = 20  # newest reports read for an arms section


def _package_root(skill_md: Path) -> Path | None:
    """The nearest folder above the SKILL.md holding ``evals/reports`` (a UAAPS package: skills/<name>/)."""
    for folder in list(skill_md.parents)[:4]:
        if (folder / "evals" / "reports").is_dir():
            return folder
    return None


def _titles(report_path: Path) -> list[str]:
    """The lens titles of one report (none without an arms section)."""
    # lazy: the report models (~0.1 s) load after the initialize answer (issue 43)
    from evalens.runner.report import NotAReport, load_report
    from evalens.runner.uplift_words import uplift_text

    try:
        report = load_report(report_path)
    except NotAReport:
        return []
    arms = report.arms
    engine = report.config.engine
    return [
        f"{uplift_text(c.uplift)} · {engine}"
        for c in (arms.comparisons if arms is not None else [])
        if c.uplift is not None
    ]


def titles_for(root: Path) -> list[str]:
    """The newest arms comparison of the package at ``root``, as lens titles. Blocking: reads reports."""
    # lazy: the report models (~0.1 s) load after the initialize answer (issue 43)
    from evalens.runner.report import reports_newest_first

    for path in reports_newest_first(root, SEARCHED):
        try:
            titles = _titles(path)
        except OSError:
            continue
        if titles:
            return titles
    return []


class ArmsLens:
    """The arms lens of each package, kept per version of its reports folder (one ``stat`` tells): a changed
    or unknown folder is read in the server's worker threads, never on the loop, and once per change."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[int, list[str]]] = {}  # package root -> (reports folder mtime, titles)
        self._reading: dict[tuple[Path, int], asyncio.Task[list[str]]] = {}

    async def lenses(self, ls: EvalensServer, uri: str) -> list[types.CodeLens]:
        """Title-only lenses on the SKILL.md's first line (nothing to run from them)."""
        validation = ls.validation_for(uri)
        if validation is None or validation.format is None or validation.format.id != "skill-md":
            return []
        path = uris.path_of(uri)
        root = _package_root(Path(path)) if path else None
        if root is None:
            return []
        try:
            stamp = (root / "evals" / "reports").stat().st_mtime_ns
        except OSError:
            return []
        known = self._known.get(root)
        titles = known[1] if known is not None and known[0] == stamp else await self._read(ls, root, stamp)
        start = types.Position(line=0, character=0)
        return [
            types.CodeLens(
                range=types.Range(start=start, end=start), command=types.Command(title=t, command="")
            )
            for t in titles
        ]

    async def _read(self, ls: EvalensServer, root: Path, stamp: int) -> list[str]:
        key = (root, stamp)
        task = self._reading.get(key)
        if task is None:  # lens requests for two SKILL.md files of one package share one read
            task = self._reading[key] = asyncio.ensure_future(ls.off_loop(titles_for, root))
        try:
            titles = await asyncio.shield(task)
        except Exception:  # noqa: BLE001 - no arms lens is better than a broken lens request
            log.debug("arms lens: reading the reports of %s failed", root, exc_info=True)
            titles = []
        finally:
            if task.done():
                self._reading.pop(key, None)
        self._known[root] = (stamp, titles)
        return titles
