"""Sandbox pieces that need no agent: link-safe fixture copies, bounded capture, link-safe removal, bridge plans."""

from __future__ import annotations

import asyncio
import os
import resource
import sys
from pathlib import Path

import pytest

from evalens.runner.agent_process import run_process
from evalens.runner.bwrap import plan_bridges
from evalens.runner.engines.base import SandboxPaths
from evalens.runner.sandbox import PathEscape, copy_confined, create_sandbox, populate, remove_sandbox


def _package(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("host secret")
    evals = tmp_path / "pkg" / "evals"
    (evals / "fixtures" / "inner").mkdir(parents=True)
    (evals / "fixtures" / "data.txt").write_text("data")
    (evals / "fixtures" / "alias.txt").symlink_to("data.txt")  # a link inside: copied as content
    return evals, outside


def test_fixture_links_out_of_the_package_are_refused(tmp_path: Path, sandbox_dir: Path) -> None:
    evals, outside = _package(tmp_path)
    paths = create_sandbox()
    try:
        populate(paths, evals, ["fixtures"], [])
        assert (paths.workspace / "fixtures" / "alias.txt").read_text() == "data"
        assert not (paths.workspace / "fixtures" / "alias.txt").is_symlink()
        (evals / "fixtures" / "inner" / "leak.txt").symlink_to(outside / "secret.txt")
        with pytest.raises(PathEscape, match="link out"):
            populate(paths, evals, ["fixtures"], [])
        (evals / "fixtures" / "inner" / "leak.txt").unlink()
        (evals / "fixtures" / "inner" / "dir").symlink_to(outside)
        with pytest.raises(PathEscape, match="link out"):
            populate(paths, evals, ["."], [])  # the whole evals/ root: still nothing from outside
        (evals / "fixtures" / "inner" / "dir").unlink()
        (evals / "fixtures" / "inner" / "loop").symlink_to(evals / "fixtures")
        with pytest.raises(PathEscape, match="back into"):
            populate(paths, evals, ["fixtures"], [])
        assert "host secret" not in "".join(p.read_text() for p in paths.workspace.rglob("*") if p.is_file())
    finally:
        remove_sandbox(paths)


def test_special_files_are_skipped(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    os.mkfifo(src / "fifo")  # copying would block forever
    (src / "ok.txt").write_text("ok")
    copy_confined(src, tmp_path / "dest", src, what="fixture")
    assert sorted(p.name for p in (tmp_path / "dest").iterdir()) == ["ok.txt"]


def test_removal_never_follows_planted_links(tmp_path: Path, sandbox_dir: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("host file")
    victim.chmod(0o444)
    paths = create_sandbox()
    locked = paths.workspace / "locked"
    locked.mkdir()
    (locked / "link").symlink_to(victim)
    locked.chmod(0o500)  # the agent made its folder read-only
    remove_sandbox(paths)
    assert not paths.root.exists()
    assert victim.read_text() == "host file" and (victim.stat().st_mode & 0o777) == 0o444


def test_capture_is_bounded_while_streaming(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process printing 200 MB: the runner keeps 1 MB on disk, marks the stream truncated, and stays small."""
    monkeypatch.setenv("EVALENS_MAX_OUTPUT_MB", "1")
    out, err = tmp_path / "out", tmp_path / "err"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    run = asyncio.run(
        run_process(
            [sys.executable, "-c", "import os\nfor _ in range(200): os.write(1, b'x' * (1 << 20))"],
            dict(os.environ),
            tmp_path,
            out,
            err,
            time_limit=60,
        )
    )
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert run.exit_code == 0 and run.truncated == ["stdout"]
    assert run.stream_bytes["stdout"] == 200 << 20
    assert out.stat().st_size == 1 << 20
    assert grown_kb < 50_000, f"runner grew {grown_kb} kB while capturing"


def test_captured_stream_cannot_be_reopened_through_proc(tmp_path: Path) -> None:
    """A pipe can be reopened by path (/proc/PID/fd/1) by any process of the same uid; the capture socket not."""
    script = "import os\ntry:\n    open(f'/proc/{os.getpid()}/fd/1', 'w')\n    print('REOPENED')\nexcept OSError as e:\n    print('ERRNO', e.errno)"
    out, err = tmp_path / "out", tmp_path / "err"
    run = asyncio.run(
        run_process([sys.executable, "-c", script], dict(os.environ), tmp_path, out, err, time_limit=30)
    )
    assert run.exit_code == 0 and out.read_text().strip() == "ERRNO 6"  # ENXIO


def test_bridges_move_privileged_ports_inside(tmp_path: Path) -> None:
    bridges, env = plan_bridges(
        {"ANTHROPIC_BASE_URL": "https://api.anthropic.com", "OPENAI_BASE_URL": "http://127.0.0.1:8123/v1"},
        tmp_path,
    )
    assert [(b.host, b.port, b.inside_port) for b in bridges] == [
        ("api.anthropic.com", 443, 18000),
        ("127.0.0.1", 8123, 8123),
    ]
    assert env == {
        "ANTHROPIC_BASE_URL": "https://api.anthropic.com:18000",
        "OPENAI_BASE_URL": "http://127.0.0.1:8123/v1",
    }


def test_sandbox_dirs_are_private(sandbox_dir: Path) -> None:
    paths: SandboxPaths = create_sandbox()
    try:
        assert (
            paths.root.stat().st_mode & 0o777
        ) == 0o700  # no other user reaches a workspace the agent opens
        assert (paths.logs.stat().st_mode & 0o777) == 0o700  # the runner's captured streams
    finally:
        remove_sandbox(paths)


def test_handed_over_sandbox_is_searchable_by_the_agent_gid_only(sandbox_dir: Path) -> None:
    """Issue 28 B1: the sandbox root stays root's, 0710 to the agent's gid, whatever the agent does inside."""
    from evalens.runner.sandbox import hand_over

    if os.geteuid() != 0:
        pytest.skip("handing a sandbox over needs root")
    paths: SandboxPaths = create_sandbox()
    try:
        hand_over(paths, 65534, 65534)
        st = paths.root.stat()
        assert (st.st_mode & 0o777, st.st_uid, st.st_gid) == (0o710, 0, 65534)
        assert paths.workspace.stat().st_uid == 65534
    finally:
        remove_sandbox(paths)


def test_setuid_and_setgid_bits_are_stripped_never_through_links(sandbox_dir: Path, tmp_path: Path) -> None:
    """Issue 28 B1: nothing the agent made keeps a setuid/setgid bit; a link to a host file is left alone."""
    import shutil
    import stat

    from evalens.runner.sandbox import strip_setid

    host_file = tmp_path / "host-suid"
    shutil.copy("/usr/bin/id", host_file)
    host_file.chmod(0o4755)
    paths: SandboxPaths = create_sandbox()
    try:
        made = [paths.workspace / "suid-id", paths.workspace / "d" / "sgid", paths.home / "h"]
        for path in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy("/usr/bin/id", path)
        made[0].chmod(0o4755)
        made[1].chmod(0o2750)
        made[2].chmod(0o6700)
        (paths.workspace / "link").symlink_to(host_file)
        cleared = strip_setid(paths)
        assert sorted(cleared) == sorted(map(str, made))
        assert [stat.S_IMODE(os.lstat(p).st_mode) for p in made] == [0o755, 0o750, 0o700]
        assert stat.S_IMODE(host_file.stat().st_mode) == 0o4755
    finally:
        remove_sandbox(paths)


def test_engine_mirror_is_public_and_never_setuid(tmp_path: Path) -> None:
    """Issue 28 B1: an install below a private folder is mirrored readable by any uid, links kept as links."""
    import stat

    from evalens.runner.engine_mirror import mirror, reachable_by_others, sources_for

    private = tmp_path / "private"
    (private / "node_modules" / "cli" / "bin").mkdir(parents=True)
    exe = private / "node_modules" / "cli" / "bin" / "cli"
    exe.write_text("#!/bin/sh\necho hi\n")
    exe.chmod(0o4700)
    (private / "node_modules" / ".bin").mkdir()
    (private / "node_modules" / ".bin" / "cli").symlink_to("../cli/bin/cli")
    private.chmod(0o700)
    base = tmp_path / "base"
    base.mkdir()
    root = private / "node_modules"
    assert not reachable_by_others(root)
    [(source, dest)] = sources_for([root], base, dropping=True)
    assert dest == root and source == mirror(root, base)
    copied = source / "cli" / "bin" / "cli"
    assert stat.S_IMODE(copied.stat().st_mode) == 0o755 and copied.read_text() == exe.read_text()
    assert os.readlink(source / ".bin" / "cli") == "../cli/bin/cli"
    assert stat.S_IMODE((source / "cli").stat().st_mode) == 0o755
    assert sources_for([root], base, dropping=False) == [(root, root)]


def test_seccomp_filter_refuses_cross_process_calls_and_allows_the_rest() -> None:
    """Issue 28 B2: inside bubblewrap with the filter, pidfd_getfd, ptrace and process_vm_writev are EPERM."""
    import shutil
    import subprocess

    from evalens.runner.seccomp_filter import filter_fd

    if not shutil.which("bwrap"):
        pytest.skip("bubblewrap not installed")
    fd = filter_fd()
    if fd is None:
        pytest.skip("no filter for this architecture")
    script = (
        "import ctypes, errno, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "def call(nr, *a):\n    r = libc.syscall(nr, *a)\n"
        "    return 'OK' if r >= 0 else errno.errorcode[ctypes.get_errno()]\n"
        "pidfd = libc.syscall(434, os.getpid(), 0)\n"
        "print(call(438, pidfd, 1, 0), call(101, 0, 0, 0, 0), call(311, os.getpid(), 0, 0, 0, 0, 0),"
        " 'OK' if os.getpid() > 0 and open('/proc/self/status').read() else 'NO')\n"
    )
    argv = [
        "bwrap",
        "--unshare-user",
        "--unshare-pid",
        "--die-with-parent",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--seccomp",
        str(fd),
        "--",
        "/usr/bin/python3",
        "-c",
        script,
    ]
    try:
        out = subprocess.run(argv, pass_fds=[fd], capture_output=True, text=True, timeout=30)
    finally:
        os.close(fd)
    assert out.stdout.split() == ["EPERM", "EPERM", "EPERM", "OK"], (out.stdout, out.stderr)
