"""Resource limits (issue 28): names, overrides and errors; what the agent's tree starts under; the sandbox's size
as it is measured. The bombs themselves run on the real CLIs in tests/runner/test_agents_resource_limits.py."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

import pytest

from evalens.runner.resource_limits import (
    MB,
    ResourceLimits,
    RunCgroup,
    launch_prefix,
    parse_limit,
    sandbox_bytes,
)


def test_overrides_by_cli_name_and_errors_list_the_names() -> None:
    limits = ResourceLimits().with_overrides({"memory-mb": 512, "pids": 8, "workspace_mb": 10})
    assert (limits.memory_mb, limits.pids, limits.workspace_mb) == (512, 8, 10)
    with pytest.raises(ValueError, match="unknown limit 'ram'.*memory-mb"):
        ResourceLimits().with_overrides({"ram": 1})
    with pytest.raises(ValueError, match="1 or more"):
        ResourceLimits(pids=0)
    assert parse_limit("pids=64") == ("pids", 64)
    for bad in ("pids", "pids=-1", "pids=x", "ram=3"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_limit(bad)


def test_prlimit_prefix_applies_and_runs(tmp_path: Path) -> None:
    prefix, drops = launch_prefix(ResourceLimits(pids=50, memory_mb=256, file_mb=1), None, None, None)
    assert not drops and prefix[-1] == "--" and any(p.startswith("--data=") for p in prefix)
    script = "import resource as r; print(r.getrlimit(r.RLIMIT_FSIZE)[0], r.getrlimit(r.RLIMIT_DATA)[0])"
    out = subprocess.run([*prefix, "python3", "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(1 * MB), str(256 * MB)]
    # one file past file-mb is refused by the kernel (SIGXFSZ), whatever the agent does
    big = tmp_path / "big"
    done = subprocess.run([*prefix, "sh", "-c", f"head -c 3M /dev/zero > {big}"], capture_output=True)
    assert done.returncode != 0 and big.stat().st_size <= 1 * MB


def test_cgroup_entry_drops_the_uid_after_entering(tmp_path: Path) -> None:
    fake = RunCgroup(ResourceLimits(), tmp_path / "pids", tmp_path / "memory", 1)
    prefix, drops = launch_prefix(ResourceLimits(), fake, 65534, 65534)
    assert drops
    text = " ".join(prefix)
    assert text.index("cgroup.procs") < text.index("--reuid=65534") < text.index("prlimit")


def test_hits_read_the_kernels_counters(tmp_path: Path) -> None:
    pids, memory = tmp_path / "pids", tmp_path / "memory"
    pids.mkdir()
    memory.mkdir()
    group = RunCgroup(ResourceLimits(pids=9), pids, memory, 1)
    assert group.hits() == []
    (pids / "pids.events").write_text("max 3\n")
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    hits = group.hits()
    assert len(hits) == 2 and "pids=9" in hits[0] and "memory-mb=8192" in hits[1]
    v2 = RunCgroup(ResourceLimits(), pids, pids, 2)
    (pids / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 0\n")
    assert [h for h in v2.hits() if "memory" in h] == []  # reaching max is reclaim, not a kill


def test_sandbox_size_counts_blocks_skips_logs_and_never_follows_links(tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "logs").mkdir()
    (tmp_path / "workspace" / "a.bin").write_bytes(b"x" * (2 * MB))
    (tmp_path / "logs" / "stdout").write_bytes(b"x" * (5 * MB))
    sparse = tmp_path / "workspace" / "sparse"
    with open(sparse, "wb") as fh:
        fh.truncate(100 * MB)  # a 100 MB hole uses no blocks
    os.symlink("/usr", tmp_path / "workspace" / "usr")
    size = sandbox_bytes(tmp_path, frozenset({"logs"}))
    assert 2 * MB <= size < 3 * MB
    assert sandbox_bytes(tmp_path) >= 7 * MB
