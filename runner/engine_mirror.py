"""A copy of an engine install that the agent's unprivileged uid can read, for CLIs installed under a private home.

When evalens runs as root, bubblewrap runs as an unprivileged host uid so the agent never maps to host root
(docs/sandbox.md). A CLI under ``~root/.local`` or an nvm tree under ``~root`` is then out of that uid's reach.
Rather than fall back to root, evalens mirrors the install once into ``<sandbox base>/engines/`` (hard links where
the file itself is world-readable, copies otherwise, never a setuid/setgid bit) and bind-mounts the mirror at the
install's own path inside the sandbox, so the CLI's argv and its relative lookups are unchanged.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
from pathlib import Path

MIRROR_DIR = "engines"


def reachable_by_others(path: Path) -> bool:
    """Every folder above ``path`` is searchable by any uid and ``path`` readable by it (mode bits only)."""
    try:
        current = Path(path.anchor)
        for part in path.parts[1:-1]:
            current = current / part
            if not os.stat(current).st_mode & stat.S_IXOTH:
                return False
        return bool(os.stat(path).st_mode & stat.S_IROTH)
    except OSError:
        return False


def searchable_by_others(path: Path) -> bool:
    """Every folder from ``/`` down to ``path`` itself is searchable by any uid (mode bits only)."""
    try:
        current = Path(path.anchor)
        for part in path.parts[1:]:
            current = current / part
            if not os.stat(current).st_mode & stat.S_IXOTH:
                return False
        return True
    except OSError:
        return False


def _signature(src: Path) -> str:
    """What the mirror was built from: every entry's path, type, size and mtime (an update rebuilds it)."""
    digest = hashlib.sha256()
    real = Path(os.path.realpath(src))
    if real.is_file():
        st = real.stat()
        digest.update(f"{real}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_mode}".encode())
        return digest.hexdigest()
    for dirpath, dirnames, filenames in os.walk(real):
        dirnames.sort()
        for name in sorted(filenames) + dirnames:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(dirpath, name))
                digest.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_mode}\n".encode())
    return digest.hexdigest()


def _public_mode(mode: int) -> int:
    """Readable (and, where the owner may execute, executable) by any uid; never setuid, setgid or writable."""
    mode = stat.S_IMODE(mode) & 0o755 | 0o444
    return mode | 0o111 if mode & 0o100 else mode


def _place_file(src: str, dest: str) -> None:
    st = os.stat(src)
    wanted = _public_mode(st.st_mode)
    if stat.S_IMODE(st.st_mode) == wanted:  # the inode itself is already public: a hard link costs nothing
        with contextlib.suppress(OSError):
            os.link(src, dest)
            return
    shutil.copyfile(src, dest)
    os.chmod(dest, wanted)


def _build(src: Path, dest: Path) -> None:
    real = os.path.realpath(src)
    if os.path.isfile(real):
        _place_file(real, str(dest))
        return
    dest.mkdir(mode=0o755)
    for dirpath, dirnames, filenames in os.walk(real):
        rel = os.path.relpath(dirpath, real)
        out = dest if rel == "." else dest / rel
        for name in dirnames + filenames:
            source, target = os.path.join(dirpath, name), out / name
            st = os.lstat(source)
            if stat.S_ISLNK(st.st_mode):
                # resolved inside the sandbox, where the mirror sits at the install's own path
                os.symlink(os.readlink(source), target)
            elif stat.S_ISDIR(st.st_mode):
                target.mkdir(mode=0o755)
            elif stat.S_ISREG(st.st_mode):
                _place_file(source, str(target))
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]


def mirror(src: Path, base: Path) -> Path:
    """A public, read-only-by-mode copy of ``src`` under ``base/engines/``, rebuilt when ``src`` changed.
    Concurrent runs share it (a lock file serialises the build)."""
    store = base / MIRROR_DIR
    store.mkdir(mode=0o711, exist_ok=True)
    store.chmod(0o711)
    key = hashlib.sha256(str(src).encode()).hexdigest()[:20]
    signature = _signature(src)
    dest = store / key
    stamp = store / f"{key}.stamp"
    with open(store / f"{key}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if dest.exists() and stamp.is_file() and stamp.read_text() == signature:
                return dest
            if dest.is_dir() and not dest.is_symlink():
                shutil.rmtree(dest)
            elif dest.exists() or dest.is_symlink():
                dest.unlink()
            building = store / f"{key}.building"
            if building.is_dir():
                shutil.rmtree(building)
            elif building.exists():
                building.unlink()
            _build(src, building)
            building.rename(dest)
            stamp.write_text(signature)
            return dest
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def sources_for(roots: list[Path], base: Path, *, dropping: bool) -> list[tuple[Path, Path]]:
    """(host source, path inside the sandbox) for each engine root: the root itself, or its mirror when the
    unprivileged uid bubblewrap runs as (``dropping``) could not read it."""
    pairs: list[tuple[Path, Path]] = []
    for root in roots:
        if dropping and not (reachable_by_others(root) and reachable_by_others(Path(os.path.realpath(root)))):
            pairs.append((mirror(root, base), root))
        else:
            pairs.append((root, root))
    return pairs
