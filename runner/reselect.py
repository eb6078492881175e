"""Focused re-runs: ``--failed`` (the units whose last verdict failed, like pytest's ``--lf``) and ``--stale``
(the units whose last verdict no longer describes them, or that never ran), for every format.

Both read the same past results every face reads (``load_last_results``: the newest report holding each unit),
so the CLI, the lens's "Run failed" / "Run stale" and the Test Explorer pick the same units.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from evalens.runner.api import load_last_results
from evalens.runner.depends import staleness
from evalens.runner.suites.uaaps import _select_cases
from evalens.runner.unit_identity import file_units, follow_renames

if TYPE_CHECKING:
    from evalens.runner.depends import NextRun

Mode = Literal["failed", "stale"]


def reselect(
    package_root: Path, mode: Mode, *, file: Path | None = None, inputs: NextRun | None = None
) -> tuple[list[str], dict[str, str]]:
    """Unit names to run again and why each was picked (``{name: reason}``).

    ``file`` narrows the past results to units written in that eval file (the formats ``evalens run`` takes:
    unit names are only unique within a file). ``inputs`` are the next run's flags or settings, against which
    staleness is judged. Blocking (reads reports, hashes files)."""
    last = _last(package_root, file)
    picked: dict[str, str] = {}
    for name, result in sorted(last.items()):
        if mode == "failed":
            why = failed_reason(result)
            if why is not None:
                picked[name] = why
        else:
            changed = staleness(result, inputs)
            if changed:
                picked[name] = "stale: " + "; ".join(changed)
    return list(picked), picked


def failed_reason(result: Any) -> str | None:
    """Why ``--failed`` re-runs a unit with this last result (FAIL, FLAKY or ERROR), or None. Pure: the editor's
    "Run failed" lens counts with it."""
    state = getattr(result, "state", None) or result.verdict
    return f"last run: {state}" if state in ("FAIL", "FLAKY", "ERROR") else None


def never_ran(all_units: list[str], package_root: Path, *, file: Path | None = None) -> list[str]:
    """Units with no past result at all (``--stale`` runs them too: no verdict is not a current verdict)."""
    last = _last(package_root, file)
    return [u for u in all_units if u not in last]


def _last(package_root: Path, file: Path | None) -> dict[str, Any]:
    """Unit name → its last result: UAAPS cases of the package, or the units of one eval file."""
    if file is None:
        return follow_renames(load_last_results(package_root), package_root)
    want = str(file.resolve())
    last = {
        r.name: r
        for r in load_last_results(package_root, every_format=True).values()
        if r.case_file and str(Path(r.case_file).resolve()) == want
    }
    fmt = next((r.format for r in last.values() if r.format), None)
    if fmt is None:
        return last
    return follow_renames(last, package_root, file_units(file, fmt, package_root))  # a unit renamed in place


def case_names(root: Path) -> list[str]:
    """Every valid UAAPS case's name in the package (``--stale`` runs the ones that never ran)."""
    try:
        return [case.name for case, _ in _select_cases(root, [], None, [])]
    except Exception:  # noqa: BLE001 - a package that cannot be planned says why when the run starts
        return []


def pick(
    package_root: Path,
    mode: Mode,
    every: list[str],
    within: list[str],
    *,
    file: Path | None = None,
    inputs: NextRun | None = None,
) -> tuple[list[str], dict[str, str]]:
    """What ``--failed`` / ``--stale`` run, for both CLIs: :func:`reselect`, plus (``--stale``) the units of
    ``every`` that never ran, narrowed to ``within`` when the user named units. Names and why each was picked.

    A unit renamed in place (same file, same content) keeps its past result under its new name
    (:mod:`evalens.runner.unit_identity`); a past result whose unit is gone otherwise is never picked, so nothing
    asks to run a name that no longer exists."""
    names, why = reselect(package_root, mode, file=file, inputs=inputs)
    if every:
        existing = set(every)
        names = [n for n in names if n in existing]
        why = {n: why[n] for n in names}
    if mode == "stale":
        for name in never_ran(every, package_root, file=file):
            names.append(name)
            why[name] = "never ran"
    if within:
        names = [n for n in names if n in set(within)]
    return names, why
