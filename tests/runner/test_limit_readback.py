"""A resource limit met without a cgroup is read back and named (issue 44 item 4): from the kernel's own state (a
file cut at the RLIMIT_FSIZE cap, the agent uid's process peak at RLIMIT_NPROC) and from the refusals shell calls
report; never from a non-shell call's result. The real CLIs meet real limits in
tests/runner/test_agents_resource_limits.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from evalens.core.models.run_record import ToolCall, Turn
from evalens.runner import limit_readback as rb
from evalens.runner.resource_limits import MB, ResourceLimits, launch_prefix
from evalens.runner.sandbox import _pid_watch

LIMITS = ResourceLimits(pids=64, memory_mb=512, file_mb=1, cpu_seconds=5)


@pytest.mark.parametrize(
    ("tool", "result", "named"),
    [
        (
            "Bash",
            "bash: line 1:  4242 File size limit exceeded (core dumped) head -c 400M /dev/zero > f",
            "file",
        ),
        ("exec_command", "OSError: [Errno 27] File too large", "file"),
        ("Bash", "Traceback (most recent call last):\nMemoryError\nMEMORY-TRIED", "memory"),
        ("command_execution", "bash: fork: retry: Resource temporarily unavailable", "pid"),
        ("Bash", "Error: spawn /bin/sh EAGAIN", "pid"),
        ("Bash", "bash: line 1: 77 CPU time limit exceeded (core dumped) python3 spin.py", "cpu"),
    ],
)
def test_a_shell_call_reporting_a_refusal_names_its_limit(tool: str, result: str, named: str) -> None:
    [line] = rb.refused_in_results([(tool, result)], LIMITS)
    assert line.startswith(f"{named} limit:") and "--limit" in line


def test_only_shell_calls_count_and_each_limit_is_named_once() -> None:
    calls = [
        ("Read", "docs: a MemoryError means the heap is full; File too large is EFBIG"),  # a file's text
        ("Bash", "echo ok"),
        ("Bash", "MemoryError"),
        ("Bash", "MemoryError again"),
        ("Bash", None),
    ]
    assert [line.split(":")[0] for line in rb.refused_in_results(calls, LIMITS)] == ["memory limit"]
    assert rb.refused_in_results([("Read", "MemoryError")], LIMITS) == []


def test_a_file_cut_at_the_cap_is_found_and_nothing_else_is(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "small.bin").write_bytes(b"x" * 10)
    (tmp_path / "work" / "over.bin").write_bytes(b"x" * (MB + 1))  # written before the limit: not a cut
    assert rb.capped_file(tmp_path, LIMITS) is None
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "stdout.jsonl").write_bytes(b"x" * MB)  # the runner's own capture, cut by its limit
    assert rb.capped_file(tmp_path, LIMITS, frozenset({"logs"})) is None
    (tmp_path / "link").symlink_to(tmp_path / "logs" / "stdout.jsonl")  # a link is never followed
    assert rb.capped_file(tmp_path, LIMITS, frozenset({"logs"})) is None
    # a real cut: a write past RLIMIT_FSIZE stops at the cap (the writer gets SIGXFSZ / EFBIG)
    prefix, _ = launch_prefix(LIMITS, None, None, None)
    if not prefix:
        pytest.skip("prlimit is not installed")
    target = tmp_path / "work" / "filler.bin"
    script = f"import signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); open({str(target)!r}, 'wb').write(b'x' * {3 * MB})"
    done = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode != 0 and "File too large" in done.stderr
    assert rb.capped_file(tmp_path, LIMITS, frozenset({"logs"})) == os.path.join("work", "filler.bin")
    [line] = rb.kernel_readback(LIMITS, tmp_path, None, frozenset({"logs"}))
    assert line.startswith("file limit:") and "work/filler.bin was cut at 1 MB" in line


def test_the_process_peak_at_the_prlimit_is_a_refused_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = iter([10, 40, 66, 30])  # 66: within an eighth of 74 (the kernel's count is not the table's)
    monkeypatch.setattr(rb, "own_process_count", lambda uid: next(counts))
    watch = rb.PidWatch(uid=65534, nproc=74)  # 10 before the run + pids=64
    for _ in range(2):
        watch.poll()
    assert not watch.met()
    watch.poll()
    watch.poll()
    assert watch.met() and watch.peak == 66
    [line] = rb.kernel_readback(LIMITS, Path("/nonexistent"), watch)
    assert line.startswith("pid limit:") and "66 processes ran at once" in line
    assert not rb.PidWatch(uid=65534, nproc=74, peak=64).met()


def test_a_jump_of_the_machines_task_total_asks_for_a_full_count_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Codex ends a command's process group with the command, so a bomb's children may live a few ms: the watch
    reads the machine's task total (cheap) between its full counts, and a jump that could put the agent's count
    within the margin asks for a full count then; a small rise or an unreadable total does not."""
    totals = iter([500, 510, 560, 561])
    monkeypatch.setattr(rb, "task_total", lambda: next(totals))
    monkeypatch.setattr(rb, "own_process_count", lambda uid: 12)
    watch = rb.PidWatch(uid=65534, nproc=74)  # threshold 66: 12 counted needs 54 more tasks
    watch.poll()  # total 500
    assert not watch.near()  # 510: 22 at most
    assert watch.near()  # 560: up to 72
    monkeypatch.setattr(rb, "task_total", lambda: None)
    assert not watch.near()
    assert not rb.PidWatch(uid=65534, nproc=74).near()  # no full count yet: nothing to compare with


def test_two_counts_at_once_take_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The timed watch and a model call's look count in two worker threads: one at a time, so a lower count
    written last never takes the peak back."""
    import threading

    monkeypatch.setattr(rb, "own_process_count", lambda uid: 66)
    watch = rb.PidWatch(uid=65534, nproc=74)
    with watch.lock:  # another count is under way
        other = threading.Thread(target=watch.poll)
        other.start()
        other.join(0.2)
        assert other.is_alive() and watch.peak == 0  # it waits its turn
    other.join(5)
    assert watch.peak == 66 and watch.met()


def test_the_task_total_is_read_from_proc_loadavg() -> None:
    total = rb.task_total()
    if not os.path.exists("/proc/loadavg"):
        assert total is None
        return
    assert total is not None and total >= 1


def test_the_watch_follows_the_prefix_and_is_off_where_nproc_does_not_bind() -> None:
    prefix = ["prlimit", "--nproc=90", "--data=1", "--"]
    watch = _pid_watch(prefix, 65534, None)
    assert watch is not None and (watch.uid, watch.nproc) == (65534, 90)
    assert _pid_watch(prefix, 0, None) is None  # root: RLIMIT_NPROC does not bind it
    assert _pid_watch(prefix, 65534, object()) is None  # the cgroup counts refusals itself
    assert _pid_watch([], 65534, None) is None  # no prlimit: nothing to compare with


def test_a_refusal_in_the_record_makes_the_run_error_naming_it() -> None:
    from evalens.runner.session import _limits_reported

    run = SimpleNamespace(limits_hit=["file limit: a file the agent wrote reached --limit file-mb=1 (x)"])
    transcript = SimpleNamespace(error=None)
    record = SimpleNamespace(
        error=None,
        turns=[
            Turn(index=0, tool_calls=[ToolCall(name="Bash", result="File size limit exceeded")]),
            Turn(index=1, tool_calls=[ToolCall(name="Bash", result="MemoryError")]),
        ],
    )
    _limits_reported(run, transcript, record, LIMITS)  # type: ignore[arg-type]
    assert [line.split(":")[0] for line in run.limits_hit] == ["file limit", "memory limit"]
    assert transcript.error == record.error == "; ".join(run.limits_hit)
    quiet = SimpleNamespace(limits_hit=[])
    record = SimpleNamespace(
        error=None, turns=[Turn(index=0, tool_calls=[ToolCall(name="Bash", result="ok")])]
    )
    _limits_reported(quiet, transcript, record, LIMITS)  # type: ignore[arg-type]
    assert quiet.limits_hit == [] and record.error is None


def test_the_agent_clis_own_report_of_a_refusal_names_the_limit() -> None:
    said = "thread 'main' panicked: failed to spawn thread: Os { code: 11, kind: WouldBlock, message: \"Resource temporarily unavailable\" }"
    [line] = rb.refused_in_stderr(said, LIMITS)
    assert line.startswith("pid limit:") and "the agent CLI reported the refusal" in line
    assert rb.refused_in_stderr("warning: retrying the request\n", LIMITS) == []
