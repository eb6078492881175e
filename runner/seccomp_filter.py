"""A seccomp filter for the sandbox (bubblewrap ``--seccomp FD``): no cross-process tampering.

Inside the sandbox the engine CLI and the tool commands it runs share one uid, so without a filter a tool call can
``ptrace`` the CLI, write its memory (``process_vm_writev``) or take its stdout socket (``pidfd_getfd``) and print
forged events (issue 28 B2). Like Flatpak's filter, this one answers those calls (and ``perf_event_open``) with
``EPERM`` for every process in the sandbox; everything else is allowed. It is a classic BPF program built here, so
no libseccomp is needed. On an architecture it does not know, :func:`program` is None and no filter is installed
(the report of the run says whether one was).
"""

from __future__ import annotations

import errno
import os
import platform
import struct

# (audit arch, syscall numbers denied, lowest number of another ABI multiplexed on this arch, or None)
_ARCHES: dict[str, tuple[int, dict[str, int], int | None]] = {
    "x86_64": (
        0xC000003E,
        {
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "perf_event_open": 298,
            "pidfd_getfd": 438,
        },
        0x40000000,
    ),  # x32 numbers
    "aarch64": (
        0xC00000B7,
        {
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "perf_event_open": 241,
            "pidfd_getfd": 438,
        },
        None,
    ),
}
DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "perf_event_open", "pidfd_getfd")

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one) as bubblewrap reads it, or None if unknown."""
    spec = _ARCHES.get(machine or platform.machine())
    if spec is None:
        return None
    arch, numbers, other_abi = spec
    deny = _ins(_RET_K, _RET_ERRNO | errno.EPERM)
    checks = [numbers[name] for name in DENIED]
    body: list[bytes] = []
    # each check jumps forward over the remaining checks and the allow to the deny at the end
    for i, nr in enumerate(checks):
        body.append(_ins(_JEQ_K, nr, jt=len(checks) - i, jf=0))
    tail = [_ins(_RET_K, _RET_ALLOW), deny]
    head = [_ins(_LD_W_ABS, _ARCH), _ins(_JEQ_K, arch, jt=1, jf=0), deny, _ins(_LD_W_ABS, _NR)]
    if other_abi is not None:  # x32 calls reach the same kernel code under other numbers: refuse them all
        head.append(_ins(_JGE_K, other_abi, jt=len(checks) + 1, jf=0))
    return b"".join(head + body + tail)


def filter_fd() -> int | None:
    """A sealed-in-memory file holding :func:`program`, positioned at its start (the caller passes it to
    bubblewrap and closes it), or None when no filter applies here."""
    if os.environ.get("EVALENS_NO_SECCOMP") == "1":
        return None
    prog = program()
    if prog is None or not hasattr(os, "memfd_create"):
        return None
    fd = os.memfd_create("evalens-seccomp", 0)
    os.write(fd, prog)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
