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
    run = asyncio.run(run_process([sys.executable, "-c", "import os\nfor _ in range(200): os.write(1, b'x' * (1 << 20))"],
                                  dict(os.environ), tmp_path, out, err, time_limit=60))
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert run.exit_code == 0 and run.truncated == ["stdout"]
    assert run.stream_bytes["stdout"] == 200 << 20
    assert out.stat().st_size == 1 << 20
    assert grown_kb < 50_000, f"runner grew {grown_kb} kB while capturing"


def test_captured_stream_cannot_be_reopened_through_proc(tmp_path: Path) -> None:
    """A pipe can be reopened by path (/proc/PID/fd/1) by any process of the same uid; the capture socket not."""
    script = "import os\ntry:\n    open(f'/proc/{os.getpid()}/fd/1', 'w')\n    print('REOPENED')\nexcept OSError as e:\n    print('ERRNO', e.errno)"
    out, err = tmp_path / "out", tmp_path / "err"
    run = asyncio.run(run_process([sys.executable, "-c", script], dict(os.environ), tmp_path, out, err, time_limit=30))
    assert run.exit_code == 0 and out.read_text().strip() == "ERRNO 6"  # ENXIO


def test_bridges_move_privileged_ports_inside(tmp_path: Path) -> None:
    bridges, env = plan_bridges({"ANTHROPIC_BASE_URL": "https://api.anthropic.com",
                                 "OPENAI_BASE_URL": "http://127.0.0.1:8123/v1"}, tmp_path)
    assert [(b.host, b.port, b.inside_port) for b in bridges] == [("api.anthropic.com", 443, 18000),
                                                                   ("127.0.0.1", 8123, 8123)]
    assert env == {"ANTHROPIC_BASE_URL": "https://api.anthropic.com:18000", "OPENAI_BASE_URL": "http://127.0.0.1:8123/v1"}


def test_sandbox_dirs_are_private(sandbox_dir: Path) -> None:
    paths: SandboxPaths = create_sandbox()
    try:
        assert (paths.root.stat().st_mode & 0o777) == 0o711  # searchable by the agent uid, not listable
        assert (paths.logs.stat().st_mode & 0o777) == 0o700  # the runner's captured streams
    finally:
        remove_sandbox(paths)
