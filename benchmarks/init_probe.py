#!/usr/bin/env python3
"""Spawn one language server, send ``initialize``, and exit as soon as the answer is read (issue 43).

A whole-process timer (``/usr/bin/time -v``, hyperfine) run on this probe measures spawn -> initialize answer
and nothing else: the server is killed once it answered, so neither its shutdown nor the probe's own teardown of
an LSP client library counts. The probe itself uses only the standard library (its start is the same ~30 ms
for every server measured, so paired ratios stay honest)::

    python benchmarks/init_probe.py -- python -m evalens lsp
    python benchmarks/init_probe.py -- node .tools/yls/node_modules/yaml-language-server/bin/yaml-language-server --stdio

It prints the seconds from spawn to the answer on stdout, so it can also be read without a timer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def frame(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_answer(fd: int, want_id: int) -> dict:
    """Read framed messages until the response with ``want_id`` (servers may log or notify first)."""
    buf = b""
    while True:
        head, sep, rest = buf.partition(b"\r\n\r\n")
        if sep:
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            if len(rest) >= length:
                message, buf = json.loads(rest[:length]), rest[length:]
                if message.get("id") == want_id and "method" not in message:
                    return message
                continue
        chunk = os.read(fd, 65536)
        if not chunk:
            raise SystemExit("the server closed its output before answering initialize")
        buf += chunk


def main(argv: list[str]) -> int:
    if "--" in argv:
        argv = argv[argv.index("--") + 1 :]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.getcwd()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    params = {
        "processId": os.getpid(),
        "rootUri": "file://" + root,
        "capabilities": {"workspace": {"configuration": True}, "textDocument": {}},
        "clientInfo": {"name": "init-probe", "version": "1"},
    }
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
    proc.stdin.flush()
    answer = read_answer(proc.stdout.fileno(), 1)
    seconds = time.perf_counter() - t0
    proc.kill()
    proc.wait()
    if "result" not in answer:
        print(f"initialize failed: {answer}", file=sys.stderr)
        return 1
    print(f"{seconds:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
