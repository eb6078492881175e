"""The private per-case sandbox: directories, fixture copying, bubblewrap confinement and the agent process.

Guarantees: fixture and workspace paths never escape their base; with bubblewrap the agent's tools get no
network (``sandbox.network: false``) and can write only inside the writable paths while the model is reached
through a unix-socket bridge (agent-clis.md §7.3); the agent's whole process tree is killed on timeout,
cancellation or exit; the sandbox directory is removed by :func:`remove_sandbox`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from evalens.runner.engines.base import SandboxPaths

SANDBOX_PREFIX = "evalens-eval-"
# Directories the engines own inside the workspace; never counted as "files created".
INSTALLED_DIRS = (".claude", ".agents", ".codex", ".evalens-package")
KILL_GRACE_SECONDS = 2.0


class PathEscape(Exception):
    """A case path is absolute or leaves its base directory (`../`); the message names the path."""


@dataclass(slots=True)
class SandboxPlan:
    """How isolation will be enforced for a run; recorded in the report."""

    enforced: bool
    method: str  # "bubblewrap" or "engine"
    network: bool
    writable_paths: list[str] | None
    warning: str | None = None


@dataclass(slots=True)
class AgentRun:
    """What happened to the agent process."""

    exit_code: int | None
    timed_out: bool
    duration_seconds: float
    killed_pids: list[int] = field(default_factory=list)


def sandbox_base() -> Path:
    """Parent of all sandboxes: ``$EVALENS_SANDBOX_DIR`` or ``/var/tmp/evalens``.

    Not under /tmp: Codex refuses to create its sandbox helper under the system temp dir, and bubblewrap mounts
    a fresh tmpfs on /tmp.
    """
    configured = os.environ.get("EVALENS_SANDBOX_DIR")
    base = Path(configured) if configured else Path("/var/tmp/evalens")
    try:
        base.mkdir(parents=True, exist_ok=True)
        base.chmod(0o700)
    except OSError:
        base = Path(tempfile.gettempdir()) / "evalens"
        base.mkdir(parents=True, exist_ok=True)
    return base


def safe_join(base: Path, rel: str, *, what: str) -> Path:
    """``base/rel`` if it stays inside ``base`` (symlinks resolved); otherwise :class:`PathEscape`."""
    if not rel or os.path.isabs(rel) or rel.startswith("~"):
        raise PathEscape(f"{what} `{rel}` must be a relative path")
    base_resolved = base.resolve()
    target = (base / rel).resolve()
    if target != base_resolved and base_resolved not in target.parents:
        raise PathEscape(f"{what} `{rel}` escapes {base}")
    return base / rel


_LOCKS: dict[Path, int] = {}
STALE_AFTER_SECONDS = 300


def _lock(root: Path) -> None:
    """Hold an flock on ``root/.lock`` while the sandbox lives, so a sweep can tell live sandboxes from leftovers."""
    import fcntl

    fd = os.open(root / ".lock", os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _LOCKS[root] = fd


def _unlock(root: Path) -> None:
    fd = _LOCKS.pop(root, None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


def keep_sandbox(paths: SandboxPaths) -> None:
    """Mark a sandbox as kept on purpose (``--keep-sandbox``): sweeps leave it alone."""
    (paths.root / ".kept").touch()
    _unlock(paths.root)


def sweep_stale_sandboxes() -> list[Path]:
    """Remove sandboxes left by a runner that was killed outright (SIGKILL, power loss): unlocked, not kept, and
    older than a few minutes. Returns what was removed."""
    import fcntl

    removed: list[Path] = []
    base = sandbox_base()
    now = time.time()
    for root in base.glob(f"{SANDBOX_PREFIX}*"):
        try:
            if (root / ".kept").exists() or now - root.stat().st_mtime < STALE_AFTER_SECONDS:
                continue
            fd = os.open(root / ".lock", os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a live run holds it
        try:
            remove_sandbox(SandboxPaths(root, root / "ws", root / "home", root / "config", root / "logs"))
            removed.append(root)
        finally:
            os.close(fd)
    return removed


def create_sandbox() -> SandboxPaths:
    """A fresh private run directory with workspace, HOME, engine config dir and logs."""
    root = Path(tempfile.mkdtemp(prefix=SANDBOX_PREFIX, dir=sandbox_base()))
    _lock(root)
    paths = SandboxPaths(root=root, workspace=root / "ws", home=root / "home", config_home=root / "config",
                         logs=root / "logs")
    for directory in (paths.workspace, paths.home, paths.config_home, paths.logs):
        directory.mkdir(mode=0o700)
    return paths


def populate(paths: SandboxPaths, evals_dir: Path, files: list[str], workspace_files: list[str]) -> None:
    """Copy ``input.files`` from ``evals/`` (same relative path) and create empty ``workspace-files``."""
    for rel in files:
        src = safe_join(evals_dir, rel, what="input file")
        if not src.exists():
            raise FileNotFoundError(f"fixture `{rel}` not found under {evals_dir}/")
        dest = safe_join(paths.workspace, rel, what="input file")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, symlinks=False, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dest)
    for rel in workspace_files:
        dest = safe_join(paths.workspace, rel, what="workspace file")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            dest.mkdir(parents=True, exist_ok=True)
        else:
            dest.touch(exist_ok=True)


def snapshot(workspace: Path) -> dict[str, tuple[int, int]]:
    """Relative path → (size, mtime_ns) of every regular file outside the engines' own folders."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(workspace):
        rel_dir = os.path.relpath(dirpath, workspace)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in INSTALLED_DIRS]
        for name in filenames:
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            out[rel.replace(os.sep, "/")] = (st.st_size, st.st_mtime_ns)
    return out


def remove_sandbox(paths: SandboxPaths) -> None:
    """Delete the run directory, also when the agent left read-only files behind."""

    def _retry(func, path, _exc):  # noqa: ANN001 - shutil's onerror signature
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
            func(path)

    _unlock(paths.root)
    if paths.root.exists():
        shutil.rmtree(paths.root, onerror=_retry)


# --------------------------------------------------------------------------- bubblewrap


@lru_cache(maxsize=1)
def bubblewrap_usable() -> bool:
    """bwrap is installed and can create the namespaces we need on this kernel."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return False
    try:
        probe = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
             "--die-with-parent", "true"],
            capture_output=True, timeout=20, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def plan_sandbox(network: bool, writable_paths: list[str] | None) -> SandboxPlan:
    """Decide the enforcement method; without bubblewrap (or socat for the model bridge) fall back loudly."""
    if os.environ.get("EVALENS_NO_BWRAP") == "1":
        reason = "EVALENS_NO_BWRAP=1"
    elif not bubblewrap_usable():
        reason = "bubblewrap (bwrap) is not installed or not usable"
    elif not network and not shutil.which("socat"):
        reason = "socat (needed to bridge the model endpoint into the network-less sandbox) is not installed"
    else:
        return SandboxPlan(True, "bubblewrap", network, writable_paths)
    warning = (f"warning: sandbox not enforced: {reason}; falling back to the engine's own sandbox "
               f"(network={'on' if network else 'off'} requested, writable-paths not enforced)")
    return SandboxPlan(False, "engine", network, writable_paths, warning)


@dataclass(slots=True)
class Bridge:
    """One model endpoint forwarded into the sandbox: an in-process unix-socket proxy on the host side, socat on
    the sandbox's own loopback inside."""

    host: str
    port: int
    socket: Path
    server: asyncio.AbstractServer | None = None
    tasks: set[asyncio.Task] = field(default_factory=set)
    own_dir: bool = False  # the socket lives in a short side folder that stop_bridges removes


_MAX_SOCKET_PATH = 100


def _short_tmp() -> str:
    """A short, writable folder outside /tmp (bubblewrap hides /tmp) for bridge sockets."""
    for candidate in ("/var/tmp", "/dev/shm"):
        if os.access(candidate, os.W_OK):
            return candidate
    return tempfile.gettempdir()


def _endpoint(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return host, port


def _install_roots(executable: str) -> set[str]:
    """Folders under /tmp that an agent executable needs: its outermost node_modules, else its folder."""
    roots: set[str] = set()
    for exe in {Path(executable), Path(executable).resolve()}:
        if not (exe.is_absolute() and exe.parts[1:2] == ("tmp",)):
            continue
        modules = [p for p in exe.parents if p.name == "node_modules"]
        roots.add(str(modules[-1] if modules else exe.parent))
    return roots


def bubblewrap_argv(plan: SandboxPlan, paths: SandboxPaths, agent_argv: list[str],
                    endpoints: list[str]) -> tuple[list[str], list[Bridge]]:
    """The agent argv wrapped in bwrap, plus the bridges the caller must start first (network off only)."""
    ws = str(paths.workspace)
    base = str(paths.root.parent)
    argv = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", base]
    # The fresh /tmp would hide an agent installed there (e.g. a CI checkout under /tmp): keep its whole
    # node_modules tree visible, read-only — npm wrappers load their native binary from sibling packages.
    for folder in sorted(_install_roots(agent_argv[0])):
        argv += ["--ro-bind", folder, folder]
    real_home = Path(os.path.expanduser("~"))
    for secret in (".claude", ".codex", ".config", ".ssh", ".aws", ".netrc", ".claude.json"):
        candidate = real_home / secret
        if candidate.is_dir():
            argv += ["--tmpfs", str(candidate)]
        elif candidate.is_file():
            argv += ["--ro-bind", "/dev/null", str(candidate)]
    if plan.writable_paths:
        argv += ["--ro-bind", ws, ws]
        for rel in plan.writable_paths:
            target = safe_join(paths.workspace, rel.rstrip("/") or ".", what="writable path")
            target.mkdir(parents=True, exist_ok=True)
            argv += ["--bind", str(target), str(target)]
    else:
        argv += ["--bind", ws, ws]
    for directory in (paths.home, paths.config_home, paths.logs):
        argv += ["--bind", str(directory), str(directory)]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session"]
    bridges: list[Bridge] = []
    if not plan.network:
        argv.append("--unshare-net")
        hosts_lines = []
        sock_dir = paths.logs
        if len(str(sock_dir / "model-00.sock")) > _MAX_SOCKET_PATH:
            # unix socket paths are limited to 108 bytes: a deep sandbox dir gets a short side folder
            sock_dir = Path(tempfile.mkdtemp(prefix="evb-", dir=_short_tmp()))
            argv += ["--bind", str(sock_dir), str(sock_dir)]
        for i, url in enumerate(endpoints):
            host, port = _endpoint(url)
            bridges.append(Bridge(host, port, sock_dir / f"model-{i}.sock", own_dir=sock_dir != paths.logs))
            if host not in ("127.0.0.1", "localhost", "::1"):
                hosts_lines.append(f"127.0.0.1 {host}")
        if hosts_lines:
            hosts = paths.logs / "hosts"
            hosts.write_text("127.0.0.1 localhost\n" + "\n".join(hosts_lines) + "\n", encoding="utf-8")
            argv += ["--ro-bind", str(hosts), "/etc/hosts"]
        if os.geteuid() == 0 and any(b.port < 1024 for b in bridges):
            argv += ["--cap-add", "CAP_NET_BIND_SERVICE"]
    argv += ["--chdir", ws, "--"]
    if bridges:
        socat = shutil.which("socat") or "socat"
        script = []
        for b in bridges:
            script.append(f"{socat} TCP-LISTEN:{b.port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:{b.socket} "
                          f"2>/dev/null &")
        for b in bridges:
            script.append(f"for i in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/{b.port}) 2>/dev/null && break; "
                          f"sleep 0.01; done")
        script.append('exec "$@"')
        argv += ["/bin/bash", "-c", "\n".join(script), "evalens-bridge"]
    return argv + agent_argv, bridges


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def start_bridges(bridges: list[Bridge]) -> None:
    """Host side of each bridge: a unix socket whose connections are piped to the real model endpoint."""
    for b in bridges:

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, b: Bridge = b) -> None:
            try:
                up_reader, up_writer = await asyncio.open_connection(b.host, b.port)
            except OSError:
                writer.close()
                return
            task = asyncio.current_task()
            if task is not None:
                b.tasks.add(task)
            try:
                await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
            finally:
                if task is not None:
                    b.tasks.discard(task)

        b.server = await asyncio.start_unix_server(handle, path=str(b.socket))
        b.socket.chmod(0o600)


async def stop_bridges(bridges: list[Bridge]) -> None:
    for b in bridges:
        if b.server is not None:
            b.server.close()
            for task in list(b.tasks):
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(b.server.wait_closed(), timeout=1)
            b.server = None
        if b.own_dir:
            shutil.rmtree(b.socket.parent, ignore_errors=True)


# --------------------------------------------------------------------------- processes


def _proc_table() -> dict[int, tuple[int, int]]:
    """pid → (ppid, session id) for every live (non-zombie) process."""
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


def kill_tree(root_pid: int) -> list[int]:
    """SIGKILL the process group and every process of the tree (repeated until nothing is left)."""
    killed: list[int] = []
    for _ in range(5):
        pids = process_tree(root_pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(root_pid, signal.SIGKILL)
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        time.sleep(0.02)
    return killed


async def run_process(argv: list[str], env: dict[str, str], cwd: Path, stdout: Path, stderr: Path,
                      timeout: float) -> AgentRun:
    """Run the agent in its own session with a hard timeout; the whole tree dies on timeout or cancellation."""
    start = time.monotonic()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *argv, env=env, cwd=str(cwd), stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )
    timed_out = False
    killed: list[int] = []
    try:
        try:
            await asyncio.wait_for(proc.wait(), timeout=timeout)
        except TimeoutError:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), timeout=KILL_GRACE_SECONDS)
            except TimeoutError:
                pass
    finally:
        # Always: on timeout, on cancellation, and after a normal exit (background children of tool calls).
        killed = kill_tree(proc.pid)
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                await asyncio.shield(proc.wait())
    return AgentRun(None if timed_out else proc.returncode, timed_out, time.monotonic() - start, killed)
