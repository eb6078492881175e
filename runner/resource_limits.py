"""Resource limits of one agent run (issue 28): processes, memory, CPU time, file size and the sandbox's size.

The agent under test is hostile, so a fork bomb, a memory bomb or a disk filler must end as an ERROR naming the
limit, with the host still responsive, never as a hung or starved runner. Three layers, each where it works:

- **prlimit** (always): the agent's process tree starts under ``prlimit`` with ``RLIMIT_NPROC``, ``RLIMIT_DATA``,
  ``RLIMIT_CPU``, ``RLIMIT_FSIZE`` and no core dumps. ``RLIMIT_NPROC`` counts the processes of the real uid, so
  when the agent runs as a dedicated uid it is the pid limit itself; when it runs as the invoking user it is set
  to what that user already runs plus the limit (a bound on what the agent can add).
- **A cgroup, opt-in** (``EVALENS_CGROUP=1``, where the runner may create one: root in a container on cgroup v1
  or v2, a delegated v2 tree): ``pids.max`` and the memory limit for the whole tree, entered before the sandbox
  starts, and read afterwards: a refused fork or an out-of-memory kill is the run's ERROR, named. Not the
  default: measured on this project's CI kernel (cgroup v1), Claude Code inside such a cgroup sometimes exits 0
  without writing the end of a large output (3 of 24 runs of three parallel 3 MB replies; 0 of 12 without the
  cgroup, memory limit or not), which would turn a good run into an ERROR.
- **The sandbox's size**, polled while the agent runs (:func:`sandbox_bytes`): past ``workspace_mb`` the run
  is stopped, as the per-run limits stop it (:mod:`evalens.runner.run_limits`).

Defaults are generous (a real agent session never meets them); ``sandbox.limits`` in ``evals/eval-config.json``
and ``--limit NAME=VALUE`` lower or raise them (docs/sandbox.md#resource-limits).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path

MB = 1 << 20
CGROUP_ROOT = Path("/sys/fs/cgroup")
SCAN_ENTRIES = 200_000  # files and folders one size poll visits; more is itself over any sane workspace


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    """Per-run limits; every field is also a ``--limit`` name (with ``-`` for ``_``)."""

    pids: int = 1024  # processes and threads of the agent's tree
    memory_mb: int = 8192  # private memory of one process (prlimit) and memory of the tree (cgroup)
    cpu_seconds: int = 3600  # CPU time of one process
    file_mb: int = 2048  # size of one file the agent writes
    workspace_mb: int = 4096  # everything the agent's sandbox holds (workspace, HOME, TMPDIR)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"limit {f.name.replace('_', '-')} must be a whole number of 1 or more")

    def with_overrides(self, overrides: dict[str, int]) -> ResourceLimits:
        """These limits with some replaced (``{"memory-mb": 1024}``); an unknown name is an error that lists
        the known ones."""
        known = {f.name.replace("_", "-"): f.name for f in fields(self)}
        changes = {}
        for name, value in overrides.items():
            key = known.get(name.replace("_", "-"))
            if key is None:
                raise ValueError(f"unknown limit {name!r}: one of {', '.join(sorted(known))}")
            changes[key] = value
        return replace(self, **changes)


def parse_limit(text: str) -> tuple[str, int]:
    """``NAME=VALUE`` of ``--limit`` (argparse type)."""
    name, sep, value = text.partition("=")
    if not sep or not value.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=NUMBER (e.g. memory-mb=2048), not {text!r}")
    try:
        ResourceLimits().with_overrides({name.strip(): int(value)})
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name.strip(), int(value)


def own_process_count(uid: int) -> int:
    """Processes and threads the real uid runs now (what RLIMIT_NPROC counts). Without ``/proc`` (macOS) the
    processes ``ps`` lists for the uid, threads not counted (prlimit, which needs this, is Linux-only anyway)."""
    if not os.path.isdir("/proc"):
        return len([line for line in ps_table("uid=") if line.strip() == str(uid)])
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return count


def ps_table(columns: str) -> list[str]:
    """``ps -A -o <columns>`` lines, for a system without ``/proc``; none when ``ps`` cannot run."""
    try:
        out = subprocess.run(
            ["ps", "-A", "-o", columns], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return out.stdout.splitlines() if out.returncode == 0 else []


@dataclass(slots=True)
class RunCgroup:
    """The cgroup(s) one run's tree lives in: one folder on cgroup v2, one per controller on v1."""

    limits: ResourceLimits
    pids_dir: Path
    memory_dir: Path
    version: int

    def enter_prefix(self) -> list[str]:
        """A shell that moves itself into the cgroup(s), then execs the rest: no process of the tree ever runs
        outside them (a pid written after the start could fork first)."""
        targets = sorted({str(self.pids_dir / "cgroup.procs"), str(self.memory_dir / "cgroup.procs")})
        script = "".join(f'echo $$ > "{t}" && ' for t in targets) + 'exec "$@"'
        return ["/bin/sh", "-c", script, "evalens-cgroup"]

    def hits(self) -> list[str]:
        """The limits the tree ran into, named for the run's ERROR."""
        out = []
        if _event_count(self.pids_dir / "pids.events", "max") > 0:
            out.append(
                f"pid limit: the agent's processes reached --limit pids={self.limits.pids}; "
                "further processes were refused"
            )
        memory_hit = (
            _event_count(self.memory_dir / "memory.events", "oom_kill")
            if self.version == 2
            else _event_count(self.memory_dir / "memory.oom_control", "oom_kill")
        )
        if memory_hit > 0:
            out.append(
                f"memory limit: a process of the agent was killed at --limit memory-mb={self.limits.memory_mb}"
            )
        return out

    def remove(self) -> None:
        """Remove the folders once every process of the run is dead (the tree is killed before this)."""
        for folder in {self.pids_dir, self.memory_dir}:
            with contextlib.suppress(OSError):
                folder.rmdir()


def _event_count(path: Path, key: str) -> int:
    try:
        text = path.read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def _own_v2_cgroup() -> Path | None:
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return CGROUP_ROOT / line[3:].lstrip("/")
    except OSError:
        return None
    return None


def create_cgroup(limits: ResourceLimits, root: Path = CGROUP_ROOT) -> RunCgroup | None:
    """A fresh cgroup for one run with the pid and memory limits, or None where the runner may not make one
    (an unprivileged user without a delegated tree: prlimit and the size watch are then the limits)."""
    if os.environ.get("EVALENS_CGROUP") != "1" or os.environ.get("EVALENS_NO_CGROUP"):
        return None  # opt-in: see the module docstring
    name = f"evalens-{uuid.uuid4().hex[:12]}"
    pids_v1, memory_v1 = root / "pids", root / "memory"
    if _writable_dir(pids_v1) and _writable_dir(memory_v1) and not (root / "cgroup.controllers").exists():
        made: list[Path] = []
        try:
            for base in (pids_v1, memory_v1):
                (base / name).mkdir()
                made.append(base / name)
            (pids_v1 / name / "pids.max").write_text(str(limits.pids))
            (memory_v1 / name / "memory.limit_in_bytes").write_text(str(limits.memory_mb * MB))
            return RunCgroup(limits, pids_v1 / name, memory_v1 / name, 1)
        except OSError:
            for folder in made:
                with contextlib.suppress(OSError):
                    folder.rmdir()
            return None
    parent = root if root != CGROUP_ROOT else _own_v2_cgroup()
    if parent is None or not (parent / "cgroup.subtree_control").exists():
        return None
    try:
        enabled = (parent / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    if not {"pids", "memory"} <= set(enabled) or not _writable_dir(parent):
        return None
    folder = parent / name
    try:
        folder.mkdir()
        (folder / "pids.max").write_text(str(limits.pids))
        (folder / "memory.max").write_text(str(limits.memory_mb * MB))
        with contextlib.suppress(OSError):
            (folder / "memory.swap.max").write_text("0")
        return RunCgroup(limits, folder, folder, 2)
    except OSError:
        with contextlib.suppress(OSError):
            folder.rmdir()
        return None


class TooManyEntries(Exception):
    """A walk met more than ``SCAN_ENTRIES`` entries: a flood, over any sane workspace."""


def walk_entries(
    root: Path, skip: frozenset[str] = frozenset()
) -> Iterator[tuple[os.DirEntry[str], os.stat_result]]:
    """Every entry under ``root`` with its own stat (never following links), folders named in ``skip`` at the
    top level left out (the runner's own logs); raises :class:`TooManyEntries` past ``SCAN_ENTRIES``. The one
    bounded walk of a sandbox: its size and the read-back of a file cut at its cap. Blocking."""
    seen = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > SCAN_ENTRIES:
                raise TooManyEntries
            if folder == root and entry.name in skip:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            yield entry, st


def sandbox_bytes(root: Path, skip: frozenset[str] = frozenset()) -> int:
    """Bytes the files under ``root`` occupy (allocated blocks, so sparse files count what they use); a flood
    of more than ``SCAN_ENTRIES`` entries reports a size over any limit. Blocking: call it in a worker thread."""
    try:
        return sum(st.st_blocks * 512 for _entry, st in walk_entries(root, skip))
    except TooManyEntries:
        return 1 << 62


def _clamped(value: int, resource_id: int) -> int:
    """``value``, or the current hard limit when that is lower (an unprivileged prlimit cannot raise it)."""
    try:
        hard = resource.getrlimit(resource_id)[1]
    except (OSError, ValueError):
        return value
    return value if hard == resource.RLIM_INFINITY or hard < 0 else min(value, hard)


def launch_prefix(
    limits: ResourceLimits, cgroup: RunCgroup | None, uid: int | None, gid: int | None
) -> tuple[list[str], bool]:
    """The commands the agent's argv runs under: enter the cgroup (as the runner, which may), then drop to the
    agent's uid when there is one (``setpriv``, as ``Popen(user=)`` would: the caller must not drop again; the
    second value says so), then ``prlimit``. Blocking (counts processes): call it in a worker thread."""
    prefix: list[str] = []
    drops = False
    setpriv = shutil.which("setpriv")
    if cgroup is not None:
        if uid is not None and setpriv is None:
            raise OSError("setpriv is missing: the agent cannot enter its cgroup and then drop its uid")
        prefix += cgroup.enter_prefix()
        if uid is not None and setpriv is not None:
            prefix += [
                setpriv,
                f"--reuid={uid}",
                f"--regid={gid if gid is not None else uid}",
                "--clear-groups",
            ]
            prefix += ["--"]
            drops = True
    tool = shutil.which("prlimit")
    if tool is not None:
        # With a cgroup, the per-process limits sit at twice the cgroup's so the cgroup, which can say what was
        # hit, meets a bomb first; without one they are the limits themselves.
        slack = 2 if cgroup is not None else 1
        counted = uid if uid is not None else os.getuid()
        nproc = own_process_count(counted) + limits.pids * slack
        prefix += [
            tool,
            f"--nproc={_clamped(nproc, resource.RLIMIT_NPROC)}",
            # RLIMIT_DATA, not RLIMIT_AS: JavaScript engines (Claude Code's Bun) reserve far more address
            # space than they use and crash under an address-space limit; private writable memory is what a
            # memory bomb allocates.
            f"--data={_clamped(limits.memory_mb * MB * slack, resource.RLIMIT_DATA)}",
            f"--cpu={_clamped(limits.cpu_seconds, resource.RLIMIT_CPU)}",
            f"--fsize={_clamped(limits.file_mb * MB, resource.RLIMIT_FSIZE)}",
            "--core=0",
            "--",
        ]
    return prefix, drops
