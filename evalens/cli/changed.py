"""``evalens run --changed-since REF``: run only the units whose inputs differ from what they were at git ref
REF, so a pull request that touches one skill pays for that skill's cases only.

A unit's inputs are the ones its verdict's fingerprint records (:mod:`evalens.runner.depends`): its own case,
the package's skills, hooks, rules, agents, scripts and bin, the fixtures it copies and the eval config. They are
compared between the working tree and a temporary ``git worktree`` of REF (removed afterwards, also on error).
The engine and model are not compared: a pull request does not change them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evalens.runner.depends import file_unit_value, fixtures_for, package_root_for, unit_fingerprint
from evalens.runner.fingerprint import changes, text_hash
from evalens.runner.git_repo import GitRefError, ref_commit, worktree_at
from evalens.runner.replay import cassette_name
from evalens.runner.suites import PACKAGE_FORMAT
from evalens.runner.unit_identity import file_units, key, reconcile


class ChangedSinceError(ValueError):
    """REF cannot be compared with (no git, not a repository, unknown ref); one line for the user."""


def _fingerprint(root: Path, case_file: Path) -> Any:
    value = file_unit_value(case_file, [])
    config = root / "evals" / "eval-config.json"
    config_hash = (
        text_hash(config.read_text(encoding="utf-8", errors="replace")) if config.is_file() else None
    )
    return unit_fingerprint(
        value,
        package_root=root,
        fixtures=fixtures_for(PACKAGE_FORMAT, root, value),
        values={"config": config_hash},
    )


def _cassettes(root: Path, name: str) -> str | None:
    """A hash of the unit's cassettes (every run, engine, model and arm), or None when it has none. Under
    ``--replay`` they are an input: a changed recording changes what the replay answers."""
    folder = root / "evals" / "cassettes"
    prefix = cassette_name(name, 1).rsplit("-", 1)[0] + "-"
    if not folder.is_dir():
        return None
    found = sorted(
        f for f in folder.iterdir() if f.name.startswith(prefix) and f.is_file() and not f.is_symlink()
    )
    if not found:
        return None
    return text_hash(
        "\n".join(f"{f.name}:{text_hash(f.read_text(encoding='utf-8', errors='replace'))}" for f in found)
    )


@contextlib.contextmanager
def _checkout(repo: Path, commit: str, ref: str) -> Iterator[Path]:
    """The repository at ``ref`` in a temporary worktree (git's safety: :mod:`evalens.runner.git_repo`)."""
    try:
        with worktree_at(repo, commit, "evalens-changed-") as tree:
            yield tree
    except GitRefError as exc:
        raise ChangedSinceError(f"--changed-since {ref}: cannot check it out: {exc}") from None


def changed_units(root: Path, units: dict[str, str], ref: str, *, cassettes: bool = False) -> dict[str, str]:
    """Unit name → why it is picked (what changed since ``ref``), for the units of ``units`` (name → case
    file) whose inputs differ at ``ref``; with ``cassettes`` (``--replay``), a unit whose recordings differ is
    picked too. Blocking (git worktree, hashing)."""
    root = root.resolve()
    try:
        repo, commit = ref_commit(
            f"--changed-since {ref}",
            ref,
            root,
            unknown_hint=f" (fetch it first, e.g. `git fetch origin {ref}` with fetch-depth: 0)",
        )
    except GitRefError as exc:
        raise ChangedSinceError(str(exc)) from None
    with _checkout(repo, commit, ref) as tree:
        then_root = tree / root.relative_to(repo)
        picked: dict[str, str] = {}
        for name, case_file in units.items():
            now_file = Path(case_file) if Path(case_file).is_absolute() else root / case_file
            then_file = then_root / now_file.resolve().relative_to(root)
            if not then_file.is_file():
                picked[name] = f"new since {ref}"
                continue
            differ = changes(_fingerprint(then_root, then_file), _fingerprint(root, now_file))
            if cassettes and _cassettes(then_root, name) != _cassettes(root, name):
                differ.append("its cassettes changed")
            if differ:
                picked[name] = "; ".join(differ)
        return picked


def _unit_fingerprint(fmt: str, file: Path, location: list[str | int]) -> Any:
    """One unit of an eval file as its run would fingerprint it (the inputs only: no engine, model or judge,
    which a pull request does not change)."""
    value = file_unit_value(file, location)
    root = package_root_for(fmt, file)
    return unit_fingerprint(value, package_root=root, fixtures=fixtures_for(fmt, root, value, file))


def changed_file_units(file: Path, fmt: str, ref: str) -> dict[str, str]:
    """For one eval file (``evalens run FILE --changed-since REF``): unit id → why it is picked, for the units whose
    inputs (the unit's own text, the skills and folders its run installs, its fixtures) differ at ``ref``. A unit
    is found at ``ref`` by its identity (a rename in place is followed). Blocking (git worktree, hashing)."""
    file = file.resolve()
    try:
        repo, commit = ref_commit(
            f"--changed-since {ref}",
            ref,
            file.parent,
            unknown_hint=f" (fetch it first, e.g. `git fetch origin {ref}` with fetch-depth: 0)",
        )
    except GitRefError as exc:
        raise ChangedSinceError(str(exc)) from None
    root = package_root_for(fmt, file)
    now_units = file_units(file, fmt, root)
    with _checkout(repo, commit, ref) as tree:
        then_file = tree / file.relative_to(repo)
        if not then_file.is_file():
            return {unit.name: f"new since {ref}" for unit in now_units}
        then_root = package_root_for(fmt, then_file)
        then_units = {key(u): u for u in file_units(then_file, fmt, then_root)}
        # identities are relative to each side's own root, so the two sides' keys compare
        match = reconcile(list(then_units.values()), now_units)
        picked: dict[str, str] = {}
        for unit in now_units:
            was = match.get(key(unit))
            if was is None:
                picked[unit.name] = f"new since {ref}"
                continue
            differ = changes(
                _unit_fingerprint(fmt, then_file, list(was.location)),
                _unit_fingerprint(fmt, file, list(unit.location)),
            )
            if differ:
                picked[unit.name] = "; ".join(differ)
        return picked
