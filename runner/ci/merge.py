"""``evalens report merge``: shard reports → one report, as if one machine had run the whole suite.

The merged report is an ordinary report (it validates against the report schema; ``show``, ``eval diff`` and
the JUnit writer read it) whose summary is recomputed from the units and whose ``shards`` list says where
every unit came from. A merge refuses what would silently lie: the same unit in two reports, shards of
different splits or packages or engines or judges, shards that recorded a different commit, configuration, cases or
``--runs``, and (unless allowed) a split with a shard missing.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from evalens.core.models.run_record import sum_usage
from evalens.core.models.uaaps import ReportSandbox, ReportSource
from evalens.runner.fingerprint import label as part_label
from evalens.runner.report import batch_id, iso, summarize
from evalens.runner.results import rederive_report_case


class MergeError(ValueError):
    """The reports cannot be merged; the message is one line a user can act on."""


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def merge_reports(
    items: list[tuple[Path, Any]], output: Path, *, allow_missing: bool = False
) -> tuple[Any, list[str]]:
    """Merge ``(path, report)`` pairs into one report that will live at ``output``; returns it and warnings."""
    if not items:
        raise MergeError("nothing to merge: give at least one report")
    warnings: list[str] = []
    first = items[0][1]
    for path, report in items[1:]:
        if (report.package.name, report.package.version) != (first.package.name, first.package.version):
            raise MergeError(
                f"{path} is a report of package {report.package.name} {report.package.version or ''}"
                f", {items[0][0]} of {first.package.name} {first.package.version or ''}".rstrip()
            )
        if report.config.engine != first.config.engine:
            raise MergeError(
                f"{path} ran on {report.config.engine}, {items[0][0]} on {first.config.engine}: "
                "merge reports of one engine (compare engines with `evalens compare`)"
            )
    _check_alike(items)
    _check_inputs(items)
    _check_shards(items, allow_missing, warnings)
    seen: dict[str, Path] = {}
    cases = []
    sources = []
    for path, report in items:
        names = []
        for case in report.cases:
            if case.name in seen:
                raise MergeError(
                    f"unit {case.name!r} is in both {seen[case.name]} and {path}: shards must not "
                    "overlap (were they cut with different --shard N or different durations?)"
                )
            seen[case.name] = path
            case = case.model_copy(deep=True)
            if case.artifacts:  # keep the transcript reachable from the merged report's folder
                case.artifacts = os.path.relpath(
                    (path.parent / case.artifacts).resolve(), output.parent.resolve()
                )
            cases.append(case)
            names.append(case.name)
        sources.append(
            ReportSource(
                id=report.id,
                path=str(path),
                timestamp=report.timestamp,
                duration_seconds=report.duration_seconds,
                shard=report.shard,
                cases=names,
                engine_version=report.config.engine_version,
                environment=report.environment,
                interrupted=report.interrupted,
            )
        )
    cases.sort(key=_suite_order)
    starts = [(_moment(r.timestamp), r) for _p, r in items]
    start = min(m for m, _r in starts)
    end = max(m.timestamp() + (r.duration_seconds or 0.0) for m, r in starts)
    merged = first.model_copy(deep=True)
    merged.id = f"{batch_id(start)}-merged"  # the batch the shards together ran, started by the first
    merged.timestamp = iso(start)
    merged.duration_seconds = round(end - start.timestamp(), 3)
    merged.cases = cases
    merged.interrupted = any(r.interrupted for _p, r in items)
    merged.shard = None
    merged.shards = sources
    versions = {r.config.engine_version for _p, r in items}
    if len(versions) > 1:
        warnings.append(
            f"shards ran different engine versions: {', '.join(sorted(v or '?' for v in versions))}"
        )
    sandboxes = [r.sandbox for _p, r in items if r.sandbox is not None]
    if sandboxes:  # claim only what every shard had: one unenforced shard makes the whole run unenforced
        merged.sandbox = ReportSandbox(
            enforced=all(s.enforced for s in sandboxes),
            method=sandboxes[0].method if len({s.method for s in sandboxes}) == 1 else "mixed",
            network=any(s.network for s in sandboxes),
            writable_paths=sandboxes[0].writable_paths,
        )
    for case in cases:  # a shard's stored state is never trusted: derived again by the one verdict function
        rederive_report_case(case)
    # tokens and cost: the batch's sum, as a run does
    merged.summary = summarize(cases, usage=sum_usage([c.usage for c in cases]))
    return merged, warnings


def _suite_order(case: Any) -> tuple[Any, ...]:
    """Units in the order their file lists them: file, then place in the file (``tasks[10]`` after
    ``tasks[2]``), then name."""
    where = getattr(case, "location", None) or []
    return (
        case.case_file or "",
        tuple((0, x, "") if isinstance(x, int) else (1, 0, str(x)) for x in where),
        case.name,
    )


#: What a shard records about how it ran (``ReportShard``): shards that differ in any of these measured
#: different things, and their merge would silently mix them (a FLAKY of 3 runs beside a PASS of 1).
ALIKE = (
    ("commit", "commit"),
    ("config", "configuration (eval-config.json)"),
    ("cases", "cases (their files)"),
    ("runs", "runs per unit (--runs)"),
)


def _check_alike(items: list[tuple[Path, Any]]) -> None:
    """Refuse reports of different judges, or shards that record a different commit, config, cases or runs;
    the message names the difference and which report has which value."""
    cells = {r.shard.cell for _p, r in items if r.shard is not None}
    if len(cells) > 1:
        raise MergeError(
            "the reports hold different cells of a matrix run ("
            + ", ".join(f"{p}: {(r.shard.cell if r.shard else None) or 'no cell'}" for p, r in items)
            + "): merge each cell's shards on their own, then `evalens report matrix` the merged cells"
        )
    judges = {r.config.judge for _p, r in items}
    if len(judges) > 1:
        raise MergeError(
            "the reports were judged differently ("
            + ", ".join(f"{p}: {r.config.judge or 'no judge'}" for p, r in items)
            + "): merge runs of one judge"
        )
    for attr, label in ALIKE:
        values = [(p, getattr(r.shard, attr, None)) for p, r in items if r.shard is not None]
        if len({v for _p, v in values if v is not None}) > 1:
            raise MergeError(
                f"the shards differ in {label} ("
                + ", ".join(f"{p}: {v if v is not None else 'not recorded'}" for p, v in values)
                + "): every job must run the same command on the same checkout"
            )


def _check_inputs(items: list[tuple[Path, Any]]) -> None:
    """Refuse shards whose runs had different inputs: the agent model, or any part of the units' fingerprints
    but each unit's own text (a skill, hooks, fixtures, the engine's version). Every unit that records a part
    records the same value within one run, so two values across the shards mean two different runs (another
    --model, a SKILL.md edited between the jobs), and one merged report would name only one of them."""
    models = {(r.agent.model if r.agent is not None else None) for _p, r in items}
    if len(models - {None}) > 1:
        raise MergeError(
            "the shards ran with different agent models ("
            + ", ".join(
                f"{p}: {(r.agent.model if r.agent is not None else None) or 'the default'}" for p, r in items
            )
            + "): merge runs of one model (compare models with `evalens compare`)"
        )
    seen: dict[str, tuple[str, Path]] = {}
    for path, report in items:
        for case in report.cases:
            if getattr(case, "baseline", None):  # a baseline's inputs differ on purpose (no skill, a ref)
                continue
            for part, value in (case.fingerprint or {}).items():
                if part == "unit":
                    continue
                first = seen.setdefault(part, (value, path))
                if first[0] != value:
                    raise MergeError(
                        f"the shards ran with a different {part_label(part)} ({first[1]}: {first[0][:16]}, {path}: "
                        f"{value[:16]}): every job must run the same inputs"
                    )


def _check_shards(items: list[tuple[Path, Any]], allow_missing: bool, warnings: list[str]) -> None:
    sharded = [(p, r.shard) for p, r in items if r.shard is not None]
    if not sharded:
        return
    if len(sharded) != len(items):
        plain = next(p for p, r in items if r.shard is None)
        warnings.append(f"{plain} was not run with --shard; merging it as-is")
    splits = {(s.count, s.split) for _p, s in sharded}
    if len(splits) > 1:
        raise MergeError(
            "the shards come from different splits ("
            + ", ".join(f"{p}: {s.index}/{s.count} split {s.split}" for p, s in sharded)
            + "); every job must see the same suite and the same --durations"
        )
    by_index: dict[int, Path] = {}
    for path, shard in sharded:
        if shard.index in by_index:
            raise MergeError(f"{by_index[shard.index]} and {path} are both shard {shard.index}/{shard.count}")
        by_index[shard.index] = path
    count = sharded[0][1].count
    missing = sorted(set(range(1, count + 1)) - set(by_index))
    if missing:
        message = f"shard(s) {', '.join(f'{k}/{count}' for k in missing)} missing"
        if not allow_missing:
            raise MergeError(
                message + ": the merged report would lack their units (--allow-missing merges anyway)"
            )
        warnings.append(message + "; their units are absent from the merged report")
