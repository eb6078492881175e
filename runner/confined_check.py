"""Run a check that executes code from an eval file (skilljack's ``expect_javascript``) in its own bubblewrap
sandbox, or not at all.

An eval file comes with the package, so a pull request writes its checks. skilljack evaluates
``expect_javascript`` in Node's ``vm``, which is not a security boundary: ``String.constructor('return process')()``
reaches the real ``process`` and runs commands as the runner (issue 42). Here the interpreter itself runs confined
as the agent is (docs/sandbox.md), only tighter: a fresh user namespace without capabilities, as the unprivileged
sandbox uid when evalens is root, no network, its own pid/IPC/UTS namespaces, a read-only root holding ``/usr``
and the interpreter's own install only (no workspace, no home, no package, no ``/etc``), a private ``/tmp``, an
empty environment, the seccomp filter, and prlimit bounds on processes, memory, CPU and file size. Its output
goes to a file under ``RLIMIT_FSIZE``, so a flood is cut, not buffered. Where no such sandbox can be made the
check raises :class:`~evalens.runner.checks.CheckNotRun`: the run is ERROR with the reason, never a PASS (or a
FAIL) of a check that did not run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from evalens.runner import bwrap
from evalens.runner.bwrap import _configured_uid as configured_uid  # noqa: PLC2701 - shared with the sandbox
from evalens.runner.bwrap import _confined as confined_head
from evalens.runner.bwrap import _system_root as system_root
from evalens.runner.checks import CheckNotRun
from evalens.runner.engine_mirror import sources_for
from evalens.runner.resource_limits import ResourceLimits, launch_prefix
from evalens.runner.seccomp_filter import filter_fd

OUTPUT_LIMIT = 1 << 20  # bytes of a confined check's stdout kept (RLIMIT_FSIZE cuts it there)
# processes, memory, CPU and file size of one confined check: plenty for an expression, nothing for a bomb
CHECK_LIMITS = ResourceLimits(pids=64, memory_mb=2048, cpu_seconds=20, file_mb=1)


@dataclass(slots=True)
class Confined:
    """What a confined check printed and how it ended."""

    stdout: str
    stderr: str
    exit_code: int | None  # None: timed out (the sandbox and everything in it was killed)


def unavailable() -> str | None:
    """Why no confined check can run here (None: it can)."""
    if os.environ.get("EVALENS_NO_BWRAP") == "1":
        return "EVALENS_NO_BWRAP=1 turns bubblewrap off"
    if not shutil.which("bwrap"):
        return "bubblewrap (bwrap) is not installed"
    if not bwrap.probe_identities(configured_uid()):
        return "bubblewrap cannot create a user namespace here"
    return None


def _argv(binds: list[tuple[Path, Path]], inner: list[str], seccomp_fd: int | None) -> list[str]:
    """The bubblewrap command line of a confined check: a read-only root of ``/usr`` and ``binds`` (host
    source, path inside), nothing else of the host."""
    exe = shutil.which("bwrap") or "bwrap"
    argv = confined_head(exe, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts")
    argv += ["--unshare-cgroup-try", "--new-session", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin"]
    argv += ["--setenv", "HOME", "/tmp", "--setenv", "LC_ALL", "C.UTF-8", *system_root()]
    argv += ["--tmpfs", "/tmp"]
    for source, dest in binds:
        argv += ["--ro-bind", str(source), str(dest)]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    return [*argv, "--remount-ro", "/", "--chdir", "/tmp", "--", *inner]


def run_confined(inner: list[str], stdin: str, *, roots: list[Path], timeout: float, what: str) -> Confined:
    """Run ``inner`` (absolute executable first) in a check sandbox with ``roots`` visible read-only, ``stdin``
    as its input. Raises :class:`CheckNotRun` naming ``what`` where no sandbox can be made or it failed to
    start. Blocking: callers are check threads."""
    why = unavailable()
    if why is not None:
        raise CheckNotRun(
            f"{what} not run: it executes code from the eval file, which runs only inside the sandbox, "
            f"and {why} (docs/sandbox.md)"
        )
    identity = bwrap.probe_identities(configured_uid())[0]
    from evalens.runner.sandbox import sandbox_base  # cycle: the sandbox imports the checks' module

    binds = sources_for(roots, sandbox_base(), dropping=identity.uid is not None)
    seccomp_fd = filter_fd()
    prefix, dropped = launch_prefix(CHECK_LIMITS, None, identity.uid, identity.gid)
    try:
        with (
            tempfile.TemporaryFile() as out,
            tempfile.TemporaryFile() as err,
            tempfile.TemporaryFile() as feed,
        ):
            feed.write(stdin.encode("utf-8", "surrogateescape"))
            feed.seek(0)
            proc = subprocess.Popen(
                prefix + _argv(binds, inner, seccomp_fd),
                env=dict(bwrap.LAUNCHER_ENV),
                stdin=feed,
                stdout=out,
                stderr=err,
                cwd="/",
                start_new_session=True,
                user=None if dropped else identity.uid,
                group=None if dropped else identity.gid,
                extra_groups=[] if identity.uid is not None and not dropped else None,
                pass_fds=(seccomp_fd,) if seccomp_fd is not None else (),
            )
            try:
                code: int | None = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                code = None
                os.killpg(proc.pid, 9)  # bubblewrap's child dies with it (--die-with-parent), and its pid ns
                proc.wait()
            out.seek(0)
            err.seek(0)
            return Confined(
                out.read(OUTPUT_LIMIT).decode("utf-8", "replace"),
                err.read(OUTPUT_LIMIT).decode("utf-8", "replace"),
                code,
            )
    except OSError as exc:
        raise CheckNotRun(f"{what} not run: its sandbox could not start ({exc})") from None
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
