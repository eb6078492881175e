"""Ablation arms (``--arms skill,no-skill,plugin,ref:v1.2,without:references,...``): ``--baseline`` generalised.

Each arm is one ordinary batch whose runs install the package differently:

- ``skill``: the package's skills alone (no hooks, rules or agents); the default reference;
- ``no-skill``: nothing of the package (what ``--baseline no-skill`` installs);
- ``plugin``: the whole package, what a plain ``evalens eval`` installs;
- ``ref:REF``: the whole package as it was at a git ref (a temporary ``git worktree``, as ``--baseline REF``);
- ``without:references`` / ``without:scripts``: the whole package with each skill's ``references/`` or
  ``scripts/`` folder left out (filtered copies in a temporary folder); ``without:hooks``: without its hooks.

The cases, fixtures, checks and judge are the same in every arm. The reference arm's report gets the
comparison (:func:`compare`): each unit's uplift of the reference over an arm (Newcombe's interval over its
runs) and the units pooled with a paired interval (Newcombe's paired interval for single runs, the paired
bootstrap over units for repeats). Only the reference's verdicts decide the exit code (docs/baseline.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, cast, overload

from evalens.core.models.baseline import ArmComparison, ArmSource, Uplift
from evalens.core.models.run_record import sum_usage
from evalens.runner.baseline import (
    BaselineError,
    BaselinePlan,
    _add_worktree,
    _counts,
    resolve,
    uplift_of,
)
from evalens.runner.git_repo import remove_worktree
from evalens.runner.install import PackageError, PackageInfo, read_package
from evalens.runner.stats import newcombe_paired_difference, paired_bootstrap

Part = Literal["references", "scripts", "hooks"]
PARTS: tuple[Part, ...] = ("references", "scripts", "hooks")
SIMPLE = ("skill", "no-skill", "plugin")
PACKAGE_PARTS = ("skills", "hooks", "scripts", "bin", "rules", "agents", "package.agent.json")


class ArmError(Exception):
    """An ``--arms`` value that cannot be run (unknown arm, unknown ref, a part that does not exist); one line,
    raised before any agent starts."""


@dataclass
class Arm:
    """One arm: what its runs install instead of the package as it is."""

    name: str  # as given: "without:references"
    kind: Literal["skill", "no-skill", "plugin", "ref", "without"]
    part: Part | None = None
    ref: BaselinePlan | None = None  # kind "ref": the resolved ref and, while open, its worktree
    folder: Path | None = None  # while open: the filtered copies of ``without:references`` / ``scripts``
    _copies: dict[Path, Path] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def label(self) -> str:
        """``skill``, ``no skill``, ``plugin``, ``without references``, ``v1.2 (3f9a0c1)``."""
        if self.kind == "ref" and self.ref is not None:
            return self.ref.label
        if self.kind == "without":
            return f"without {self.part}"
        return self.kind.replace("-", " ")

    def source(self) -> ArmSource:
        return ArmSource(
            name=self.name,
            label=self.label,
            kind=self.kind,
            part=self.part,
            ref=self.ref.ref if self.ref is not None else None,
            commit=self.ref.commit if self.ref is not None else None,
        )

    # ---------------------------------------------------------------- lifetime (blocking: call off the loop)

    def open(self) -> None:
        """Check out the ref or make the folder for filtered copies."""
        if self.ref is not None and self.ref.worktree is None:
            self.ref.worktree = _add_worktree(self.ref)
        if self.kind == "without" and self.part != "hooks" and self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="evalens-arm-"))

    def close(self) -> None:
        """Remove the worktree and the copies (never leaves one behind)."""
        if self.ref is not None and self.ref.worktree is not None and self.ref.repo is not None:
            tree, self.ref.worktree = self.ref.worktree, None
            remove_worktree(self.ref.repo, tree)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder, self._copies = None, {}

    # ---------------------------------------------------------------- what a run installs

    def _without(self, source: Path, dest: Path) -> Path:
        """``source`` copied to ``dest`` leaving out the part inside every skill folder (one holding SKILL.md)."""

        def ignore(folder: str, names: list[str]) -> list[str]:
            here = Path(folder)
            is_skill = (here / "SKILL.md").is_file() or (here / "skill.md").is_file()
            return [n for n in names if is_skill and n == self.part]

        shutil.copytree(source, dest, symlinks=True, ignore=ignore)
        return dest

    def _copy(self, source: Path, name: str) -> Path:
        """The filtered copy of ``source`` (made once per arm; runs may ask from several threads)."""
        assert self.folder is not None, "the arm is not open"
        with self._lock:
            copy = self._copies.get(source)
            if copy is None:
                copy = self._without(source, self.folder / f"{len(self._copies)}-{name}")
                self._copies[source] = copy
            return copy

    def package(self, info: Any) -> Any:
        """The UAAPS package (``install.PackageInfo``) this arm's runs install; None installs nothing.
        Blocking (may copy or read files). Raises :class:`ArmError` for a package absent at the ref."""
        if self.kind == "no-skill":
            return None
        if self.kind == "plugin":
            return info
        if self.kind == "skill":
            return PackageInfo(root=info.root, name=info.name, version=info.version, skills=dict(info.skills))
        if self.kind == "without" and self.part == "hooks":
            return replace(info, hooks={})
        if self.kind == "ref":
            assert self.ref is not None
            root = self.ref.at_ref(Path(info.root).resolve())
            if root is None:
                raise ArmError(f"--arms {self.name}: the package {info.root} did not exist at {self.label}")
        else:  # without references / scripts: the package's parts, the skills filtered
            assert self.folder is not None, "the arm is not open"
            root = self.folder / "package"
            with self._lock:  # made once: the batch's cases (--jobs) ask from several threads at once
                if not root.exists():
                    root.mkdir()
                    for part in PACKAGE_PARTS:
                        src = Path(info.root) / part
                        if src.is_dir():
                            self._without(src, root / part)
                        elif src.is_file():
                            shutil.copy2(src, root / part)
        try:
            out = read_package(root)
        except PackageError as exc:
            raise ArmError(f"--arms {self.name}: {exc}") from None
        if self.kind != "ref":  # the copy's folder name is not the package's
            out.name, out.version = info.name, info.version
        return out

    def skills(self, skills: dict[str, Path]) -> dict[str, Path]:
        """The skills (name → SKILL.md) a file suite's run installs. Hooks, rules and agents are not installed
        by those suites, so ``skill``, ``plugin`` and ``without:hooks`` install the skills as they are."""
        if self.kind == "no-skill":
            return {}
        if self.kind == "ref":
            assert self.ref is not None
            return self.ref.skills(skills)
        if self.kind == "without" and self.part != "hooks":
            return {name: self._copy(md.parent, name) / md.name for name, md in skills.items()}
        return dict(skills)


def parse(value: str) -> list[str]:
    """``--arms a,b,c`` as a list of arm names (each checked, none twice); raises :class:`ArmError`."""
    names = [v.strip() for v in value.split(",") if v.strip()]
    for name in names:
        kind, _, rest = name.partition(":")
        ok = name in SIMPLE or (kind == "ref" and rest) or (kind == "without" and rest in PARTS)
        if not ok:
            raise ArmError(
                f"--arms {name}: not an arm (use skill, no-skill, plugin, ref:REF or "
                f"without:{'|'.join(PARTS)})"
            )
    if len(set(names)) != len(names):
        raise ArmError(f"--arms {value}: an arm is named twice")
    if len(names) < 2:
        raise ArmError(f"--arms {value}: name at least two arms to compare")
    return names


@overload
def resolve_arm(name: str, where: Path) -> Arm: ...
@overload
def resolve_arm(name: None, where: Path) -> None: ...
def resolve_arm(name: str | None, where: Path) -> Arm | None:
    """An arm by name (None: no ``--arms``); ``ref:REF`` is resolved against the git repository holding
    ``where`` (blocking: runs git). Raises :class:`ArmError`."""
    if name is None:
        return None
    kind, _, rest = name.partition(":")
    if name in SIMPLE:
        return Arm(name, cast(Any, name))
    if kind == "without" and rest in PARTS:
        return Arm(name, "without", part=rest)
    if kind == "ref" and rest:
        try:
            plan = resolve(rest, where)
        except BaselineError as exc:
            raise ArmError(str(exc).replace("--baseline ", "--arms ref:", 1)) from None
        if plan is None or plan.kind != "ref":
            raise ArmError(f"--arms {name}: not a git ref")
        return Arm(name, "ref", ref=plan)
    raise ArmError(f"--arms {name}: not an arm")


@contextlib.contextmanager
def opened(arm: Arm | None) -> Iterator[Arm | None]:
    """The arm open (worktree checked out, copies folder made) while a batch runs; closed also on error."""
    if arm is None:
        yield None
        return
    arm.open()
    try:
        yield arm
    finally:
        arm.close()


@contextlib.asynccontextmanager
async def opened_async(arm: Arm | None) -> AsyncIterator[Arm | None]:
    """:func:`opened` off the event loop; closing finishes even when the batch is cancelled."""
    if arm is None:
        yield None
        return
    await asyncio.to_thread(arm.open)
    try:
        yield arm
    finally:
        try:
            await asyncio.shield(asyncio.to_thread(arm.close))
        except asyncio.CancelledError:
            arm.close()
            raise


# --------------------------------------------------------------------------- the comparison


def _key(case: Any) -> tuple[str, str]:
    return (case.case_file or "", case.name)


def compare(
    reference: Any, arm_report: Any, label: str
) -> tuple[dict[str, Uplift], Uplift | None, str | None]:
    """The reference report against one arm's: each unit's uplift (by name) and the units both ran pooled
    with the paired interval, and which interval (``newcombe-paired`` / ``paired-bootstrap``; None: no unit
    counted on both sides)."""
    theirs = {_key(c): c for c in arm_report.cases}
    units: dict[str, Uplift] = {}
    pairs: list[tuple[tuple[int, int], tuple[int, int]]] = []
    mine_cases, their_cases = [], []
    for case in reference.cases:
        other = theirs.get(_key(case))
        if other is None:
            continue
        ours, base = _counts(case), _counts(other)
        units[case.name] = uplift_of(ours[:2], base, label, case.usage, other.usage)
        if ours[1] and base[1]:
            pairs.append(((base[0], base[1]), (ours[0], ours[1])))
            mine_cases.append(case)
            their_cases.append(other)
    if not pairs:
        return units, None, None
    if all(n == 1 and m == 1 for (_, n), (_, m) in pairs):
        cells = {(b, a) for (b, _), (a, _) in pairs}
        count = {c: sum(1 for (b, _), (a, _) in pairs if (b, a) == c) for c in cells}
        d, lo, hi = newcombe_paired_difference(
            count.get((1, 1), 0), count.get((1, 0), 0), count.get((0, 1), 0), count.get((0, 0), 0)
        )
        method = "newcombe-paired"
    else:
        d, lo, hi = paired_bootstrap(pairs)
        method = "paired-bootstrap"
    pooled = uplift_of(
        (sum(a for _, (a, _) in pairs), sum(m for _, (_, m) in pairs)),
        (sum(b for (b, _), _ in pairs), sum(n for (_, n), _ in pairs), 0),
        label,
        sum_usage([c.usage for c in mine_cases]),
        sum_usage([c.usage for c in their_cases]),
    )
    pooled.difference, pooled.interval = round(d, 4), [round(lo, 4), round(hi, 4)]
    return units, pooled, method


def comparison(reference: Any, arm_report: Any, source: ArmSource, report: str | None) -> ArmComparison:
    units, pooled, method = compare(reference, arm_report, source.label)
    return ArmComparison(arm=source, report=report, uplift=pooled, method=cast(Any, method), units=units)
