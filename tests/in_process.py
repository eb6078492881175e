"""Run the ``evalens`` command inside the test's own process (#22).

``python -m evalens …`` pays for its imports on every call (0.6–1.2 s of CPU for ``eval``, ``report``, ``show``),
and a few hundred such calls were most of the fast tier's time. Here the command runs through the same entry
point (``evalens.cli.main.main``) with its own argv, working directory, environment and stdin, and answers the
same ``CompletedProcess`` a subprocess would: exit code, stdout, stderr.

Keep a real subprocess where the process is what is tested: the ``python -m evalens`` entry point, what a fresh
interpreter imports, signals, a closed pipe, a time bound on a command that could hang, or output written by a
child process to the inherited descriptors.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from evalens.cli.main import main


class _Stream(io.TextIOWrapper):
    """A text stream over bytes, as a pipe's would be: it has ``buffer`` and ``reconfigure`` and is no tty."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8", errors="strict", newline=None)

    def text(self) -> str:
        self.flush()
        raw = self.buffer
        assert isinstance(raw, io.BytesIO)
        return raw.getvalue().decode("utf-8", errors="replace")


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """``env`` replaces the whole environment for the call, as ``subprocess.run(env=…)`` does."""
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def evalens(
    args: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``evalens ARGS`` run in this process: what ``subprocess.run([python, -m, evalens, *ARGS],
    capture_output=True, text=True, cwd=…, env=…, input=…)`` answers."""
    argv = [os.fspath(a) for a in args]
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:  # the command runs its own loop (asyncio.run): from a coroutine, use a real subprocess
        raise RuntimeError("evalens in-process cannot run inside an event loop; use a subprocess")
    out, err, stdin = _Stream(), _Stream(), _Stream((input or "").encode())
    saved = sys.stdin, sys.stdout, sys.stderr, sys.argv
    here = Path.cwd()
    code: int | str | None
    with _environment(env):
        try:
            if cwd is not None:
                os.chdir(cwd)
            sys.stdin, sys.stdout, sys.stderr = stdin, out, err
            sys.argv = ["evalens", *argv]
            try:
                code = main(argv)
            except SystemExit as stop:  # argparse's usage errors and --help exit
                code = stop.code
        finally:
            sys.stdin, sys.stdout, sys.stderr, sys.argv = saved
            os.chdir(here)
    if isinstance(code, str):  # SystemExit("message"): printed to stderr, exit status 1
        err.write(code + "\n")
        code = 1
    done = subprocess.CompletedProcess(
        [sys.executable, "-m", "evalens", *argv], code or 0, out.text(), err.text()
    )
    if check:
        done.check_returncode()
    return done


def evalens_subprocess(
    args: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """The same as :func:`evalens` in a fresh interpreter: for a coroutine (the command runs its own loop) and
    for tests of the process itself."""
    return subprocess.run(
        [sys.executable, "-m", "evalens", *(os.fspath(a) for a in args)],
        cwd=cwd,
        env=None if env is None else dict(env),
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
