"""The agent process: started in its own session, output captured through sockets the runner owns (bounded while it
streams), the model reached through unix-socket bridges, and the whole process tree killed at the end.

Why sockets and not pipes or files: a file inside the agent's mounts can be rewritten by the agent, and a pipe can
be reopened through ``/proc/<pid>/fd/1`` by any process of the same uid; a socket cannot be opened by path at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.runner.bwrap import BridgeSpec
from evalens.runner.resource_limits import ps_table

KILL_GRACE_SECONDS = 2.0
DEFAULT_CAPTURE_BYTES = 16 << 20  # per stream; override with EVALENS_MAX_OUTPUT_MB
READ_CHUNK = 1 << 16


async def in_thread(
    func: Callable[..., Any], *args: Any, on_cancel: Callable[[Any], None] | None = None
) -> Any:
    """Run blocking work (file copies, ``/proc`` scans, probes, parsing) in a worker thread, off the event loop.
    If the caller is cancelled, the thread is let finish before re-raising (so no one races the cleanup that
    follows), and ``on_cancel`` gets what it produced (a sandbox to remove)."""
    task = asyncio.ensure_future(asyncio.to_thread(func, *args))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            result = await asyncio.wait_for(asyncio.shield(task), timeout=30)
            if on_cancel is not None:
                on_cancel(result)
        raise


def capture_limit() -> int:
    try:
        return max(1, int(float(os.environ.get("EVALENS_MAX_OUTPUT_MB", "")) * (1 << 20)))
    except ValueError:
        return DEFAULT_CAPTURE_BYTES


@dataclass(slots=True)
class AgentRun:
    """What happened to the agent process; ``truncated`` names the streams cut at the capture limit."""

    exit_code: int | None
    timed_out: bool
    duration_seconds: float
    killed_pids: list[int] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)
    stream_bytes: dict[str, int] = field(default_factory=dict)
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    stopped: bool = False  # a per-run limit ended it early (the caller's meter says which)
    limits_hit: list[str] = field(default_factory=list)  # the limits that stopped or constrained it, named
    bridge: Any = None  # model_bridge.Tally: every model call the bridge answered for this run


# --------------------------------------------------------------------------- model bridges (host side)


@dataclass(slots=True)
class Bridge:
    """The host side of one bridge: a unix socket whose connections are piped to the real model endpoint."""

    spec: BridgeSpec
    server: asyncio.AbstractServer | None = None
    tasks: set[asyncio.Task] = field(default_factory=set)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(READ_CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def start_bridges(specs: list[BridgeSpec], owner: int | None) -> list[Bridge]:
    """Listen on each spec's socket (mode 0600, owned by ``owner`` when given: the uid the agent runs as)."""
    bridges: list[Bridge] = []
    for spec in specs:
        bridge = Bridge(spec)

        async def handle(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, bridge: Bridge = bridge
        ) -> None:
            task = asyncio.current_task()
            if task is not None:
                bridge.tasks.add(task)
            try:
                try:
                    up_reader, up_writer = await asyncio.open_connection(bridge.spec.host, bridge.spec.port)
                except OSError:
                    writer.close()
                    return
                await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
            except asyncio.CancelledError:
                writer.close()
            finally:
                if task is not None:
                    bridge.tasks.discard(task)

        bridge.server = await asyncio.start_unix_server(handle, path=str(spec.socket))
        os.chmod(spec.socket, 0o600)
        if owner is not None:
            os.chown(spec.socket, owner, -1)
        bridges.append(bridge)
    return bridges


async def stop_bridges(bridges: list[Bridge]) -> None:
    """Close the listeners and every open connection; never raises (shutdown must not print tracebacks)."""
    for bridge in bridges:
        if bridge.server is None:
            continue
        bridge.server.close()
        tasks = list(bridge.tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=1)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bridge.server.wait_closed(), timeout=1)
        bridge.server = None


# --------------------------------------------------------------------------- processes


def _proc_table() -> dict[int, tuple[int, int]]:
    """pid → (ppid, session id) for every live (non-zombie) process. Without ``/proc`` (macOS) ``ps`` gives
    them, with the process group for the session: the agent starts a new session, whose group it leads too."""
    if not os.path.isdir("/proc"):
        return _ps_process_table()
    table: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields and fields[0] in ("Z", "X"):
            continue  # already dead, only waiting to be reaped
        try:
            table[int(entry)] = (int(fields[1]), int(fields[3]))
        except (IndexError, ValueError):
            continue
    return table


def _ps_process_table() -> dict[int, tuple[int, int]]:
    table: dict[int, tuple[int, int]] = {}
    for line in ps_table("pid=,ppid=,pgid=,stat="):
        parts = line.split()
        if len(parts) < 4 or parts[3].startswith("Z"):
            continue
        try:
            table[int(parts[0])] = (int(parts[1]), int(parts[2]))
        except ValueError:
            continue
    return table


def process_tree(root_pid: int) -> set[int]:
    """``root_pid``, its descendants, and anything still in its session (orphans reparented elsewhere)."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _sid) in table.items():
        children.setdefault(ppid, []).append(pid)
    found = {root_pid} if root_pid in table else set()
    stack = [root_pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    found |= {pid for pid, (_ppid, sid) in table.items() if sid == root_pid}
    return found


def kill_tree(root_pid: int, known: set[int] | None = None) -> list[int]:
    """SIGKILL the process group and every process of the tree, plus ``known`` pids seen earlier (orphans a
    dying parent left to init). Each round stops what it finds first, so nothing forks away meanwhile."""
    killed: list[int] = []
    seen = set(known or ())
    for _ in range(5):
        live = _proc_table()
        pids = process_tree(root_pid) | {p for p in seen if p in live}
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(root_pid, signal.SIGKILL)
        if not pids:
            break
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
        killed.extend(pids)
        seen |= pids
        time.sleep(0.02)
    return killed


async def _drain(
    sock: socket.socket,
    dest: Path,
    limit: int,
    counts: dict[str, int],
    name: str,
    on_data: Callable[[bytes], None] | None = None,
) -> None:
    """Copy the stream to ``dest`` up to ``limit`` bytes, then keep reading and discarding (the agent must not
    block on a full buffer, and the runner must not hold what it prints). ``on_data`` sees what is kept, as it
    arrives (the live turns)."""
    loop = asyncio.get_running_loop()
    written = total = 0
    with dest.open("wb") as out:
        while True:
            try:
                data = await loop.sock_recv(sock, READ_CHUNK)
            except OSError:
                break
            if not data:
                break
            total += len(data)
            if written < limit:
                keep = data[: limit - written]
                out.write(keep)
                written += len(keep)
                if on_data is not None:
                    with contextlib.suppress(Exception):  # a display must never break the capture
                        on_data(keep)
            counts[name] = total


async def run_process(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    stdout: Path,
    stderr: Path,
    time_limit: float,
    *,
    user: int | None = None,
    group: int | None = None,
    on_stdout: Callable[[bytes], None] | None = None,
    pass_fds: tuple[int, ...] = (),
    stop: asyncio.Event | None = None,
) -> AgentRun:
    """Run the agent in its own session with a hard timeout; the whole tree dies on timeout or cancellation.
    ``user``/``group`` switch the child to that host uid/gid (evalens as root); ``on_stdout`` sees the stdout
    stream as it arrives; setting ``stop`` ends the run early, as the timeout does (a per-run limit was passed:
    ``stopped`` is then True)."""
    start = time.monotonic()
    limit = capture_limit()
    pairs = {name: socket.socketpair() for name in ("stdout", "stderr")}
    counts: dict[str, int] = {"stdout": 0, "stderr": 0}
    readers: list[asyncio.Task] = []
    proc = None
    try:
        for ours, _theirs in pairs.values():
            ours.setblocking(False)
            ours.shutdown(socket.SHUT_WR)
        proc = await asyncio.create_subprocess_exec(
            *argv,
            env=env,
            cwd=str(cwd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=pairs["stdout"][1].fileno(),
            stderr=pairs["stderr"][1].fileno(),
            start_new_session=True,
            user=user,
            group=group,
            extra_groups=[] if user is not None else None,
            pass_fds=pass_fds,
        )
    except BaseException:
        for ours, theirs in pairs.values():
            ours.close()
            theirs.close()
        raise
    for _ours, theirs in pairs.values():
        theirs.close()
    readers = [
        asyncio.ensure_future(_drain(pairs[n][0], p, limit, counts, n, on_stdout if n == "stdout" else None))
        for n, p in (("stdout", stdout), ("stderr", stderr))
    ]
    timed_out = stopped = False
    killed: list[int] = []
    known: set[int] = set()
    try:
        exited = asyncio.ensure_future(proc.wait())
        stopping = asyncio.ensure_future(stop.wait()) if stop is not None else None
        try:
            await asyncio.wait(
                [exited, stopping] if stopping is not None else [exited],
                timeout=time_limit,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            if stopping is not None:
                stopping.cancel()
            if not exited.done():
                exited.cancel()
        if not exited.done() or exited.cancelled():
            stopped = stop is not None and stop.is_set()
            timed_out = not stopped
            known = await in_thread(
                process_tree, proc.pid
            )  # before SIGTERM: a dying parent hands its children to init
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), timeout=KILL_GRACE_SECONDS)
    finally:
        # Always: on timeout, on cancellation, and after a normal exit (background children of tool calls).
        killed = await in_thread(kill_tree, proc.pid, known)  # a /proc scan: off the loop
        try:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    await asyncio.shield(proc.wait())
            # Every writer is dead now, so the streams end; bound the wait anyway (a leaked descriptor elsewhere).
            await asyncio.shield(asyncio.wait(readers, timeout=5))
        finally:
            for task in readers:
                task.cancel()
            for ours, _theirs in pairs.values():
                ours.close()
    truncated = [name for name, total in counts.items() if total > limit]
    return AgentRun(
        None if timed_out or stopped else proc.returncode,
        timed_out,
        time.monotonic() - start,
        killed,
        truncated,
        counts,
        stdout,
        stderr,
        stopped,
    )
