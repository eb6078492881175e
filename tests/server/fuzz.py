"""A seeded fuzzer for one live ``evalens lsp``: mutated corpus documents plus hostile requests and frames.

Used by ``tests/server/test_fuzz.py`` (bounded, in CI) and ``benchmarks/fuzz_server.py`` (long runs). It
checks what issue 16 asks of the server: every request answered within a deadline, every opened document
given diagnostics, the resident set under a bound, no traceback on stderr, a clean exit.
"""

from __future__ import annotations

import csv
import json
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import CORPUS, EXAMPLE, REPO
from tests.server.raw_client import RawServer, frame

LANGUAGES = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "markdown"}
HOSTILE_SNIPPETS = [
    "\t",
    "\x00",
    "\ud800",
    "\udfff",
    "{",
    "}",
    "[",
    "]",
    ":",
    "- ",
    "&a [*a, *a]",
    "*a",
    "9" * 5000,
    "x" * 20_000,
    "\r",
    "\r\n",
    "\u2028",
    "😀",
    "---\n",
    "'",
    '"',
    "\\",
    "#",
    "!!python/object:os.system",
    "%YAML 1.1\n",
    "<<: *a\n",
    "? ",
    "|\n",
    ">-\n",
    "null",
    "~",
    "1e999",
    "-0",
    "0x1F",
    ",",
    "//",
]
REQUESTS = [
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/definition",
    "textDocument/codeAction",
    "textDocument/codeLens",
    "textDocument/documentSymbol",
    "textDocument/diagnostic",
]


@dataclass
class Report:
    """What a fuzz run did and found (the figures the issue asks for)."""

    seed: int
    seconds: float = 0.0
    documents: int = 0
    edits: int = 0
    requests: int = 0
    hostile_requests: int = 0
    hostile_frames: int = 0
    unanswered: int = 0
    late: int = 0
    max_latency_ms: float = 0.0
    missing_diagnostics: int = 0
    internal_errors: int = 0
    peak_rss_mb: float = 0.0
    final_rss_mb: float = 0.0
    tracebacks: int = 0
    exit_code: int | None = None
    stats: dict[str, int] = field(default_factory=dict)
    slowest: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def corpus_documents(corpus: Path = CORPUS) -> list[tuple[str, str]]:
    """(path in its repository, text) of every eval-like corpus file, so detection sees real paths.

    Always includes the repository's own corpora and the example package, so the fuzzer has seeds on a fresh
    clone with no ../shared beside it (issue #22)."""
    out: list[tuple[str, str]] = []
    for manifest in (
        corpus / "MANIFEST.tsv",
        corpus / "realworld" / "MANIFEST.tsv",
        *sorted((REPO / "tests" / "corpus").glob("*/MANIFEST.tsv")),
    ):
        if not manifest.is_file():
            continue
        with manifest.open(encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                local = row.get("file") or row.get("local_path") or ""
                path = manifest.parent / local
                if path.suffix not in LANGUAGES or not path.is_file() or path.stat().st_size > 300_000:
                    continue
                try:
                    out.append((row.get("path_in_repo") or path.name, path.read_text(encoding="utf-8")))
                except (OSError, UnicodeDecodeError):
                    continue
    for path in sorted(EXAMPLE.rglob("*")):
        if path.suffix in LANGUAGES and path.is_file():
            out.append((str(path.relative_to(EXAMPLE.parent)), path.read_text(encoding="utf-8")))
    return out


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits: cut, duplicate, insert hostile text, truncate, shuffle, re-indent, blow up."""
    for _ in range(rng.randint(1, 3)):
        n = len(text)
        i, j = sorted((rng.randint(0, n), rng.randint(0, n)))
        kind = rng.randrange(9)
        if kind == 0:
            text = text[:i] + text[j:]
        elif kind == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif kind == 2:
            text = text[:i] + rng.choice(HOSTILE_SNIPPETS) + text[i:]
        elif kind == 3:
            text = text[:i]
        elif kind == 4:
            lines = text.split("\n")
            rng.shuffle(lines)
            text = "\n".join(lines)
        elif kind == 5:
            text = "\n".join((" " * rng.randint(0, 6)) + line.lstrip() for line in text.split("\n"))
        elif kind == 6:
            depth = rng.choice([50, 500, 5000])
            text = text[:i] + "[" * depth + "]" * depth + text[i:]
        elif kind == 7:
            keys = rng.choice([100, 2000, 16000])
            text = text + "".join(f"\nk{x}: {x}" for x in range(keys))
        else:
            pass  # pristine (some documents must stay valid)
    return text


class Fuzzer:
    """Drives one server; ``run`` returns a :class:`Report` (it never raises for what it finds)."""

    def __init__(
        self,
        seed: int,
        root: Path,
        *,
        open_limit: int = 15,
        deadline: float = 10.0,
        keep_messages: bool = False,
    ) -> None:
        self.rng = random.Random(seed)
        self.root = root
        self.open_limit = open_limit
        self.deadline = deadline
        self.report = Report(seed)
        self.corpus = corpus_documents()
        self.server = RawServer(keep=keep_messages)
        self.server.auto_answer = True
        self.sent: dict[int, float] = {}  # request id -> sent at
        self.what: dict[int, str] = {}  # request id -> what was sent (for the report)
        self.opened: dict[str, float] = {}  # uri -> opened at
        self.open_now: list[str] = []
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        (root / "fifo-pkg" / "evals" / "cases").mkdir(parents=True, exist_ok=True)
        self.fifo = root / "fifo-pkg" / "evals" / "cases" / "fifo.yaml"
        if hasattr(os, "mkfifo") and not self.fifo.exists():
            os.mkfifo(self.fifo)

    # ------------------------------------------------------------------------------------ sending
    def request(self, method: str, params: Any, *, hostile: bool = False) -> int:
        msg_id = self.server.request(method, params)
        self.sent[msg_id] = time.monotonic()
        self.what[msg_id] = f"{method} {json.dumps(params)[:300]}"
        self.report.requests += 1
        self.report.hostile_requests += hostile
        return msg_id

    def notify(self, method: str, params: Any) -> None:
        self.server.notify(method, params)

    def _position(self, uri: str) -> dict[str, int]:
        lines = self.texts.get(uri, "").split("\n")
        line = self.rng.randrange(len(lines) + 2)
        width = len(lines[line]) if line < len(lines) else 3
        return {"line": line, "character": self.rng.randrange(width + 2)}

    # ------------------------------------------------------------------------------------ one document
    def document(self) -> None:
        rel, original = self.rng.choice(self.corpus)
        n = self.report.documents
        uri = (self.root / f"r{n}" / rel).as_uri()
        text = mutate(original, self.rng) if self.rng.random() < 0.85 else original
        language = LANGUAGES.get(Path(rel).suffix, "yaml")
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
        )
        self.report.documents += 1
        self.opened[uri] = time.monotonic()
        self.open_now.append(uri)
        self.versions[uri] = 1
        self.texts[uri] = text
        for _ in range(self.rng.randint(0, 4)):
            self.edit(uri)
        for _ in range(self.rng.randint(1, 4)):
            self.feature_request(uri)
        if self.rng.random() < 0.3:
            self.hostile()
        if self.rng.random() < 0.05:
            self.request(
                "workspace/executeCommand", {"command": "evalens.discoverCases", "arguments": [{"uri": uri}]}
            )
        while len(self.open_now) > self.open_limit:
            old = self.open_now.pop(0)
            self.notify("textDocument/didClose", {"textDocument": {"uri": old}})
            self.texts.pop(old, None)
            self.versions.pop(old, None)

    def edit(self, uri: str) -> None:
        self.versions[uri] += 1
        text = self.texts[uri]
        if self.rng.random() < 0.5:
            new = mutate(text, self.rng)
            change: dict[str, Any] = {"text": new}
        else:
            start, end = sorted(
                (self._position(uri), self._position(uri)), key=lambda p: (p["line"], p["character"])
            )
            snippet = self.rng.choice(HOSTILE_SNIPPETS + ["name: renamed\n", "  - ", "x"])
            change = {"range": {"start": start, "end": end}, "text": snippet}
            new = None
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": self.versions[uri]}, "contentChanges": [change]},
        )
        if new is not None:
            self.texts[uri] = new
        self.report.edits += 1

    def feature_request(self, uri: str) -> None:
        method = self.rng.choice(REQUESTS)
        params: dict[str, Any] = {"textDocument": {"uri": uri}}
        if method in ("textDocument/hover", "textDocument/completion", "textDocument/definition"):
            params["position"] = self._position(uri)
        elif method == "textDocument/codeAction":
            params["range"] = {"start": self._position(uri), "end": self._position(uri)}
            params["context"] = {"diagnostics": []}
        self.request(method, params)

    # ------------------------------------------------------------------------------------ hostility
    def hostile(self) -> None:
        choice = self.rng.randrange(6)
        method = self.rng.choice(REQUESTS + ["workspace/executeCommand"])
        if choice == 0:
            self.request(
                method,
                self.rng.choice(
                    [
                        42,
                        [],
                        None,
                        "x",
                        {"textDocument": 5},
                        {"textDocument": {"uri": "file:///x"}, "position": {"line": -1, "character": 2**40}},
                    ]
                ),
                hostile=True,
            )
        elif choice == 1:
            odd = self.rng.choice(
                [
                    "untitled:Untitled-1",
                    "http://example.com/a.yaml",
                    "file:///%00/x.yaml",
                    "file:///" + "a" * 300 + "/evals/cases/x.yaml",
                    self.fifo.as_uri(),
                    "",
                    (self.root / "nowhere" / "evals" / "eval-config.json").as_uri(),
                ]
            )
            params: dict[str, Any] = {"textDocument": {"uri": odd}, "position": {"line": 0, "character": 0}}
            if method == "workspace/executeCommand":
                params = {
                    "command": self.rng.choice(
                        [
                            "evalens.discoverCases",
                            "evalens.showResult",
                            "evalens.lastReport",
                            "evalens.cancelRun",
                        ]
                    ),
                    "arguments": self.rng.choice([[{"uri": odd}], [odd], [42], [{"uri": None}]]),
                }
            elif method in ("textDocument/codeAction",):
                params = {
                    "textDocument": {"uri": odd},
                    "range": {"start": params["position"], "end": params["position"]},
                    "context": {"diagnostics": []},
                }
            self.request(method, params, hostile=True)
        elif choice == 2:
            self.request(
                self.rng.choice(["no/such/method", "$/secret", "textDocument/rename"]), {}, hostile=True
            )
            ghost = (self.root / "ghost" / "evals" / "cases" / "g.yaml").as_uri()
            self.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": ghost, "version": 3}, "contentChanges": [{"text": "name: ghost\n"}]},
            )
            self.notify("textDocument/didClose", {"textDocument": {"uri": ghost}})
            self.notify("$/cancelRequest", {"id": 999_999})
            self.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": ghost, "type": 3}]})
        else:
            self.hostile_frame()

    def hostile_frame(self) -> None:
        """A broken frame: when it carries a request id the server can recover, an answer is expected."""
        msg_id = self.server.next_id()
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "method": "textDocument/hover",
                "params": {
                    "textDocument": {"uri": "file:///x.yaml"},
                    "position": {"line": 0, "character": 0},
                },
            }
        )
        kind = self.rng.randrange(5)
        expect = True
        if kind == 0:
            data = frame(body).replace(b"Content-Length", b"content-length")
        elif kind == 1:
            data = frame(body, length=len(body) - self.rng.randint(1, 30))
        elif kind == 2:
            data = frame(body[: self.rng.randint(body.index('"method"'), len(body) - 1)])  # the id survives
        elif kind == 3:
            data, expect = frame(self.rng.choice([b"\xff\xfe", b"[1,2]", b"null", b"{" * 3000])), False
        else:
            data, expect = frame("[" * 50_000 + "]" * 50_000), False
        self.server.send_raw(data)
        self.report.hostile_frames += 1
        if expect:
            self.sent[msg_id] = time.monotonic()
            self.what[msg_id] = f"hostile frame {kind}: {data[:200]!r}"
            self.report.requests += 1

    # ------------------------------------------------------------------------------------ checks
    def check(self, final: bool = False) -> None:
        now = time.monotonic()
        answered = self.server.answered
        for msg_id, sent in list(self.sent.items()):
            if msg_id in answered:
                latency = answered[msg_id] - sent
                if latency * 1000 > self.report.max_latency_ms:
                    self.report.slowest = (
                        [f"{latency * 1000:.0f} ms {self.what.get(msg_id, '?')[:160]}"] + self.report.slowest
                    )[:5]
                self.report.max_latency_ms = max(self.report.max_latency_ms, latency * 1000)
                if latency > self.deadline:
                    self.report.late += 1
                if self.server.errors.get(msg_id) == -32603:
                    self.report.internal_errors += 1
                del self.sent[msg_id]
                self.what.pop(msg_id, None)
                answered.pop(msg_id, None)
            elif final or now - sent > self.deadline:
                self.report.unanswered += 1
                self.report.problems.append(
                    f"request {msg_id} unanswered after {now - sent:.1f}s: {self.what.pop(msg_id, '?')}"
                )
                del self.sent[msg_id]
        for uri, opened in list(self.opened.items()):
            if self.server.published.get(uri):
                del self.opened[uri]
            elif final or now - opened > self.deadline:
                self.report.missing_diagnostics += 1
                self.report.problems.append(f"no diagnostics for {uri}")
                del self.opened[uri]
        if not self.server.keep:
            self.server.published.clear()  # counted: the table must not grow over a long run
        rss = self.server.rss_kb() / 1024
        self.report.peak_rss_mb = max(self.report.peak_rss_mb, rss)
        self.report.final_rss_mb = rss

    def sync(self) -> None:
        """Wait until the server has handled everything sent so far (a request answered last)."""
        msg_id = self.request("evalens/stats", None)
        deadline = time.monotonic() + self.deadline
        while msg_id not in self.server.answered and time.monotonic() < deadline:
            time.sleep(0.005)

    def run(
        self,
        *,
        seconds: float | None = None,
        documents: int | None = None,
        progress: Callable[[Report], None] | None = None,
    ) -> Report:
        started = time.monotonic()
        try:
            self.server.call_kept(
                "initialize", {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {}}
            )
            self.notify("initialized", {})
            for count in _counter():
                if seconds is not None and time.monotonic() - started >= seconds:
                    break
                if documents is not None and count >= documents:
                    break
                self.document()
                if count % 5 == 4:
                    self.sync()
                    self.check()
                if progress is not None and count % 200 == 199:
                    progress(self.report)
            self.sync()
            time.sleep(0.5)
            self.check()
            stats = self.server.call_kept("evalens/stats", timeout=self.deadline)
            self.report.stats = stats.get("result") or {"error": stats.get("error")}
            self.check(final=True)
            self.server.call_kept("shutdown", timeout=self.deadline)
            self.notify("exit", None)
            self.report.exit_code = self.server.wait(30)
        except Exception as exc:  # noqa: BLE001 - a dead server is a finding, not a crash of the fuzzer
            self.report.problems.append(f"fuzzer stopped: {type(exc).__name__}: {exc}")
        finally:
            self.report.seconds = round(time.monotonic() - started, 1)
            stderr = self.server.stderr()
            self.report.tracebacks = stderr.count("Traceback (most recent call last)")
            if self.report.tracebacks:
                self.report.problems.append("stderr: " + stderr[stderr.index("Traceback") :][:3000])
            self.server.close()
        return self.report


def _counter() -> Iterator[int]:
    n = 0
    while True:
        yield n
        n += 1
