"""The bubblewrap command line: a minimal read-only root, a user namespace without capabilities, no host network.

The agent sees only what it needs (docs/sandbox.md): the toolchain (``/usr`` and the merged ``/bin``/``/lib``
links), a handful of ``/etc`` files plus a generated ``passwd``/``group``/``hosts``, the engine's own install folder,
its workspace, HOME and engine config folder, and private ``/tmp``, ``/dev/shm``, ``/proc`` and ``/dev``. It runs
as uid/gid :data:`INSIDE_ID` inside a fresh user namespace with every capability dropped. When evalens runs as
root, bubblewrap itself is always started as an unprivileged host uid (:func:`agent_identity`), never as root: the
agent's uid is then that host uid, so a setuid file it makes is worth nothing, and an engine installed where that uid
cannot read is mirrored (:mod:`evalens.runner.engine_mirror`) instead of running bubblewrap as root.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from evalens.runner.engine_mirror import searchable_by_others

INSIDE_ID = 1000  # the agent's uid and gid inside the user namespace
DEFAULT_AGENT_UID = 65534  # host uid bubblewrap runs as when evalens is root (override: EVALENS_SANDBOX_UID)
BRIDGE_DIR_INSIDE = "/run/evalens"  # where the model bridge sockets appear inside the sandbox
FIRST_HIGH_PORT = 18000  # in-sandbox ports for endpoints below 1024 (no capability may bind those)
TMPFS_BYTES = 2 << 30  # private /tmp and /dev/shm, each (when bubblewrap supports --size)
MERGED_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
# Host /etc entries an agent's tools may need; nothing with credentials (no shadow, npmrc, gitconfig, profile.d).
ETC_FILES = (
    "resolv.conf",
    "nsswitch.conf",
    "host.conf",
    "gai.conf",
    "localtime",
    "timezone",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "ssl/certs",
    "ssl/openssl.cnf",
    "ca-certificates",
    "ca-certificates.conf",
    "pki/tls/certs",
    "pki/ca-trust",
    "crypto-policies",
    "os-release",
    "lsb-release",
    "debian_version",
    "mime.types",
    "inputrc",
    "bash.bashrc",
)


# The whole environment of the host-side launcher chain (the cgroup shell, setpriv, prlimit, bubblewrap): fixed,
# so nothing an eval file or the runner's own environment holds (LD_PRELOAD, BASH_ENV, a proxy, a key) is read
# by a host process on the agent's behalf. Every launcher is started by absolute path. The agent's own variables
# reach it inside the namespace only, through :func:`env_args_fd` (issue 42).
LAUNCHER_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}
# Names no agent environment carries into the sandbox whatever its source: the loader reads them before the
# agent's first instruction.
LOADER_PREFIXES = ("LD_", "DYLD_", "GCONV_PATH", "GLIBC_TUNABLES", "MALLOC_", "BASH_ENV", "BASH_FUNC_")


def inside_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` without the loader variables :data:`LOADER_PREFIXES` names (an eval config cannot set them, see
    :mod:`evalens.core.env_policy`; this is the last line if something else does)."""
    return {k: v for k, v in env.items() if not k.upper().startswith(LOADER_PREFIXES)}


def env_args_fd(env: dict[str, str]) -> int:
    """A sealed memory file of bubblewrap arguments (``--args FD``) that clear the environment inside the
    namespace and set ``env`` there: the agent's variables, keys included, never sit in a host process's
    environment or on its command line (``/proc/<pid>/cmdline`` is readable by every local user)."""
    parts = ["--clearenv"]
    for key, value in inside_env(env).items():
        if "\0" in key or "\0" in value or "=" in key or not key:
            continue
        parts += ["--setenv", key, value]
    data = b"".join(part.encode("utf-8", "surrogateescape") + b"\0" for part in parts)
    fd = os.memfd_create("evalens-env", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def with_env_fd(argv: list[str], fd: int) -> list[str]:
    """The bubblewrap ``argv`` reading its environment arguments from ``fd`` first (:func:`env_args_fd`)."""
    return [argv[0], "--args", str(fd), *argv[1:]]


@dataclass(slots=True)
class Identity:
    """Who runs bubblewrap on the host: ``uid``/``gid`` to switch to (None: stay the caller)."""

    uid: int | None
    gid: int | None

    @property
    def host_uid(self) -> int:
        return os.geteuid() if self.uid is None else self.uid

    def describe(self) -> str:
        host = f"host uid {self.host_uid}" + (" (evalens' own)" if self.uid is None else "")
        return f"uid {INSIDE_ID} in a user namespace ({host}), no capabilities"


@dataclass(slots=True)
class BridgeSpec:
    """One model endpoint: the real ``host:port``, the in-sandbox loopback port, and the host-side socket."""

    host: str
    port: int
    inside_port: int
    socket: Path


@dataclass(slots=True)
class Launch:
    """Everything :func:`build_argv` decided: the argv, the bridges to start, and the env rewrites."""

    argv: list[str]
    bridges: list[BridgeSpec] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


def _confined(bwrap: str, *unshare: str) -> list[str]:
    """The head every bwrap argv shares, the probe's and the agent's: a user namespace with the fixed inside
    identity and no capabilities, the ``unshare`` namespaces, then ``--die-with-parent``."""
    return [
        bwrap,
        "--unshare-user",
        "--uid",
        str(INSIDE_ID),
        "--gid",
        str(INSIDE_ID),
        "--cap-drop",
        "ALL",
        *unshare,
        "--die-with-parent",
    ]


def _system_root() -> list[str]:
    """The read-only system the probe and the agent both see: ``/usr`` (and the merged-/usr links), a fresh
    ``/proc`` and a minimal ``/dev``."""
    return ["--ro-bind", "/usr", "/usr", *_merged_dir_args(), "--proc", "/proc", "--dev", "/dev"]


def _base_probe_args(bwrap: str) -> list[str]:
    return [
        *_confined(bwrap, "--unshare-net", "--unshare-pid"),
        *_system_root(),
        "--",
        "/bin/sh",
        "-c",
        "exit 0",
    ]


def _run_probe(argv: list[str], identity: Identity) -> bool:
    try:
        probe = subprocess.run(
            argv,
            capture_output=True,
            timeout=20,
            stdin=subprocess.DEVNULL,
            user=identity.uid,
            group=identity.gid,
            extra_groups=[] if identity.uid is not None else None,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def _configured_uid() -> int:
    try:
        return int(os.environ.get("EVALENS_SANDBOX_UID", DEFAULT_AGENT_UID))
    except ValueError:
        return DEFAULT_AGENT_UID


@lru_cache(maxsize=4)
def probe_identities(uid: int) -> tuple[Identity, ...]:
    """Identities bubblewrap works as on this kernel, best first (as root: an unprivileged uid, then root)."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return ()
    if os.geteuid() == 0:
        # Never bubblewrap as root: the agent's uid would be host uid 0 (issue 28 B1).
        candidates = [Identity(uid, uid)] if uid != 0 else []
    else:
        candidates = [Identity(None, None)]
    return tuple(c for c in candidates if _run_probe(_base_probe_args(bwrap), c))


def supports_size() -> bool:
    return _bwrap_help().find("--size") >= 0


@lru_cache(maxsize=1)
def _bwrap_help() -> str:
    try:
        return subprocess.run(
            [shutil.which("bwrap") or "bwrap", "--help"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


class SandboxUnreachable(RuntimeError):
    """A sandbox path the unprivileged agent uid must reach is not searchable by it."""


def agent_identity(needed: list[Path]) -> Identity | None:
    """The identity to run bubblewrap as: an unprivileged uid when evalens is root (``needed``, the sandbox's
    own paths, must be reachable by it, else :class:`SandboxUnreachable`), otherwise evalens' own uid."""
    identities = probe_identities(_configured_uid())
    if not identities:
        return None
    identity = identities[0]
    if identity.uid is not None:
        blocked = [p for p in needed if not searchable_by_others(p)]
        if blocked:
            raise SandboxUnreachable(
                f"the sandbox path {blocked[0]} is not reachable by uid {identity.uid}, which the agent runs as "
                "when evalens is root: set EVALENS_SANDBOX_DIR to a folder every user can search (e.g. /var/tmp)"
            )
    return identity


def _merged_dir_args() -> list[str]:
    """``/bin``, ``/lib``… as the host has them: symlinks into /usr (merged /usr) or read-only binds."""
    args: list[str] = []
    for name in MERGED_DIRS:
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    return args


def install_roots(executable: str) -> list[Path]:
    """What of an agent executable must be visible: its outermost ``node_modules`` (npm wrappers load their
    native binary from sibling packages), else just the file. Nothing under /usr (mounted anyway)."""
    roots: list[Path] = []
    for exe in (Path(executable), Path(executable).resolve()):
        if not exe.is_absolute() or exe.parts[1:2] == ("usr",):
            continue
        modules = [p for p in exe.parents if p.name == "node_modules"]
        root = modules[-1] if modules else exe
        if root not in roots:
            roots.append(root)
    return roots


def node_root(path_env: str) -> Path | None:
    """The install prefix of the ``node`` the agent will run (npm CLIs start through it), if outside /usr."""
    found = shutil.which("node", path=path_env)
    if not found:
        return None
    real = Path(found).resolve()
    if real.parts[1:2] == ("usr",):
        return None
    return real.parent.parent if real.parent.name == "bin" else real.parent


def _endpoint(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or (443 if parts.scheme == "https" else 80)


def _with_port(url: str, port: int) -> str:
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    netloc = f"{'[' + host + ']' if ':' in host else host}:{port}"
    if parts.username:
        netloc = f"{parts.username}{':' + parts.password if parts.password else ''}@{netloc}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def plan_bridges(endpoints: dict[str, str], sock_dir: Path) -> tuple[list[BridgeSpec], dict[str, str]]:
    """One bridge per distinct endpoint; ``endpoints`` maps an env var to its URL. Endpoints on ports below 1024
    get a high in-sandbox port and the env var is rewritten to it (TLS checks the host name, not the port)."""
    bridges: list[BridgeSpec] = []
    env: dict[str, str] = {}
    by_endpoint: dict[tuple[str, int], BridgeSpec] = {}
    for var, url in endpoints.items():
        host, port = _endpoint(url)
        spec = by_endpoint.get((host, port))
        if spec is None:
            inside = port if port >= 1024 else FIRST_HIGH_PORT + len(bridges)
            spec = BridgeSpec(host, port, inside, sock_dir / f"model-{len(bridges)}.sock")
            by_endpoint[(host, port)] = spec
            bridges.append(spec)
        env[var] = _with_port(url, spec.inside_port) if spec.inside_port != port else url
    return bridges, env


def write_etc(etc_dir: Path, home: Path, hosts: list[str]) -> None:
    """A minimal ``passwd``/``group`` naming only root, the agent and nobody, and an ``/etc/hosts`` that sends the
    model hosts to the sandbox's own loopback (where the bridge listens)."""
    etc_dir.mkdir(mode=0o755, exist_ok=True)
    files = {
        "passwd": f"root:x:0:0:root:/root:/bin/bash\nagent:x:{INSIDE_ID}:{INSIDE_ID}:agent:{home}:/bin/bash\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
        "group": f"root:x:0:\nagent:x:{INSIDE_ID}:\nnogroup:x:65534:\n",
        "hosts": "127.0.0.1 localhost\n::1 localhost\n"
        + "".join(f"127.0.0.1 {h}\n" for h in sorted(set(hosts))),
    }
    for name, text in files.items():
        (etc_dir / name).write_text(text, encoding="utf-8")
        (etc_dir / name).chmod(0o644)


def build_argv(
    *,
    network: bool,
    writable: list[Path] | None,
    workspace: Path,
    private_dirs: list[Path],
    etc_dir: Path,
    engine_roots: list[tuple[Path, Path]],
    bridges: list[BridgeSpec],
    agent_argv: list[str],
    seccomp_fd: int | None = None,
    frozen: tuple[Path, ...] = (),
) -> list[str]:
    """The full bwrap argv. ``writable`` (absolute folders inside the workspace) makes the rest of the workspace
    read-only; ``private_dirs`` (HOME, engine config) are writable; ``etc_dir`` holds :func:`write_etc`'s files;
    ``engine_roots`` are (host source, path inside) pairs, read-only; ``frozen`` folders inside the workspace
    (the engine's project settings, with the package's hooks) are read-only over the writable workspace."""
    bwrap = shutil.which("bwrap") or "bwrap"
    size = ["--size", str(TMPFS_BYTES)] if supports_size() else []
    argv = _confined(bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
    argv += ["--new-session", "--hostname", "evalens-sandbox", *_system_root()]
    argv += [*size, "--tmpfs", "/dev/shm", *size, "--tmpfs", "/tmp"]
    for rel in ETC_FILES:
        host = Path("/etc") / rel
        if host.exists():
            argv += ["--ro-bind", str(host.resolve()), str(host)]
    for name in ("passwd", "group", "hosts"):
        argv += ["--ro-bind", str(etc_dir / name), f"/etc/{name}"]
    for source, dest in engine_roots:
        argv += ["--ro-bind", str(source), str(dest)]
    ws = str(workspace)
    if writable is not None:
        argv += ["--ro-bind", ws, ws]
        for target in writable:
            argv += ["--bind", str(target), str(target)]
    else:
        argv += ["--bind", ws, ws]
    for directory in private_dirs:
        argv += ["--bind", str(directory), str(directory)]
    # the engine's own settings in the workspace: the agent may read them, never change them
    for directory in frozen:
        argv += ["--ro-bind", str(directory), str(directory)]
    if not network:
        argv.append("--unshare-net")
        if bridges:
            argv += ["--ro-bind", str(bridges[0].socket.parent), BRIDGE_DIR_INSIDE]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]  # no ptrace / pidfd_getfd / process_vm_* (seccomp_filter)
    argv += ["--remount-ro", "/", "--chdir", ws, "--"]
    if bridges and not network:
        socat = shutil.which("socat") or "socat"
        script = [
            f"{socat} TCP-LISTEN:{b.inside_port},bind=127.0.0.1,fork,reuseaddr "
            f"UNIX-CONNECT:{BRIDGE_DIR_INSIDE}/{b.socket.name} </dev/null >/dev/null 2>&1 &"
            for b in bridges
        ]
        script += [
            f"for i in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/{b.inside_port}) 2>/dev/null && break; "
            f"sleep 0.01; done"
            for b in bridges
        ]
        script.append('exec "$@"')
        argv += ["/bin/bash", "-c", "\n".join(script), "evalens-bridge"]
    return argv + agent_argv
