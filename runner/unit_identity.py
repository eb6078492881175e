"""The stable identity of a unit: its file, its name and the hash of its content without the name.

The run log names every unit this way, and readers of past runs reconcile identities with the units of today: a
unit keeps its past runs under its own name, or, renamed in place, through a past unit of the same file with
the same content whose name no unit has any more (exactly one such: an ambiguous match is no match). The
content hash is the fingerprint's ``unit`` part (:func:`evalens.runner.depends.unit_text`), so a report's
fingerprint names the unit's content too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from evalens.core.formats.registry import all_formats
from evalens.core.labels import unit_cases
from evalens.core.models.run_log import LogUnit
from evalens.core.units import read_doc
from evalens.runner.depends import file_unit_value, unit_text, unit_value
from evalens.runner.fingerprint import text_hash
from evalens.runner.report import load_report, reports_newest_first
from evalens.runner.results import is_interrupted, result_from_report_case
from evalens.runner.suites import PACKAGE_FORMAT, names_per_file
from evalens.runner.suites.uaaps_select import select_cases


def relative_file(file: Path | str, package_root: Path) -> str:
    """The eval file relative to the package root, with POSIX separators (absolute when outside it)."""
    path = Path(file)
    if not path.is_absolute():
        path = package_root / path
    try:
        return Path(os.path.relpath(path.resolve(), package_root.resolve())).as_posix()
    except ValueError:  # another drive
        return path.as_posix()


def content_hash(file: Path, location: Sequence[str | int] = ()) -> str | None:
    """Hash of the unit's own value without its name, as the file reads now (None: unreadable or gone)."""
    try:
        value = file_unit_value(file, list(location))
    except (OSError, ValueError):
        return None
    return None if value is None else text_hash(unit_text(value))


def identity(
    file: Path, name: str, package_root: Path, location: Sequence[str | int] = (), fmt: str = PACKAGE_FORMAT
) -> LogUnit:
    """The identity of the unit ``name`` written at ``location`` in ``file``, read now. Blocking."""
    return LogUnit(
        file=relative_file(file, package_root),
        name=name,
        content=content_hash(file, location),
        location=list(location),
        format=fmt,
    )


def key(unit: LogUnit) -> str:
    """``file::name``: how the log and its readers name a unit within a package."""
    return f"{unit.file}::{unit.name}"


def of_result(result: Any, package_root: Path) -> LogUnit | None:
    """The identity a past result was recorded under (its content from its fingerprint's ``unit`` part)."""
    if not result.case_file:
        return None
    return LogUnit(
        file=relative_file(result.case_file, package_root),
        name=result.name,
        content=(result.fingerprint or {}).get("unit"),
        location=list(result.location or []),
        format=result.format or PACKAGE_FORMAT,
    )


def reconcile(past: Iterable[LogUnit], current: Iterable[LogUnit]) -> dict[str, LogUnit]:
    """Each current unit's key → the past identity it continues. Same file and name first; then a rename: the
    one past unit of the same file with the same (known) content whose name no current unit of that file has.
    Pure."""
    past = list(past)
    current = list(current)
    by_key = {key(u): u for u in past}
    names_now = {(u.file, u.name) for u in current}
    out: dict[str, LogUnit] = {}
    for unit in current:
        if key(unit) in by_key:
            out[key(unit)] = by_key[key(unit)]
    taken = {key(u) for u in out.values()}
    for unit in current:
        if key(unit) in out or unit.content is None:
            continue
        candidates = [
            p
            for p in past
            if p.file == unit.file
            and p.content == unit.content
            and (p.file, p.name) not in names_now
            and key(p) not in taken
        ]
        if len(candidates) == 1:
            out[key(unit)] = candidates[0]
            taken.add(key(candidates[0]))
    return out


def package_units(package_root: Path) -> list[LogUnit]:
    """The identities of the package's UAAPS cases as they are now (invalid case files are left out).
    Blocking."""
    try:
        cases = select_cases(package_root, [], None, [])
    except Exception:  # noqa: BLE001 - a package with no valid case has no unit to reconcile
        return []
    return [identity(path, case.name, package_root) for case, path in cases]


def file_units(file: Path, fmt: str, package_root: Path) -> list[LogUnit]:
    """The identities of the units of one eval file of a format ``evalens run`` takes, as it is now: the names
    its format lists (``Format.cases``, equal to the suite's unit ids) and their content, from one parse.
    Blocking (reads the file)."""
    found = next((f for f in all_formats() if f.id == fmt), None)  # loads the format modules
    try:
        doc = read_doc(file, fmt)
    except (OSError, ValueError):
        return []
    if found is None:
        return []
    out = []
    for case in unit_cases(found, doc, str(file)):
        if case.name == "*":  # the whole file: no unit of its own
            continue
        location = list(case.path)
        value = unit_value(doc, location)
        out.append(
            LogUnit(
                file=relative_file(file, package_root),
                name=case.name,
                content=None if value is None else text_hash(unit_text(value)),
                location=location,
                format=fmt,
            )
        )
    return out


def renamed_since(
    last: dict[str, Any], package_root: Path, current: Sequence[LogUnit] | None = None
) -> dict[str, str]:
    """New name → old name for each unit renamed in place since its last result in ``last`` (past results by
    name, ``load_last_results``); a new name that has a result of its own is left alone. ``current``: the
    units as they are now (default: the package's UAAPS cases). Blocking (reads the case files)."""
    current = list(current) if current is not None else package_units(package_root)
    if not current:
        return {}
    identities = [i for r in last.values() if (i := of_result(r, package_root)) is not None]
    mapping = reconcile(identities, current)
    return {
        unit.name: was.name
        for unit in current
        if (was := mapping.get(key(unit))) is not None and was.name != unit.name and unit.name not in last
    }


def follow_renames(
    last: dict[str, Any], package_root: Path, current: Sequence[LogUnit] | None = None
) -> dict[str, Any]:
    """``last`` with each unit's past result found under the name it has now (the result renamed too), by
    identity: a unit renamed in place, and two units whose names were swapped, each keep their own history
    (``--failed`` then re-runs the unit that failed, not the one that took its name). ``current`` as for
    :func:`renamed_since`. The moves are made at once, so a swap does not overwrite itself."""
    current = list(current) if current is not None else package_units(package_root)
    if not current:
        return dict(last)
    past: list[LogUnit] = []
    named: dict[str, str] = {}  # a past identity's key → the name its result is filed under
    for name, result in last.items():
        if (unit := of_result(result, package_root)) is not None:
            past.append(unit)
            named[key(unit)] = name
    mapping = reconcile(past, current)
    moves = {
        unit.name: old
        for unit in current
        if (was := mapping.get(key(unit))) is not None
        and (old := named.get(key(was))) not in (None, unit.name)
    }
    out = {name: result for name, result in last.items() if name not in set(moves.values())}
    for new, old in moves.items():
        out[new] = last[old].model_copy(update={"name": new})
    return out


def last_run(package_root: Path, name: str, max_reports: int = 50) -> tuple[Path, str] | None:
    """The newest report holding UAAPS case ``name``'s last run, and the name it had in that report (its old
    name when it was renamed since). None when it never ran (or is no case of the package). Blocking."""
    current = package_units(package_root)
    wanted = next((u for u in current if u.name == name), None)
    for path in reports_newest_first(package_root, max_reports):
        try:
            report = load_report(path)
        except Exception:  # noqa: BLE001 - an unreadable report holds no run
            continue
        cases = [
            c
            for c in report.cases
            if not names_per_file(c.format or PACKAGE_FORMAT) and not is_interrupted(c, report)
        ]
        if any(c.name == name for c in cases):
            return path, name
        if wanted is None:
            continue
        past = [
            i
            for c in cases
            if (i := of_result(result_from_report_case(c, report, path, package_root), package_root))
            is not None
        ]
        was = reconcile(past, current).get(key(wanted))
        if was is not None:
            return path, was.name
    return None
