"""The private per-case sandbox: directories, fixture copying, the confinement plan, and launching the agent.

Guarantees (docs/sandbox.md): fixture and workspace paths never escape their base and fixture copies never follow
a link out of it; with bubblewrap (:mod:`evalens.runner.bwrap`) the agent runs capability-free as an unprivileged
uid in a user namespace, sees only a minimal read-only root plus its writable paths, gets no network
(``sandbox.network: false``) except the model bridge, and cannot reach the runner's captured streams
(:mod:`evalens.runner.agent_process`); its whole process tree is killed on timeout, cancellation or exit, and the
sandbox directory (TMPDIR included) is removed by :func:`remove_sandbox`.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalens.core.regular_files import open_regular, read_chunks, read_regular_bytes
from evalens.runner import bwrap, live, replay
from evalens.runner.agent_process import (  # noqa: F401 - re-exported, the runner's one sandbox entry point
    AgentRun,
    capture_limit,
    in_thread,
    kill_tree,
    process_tree,
    run_process,
    start_bridges,
    stop_bridges,
)
from evalens.runner.bwrap import _configured_uid, probe_identities
from evalens.runner.canonical import KEY_VARS
from evalens.runner.engine_mirror import sources_for
from evalens.runner.engines.base import Invocation, SandboxPaths
from evalens.runner.limit_readback import PidWatch, kernel_readback, merged, refused_in_stderr
from evalens.runner.model_bridge import Guard, runner_upstream
from evalens.runner.model_proxy import ModelProxy
from evalens.runner.resource_limits import MB, ResourceLimits, create_cgroup, launch_prefix, sandbox_bytes
from evalens.runner.run_limits import Meter
from evalens.runner.seccomp_filter import filter_fd

if TYPE_CHECKING:
    from collections.abc import Callable

    from evalens.runner.engines.base import Engine, Transcript
    from evalens.runner.run_limits import RunLimits

SANDBOX_PREFIX = "evalens-eval-"
SIZE_POLL_SECONDS = 1.0  # how often the sandbox's size is measured (--limit workspace-mb)
STDERR_READ = 65536  # bytes of the agent CLI's stderr read for a refusal it reports
PID_POLL_SECONDS = 0.1  # how often the agent uid's processes are counted (--limit pids, without a cgroup)
PID_TOTAL_POLL_SECONDS = 0.005  # how often the machine's task total is read (PidWatch.near)
USAGE_POLL_SECONDS = 0.2  # how often the usage records an engine writes to files are read (per-run limits)
# Directories the engines own inside the workspace; never counted as "files created".
INSTALLED_DIRS = (".claude", ".agents", ".codex", ".evalens-package")


class PathEscape(Exception):
    """A case path is absolute or leaves its base directory (`../`, a link out); the message names the path."""


@dataclass(slots=True)
class SandboxPlan:
    """How isolation will be enforced for a run; recorded in the report."""

    enforced: bool
    method: str  # "bubblewrap" or "engine"
    network: bool
    writable_paths: list[str] | None
    warning: str | None = None
    user: str | None = None  # who the agent runs as (bubblewrap), filled in at the first launch


def sandbox_base() -> Path:
    """Parent of all sandboxes: ``$EVALENS_SANDBOX_DIR`` or ``/var/tmp/evalens``.

    Not under /tmp: Codex refuses to create its sandbox helper under the system temp dir, and bubblewrap mounts
    a fresh tmpfs on /tmp. Searchable but not listable (0711): an unprivileged agent uid must reach its own run.
    """
    configured = os.environ.get("EVALENS_SANDBOX_DIR")
    base = Path(configured) if configured else Path("/var/tmp/evalens")
    try:
        base.mkdir(parents=True, exist_ok=True)
        if not configured:
            base.chmod(0o711)
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
STALE_AFTER_SECONDS = 10  # only closes the race between mkdtemp and taking the lock; the lock tells the rest


def _lock(root: Path) -> None:
    """Hold an flock on ``root/.lock`` while the sandbox lives, so a sweep can tell live sandboxes from leftovers."""
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


def sweep_stale_sandboxes(min_age: float = STALE_AFTER_SECONDS) -> list[Path]:
    """Remove sandboxes left by a runner that was killed outright (SIGKILL, power loss): unlocked (no live runner
    holds them), not kept, and older than ``min_age`` seconds. Returns what was removed."""
    removed: list[Path] = []
    base = sandbox_base()
    now = time.time()
    for root in base.glob(f"{SANDBOX_PREFIX}*"):
        try:
            if root in _LOCKS or (root / ".kept").exists() or now - root.stat().st_mtime < min_age:
                continue
            fd = os.open(root / ".lock", os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
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
        for side in Path(_short_tmp()).glob(
            f"{_side_prefix(root)}*"
        ):  # its bridge folder (deep sandbox dirs)
            shutil.rmtree(side, ignore_errors=True)
    return removed


def _side_prefix(root: Path) -> str:
    return f"evb-{root.name[len(SANDBOX_PREFIX) :]}-"


def create_sandbox() -> SandboxPaths:
    """A fresh private run directory with workspace, HOME, engine config dir, TMPDIR and the runner's logs."""
    root = Path(tempfile.mkdtemp(prefix=SANDBOX_PREFIX, dir=sandbox_base()))
    root.chmod(0o700)  # opened to the agent's gid only (0710) by :func:`hand_over`, never to other users
    _lock(root)
    paths = SandboxPaths(
        root=root, workspace=root / "ws", home=root / "home", config_home=root / "config", logs=root / "logs"
    )
    for directory in (paths.workspace, paths.home, paths.config_home, paths.logs, tmp_dir(paths)):
        directory.mkdir(mode=0o700)
    return paths


def tmp_dir(paths: SandboxPaths) -> Path:
    """The agent's TMPDIR when no bubblewrap gives it a private /tmp: inside the sandbox, removed with it."""
    return paths.root / "tmp"


# --------------------------------------------------------------------------- fixtures


def _inside(path: str, boundary: str) -> bool:
    return path == boundary or path.startswith(boundary.rstrip(os.sep) + os.sep)


def copy_confined(
    src: Path, dest: Path, boundary: Path, *, what: str, _stack: frozenset[str] = frozenset()
) -> None:
    """Copy a file or tree. A link whose target resolves inside ``boundary`` is copied as its target's content;
    a link out of it (or a link loop) raises :class:`PathEscape`; sockets, FIFOs and devices are skipped."""
    bound = os.path.realpath(boundary)
    try:
        st = os.lstat(src)
    except OSError as exc:
        raise FileNotFoundError(f"{what} `{src}`: {exc.strerror}") from None
    real = os.path.realpath(src)
    if stat.S_ISLNK(st.st_mode):
        if not _inside(real, bound):
            raise PathEscape(f"{what} `{src}` is a link out of {boundary}")
        try:
            st = os.stat(real)
        except OSError:
            raise PathEscape(f"{what} `{src}` is a broken or looping link") from None
    if stat.S_ISDIR(st.st_mode):
        if real in _stack:
            raise PathEscape(f"{what} `{src}` links back into a folder being copied")
        dest.mkdir(parents=True, exist_ok=True)
        for name in sorted(os.listdir(real)):
            copy_confined(src / name, dest / name, boundary, what=what, _stack=_stack | {real})
    elif stat.S_ISREG(st.st_mode):
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(real, dest)
        os.chmod(dest, stat.S_IMODE(st.st_mode) & 0o755 | 0o600)


def populate(paths: SandboxPaths, evals_dir: Path, files: list[str], workspace_files: list[str]) -> None:
    """Copy ``input.files`` from ``evals/`` (same relative path) and create empty ``workspace-files``."""
    for rel in files:
        src = safe_join(evals_dir, rel, what="input file")
        if not src.exists():
            raise FileNotFoundError(f"fixture `{rel}` not found under {evals_dir}/")
        dest = safe_join(paths.workspace, rel, what="input file")
        copy_confined(src, dest, evals_dir, what="input file")
    for rel in workspace_files:
        dest = safe_join(paths.workspace, rel, what="workspace file")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            dest.mkdir(parents=True, exist_ok=True)
        else:
            dest.touch(exist_ok=True)


def snapshot(workspace: Path, *, regular_only: bool = False) -> dict[str, tuple[int, int]]:
    """Relative path → (size, mtime_ns) of every file outside the engines' own folders, never followed through
    a link: a link or FIFO the agent made counts as a file it created; ``regular_only`` keeps regular files
    alone (the workspace diff reads their bytes)."""
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
            if regular_only and not stat.S_ISREG(st.st_mode):
                continue
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            out[rel.replace(os.sep, "/")] = (st.st_size, st.st_mtime_ns)
    return out


def _chmod_dir(path: str) -> None:
    """Make a real directory (never a link's target) writable again for removal."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            os.fchmod(fd, 0o700)
        finally:
            os.close(fd)


def remove_sandbox(paths: SandboxPaths) -> None:
    """Delete the run directory, also when the agent left read-only folders behind. Never follows a link the
    agent planted (a chmod through one would change a host file)."""

    def _retry(func, path, _exc):  # noqa: ANN001 - shutil's onerror signature
        _chmod_dir(os.path.dirname(path))
        if func is os.rmdir or func is os.open or func is os.scandir:
            _chmod_dir(path)
        with contextlib.suppress(OSError):
            func(path)

    _unlock(paths.root)
    if paths.root.exists():
        shutil.rmtree(paths.root, onerror=_retry)


def hand_over(paths: SandboxPaths, uid: int, gid: int) -> None:
    """Give the agent's folders to the uid it runs as (evalens as root); links are re-owned, never followed.
    The sandbox root stays root's, searchable by the agent's gid alone (0710): a workspace the agent opens up
    (``chmod 755 "$PWD"``) is still out of every other local user's reach."""
    os.chown(paths.root, -1, gid)
    paths.root.chmod(0o710)
    for top in (paths.workspace, paths.home, paths.config_home, tmp_dir(paths)):
        if not top.exists():
            continue
        os.lchown(top, uid, gid)
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                with contextlib.suppress(OSError):
                    os.lchown(os.path.join(dirpath, name), uid, gid)


# Linux clears the bits through an O_PATH descriptor (no race with a rename to a link); elsewhere lchmod.
_BY_FD = hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd")


def strip_setid(paths: SandboxPaths) -> list[str]:
    """Clear setuid/setgid bits on every file the agent could have made (workspace, HOME, engine config, TMPDIR),
    before anything is copied or kept; never through a link. Returns the paths it cleared."""
    cleared: list[str] = []
    for top in (paths.workspace, paths.home, paths.config_home, tmp_dir(paths)):
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                full = os.path.join(dirpath, name)
                try:
                    st = os.lstat(full)
                    if stat.S_ISLNK(st.st_mode) or not st.st_mode & (stat.S_ISUID | stat.S_ISGID):
                        continue
                    if not _BY_FD:  # macOS: no O_PATH, no /proc; lchmod never follows a link either
                        os.chmod(
                            full,
                            stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID),
                            follow_symlinks=False,
                        )
                        cleared.append(full)
                        continue
                    fd = os.open(full, os.O_PATH | os.O_NOFOLLOW)
                except (OSError, NotImplementedError):
                    continue
                try:
                    os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
                    cleared.append(full)
                except OSError:
                    pass
                finally:
                    os.close(fd)
    return cleared


# --------------------------------------------------------------------------- the plan


def bubblewrap_usable() -> bool:
    """bwrap is installed and can create an unprivileged user namespace (with no network and its own pids)."""
    return bool(probe_identities(_configured_uid()))


def plan_sandbox(network: bool, writable_paths: list[str] | None) -> SandboxPlan:
    """Decide the enforcement method; without bubblewrap (or socat for the model bridge) fall back loudly."""
    if os.environ.get("EVALENS_NO_BWRAP") == "1":
        reason = "EVALENS_NO_BWRAP=1"
    elif not shutil.which("bwrap"):
        reason = "bubblewrap (bwrap) is not installed"
    elif not bubblewrap_usable():
        reason = "bubblewrap cannot create a user namespace here (unprivileged user namespaces disabled?)"
    elif not network and not shutil.which("socat"):
        reason = "socat (needed to bridge the model endpoint into the network-less sandbox) is not installed"
    else:
        return SandboxPlan(True, "bubblewrap", network, writable_paths)
    warning = (
        f"warning: sandbox not enforced: {reason}; falling back to the engine's own sandbox "
        f"(network={'on' if network else 'off'} requested, writable-paths not enforced)"
    )
    return SandboxPlan(False, "engine", network, writable_paths, warning)


_MAX_SOCKET_PATH = 100


def _short_tmp() -> str:
    """A short, writable folder outside /tmp (bubblewrap hides /tmp) for bridge sockets."""
    for candidate in ("/var/tmp", "/dev/shm"):
        if os.access(candidate, os.W_OK):
            return candidate
    return tempfile.gettempdir()


def _endpoint_vars(engine: Engine, env: dict[str, str]) -> dict[str, str]:
    var, default = getattr(engine, "endpoint_env", (None, None))
    if var:
        return {var: str(env.get(var) or default)}
    return {f"_endpoint_{i}": url for i, url in enumerate(engine.model_endpoints(env))}


def _prepare_launch(
    engine: Engine,
    plan: SandboxPlan,
    invocation: Invocation,
    bridges_spec: list[Any],
    seccomp_fd: int | None = None,
) -> tuple[Any, list[str], dict[str, str], Any, bool]:
    """The agent's command line and environment, confined as ``plan`` says. Blocking (the bubblewrap probe, the
    generated ``/etc`` files, handing the sandbox to the agent's uid): the caller runs it in a worker thread."""
    paths = invocation.paths
    command = engine.command(invocation)
    env = dict(invocation.env)
    env.update(command.env)
    env["PATH"] = (
        str(Path(engine.binary).parent) + os.pathsep + env.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    )
    argv = command.argv
    identity = None
    own_sandbox_dropped = False
    if plan.enforced:
        env["TMPDIR"] = "/tmp"
        etc_dir = paths.root / "etc"
        hosts = [b.host for b in bridges_spec if b.host not in ("127.0.0.1", "localhost", "::1")]
        bwrap.write_etc(etc_dir, paths.home, hosts)
        roots = bwrap.install_roots(str(engine.binary))
        node = bwrap.node_root(env["PATH"])
        if node is not None:
            roots.append(node)
        writable = None
        if plan.writable_paths:
            writable = []
            for rel in plan.writable_paths:
                target = safe_join(paths.workspace, rel.rstrip("/") or ".", what="writable path")
                target.mkdir(parents=True, exist_ok=True)
                writable.append(target)
        sockets = [b.socket.parent for b in bridges_spec if paths.root not in b.socket.parents]
        identity = bwrap.agent_identity([paths.root.parent, *sockets])
        if identity is None:
            raise RuntimeError("bubblewrap stopped working (user namespaces unavailable)")
        plan.user = identity.describe()
        if identity.uid is not None:
            hand_over(paths, identity.uid, identity.gid if identity.gid is not None else identity.uid)
        engine_roots = sources_for(roots, paths.root.parent, dropping=identity.uid is not None)
        own_sandbox_dropped = bool(writable and command.argv_without_own_sandbox)
        inner = (
            command.argv_without_own_sandbox
            if own_sandbox_dropped and command.argv_without_own_sandbox
            else argv
        )
        argv = bwrap.build_argv(
            network=plan.network,
            writable=writable,
            workspace=paths.workspace,
            private_dirs=[paths.home, paths.config_home],
            etc_dir=etc_dir,
            engine_roots=engine_roots,
            bridges=bridges_spec,
            agent_argv=inner,
            seccomp_fd=seccomp_fd,
            frozen=_settings_dirs(engine, paths),
        )
    else:
        env["TMPDIR"] = str(tmp_dir(paths))
    return command, argv, env, identity, own_sandbox_dropped


def _settings_dirs(engine: Engine, paths: SandboxPaths) -> tuple[Path, ...]:
    """The engine's project-settings folders, made now when missing (a folder the agent could create later would
    be read as settings too), confined to the workspace."""
    dirs = []
    for folder in engine.settings_dirs(paths):
        target = safe_join(paths.workspace, folder.relative_to(paths.workspace).as_posix(), what="settings")
        target.mkdir(parents=True, exist_ok=True)
        if target.is_dir() and not target.is_symlink():
            dirs.append(target)
    return tuple(dirs)


async def launch_agent(
    engine: Engine,
    plan: SandboxPlan,
    paths: SandboxPaths,
    prompt: str,
    *,
    model: str | None,
    agent_env: dict[str, str],
    time_limit: float,
    unit: str | None = None,
    run_index: int = 1,
    limits: RunLimits | None = None,
    resources: ResourceLimits | None = None,
) -> tuple[AgentRun, Transcript]:
    """Build the engine's command, confine it as ``plan`` says, run it with bounded capture, and parse its trace.
    The captured streams land in ``paths.logs`` (never mounted into the sandbox). With ``unit``, the turns
    stream to whoever asked for them (:mod:`evalens.runner.live`) while the agent runs. With ``limits``, the
    engine's model calls are counted as they happen and the run is stopped past a limit. The tree always runs
    under ``resources`` (:mod:`evalens.runner.resource_limits`; defaults when None). A limit that stopped or
    constrained the run is the transcript's error, named."""
    resources = resources or ResourceLimits()

    env_in = dict(agent_env)
    tape = await _open_tape(engine, paths, unit, run_index)
    guard = Guard.for_env(env_in, KEY_VARS)
    proxy = await _start_proxy(engine, env_in, tape, guard)
    bridges_spec, side_dir = _plan_bridges(engine, plan, paths, env_in)
    invocation = Invocation(paths, prompt, model, env_in, outer_sandbox=plan.enforced, network=plan.network)
    seccomp_fd = filter_fd() if plan.enforced else None
    env_fd: int | None = None
    try:
        command, argv, env, identity, own_sandbox_dropped = await in_thread(
            _prepare_launch, engine, plan, invocation, bridges_spec, seccomp_fd
        )
        if plan.enforced:  # the launchers get a fixed environment; the agent's is set inside the namespace
            env_fd = bwrap.env_args_fd(env)
            argv, env = bwrap.with_env_fd(argv, env_fd), dict(bwrap.LAUNCHER_ENV)
        else:
            env = bwrap.inside_env(env)
        stdout, stderr = paths.logs / command.stdout_name, paths.logs / command.stderr_name
        owner = identity.uid if identity is not None else None
        bridges = []
        feed = live.feed(engine, paths, unit, run_index) if unit is not None else None
        hooks = engine.live_hook_records(paths) if feed is not None else None
        watcher = asyncio.ensure_future(live.watch_hooks(feed, hooks)) if feed is not None and hooks else None
        stop = asyncio.Event()
        reasons: list[str] = []  # the limits that stopped or constrained the run, in the order they struck

        def stop_for(why: str) -> None:
            reasons.append(why)
            stop.set()

        meter, readers, poller = _metered(engine, paths, limits, stop_for)
        if meter is not None:
            guard.on_call, guard.stopped = meter.add_bridge, lambda: meter.exceeded
        cgroup = await in_thread(create_cgroup, resources)
        prefix, dropped_in_prefix = await in_thread(
            launch_prefix, resources, cgroup, owner, identity.gid if identity is not None else None
        )
        sizer = asyncio.ensure_future(_watch_size(paths, resources.workspace_mb, stop_for))
        pids = _pid_watch(prefix, owner, cgroup)
        counter = asyncio.ensure_future(_watch_pids(pids)) if pids is not None else None
        if pids is not None:
            guard.before_call = partial(in_thread, pids.poll)
        lines = _event_lines(feed, readers)
        try:
            bridges = await start_bridges(bridges_spec, owner)
            run = await run_process(
                prefix + argv,
                env,
                paths.workspace,
                stdout,
                stderr,
                time_limit,
                user=None if dropped_in_prefix else owner,
                group=None if dropped_in_prefix or identity is None else identity.gid,
                on_stdout=lines,
                pass_fds=tuple(fd for fd in (seccomp_fd, env_fd) if fd is not None),
                stop=stop,
            )
        finally:
            if lines is not None:
                lines.close()
            for task in (watcher, poller, sizer, counter):
                if task is not None:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
            await stop_bridges(bridges)
            if proxy is not None:
                await proxy.stop()
            if cgroup is not None:  # the tree is dead (run_process killed it): read what it ran into, then go
                reasons.extend(cgroup.hits())
                await in_thread(cgroup.remove)
            # what the kernel's own state shows met (the peak of processes, a file cut at the cap), with or
            # without a cgroup: prlimit's refusals leave nothing else to read (runner/limit_readback.py)
            own = frozenset({paths.logs.name}) if paths.logs.parent == paths.root else frozenset()
            reasons[:] = merged(reasons, await in_thread(kernel_readback, resources, paths.root, pids, own))
            said = await in_thread(lambda: read_regular_bytes(stderr, STDERR_READ, follow_links=False))
            if said:
                reasons[:] = merged(reasons, refused_in_stderr(said.decode("utf-8", "replace"), resources))
    finally:
        for fd in (seccomp_fd, env_fd):
            if fd is not None:
                os.close(fd)
        if side_dir is not None:
            shutil.rmtree(side_dir, ignore_errors=True)
    await in_thread(strip_setid, paths)  # every agent process is dead: nothing can set the bits again
    transcript = await in_thread(engine.parse, paths, stdout, stderr, run.exit_code)  # off the loop
    run.limits_hit = reasons
    run.bridge = guard.tally if proxy is not None else None
    _name_the_error(transcript, engine, reasons, tape, own_sandbox_dropped)
    return run, transcript


async def _open_tape(engine: Engine, paths: SandboxPaths, unit: str | None, run_index: int) -> Any:
    """Under --record / --replay, this run's cassette (None otherwise)."""
    if unit is None:
        return None
    cli = await asyncio.to_thread(engine.version)  # cached per binary: one `--version` per process
    return await replay.open_tape(unit, run_index, engine.name, paths.root, cli)


async def _start_proxy(engine: Engine, env: dict[str, str], tape: Any, guard: Guard) -> ModelProxy | None:
    """The run's model proxy on the host, in front of the runner's own upstream (never the eval file's), with
    the engine's base URL in ``env`` pointed at it; the tape, under record/replay, decides each request there.
    None for an engine that names no base-URL variable (nothing to point at the proxy)."""
    if engine.endpoint_env is None:
        return None
    var, default = engine.endpoint_env
    proxy = await ModelProxy(runner_upstream(var, default), "agent", tape=tape, guard=guard).start()
    env[var] = proxy.url
    return proxy


def _plan_bridges(
    engine: Engine, plan: SandboxPlan, paths: SandboxPaths, env: dict[str, str]
) -> tuple[list[Any], Path | None]:
    """Without network in the sandbox, the model endpoints become unix-socket bridges (``env`` rewritten to
    them): the bridges to start, and the short side folder holding their sockets when the sandbox path is too
    deep for a socket path (to remove afterwards)."""
    if not plan.enforced or plan.network:
        return [], None
    side_dir: Path | None = None
    sock_dir = paths.root / "bridge"
    if len(str(sock_dir / "model-00.sock")) > _MAX_SOCKET_PATH:
        # unix socket paths are limited to 108 bytes: a deep sandbox dir gets a short side folder
        sock_dir = side_dir = Path(tempfile.mkdtemp(prefix=_side_prefix(paths.root), dir=_short_tmp()))
    else:
        sock_dir.mkdir(mode=0o755)
    sock_dir.chmod(0o755)  # listable by the agent uid, writable by no one else
    specs, rewritten = bwrap.plan_bridges(_endpoint_vars(engine, env), sock_dir)
    env.update({k: v for k, v in rewritten.items() if not k.startswith("_endpoint_")})
    return specs, side_dir


def _event_lines(feed: Any, readers: list[Callable[[dict[str, Any]], None]]) -> Any:
    """One splitter of the agent's stdout for the live turns and the usage meter (None when neither listens)."""
    if feed is None and not readers:
        return None
    return live.EventLines(
        ([feed.event] if feed is not None else []) + readers, feed.oversize if feed else None
    )


def _name_the_error(
    transcript: Transcript, engine: Engine, reasons: list[str], tape: Any, own_sandbox_dropped: bool
) -> None:
    """Why the run ended, when we know better than the engine: a limit that stopped it (not the kill's side
    effects), a strict replay's refusal (not the engine's wording of it), or a block that cannot be verified."""
    if reasons:
        transcript.error = "; ".join(reasons)
    elif tape is not None and tape.mode == "strict" and tape.diverged:
        transcript.error = f"replay diverged: {tape.diverged}"
    if own_sandbox_dropped and transcript.blocked and not transcript.error:
        # Codex reports blocks through hook records its shim writes in CODEX_HOME; only Codex's own nested
        # sandbox keeps tool commands from writing there, so without it a block cannot be told from a forgery.
        transcript.error = (
            f"a block reported by {engine.name}'s hook records cannot be verified: with "
            "sandbox.writable-paths the engine runs without its own nested sandbox, so a tool "
            "command could have written the record (docs/sandbox.md)"
        )


def _metered(
    engine: Engine, paths: SandboxPaths, limits: RunLimits | None, stop_for: Callable[[str], None]
) -> tuple[Meter | None, list[Callable[[dict[str, Any]], None]], asyncio.Task | None]:
    """The meter of one run under ``limits`` (None without limits), the stream consumers that feed it, and
    the task that polls the records the engine writes while it runs."""
    if limits is None or not limits.active:
        return None, [], None
    source = engine.usage_source(paths)
    if source is None:
        raise RuntimeError(
            f"{engine.name} reports no usage while it runs, so --max-turns and --max-tokens-per-run "
            "cannot be enforced for it"
        )
    meter = Meter(limits, stop_for)
    readers: list[Callable[[dict[str, Any]], None]] = []
    if source.stream is not None:
        stream = source.stream
        readers.append(lambda ev: meter.add(stream(ev)))
    poller = None
    if source.files is not None and source.record is not None:
        poller = asyncio.ensure_future(_poll_usage(meter, source.files, source.record))
    return meter, readers, poller


async def _poll_usage(meter: Meter, files: Any, record: Callable[[dict[str, Any]], list]) -> None:
    """Read the engine's usage records as they are written, until cancelled (then once more: the last ones)."""
    try:
        while meter.exceeded is None:
            await asyncio.sleep(USAGE_POLL_SECONDS)
            for entry in await asyncio.to_thread(files.read):
                meter.add(record(entry))
    except asyncio.CancelledError:
        for entry in await asyncio.to_thread(files.read):
            meter.add(record(entry))
        raise


def _pid_watch(prefix: list[str], owner: int | None, cgroup: Any) -> PidWatch | None:
    """The process-count watch of a run whose forks only prlimit bounds: its uid and the RLIMIT_NPROC the
    prefix set (None with a cgroup, which counts refusals itself, without prlimit, or as root, which
    RLIMIT_NPROC does not bind)."""
    uid = owner if owner is not None else os.getuid()
    nproc = next((int(a.split("=", 1)[1]) for a in prefix if a.startswith("--nproc=")), None)
    if cgroup is not None or nproc is None or uid == 0:
        return None
    return PidWatch(uid=uid, nproc=nproc)


async def _watch_pids(watch: PidWatch) -> None:
    """Count the agent uid's processes while the run goes: a full count every 0.1 s, and at once when the
    machine's task total (one small read, every 5 ms) says the count may be near the limit. Why both: a bomb's
    children can live for less than 0.1 s (Codex ends a command's process group with the command), and a full
    count every 5 ms would cost a fifth of a core for the whole run."""
    last = 0.0
    while True:
        now = time.monotonic()
        if now - last >= PID_POLL_SECONDS or (not watch.met() and watch.near()):
            await in_thread(watch.poll)
            last = now
        await asyncio.sleep(PID_TOTAL_POLL_SECONDS)


async def _watch_size(paths: SandboxPaths, cap_mb: int, stop_for: Callable[[str], None]) -> None:
    """Stop the run once its sandbox (workspace, HOME, TMPDIR; not the runner's own logs) holds more than
    ``cap_mb``. One file is capped by ``RLIMIT_FSIZE`` between two looks."""
    skip = frozenset({paths.logs.name}) if paths.logs.parent == paths.root else frozenset()

    async def over() -> bool:
        if await asyncio.to_thread(sandbox_bytes, paths.root, skip) <= cap_mb * MB:
            return False
        stop_for(
            f"workspace limit: the agent's sandbox held over {cap_mb:,} MB (--limit workspace-mb={cap_mb}); "
            "the run was stopped"
        )
        return True

    try:
        while True:
            await asyncio.sleep(SIZE_POLL_SECONDS)
            if await over():
                return
    except asyncio.CancelledError:
        await over()  # the agent may have written it all and ended between two looks
        raise


def run_error(run: AgentRun, transcript: Transcript, time_limit: float) -> str | None:
    """Why one agent run is ERROR, in the words every suite reports: its time limit, a stream cut at the
    capture limit, a per-run limit (the transcript names it), or what the engine reported; None: it ran."""
    timed_out = f"timed out after {time_limit:g} s (agent process tree killed)" if run.timed_out else None
    if run.limits_hit:  # a limit is why it failed or hung: name it first
        return "; ".join([*run.limits_hit, *([timed_out] if timed_out else [])])
    return timed_out or truncation_note(run) or transcript.error


def truncation_note(run: AgentRun) -> str | None:
    """The user-facing sentence for streams cut at the capture limit (the verdict is then ERROR)."""
    if "stdout" not in run.truncated:
        return None
    return (
        f"the agent's output stream was truncated: {run.stream_bytes.get('stdout', 0)} bytes printed, "
        f"{capture_limit()} kept (EVALENS_MAX_OUTPUT_MB); the run cannot be judged from a partial trace"
    )


def copy_bounded(src: Path, dest: Path, limit: int) -> bool:
    """Copy at most ``limit`` bytes of a regular file (never through a link, at either end); True if it was
    cut short."""
    with open_regular(src, follow_links=False) as fd:
        if fd is None:
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        copied = 0
        if dest.is_symlink():  # a resumed batch's artifacts folder may be the repository's (#42): replace it
            dest.unlink()
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(dest, flags, 0o644), "wb") as out:
            for chunk in read_chunks(fd, limit):
                out.write(chunk)
                copied += len(chunk)
        return bool(os.read(fd, 1)) if copied == limit else False


def artifact_limit() -> int:
    return capture_limit()
