"""A resource limit the agent met, read back when no cgroup counted it (issue 44 item 4).

Why: without a cgroup (the default, and every unprivileged runner) the limits are prlimit's, and a process that
meets one is refused or killed with nothing for the runner to read: ``--limit file-mb=5`` gave "File size limit
exceeded" inside the run, then PASS. ``docs/sandbox.md`` says a limit that is met is never PASS, so the runner
reads the refusal back from what the kernel and the processes report:

- **pids**: the agent uid's process count, counted while the run goes (every 0.1 s, at once when the machine's
  task total jumps, and at each model call: the moment a tool call has returned and what it left running still
  lives); RLIMIT_NPROC refuses a fork once the count reaches the limit, so a peak at the limit is a refused
  fork (a bomb that swallows its errors included);
- **file-mb**: a file at exactly the RLIMIT_FSIZE cap in the sandbox (a write past it was cut there, by the
  kernel), or a shell's report of SIGXFSZ / EFBIG;
- **memory-mb**, **cpu-seconds**: the refusal as the process reported it in a shell call's result (ENOMEM,
  ``MemoryError``, SIGXCPU).

Text can be printed by the agent, so text only ever turns a run into ERROR, never into PASS: an agent that
prints "File too large" to look limited harms only its own verdict. Only shell calls' results are read (a
``Read`` of a file that mentions ``MemoryError`` is not a refusal).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evalens.runner.engines.codex_record import SHELL_CALLS
from evalens.runner.resource_limits import MB, ResourceLimits, TooManyEntries, own_process_count, walk_entries

SHELL_TOOLS = frozenset({"Bash", *SHELL_CALLS})

# What a shell, libc or a runtime prints when the kernel refused: the signal's name as bash reports a child's
# death, the errno's text, the runtimes' own words. Each names one limit.
_REFUSALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("file_mb", re.compile(r"File size limit exceeded|File too large|\[Errno 27\]|\bEFBIG\b")),
    ("cpu_seconds", re.compile(r"CPU time limit exceeded")),
    (
        "memory_mb",
        re.compile(r"Cannot allocate memory|\bMemoryError\b|std::bad_alloc|heap out of memory|\bENOMEM\b"),
    ),
    (
        "pids",
        re.compile(
            r"fork: (?:retry: )?Resource temporarily unavailable|[Cc]an(?:no|')t fork|spawn \S+ EAGAIN"
            r"|(?:fork|clone|thread|spawn)\w*[^\n]{0,80}(?:EAGAIN|Resource temporarily unavailable)"
        ),
    ),
)


def sentence(limit: str, limits: ResourceLimits, how: str) -> str:
    """The run's ERROR for one limit met, in the words the cgroup's read-back uses."""
    flag = limit.replace("_", "-")
    value = getattr(limits, limit)
    what = {
        "pids": "pid limit: the agent's processes reached",
        "file_mb": "file limit: a file the agent wrote reached",
        "memory_mb": "memory limit: a process of the agent was refused memory at",
        "cpu_seconds": "cpu limit: a process of the agent used up",
    }[limit]
    return f"{what} --limit {flag}={value} ({how})"


def refused_in_results(calls: Iterable[tuple[str, str | None]], limits: ResourceLimits) -> list[str]:
    """The limits a shell call's result reports as refused (``calls``: each call's tool name and result)."""
    found: list[str] = []
    for name, result in calls:
        if name in SHELL_TOOLS and result:
            found += [limit for limit, pattern in _REFUSALS if limit not in found and pattern.search(result)]
    return [sentence(limit, limits, "a shell call reported the refusal") for limit in found]


def refused_in_stderr(text: str, limits: ResourceLimits) -> list[str]:
    """The limits the agent CLI's own stderr reports refused (a CLI that could not spawn its shell or a thread
    ends as "no result event" or a timeout, and only its stderr says why)."""
    found = [limit for limit, pattern in _REFUSALS if pattern.search(text)]
    return [sentence(limit, limits, "the agent CLI reported the refusal") for limit in found]


def capped_file(root: Path, limits: ResourceLimits, skip: frozenset[str] = frozenset()) -> str | None:
    """A regular file under ``root`` at exactly the file-size cap: a write the kernel cut there (None: none).
    Folders named in ``skip`` at the top are the runner's own (its capture of the streams, cut at a limit of its
    own). Never follows links (the sandbox's one bounded walk); a flood is the size watch's to name."""
    cap = limits.file_mb * MB
    try:
        for entry, st in walk_entries(root, skip):
            if st.st_size == cap and entry.is_file(follow_symlinks=False):
                return os.path.relpath(entry.path, root)
    except TooManyEntries:
        return None
    return None


@dataclass(slots=True)
class PidWatch:
    """The agent uid's process count against the RLIMIT_NPROC it started under, polled while it runs.

    ``nproc`` is the limit prlimit set (what the uid ran before plus ``pids``); root is not bound by it, so no
    watch is kept for a run as root."""

    uid: int
    nproc: int
    peak: int = 0
    counted: int = 0  # the uid's count at the last full count
    total: int | None = None  # the machine's task total then (None: unknown, no /proc/loadavg)
    # two worker threads may count at once (the timed watch and a model call's look): one at a time, so a lower
    # count written last never takes the peak back
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def poll(self) -> None:
        """Blocking (walks the process table): call it in a worker thread."""
        with self.lock:
            self.total = task_total()
            self.counted = own_process_count(self.uid)
            self.peak = max(self.peak, self.counted)

    def near(self) -> bool:
        """Whether the uid's count may have come within the margin since the last full count, read from the
        machine's task total (one small read, no walk): every task added since then counted as the agent's.
        False when the total cannot be read; the timed full count is then all there is."""
        if self.total is None:
            return False
        now = task_total()
        return now is not None and self.counted + now - self.total >= self.threshold()

    def threshold(self) -> int:
        """The count that reads as the limit met: within an eighth of it (see :meth:`met`)."""
        return self.nproc - max(4, self.nproc // 8)

    def met(self) -> bool:
        """The peak reached the limit, within an eighth of it. Why a margin: the kernel does not count what a
        look at the host's process table counts (under bubblewrap's user namespace RLIMIT_NPROC is charged per
        namespace, and a look misses processes born and gone between two looks). Measured with a bomb that
        forks until refused: 62-64 seen of 64 as root, 61 of 68 unprivileged. An agent's own work sits far
        below (a CLI and its shells: 10-30 tasks), so a peak this close to the limit is the limit met."""
        return self.peak >= self.threshold()


def task_total() -> int | None:
    """The tasks (processes and threads) the machine runs now, from ``/proc/loadavg``'s fourth field (None:
    unreadable). Cheap enough to read every few milliseconds, unlike a walk of ``/proc``."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read(128).split()[3].split(b"/")[1])
    except (OSError, IndexError, ValueError):
        return None


def kernel_readback(
    limits: ResourceLimits, root: Path, pids: PidWatch | None, skip: frozenset[str] = frozenset()
) -> list[str]:
    """The limits the kernel's own state shows met: the process peak, a file cut at the cap. Blocking (walks
    the sandbox): call it in a worker thread, while the sandbox exists."""
    out: list[str] = []
    if pids is not None and pids.met():
        out.append(sentence("pids", limits, f"{pids.peak} processes ran at once; further forks were refused"))
    capped = capped_file(root, limits, skip)
    if capped is not None:
        out.append(sentence("file_mb", limits, f"{capped} was cut at {limits.file_mb} MB"))
    return out


def merged(named: list[str], more: Iterable[str]) -> list[str]:
    """``named`` and each of ``more`` whose limit is not named yet (one sentence per limit, the first kept)."""
    out = list(named)
    for line in more:
        if not any(line.split(":")[0] == done.split(":")[0] for done in out):
            out.append(line)
    return out
