"""The editor's side of the formats that run through a suite (skilljack, skill-creator, writing-skills, trigger
sets): run a unit through :func:`evalens.runner.api.run_file` and remember what it returned, and restore past
verdicts from the evalens reports and the suites' own result files when a document opens.

The runner's :class:`~evalens.runner.results.UnitResult` is used as is: its checks carry their location in the
file, so nothing here reads result files after a run or parses a message.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalens.core.engines import engine_names
from evalens.runner.suites import names_per_file, suite_for, suite_root
from evalens.runner.verdicts import combine_units, count_passed

if TYPE_CHECKING:
    from evalens.runner.results import UnitResult

log = logging.getLogger("evalens.server.run")

ALL = "*"  # the unit that runs a whole file (a tasks.yaml, a trigger set)
STAGES = {
    "sandbox": 10,
    "agent": 25,
    "checks": 70,
    "judge": 80,
    "cleanup": 95,
}  # a stage → its share of the bar
MAX_REPORTS = 30  # evalens reports read per eval file when restoring
FOLDER_TTL = 5.0  # seconds a file's result folder is trusted (it depends on eval.config.yaml and SKILL.md)


display_root = suite_root


def skilljack_results_dir(file: Path) -> Path:
    # lazy: evalens.runner.suites.skilljack_files ~0.6 s to import; the server starts without it
    from evalens.runner.suites.skilljack_files import skilljack_results_dir as where

    return where(file)


def result_files(fmt: str, file: Path) -> list[Path]:
    """The format's own result files for ``file``, newest first (bounded)."""
    suite = suite_for(fmt)
    try:
        return suite.result_files(fmt, file) if suite is not None else []
    except OSError:
        return []


_FOLDERS: dict[tuple[str, str], tuple[float, tuple[Path | None, ...]]] = {}


def _folders(fmt: str, file: Path) -> tuple[Path | None, ...]:
    key = (fmt, str(file))
    now = time.monotonic()
    cached = _FOLDERS.get(key)
    if cached is not None and now - cached[0] < FOLDER_TTL:
        return cached[1]
    suite = suite_for(fmt)
    folders = (
        suite.result_folder(fmt, file) if suite is not None else None,
        suite_root(fmt, file) / "evals" / "reports",
    )
    if len(_FOLDERS) > 512:
        _FOLDERS.clear()
    _FOLDERS[key] = (now, folders)
    return folders


def folder_stamp(fmt: str, file: Path) -> tuple[int, ...]:
    """The mtimes of the folders result files are created in (a few stats: cheap enough for every look)."""
    out = []
    for folder in _folders(fmt, file):
        try:
            out.append(folder.stat().st_mtime_ns if folder is not None else 0)
        except OSError:
            out.append(0)
    return tuple(out)


def _reports(fmt: str, file: Path) -> list[Path]:
    """The batches of the suite's folder, newest first (bounded): reports, and the run logs of batches killed
    before their report (``runner.run_log.past_batches``, the listing the UAAPS memory walks too)."""
    # lazy: evalens.runner.run_log ~0.6 s to import; the server starts without it
    from evalens.runner.run_log import past_batches

    return past_batches(suite_root(fmt, file) / "evals" / "reports")[:MAX_REPORTS]


def stamp(fmt: str, file: Path) -> tuple[tuple[str, int], ...]:
    """Changes whenever a result file or report for ``file`` is written (restoring re-reads only then)."""
    out = []
    for p in [*result_files(fmt, file), *_reports(fmt, file)]:
        try:
            out.append((str(p), p.stat().st_mtime_ns))
        except OSError:
            continue
    return tuple(out)


def _from_reports(fmt: str, file: Path) -> dict[str, tuple[UnitResult, str, float]]:
    """Units of ``file`` from the batches of its suite's folder (newest first), read as the UAAPS memory reads
    them (``run_memory.read_reports``): a report's cases, a killed batch's finished runs from its run log, and a
    unit renamed in place since found under its new name (``unit_identity.renamed_since``)."""
    # lazy: evalens.runner.run_log ~0.6 s, unit_identity ~0.8 s to import; the server starts without them, and
    # without the report and run-log models (~0.1 s, issue 43: initialize answers before them)
    from evalens.core.models.run_log import LOG_FILE
    from evalens.runner.report import load_report
    from evalens.runner.results import is_interrupted, result_from_report_case
    from evalens.runner.run_log import logged_results
    from evalens.runner.unit_identity import file_units, renamed_since

    root = suite_root(fmt, file)
    found: dict[str, tuple[UnitResult, str, float]] = {}
    target = file.resolve()
    for path in _reports(fmt, file):
        try:
            mtime = path.stat().st_mtime
            if path.name == LOG_FILE:
                results = logged_results(path)
            else:
                report = load_report(path)
                results = [
                    result_from_report_case(case, report, path, root)
                    for case in report.cases
                    if case.format == fmt and case.case_file and not is_interrupted(case, report)
                ]
        except Exception:  # noqa: BLE001 - a half-written or foreign file is skipped
            continue
        for result in results:
            if result.format != fmt or result.name in found or not result.case_file:
                continue
            if Path(result.case_file).resolve() == target:
                found[result.name] = (result, str(path), mtime)
    current = file_units(file, fmt, root) if found else []
    for new, old in renamed_since({n: r for n, (r, _, _) in found.items()}, root, current).items():
        result, source, mtime = found.pop(old)  # renamed in place since its last run
        found[new] = (result.model_copy(update={"name": new}), source, mtime)
    return found


def restore(fmt: str, file: Path, data: Any) -> dict[str, tuple[UnitResult, str, float]]:
    """Unit name → (result, file it was read from, its mtime): the newest of the evalens reports and the
    format's own result files (those written by the original tools, or by an older evalens)."""
    found = _from_reports(fmt, file)
    suite = suite_for(fmt)
    if suite is not None:
        for name, restored in suite.restore(fmt, file, data).items():
            current = found.get(name)
            if current is None or restored.mtime > current[2] + 1:  # the report is written after its files
                found[name] = (restored.result, restored.path, restored.mtime)
    return found


ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def key_env_names(settings: Any) -> list[str]:
    """``evalens.apiKeyEnvVars``: names of environment variables the agent may read; anything else is dropped
    (a key pasted there must never reach a command line or a log)."""
    given = settings.api_key_env_vars or []
    names = [n for n in given if isinstance(n, str) and ENV_NAME.match(n)]
    if len(names) != len(given):
        log.warning(
            "evalens.apiKeyEnvVars holds names of environment variables, never keys; ignored the rest"
        )
    return names


async def request(
    fmt: str,
    file: Path,
    name: str,
    settings: Any,
    *,
    package_root: Path | None = None,
    dry_run: bool = False,
    runs: int = 1,
    jobs: int = 1,
    budget: Any = None,
    arm: str | None = None,
) -> Any:
    """The runner request for one unit (``*``: the whole file; a package's case: its case file) under the
    editor's settings, ``runs`` times each (``jobs`` at once where the format schedules repeats), within the
    batch's ``budget``, installed as ``arm`` installs the skills. Built off the loop: a suite may read its
    config."""
    # lazy: evalens.runner.api ~0.7 s to import; the server starts without it (it loads on the first run)
    from evalens.runner.api import request_for

    options = {
        "engine": settings.engine or None,
        "agent_model": getattr(settings, "model", None) or None,
        "judge": settings.judge or None,
        "timeout": float(settings.timeout) if settings.timeout else None,
        "keep_sandbox": bool(settings.keep_sandbox),
        "runs": runs,
        "budget": budget,
        "dry_run": dry_run,
        "arm": arm,
        "extra_env": key_env_names(settings),
    }
    given = {k: v for k, v in options.items() if v is not None}  # unset: the format's own default
    units = [] if name == ALL else [name]
    if not names_per_file(fmt):
        units = []  # a package's case runs by its file (renamed since the last parse or not)
    return await asyncio.to_thread(
        request_for,
        fmt,
        file,
        units,
        given,
        package_root=package_root,
        jobs=jobs,
    )


async def dry_run(fmt: str, file: Path, name: str, settings: Any, package_root: Path | None = None) -> Any:
    """What running one unit would do, as ``evalens run --dry-run`` plans it: starts no agent and writes no
    report. The runner's outcome; raises the runner's ``RunError`` / ``UsageError``."""
    # lazy: evalens.runner.api ~0.7 s to import; the server starts without it (it loads on the first run)
    from evalens.runner.api import run

    return await run(
        await request(fmt, file, name, settings, package_root=package_root, dry_run=True), None, format_id=fmt
    )


def engine_refusal(file: Path, engine: str) -> str | None:
    """Why ``file`` cannot run on ``engine`` (setting ``evalens.engine``): an engine the registry does not know."""
    if engine in engine_names():
        return None
    return f"`evalens run` runs {file.name} with {' or '.join(engine_names())}, not {engine} (setting evalens.engine)"


def stage_progress(on_progress: Callable[[str, str], None] | None) -> Callable[[Any], None]:
    """The run's progress as a stage the editor's status bar can show (``stage``, ``message``): a package's
    stages as its batch names them, and how many unit-runs have finished. A suite's own notes
    (``0: WRONG should trigger…``, warnings) are the CLI's output; shown as progress they read as a raw log line
    in VS Code's status bar (issue 45 #4), so they go to the server's log instead."""
    finished = 0

    def progress(event: Any) -> None:
        nonlocal finished
        if event.message and event.stage in ("plan", "done", "report"):
            log.info("%s", f"{event.case_name}: {event.message}" if event.case_name else event.message)
        if on_progress is None or not event.case_name:
            return
        if event.stage == "done":
            finished += 1
            on_progress("agent", f"{finished} run{'' if finished == 1 else 's'} finished")
        elif event.stage in STAGES:
            on_progress(event.stage, event.message)

    return progress


async def run_unit(
    fmt: str,
    file: Path,
    name: str,
    settings: Any,
    on_progress: Callable[[str, str], None] | None = None,
    on_turn: Callable[[Any], None] | None = None,
    *,
    package_root: Path | None = None,
    runs: int = 1,
    jobs: int = 1,
    budget: Any = None,
    arm: str | None = None,
) -> list[tuple[UnitResult, str | None]]:
    """Run one unit of any runnable format (``*``: the whole file); every unit's result with the file it was
    written to (the format's own result file, else the evalens report). A run that cannot start is the unit's
    ERROR, with the runner's reason.

    Cancelling the calling task cancels the run: the agent's whole process group is killed and its sandbox
    removed on the way out (a partial report is written).
    """
    # lazy: evalens.runner.api ~0.7 s to import; the server starts without it (it loads on the first run)
    from evalens.runner.api import RunError, UsageError, run
    from evalens.runner.results import UnitResult

    def refused(why: str) -> list[tuple[UnitResult, str | None]]:
        return [
            (
                UnitResult(
                    name=name, format=fmt, case_file=str(file), verdict="ERROR", reason=why, error=why
                ),
                None,
            )
        ]

    why = engine_refusal(file, settings.engine) if settings.engine else None
    if why is not None:
        return refused(why)
    t0 = time.monotonic()
    try:
        req = await request(
            fmt, file, name, settings, package_root=package_root, runs=runs, jobs=jobs, budget=budget, arm=arm
        )
        outcome = await run(req, stage_progress(on_progress), on_turn=on_turn, format_id=fmt)
    except (RunError, UsageError) as exc:
        return refused(str(exc))
    elapsed = round(time.monotonic() - t0, 3)
    report = str(outcome.report_path) if outcome.report_path else None
    # the format's own result file is what its users know (the evalens report is next to it, in evals/reports)
    out: list[tuple[UnitResult, str | None]] = [(r, r.result_file or report) for r in outcome.results]
    if name == ALL:
        out.append((summary(fmt, outcome.results, elapsed), report))
    elif not any(r.name == name for r, _ in out):
        if not names_per_file(fmt) and len(out) == 1:  # a package's case renamed since the file was parsed
            return [(out[0][0].model_copy(update={"name": name}), out[0][1])]
        out.append(
            (
                UnitResult(
                    name=name,
                    format=fmt,
                    verdict="ERROR",
                    error="no verdict",
                    reason=f"the runner returned no verdict for {name}",
                ),
                None,
            )
        )
    return out


def summary(fmt: str, units: list[UnitResult], elapsed: float) -> UnitResult:
    """The ``*`` unit: how the whole file did (precision / recall for a trigger set, from the queries' own
    labels, ERROR queries left out and counted)."""
    # lazy: the result models (~0.1 s with the report's) load after the initialize answer (issue 43)
    from evalens.runner.results import UnitResult

    if not units:
        return UnitResult(name=ALL, format=fmt, verdict="ERROR", reason="nothing ran", error="nothing ran")
    passed = count_passed(u.verdict for u in units)
    reason = f"{passed}/{len(units)} passed"
    if fmt.startswith("trigger"):
        # lazy: evalens.runner.suites.trigger_sets ~0.6 s to import; the server starts without it
        from evalens.runner.suites.trigger_sets import metric_words, metrics_of

        m, _rows, errored = metrics_of(units)
        reason = f"{metric_words(m, 'precision', 'recall')} ({reason}" + (
            f"; {errored} ERROR left out of precision and recall)" if errored else ")"
        )
    return UnitResult(
        name=ALL,
        format=fmt,
        location=[],
        verdict=combine_units(u.verdict for u in units),
        reason=reason,
        duration_seconds=elapsed,
    )
