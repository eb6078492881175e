"""A raw JSON-RPC client over the real ``evalens lsp`` process: for framing, lifecycle and hostile traffic
that pytest-lsp (a well-behaved client) cannot send."""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.conftest import REPO


def frame(body: bytes | str, length: int | None = None, header: str = "Content-Length") -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return f"{header}: {len(data) if length is None else length}\r\n\r\n".encode() + data


class RawServer:
    """One server process; every message it writes lands in ``messages`` (a reader thread parses them)."""

    def __init__(self, cwd: Path | None = None, env: dict[str, str] | None = None, keep: bool = True) -> None:
        self.stderr_file = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "evalens", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr_file,
            cwd=cwd or REPO,
            env=env,
        )
        self.keep = keep  # False: only the bookkeeping below (long fuzz runs), not every message
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.received: list[dict[str, Any]] = []
        self.answered: dict[Any, float] = {}  # response id -> arrival (monotonic)
        self.errors: dict[Any, int] = {}  # response id -> error code
        self.published: dict[str, int] = {}  # uri -> publishDiagnostics count
        self.auto_answer = False  # answer the server's requests from the reader thread
        self.want: set[Any] = set()  # response ids whose whole message is kept in ``kept`` (keep=False)
        self.kept: dict[Any, dict[str, Any]] = {}
        self._write_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            message = json.loads(out.read(length))
            if "method" not in message:
                self.answered[message.get("id")] = time.monotonic()
                if "error" in message:
                    self.errors[message.get("id")] = message["error"].get("code")
                if message.get("id") in self.want:
                    self.kept[message.get("id")] = message
            elif message["method"] == "textDocument/publishDiagnostics":
                uri = message["params"]["uri"]
                self.published[uri] = self.published.get(uri, 0) + 1
            elif "id" in message and self.auto_answer:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            if self.keep:
                self.inbox.put(message)

    # ------------------------------------------------------------------------------------ sending
    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(frame(json.dumps(message)))

    def next_id(self) -> int:
        return next(self._ids) + 1000

    def request(self, method: str, params: Any = None, *, omit_params: bool = False) -> int:
        msg_id = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if not omit_params:
            message["params"] = params
        self.send(message)
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    # ------------------------------------------------------------------------------------ receiving
    def next_message(self, timeout: float = 10) -> dict[str, Any]:
        message = self.inbox.get(timeout=timeout)
        self.received.append(message)
        if "method" in message and "id" in message:  # a server request: answer like an editor would
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        return message

    def response(self, msg_id: int | str, timeout: float = 10) -> dict[str, Any]:
        for seen in self.received:
            if seen.get("id") == msg_id and "method" not in seen:
                return seen
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no response to request {msg_id!r}")
            try:
                message = self.next_message(left)
            except queue.Empty:
                continue
            if message.get("id") == msg_id and "method" not in message:
                return message

    def call_kept(self, method: str, params: Any = None, timeout: float = 10) -> dict[str, Any]:
        """``call`` for a server that does not keep every message (``keep=False``)."""
        msg_id = self.next_id()
        self.want.add(msg_id)
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while msg_id not in self.kept:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no response to {method}")
            time.sleep(0.005)
        self.want.discard(msg_id)
        self.answered.pop(msg_id, None)
        return self.kept.pop(msg_id)

    def call(self, method: str, params: Any = None, timeout: float = 10, **kw: Any) -> dict[str, Any]:
        return self.response(self.request(method, params, **kw), timeout)

    def notifications(self, method: str) -> list[dict[str, Any]]:
        while True:
            try:
                self.next_message(0.01)
            except queue.Empty:
                break
        return [m for m in self.received if m.get("method") == method]

    def initialize(
        self,
        root_uri: str | None = None,
        process_id: int | None = None,
        capabilities: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        reply = self.call(
            "initialize", {"processId": process_id, "rootUri": root_uri, "capabilities": capabilities or {}}
        )
        self.notify("initialized", {})
        return reply

    # ------------------------------------------------------------------------------------ ending
    def wait(self, timeout: float = 10) -> int:
        return self.proc.wait(timeout)

    def rss_kb(self) -> int:
        """The server's resident set size now (0 when unknown)."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                return next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
        except OSError:
            return 0

    def stderr(self) -> str:
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.stderr_file.close()

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
