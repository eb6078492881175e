"""``--shard K/N``: split a suite's units across N machines, the same way on every machine.

The split is a pure function of the unit ids and the durations it is given, so N jobs that see the same
suite and the same previous reports cut the same split without talking to each other. With durations, the
longest unit goes first to the least-loaded shard (greedy LPT: within 4/3 of the best possible makespan);
units without a known duration count as the mean known one. Without durations, units are dealt round-robin
in id order (shard sizes differ by at most one). The fingerprint of the whole split travels in every shard's
report so a merge can refuse shards cut from different splits.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalens.runner.ci.units import units_of
from evalens.runner.git_repo import git, repository_of
from evalens.runner.report import NotAReport, load_report

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """A bad ``K/N`` or an unusable durations source; the message is one line a user can act on."""


@dataclass(frozen=True, slots=True)
class Split:
    """The whole split: ``shards[k-1]`` holds shard K's unit ids, in the suite's order."""

    shards: tuple[tuple[str, ...], ...]
    balanced_by: str  # "durations" | "count"
    fingerprint: str
    loads: tuple[float, ...]  # expected seconds per shard ("durations"), else units per shard

    def units(self, index: int) -> list[str]:
        return list(self.shards[index - 1])


def parse_spec(spec: str) -> tuple[int, int]:
    """``"2/3"`` → ``(2, 3)``; K is 1-based (a Kubernetes index is 0-based: pass ``$((INDEX+1))/N``)."""
    match = _SPEC.match(spec or "")
    if not match:
        raise ShardError(f"--shard {spec!r}: expected K/N, e.g. 2/3")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"--shard {spec}: K must be between 1 and N (N ≥ 1)")
    return index, count


def split(units: Iterable[str], count: int, durations: Mapping[str, float] | None = None) -> Split:
    """Split ``units`` (ids in the suite's order; duplicates ignored) into ``count`` shards."""
    if count < 1:
        raise ShardError("the shard count must be at least 1")
    order = list(dict.fromkeys(units))
    position = {u: i for i, u in enumerate(order)}
    known = {u: float(d) for u, d in (durations or {}).items() if u in position and d is not None and d >= 0}
    buckets: list[list[str]] = [[] for _ in range(count)]
    if known:
        mean = sum(known.values()) / len(known)
        cost = {u: known.get(u, mean) for u in order}
        loads = [0.0] * count
        for unit in sorted(order, key=lambda u: (-cost[u], u)):
            k = min(range(count), key=lambda i: (loads[i], len(buckets[i]), i))
            buckets[k].append(unit)
            loads[k] += cost[unit]
        balanced_by = "durations"
        shown_loads = tuple(round(x, 3) for x in loads)
    else:
        for i, unit in enumerate(sorted(order)):
            buckets[i % count].append(unit)
        balanced_by = "count"
        shown_loads = tuple(float(len(b)) for b in buckets)
    shards = tuple(tuple(sorted(b, key=position.__getitem__)) for b in buckets)
    return Split(
        shards=shards, balanced_by=balanced_by, fingerprint=split_fingerprint(shards), loads=shown_loads
    )


def split_fingerprint(shards: Iterable[Iterable[str]]) -> str:
    """The fingerprint of a whole split (each shard's keys, in any order): equal on every machine that cut the
    same split, so a merge can tell shards of different splits apart."""
    return hashlib.sha256(json.dumps([sorted(s) for s in shards]).encode()).hexdigest()[:12]


def durations_from(sources: Iterable[Path], keep: Callable[[Any], bool] | None = None) -> dict[str, float]:
    """Unit id → seconds, from report files or folders of reports (newest report first for each unit); only
    the reports ``keep`` accepts when given (a matrix cell's: its engine and model).

    Unreadable files are passed over: old durations only balance the split, they never decide a verdict."""
    files: list[Path] = []
    for source in sources:
        if source.is_dir():
            files += [p for p in source.glob("*.json") if p.is_file() and not p.name.startswith(".")]
        elif source.is_file():
            files.append(source)
        else:
            raise ShardError(f"durations source {source} does not exist")
    files.sort(key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)
    out: dict[str, float] = {}
    for path in files:
        try:
            report = load_report(path)
        except NotAReport:
            continue
        if keep is not None and not keep(report):
            continue
        for unit in units_of(report):
            if unit.name not in out and unit.duration is not None and unit.verdict != "SKIP":
                out[unit.name] = unit.duration
    return out


def _digest(parts: Iterable[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()[:12]


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"<missing>"


def cases_fingerprint(units: Mapping[str, str | Path], root: Path) -> str:
    """The whole suite's unit ids and their files' contents: two shards of edited cases differ here."""
    parts: list[bytes] = []
    for name in sorted(units):
        path = Path(units[name])
        parts += [name.encode("utf-8"), _bytes(path if path.is_absolute() else root / path)]
    return _digest(parts)


def config_fingerprint(path: Path) -> str:
    """The configuration file's content (``<missing>`` when there is none)."""
    return _digest([_bytes(path)])


def commit_of(root: Path) -> str | None:
    """``git rev-parse HEAD`` of the repository holding ``root``; None outside one. Its git dir is named, never
    discovered, with hooks off (:func:`evalens.runner.baseline.repository_of`)."""

    top = repository_of(root)
    if top is None:
        return None
    try:
        done = git(top, "rev-parse", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None
