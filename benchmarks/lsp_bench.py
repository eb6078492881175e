#!/usr/bin/env python3
"""Latency and memory benchmark of ``evalens lsp`` against yaml-language-server 2.0.0 (issues #2 and #6).

Everything is measured through a real LSP client (pygls' ``LanguageClient``) talking to each server as a
child process on stdio, with the VS Code client capabilities of pytest-lsp (push diagnostics):

Scenario A, a typical UAAPS eval case (``examples/pdf-tools/evals/cases/01-extract-text.yaml`` in a temp
copy of ``examples/pdf-tools``):

* ``initialize`` including process start (median of N starts);
* didChange -> publishDiagnostics p50/p90 (one-character edits that alternately break and repair the
  ``target`` pattern, so every change yields a fresh publish with different diagnostics);
* completion (keys of ``expected``) and hover (the ``target`` key) p50/p90;
* start-up validation of a generated package with 1,000 case files: time until the server's
  ``evalens/scanComplete`` notification (yaml-language-server has no start-up scan; for it the table shows
  didOpen of all 1,000 files -> 1,000 publishDiagnostics, which is a different measure and says so);
* peak RSS (``VmHWM`` of ``/proc/<pid>/status`` at the end of the session).

Scenario B (issue #6), a generated 500-task / ~6,500-line skilljack ``tasks.yaml``: didChange ->
publishDiagnostics, completion, hover, peak RSS.

Scenario C (issue #43), the same measures at a size where a cost that grows with the file shows: a 1,540-task /
~20,000-line ``tasks.yaml``, and didOpen of a 5,000-case workspace (``--large-tasks``, ``--large-files``).

yaml-language-server gets the same text with a ``# yaml-language-server: $schema=<abs path>`` modeline naming
evalens' own schema file (SchemaStore off). Both servers see byte-identical documents (evalens honours that
modeline too).

Usage::

    bash benchmarks/install-yls.sh          # once: yaml-language-server 2.0.0 into .tools/yls
    python benchmarks/lsp_bench.py [--quick] [--no-yls] [--json OUT]

This is a measuring script, not a test: it prints tables and exits 0 unless a server could not be driven.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_PKG = ROOT / "examples" / "pdf-tools"
CASE_REL = Path("evals/cases/01-extract-text.yaml")
CASE_SCHEMA = ROOT / "schemas" / "uaaps-eval-case.schema.json"
SKILLJACK_SCHEMA = ROOT / "schemas" / "skilljack-tasks.schema.json"
YLS_DIR = Path(os.environ.get("EVALENS_TOOLS_DIR", ROOT / ".tools")) / "yls"
YLS_BIN = YLS_DIR / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
TIMEOUT = 60.0

# Targets of issue #2 (absolute), issue #6 (relative to yaml-language-server) and issue #43 (both).
TARGET_CHANGE_P50_MS = 10.0
TARGET_INIT_RATIO = 1.1
TARGET_COMPLETION_MS = 20.0
TARGET_WORKSPACE_S = 2.0
TARGET_OPEN_ALL_RATIO = 1.0
TARGET_SJ_CHANGE_RATIO = 0.1
TARGET_SJ_CHANGE_MS = 80.0
TARGET_SJ_COMPLETION_RATIO = 0.1
TARGET_SJ_RSS_RATIO = 0.5


# ------------------------------------------------------------------------------------------- statistics
def pct(values: list[float], q: float) -> float | None:
    """Percentile with linear interpolation (numpy's default); None for no samples."""
    if not values:
        return None
    s = sorted(values)
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": pct(values, 0.5),
        "p90": pct(values, 0.9),
        "min": min(values) if values else None,
        "max": max(values) if values else None,
        "samples": [round(v, 3) for v in values],
    }


# ------------------------------------------------------------------------------------------- the client
def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _proc_status(pid: int, key: str) -> int | None:
    """A ``/proc/<pid>/status`` memory field in KiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


class BenchClient(LanguageClient):
    """A pygls client that timestamps every publishDiagnostics and answers the server's requests."""

    def __init__(self, configuration: Callable[[str | None], Any]) -> None:
        super().__init__("evalens-bench", "1.0")
        self.configuration = configuration
        self.published: dict[str, list[tuple[float, list[types.Diagnostic]]]] = {}
        self.publish_count = 0
        self.waiters: list[tuple[str | None, asyncio.Future]] = []
        self.scans: list[tuple[float, Any]] = []
        self.scan_future: asyncio.Future | None = None
        self.stderr_tail = b""
        self._stderr_task: asyncio.Task | None = None

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _published(params: types.PublishDiagnosticsParams) -> None:
            now = time.perf_counter()
            self.publish_count += 1
            diags = list(params.diagnostics)
            self.published.setdefault(params.uri, []).append((now, diags))
            keep = []
            for uri, fut in self.waiters:
                if fut.done():
                    continue
                if uri is None or uri == params.uri:
                    fut.set_result((now, diags))
                else:
                    keep.append((uri, fut))
            self.waiters = keep

        @self.feature(types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list[Any]:
            return [self.configuration(item.section) for item in params.items]

        @self.feature("evalens/scanComplete")
        def _scanned(params: Any) -> None:
            now = time.perf_counter()
            self.scans.append((now, params))
            if self.scan_future is not None and not self.scan_future.done():
                self.scan_future.set_result((now, params))

        for method in (
            types.CLIENT_REGISTER_CAPABILITY,
            types.CLIENT_UNREGISTER_CAPABILITY,
            types.WINDOW_WORK_DONE_PROGRESS_CREATE,
            types.WORKSPACE_CODE_LENS_REFRESH,
            types.WORKSPACE_DIAGNOSTIC_REFRESH,
            types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
            types.WORKSPACE_INLAY_HINT_REFRESH,
            types.WORKSPACE_INLINE_VALUE_REFRESH,
        ):
            self.feature(method)(lambda params: None)
        for method in (
            types.WINDOW_LOG_MESSAGE,
            types.WINDOW_SHOW_MESSAGE,
            types.TELEMETRY_EVENT,
            types.PROGRESS,
            types.LOG_TRACE,
        ):
            self.feature(method)(lambda params: None)

    async def start_io(self, cmd: str, *args: str, **kwargs: Any) -> None:
        await super().start_io(cmd, *args, **kwargs)
        assert self._server is not None
        self._stderr_task = asyncio.create_task(self._drain(self._server.stderr))

    async def _drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        with contextlib.suppress(Exception):
            while chunk := await stream.read(65536):
                self.stderr_tail = (self.stderr_tail + chunk)[-4000:]

    @property
    def pid(self) -> int:
        assert self._server is not None
        return self._server.pid

    def next_publish(self, uri: str | None) -> asyncio.Future:
        """A future for the next publishDiagnostics (of ``uri``); create it *before* sending the edit."""
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self.waiters.append((uri, fut))
        return fut

    def report_server_error(
        self, error: Exception, source: Any
    ) -> None:  # pragma: no cover - diagnostics only
        print(f"  ! server error ({getattr(source, '__name__', source)}): {error}", file=sys.stderr)


# ------------------------------------------------------------------------------------------- servers
@dataclass
class Server:
    name: str
    cmd: list[str]
    configuration: Callable[[str | None], Any]
    has_scan: bool  # sends evalens/scanComplete after initialized
    profile_dir: Path | None = None  # run under cProfile, one .prof per process (main thread only)
    started: int = 0

    def command(self) -> list[str]:
        self.started += 1
        if self.profile_dir is None or self.cmd[:2] != [sys.executable, "-m"]:
            return self.cmd
        out = self.profile_dir / f"{self.name}-{self.started:02d}.prof"
        return [sys.executable, "-m", "cProfile", "-o", str(out), *self.cmd[1:]]


def evalens_server(profile_dir: Path | None = None) -> Server:
    return Server(
        "evalens",
        [sys.executable, "-m", "evalens", "lsp"],
        lambda section: {} if section in (None, "", "evalens") else None,
        True,
        profile_dir,
    )


FLOOR_NAME = "empty pygls server"
FLOOR_CODE = "from pygls.lsp.server import LanguageServer\nLanguageServer('floor', '1').start_io()\n"


def floor_server() -> Server:
    """An empty pygls 2 server: the initialize time no Python server on pygls can beat here."""
    return Server(FLOOR_NAME, [sys.executable, "-c", FLOOR_CODE], lambda section: {}, False)


def yls_server() -> Server:
    def configuration(section: str | None) -> Any:
        if section == "yaml":
            return {
                "validate": True,
                "hover": True,
                "completion": True,
                "format": {"enable": False},
                "schemaStore": {"enable": False},
                "schemas": {},
                "keyOrdering": False,
                "maxItemsComputed": 5000,
            }
        if section == "http":
            return {"proxy": "", "proxyStrictSSL": False}
        if section == "editor":
            return {"tabSize": 2, "insertSpaces": True, "detectIndentation": False}
        return {}

    node = shutil.which("node") or "node"
    return Server("yaml-language-server", [node, str(YLS_BIN), "--stdio"], configuration, False)


@dataclass
class Session:
    client: BenchClient
    server: Server
    init_seconds: float  # process spawn -> initialize response
    initialized_at: float


async def start(server: Server, root: Path | None) -> Session:
    client = BenchClient(server.configuration)
    if server.has_scan:
        client.scan_future = asyncio.get_running_loop().create_future()
    t0 = time.perf_counter()
    await client.start_io(*server.command(), cwd=str(root or ROOT))
    from pytest_lsp import client_capabilities

    root_uri = from_fs_path(str(root)) if root else None
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        process_id=os.getpid(),
        client_info=types.ClientInfo(name="evalens-bench", version="1.0"),
        locale="en",
        root_uri=root_uri,
        root_path=str(root) if root else None,
        workspace_folders=[types.WorkspaceFolder(uri=root_uri, name=root.name)]
        if root and root_uri
        else None,
    )
    try:
        await asyncio.wait_for(client.initialize_async(params), TIMEOUT)
    except BaseException:
        await stop(Session(client, server, 0.0, 0.0), force=True)
        raise
    t1 = time.perf_counter()
    client.initialized(types.InitializedParams())
    return Session(client, server, t1 - t0, time.perf_counter())


async def stop(session: Session, force: bool = False) -> int | None:
    """Shut the server down (kill it if it does not exit); returns its VmHWM in KiB read just before."""
    client = session.client
    proc = client._server
    hwm = _proc_status(proc.pid, "VmHWM") if proc is not None and proc.returncode is None else None
    if proc is not None and proc.returncode is None and not force:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_async(None), 5)
            client.exit(None)
            await asyncio.wait_for(proc.wait(), 5)
    if proc is not None and proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 5)
    if client._stderr_task is not None:
        client._stderr_task.cancel()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.stop(), 5)
    return hwm


async def wait_scan(session: Session) -> tuple[float, Any] | None:
    if not session.server.has_scan or session.client.scan_future is None:
        return None
    return await asyncio.wait_for(session.client.scan_future, TIMEOUT * 3)


# ------------------------------------------------------------------------------------------- documents
def modeline(schema: Path) -> str:
    return f"# yaml-language-server: $schema={schema}\n"


def signature(diags: list[types.Diagnostic]) -> tuple:
    return tuple(sorted((d.range.start.line, d.range.start.character, d.message) for d in diags))


@dataclass
class Doc:
    uri: str
    text: str
    version: int = 1

    def open(self, client: BenchClient) -> None:
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri, language_id="yaml", version=self.version, text=self.text
                )
            )
        )

    def edit(self, client: BenchClient, line: int, start: int, end: int, new: str) -> None:
        """Replace [start, end) on ``line`` (ASCII lines: UTF-16 == code points) incrementally."""
        lines = self.text.split("\n")
        lines[line] = lines[line][:start] + new + lines[line][end:]
        self.text = "\n".join(lines)
        self.version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(types.Position(line, start), types.Position(line, end)), text=new
                    )
                ],
            )
        )


def find_line(text: str, needle: str, after: int = 0) -> tuple[int, int]:
    """(line, column) of the first ``needle`` on or after line ``after``."""
    for i, line in enumerate(text.split("\n")):
        if i >= after and needle in line:
            return i, line.index(needle)
    raise ValueError(f"{needle!r} not found")


@dataclass
class Probe:
    """Where to edit, complete and hover in a document."""

    toggle_line: int
    toggle_col: int  # the character deleted (error) and re-inserted (valid)
    toggle_char: str
    completion: tuple[int, int]
    hover: tuple[int, int]


# ------------------------------------------------------------------------------------------- measurements
async def open_and_wait(session: Session, doc: Doc) -> float:
    """didOpen -> first publishDiagnostics (ms)."""
    fut = session.client.next_publish(doc.uri)
    t0 = time.perf_counter()
    doc.open(session.client)
    t, _ = await asyncio.wait_for(fut, TIMEOUT)
    return (t - t0) * 1000


class ChangeMeter:
    """didChange -> publishDiagnostics: alternately delete and re-insert one character, so that every
    change yields a publish with different diagnostics (a stale or unrelated publish is waited past)."""

    def __init__(self, session: Session, doc: Doc, probe: Probe) -> None:
        self.session, self.doc, self.probe = session, doc, probe
        self.latencies: list[float] = []
        self.by_state: dict[str, list[float]] = {"broken": [], "repaired": []}
        self.last = session.client.published.get(doc.uri, [(0, [])])[-1][1]
        self.stale = 0
        self.counts: dict[str, int] = {}

    async def step(self, i: int, record: bool) -> None:
        client, doc, probe = self.session.client, self.doc, self.probe
        fut = client.next_publish(doc.uri)
        t0 = time.perf_counter()
        if i % 2 == 0:
            doc.edit(client, probe.toggle_line, probe.toggle_col, probe.toggle_col + 1, "")
        else:
            doc.edit(client, probe.toggle_line, probe.toggle_col, probe.toggle_col, probe.toggle_char)
        t, diags = await asyncio.wait_for(fut, TIMEOUT)
        while signature(diags) == signature(self.last):
            self.stale += 1
            fut = client.next_publish(doc.uri)
            t, diags = await asyncio.wait_for(fut, TIMEOUT)
        self.last = diags
        state = "broken" if i % 2 == 0 else "repaired"
        self.counts[state] = len(diags)
        if record:
            self.latencies.append((t - t0) * 1000)
            self.by_state[state].append((t - t0) * 1000)

    def result(self) -> dict[str, Any]:
        out = summary(self.latencies)
        out.update(
            stale_publishes=self.stale,
            diagnostics=self.counts,
            p50_breaking_edit=pct(self.by_state["broken"], 0.5),
            p50_repairing_edit=pct(self.by_state["repaired"], 0.5),
        )
        return out


class RequestMeter:
    """completion or hover at one position."""

    def __init__(self, session: Session, doc: Doc, kind: str, pos: tuple[int, int]) -> None:
        self.session, self.kind = session, kind
        self.ident = types.TextDocumentIdentifier(uri=doc.uri)
        self.position = types.Position(*pos)
        self.latencies: list[float] = []
        self.size = 0
        self.first: float | None = None

    async def step(self, i: int, record: bool) -> None:
        client = self.session.client
        t0 = time.perf_counter()
        if self.kind == "completion":
            result = await asyncio.wait_for(
                client.text_document_completion_async(
                    types.CompletionParams(
                        text_document=self.ident,
                        position=self.position,
                        context=types.CompletionContext(trigger_kind=types.CompletionTriggerKind.Invoked),
                    )
                ),
                TIMEOUT,
            )
            items = result.items if isinstance(result, types.CompletionList) else (result or [])
            self.size = len(items)
        else:
            result = await asyncio.wait_for(
                client.text_document_hover_async(
                    types.HoverParams(text_document=self.ident, position=self.position)
                ),
                TIMEOUT,
            )
            self.size = 1 if result else 0
        ms = (time.perf_counter() - t0) * 1000
        if self.first is None:
            self.first = ms
        if record:
            self.latencies.append(ms)

    def result(self) -> dict[str, Any]:
        out = summary(self.latencies)
        out.update(first=self.first, result_size=self.size)
        return out


def _error(exc: BaseException, session: Session | None = None) -> dict[str, str]:
    out = {"error": f"{type(exc).__name__}: {exc}"}
    tail = session.client.stderr_tail.decode(errors="replace").strip() if session is not None else ""
    if tail:
        out["stderr_tail"] = tail[-1500:]
    return out


async def measure_inits(
    servers: list[tuple[str, Server]], n: int, root: Path, doc_path: Path
) -> dict[str, dict[str, Any]]:
    """``initialize`` incl. process start, the servers taking turns (so load swings hit all of them);
    also spawn -> first publishDiagnostics of a file opened right after ``initialized`` (the cold path:
    lazy imports, schema loading, a concurrent start-up scan)."""
    times: dict[str, list[float]] = {k: [] for k, _ in servers}
    firsts: dict[str, list[float]] = {k: [] for k, _ in servers}
    errors: dict[str, dict[str, str]] = {}
    for _ in range(n):
        for key, server in servers:
            if key in errors:
                continue
            floor = server.name == FLOOR_NAME
            t0 = time.perf_counter()
            session = None
            try:
                session = await start(server, None if floor else root)
                times[key].append(session.init_seconds)
                if not floor:
                    doc = Doc(from_fs_path(str(doc_path)), doc_path.read_text(encoding="utf-8"))
                    fut = session.client.next_publish(doc.uri)
                    doc.open(session.client)
                    t, _ = await asyncio.wait_for(fut, TIMEOUT)
                    firsts[key].append(t - t0)
                if server.has_scan:  # let the start-up scan finish so the next start is not disturbed
                    await wait_scan(session)
            except BaseException as exc:  # noqa: BLE001
                errors[key] = _error(exc, session)
            finally:
                if session is not None:
                    await stop(session)
    out: dict[str, dict[str, Any]] = {}
    for key, _ in servers:
        if key in errors:
            out[key] = errors[key]
            continue
        part = summary(times[key])
        part["median"] = statistics.median(times[key])
        part["spawn_to_first_diagnostics_s"] = statistics.median(firsts[key]) if firsts[key] else None
        part["spawn_to_first_diagnostics_samples"] = [round(v, 3) for v in firsts[key]]
        out[key] = part
    print("  initialize: done", file=sys.stderr)
    return out


async def single_file_scenario(
    servers: list[tuple[str, Server]],
    pkg: Path,
    doc_path: Path,
    probe: Probe,
    iters: dict[str, int],
    label: str,
    warmup: int = 2,
) -> dict[str, dict[str, Any]]:
    """All servers at once on the same document, taking turns iteration by iteration: open, change
    latency, completion, hover; then peak RSS at shutdown."""
    res: dict[str, dict[str, Any]] = {k: {} for k, _ in servers}
    sessions: dict[str, Session] = {}
    docs: dict[str, Doc] = {}
    active: list[str] = []
    try:
        for key, server in servers:
            try:
                session = sessions[key] = await start(server, pkg)
                res[key]["initialize_s"] = session.init_seconds
                scan = await wait_scan(session)
                if scan is not None:
                    res[key]["scan"] = {"files": _get(scan[1], "files"), "seconds": _get(scan[1], "seconds")}
                active.append(key)
            except BaseException as exc:  # noqa: BLE001
                res[key].update(_error(exc, sessions.get(key)))
        for key in list(active):
            try:
                doc = docs[key] = Doc(from_fs_path(str(doc_path)), doc_path.read_text(encoding="utf-8"))
                res[key]["open_to_diagnostics_ms"] = await open_and_wait(sessions[key], doc)
                res[key]["diagnostics_on_open"] = len(sessions[key].client.published[doc.uri][-1][1])
            except BaseException as exc:  # noqa: BLE001
                res[key].update(_error(exc, sessions[key]))
                active.remove(key)
        phases: list[tuple[str, int, Callable[[str], Any]]] = [
            ("change", iters["changes"], lambda k: ChangeMeter(sessions[k], docs[k], probe)),
            (
                "completion",
                iters["requests"],
                lambda k: RequestMeter(sessions[k], docs[k], "completion", probe.completion),
            ),
            ("hover", iters["requests"], lambda k: RequestMeter(sessions[k], docs[k], "hover", probe.hover)),
        ]
        for name, n, make in phases:
            meters = {k: make(k) for k in active}
            for i in range(n + warmup):
                for key in list(active):
                    try:
                        await meters[key].step(i, record=i >= warmup)
                    except BaseException as exc:  # noqa: BLE001
                        res[key].update(_error(exc, sessions[key]))
                        active.remove(key)
                    await asyncio.sleep(0.01)
            for key, meter in meters.items():
                res[key][name] = meter.result()
        for key in active:
            res[key]["rss_now_kib"] = _proc_status(sessions[key].client.pid, "VmRSS")
    finally:
        for key, session in sessions.items():
            res[key]["peak_rss_kib"] = await stop(session)
    print(f"  {label}: done", file=sys.stderr)
    return res


async def workspace_scenario_evalens(
    server: Server, ws: Path, paths: list[Path], runs: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": []}
    for _ in range(runs):
        run: dict[str, Any] = {}
        t_spawn = time.perf_counter()
        session = await start(server, ws)
        try:
            t, params = await wait_scan(session)
            run.update(
                files=_get(params, "files"),
                server_seconds=_get(params, "seconds"),
                initialized_to_scan_s=t - session.initialized_at,
                spawn_to_scan_s=t - t_spawn,
                publishes=session.client.publish_count,
                initialize_s=session.init_seconds,
            )
            run["scan_peak_rss_kib"] = _proc_status(session.client.pid, "VmHWM")
            if not out["runs"]:  # like-for-like with yaml-language-server: open all files once
                run["open_to_all_published_s"] = await open_all(session, paths)
        except BaseException as exc:
            run["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            run["peak_rss_kib"] = await stop(session)
        out["runs"].append(run)
    good = [r for r in out["runs"] if "error" not in r]
    if good:
        for key in ("server_seconds", "initialized_to_scan_s", "spawn_to_scan_s", "scan_peak_rss_kib"):
            out[key] = statistics.median(r[key] for r in good if r.get(key) is not None)
        out["peak_rss_kib"] = out["runs"][0].get("peak_rss_kib")  # after opening all files
        out["files"] = good[0]["files"]
        out["publishes"] = good[0]["publishes"]
        out["open_to_all_published_s"] = out["runs"][0].get("open_to_all_published_s")
    else:
        out["error"] = out["runs"][0]["error"]
    print(f"  workspace / {server.name}: done", file=sys.stderr)
    return out


async def open_all(session: Session, paths: list[Path]) -> float:
    """didOpen every file, return the seconds until each has had a publishDiagnostics sent after its open."""
    client = session.client
    uris = [from_fs_path(str(p)) for p in paths]
    before = {u: len(client.published.get(u, [])) for u in uris}
    t0 = time.perf_counter()
    for p, u in zip(paths, uris, strict=True):
        Doc(u, p.read_text(encoding="utf-8")).open(client)
    while True:
        waiting = [u for u in uris if len(client.published.get(u, [])) <= before[u]]
        if not waiting:
            return max(client.published[u][-1][0] for u in uris) - t0
        if time.perf_counter() - t0 > TIMEOUT * 3:
            raise TimeoutError(f"{len(uris) - len(waiting)}/{len(uris)} published")
        await asyncio.sleep(0.005)


async def workspace_scenario_yls(server: Server, ws: Path, paths: list[Path]) -> dict[str, Any]:
    """yaml-language-server has no start-up scan: open every file and wait for all publishes."""
    out: dict[str, Any] = {}
    session = await start(server, ws)
    try:
        await asyncio.sleep(0.3)  # let the configuration pull settle, as an editor would
        out.update(files=len(paths), open_to_all_published_s=await open_all(session, paths))
    except BaseException as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        out["peak_rss_kib"] = await stop(session)
    print(f"  workspace / {server.name}: done", file=sys.stderr)
    return out


async def large_scenarios(
    servers: list[tuple[str, Server]],
    tmp: Path,
    args: argparse.Namespace,
    iters: dict[str, int],
    results: dict[str, Any],
) -> None:
    """Scenario C: the same measures on a skilljack file of about 20,000 lines and a workspace of 5,000 case
    files, so a cost that grows with size shows (the 6,500-line file and 1,000 files hide a quadratic step)."""
    tmp.mkdir(parents=True, exist_ok=True)
    sj_dir, sj_path, sj_probe, _ = make_skilljack(tmp, args.large_tasks)
    ws, ws_paths = make_workspace(tmp, CASE_SCHEMA, args.large_files)
    results["meta"].update(
        large_lines=len(sj_path.read_text().splitlines()),
        large_tasks=args.large_tasks,
        large_files=args.large_files,
    )
    big = await single_file_scenario(servers, sj_dir.parent.parent, sj_path, sj_probe, iters, "large file")
    for key, part in big.items():
        results[key]["large_file"] = part
    for key, server in servers:
        if key == "evalens":
            results[key]["large_workspace"] = await workspace_scenario_evalens(server, ws, ws_paths, 1)
        else:
            results[key]["large_workspace"] = await workspace_scenario_yls(server, ws, ws_paths)


def report_large(results: dict[str, Any], header: list[str], row: Callable[..., list[str]]) -> None:
    """Scenario C's table (nothing when it did not run)."""
    ev, yl = results.get("evalens", {}), results.get("yls")
    L, M = dig(ev, "large_file"), dig(yl, "large_file") if yl else None
    W, V = dig(ev, "large_workspace"), dig(yl, "large_workspace") if yl else None
    if L is None and W is None:
        return
    m = results["meta"]
    nf = f"{m.get('large_files', 0):,}"
    rows = [
        row(
            "didOpen -> first publishDiagnostics",
            dig(L, "open_to_diagnostics_ms"),
            dig(M, "open_to_diagnostics_ms"),
            fmt_ms,
        ),
        row(
            f"didChange -> publishDiagnostics p50 (n={dig(L, 'change', 'n')})",
            dig(L, "change", "p50"),
            dig(M, "change", "p50"),
            fmt_ms,
        ),
        row("didChange -> publishDiagnostics p90", dig(L, "change", "p90"), dig(M, "change", "p90"), fmt_ms),
        row("completion p50", dig(L, "completion", "p50"), dig(M, "completion", "p50"), fmt_ms),
        row("hover p50", dig(L, "hover", "p50"), dig(M, "hover", "p50"), fmt_ms),
        row("peak RSS (VmHWM), large file", dig(L, "peak_rss_kib"), dig(M, "peak_rss_kib"), fmt_mb),
        [
            f"{nf}-file workspace: initialized -> evalens/scanComplete",
            fmt_s(dig(W, "initialized_to_scan_s")),
            "n/a (no start-up scan)",
            "-",
            "",
            "-",
        ],
        row(
            f"didOpen of all {nf} files -> every file published",
            dig(W, "open_to_all_published_s"),
            dig(V, "open_to_all_published_s"),
            fmt_s,
        ),
        row(f"peak RSS with {nf} open files", dig(W, "peak_rss_kib"), dig(V, "peak_rss_kib"), fmt_mb),
    ]
    print_table(
        f"Scenario C - a {m.get('large_lines', 0):,}-line tasks.yaml ({m.get('large_tasks')} tasks) and a "
        f"{nf}-case workspace",
        header,
        rows,
    )


# ------------------------------------------------------------------------------------------- fixtures
def make_case_package(tmp: Path, schema: Path) -> tuple[Path, Path, Probe]:
    pkg = tmp / "pdf-tools"
    shutil.copytree(EXAMPLE_PKG, pkg, ignore=shutil.ignore_patterns("reports"))
    case = pkg / CASE_REL
    text = modeline(schema) + case.read_text(encoding="utf-8")
    case.write_text(text, encoding="utf-8")
    line, col = find_line(text, "target: skill:")
    toggle_col = col + len("target: skil")  # the second "l" of "skill": "skil:pdf-tools" breaks the pattern
    c_line, c_col = find_line(text, "  not-contains:")
    h_line, h_col = find_line(text, "target:")
    return pkg, case, Probe(line, toggle_col, "l", (c_line, 2), (h_line, h_col + 2))


CASE_TEMPLATE = """\
{modeline}name: case-{i:04d}
description: Case {i} extracts the text of document {i} into output/extracted-{i}.txt
target: skill:pdf-tools
input:
  prompt: "Extract all text from fixtures/sample.txt into output/extracted-{i}.txt"
  files:
    - fixtures/{fixture}
  workspace-files:
    - src/empty.txt
expected:
  contains:
    - "EXTRACTED"
  not-contains:
    - "ERROR"
  files-created:
    - output/extracted-{i}.txt
judge:
  criteria: >
    The reply quotes the first line "Hello, World" and says the text was written
    to output/extracted-{i}.txt.
"""


def make_workspace(tmp: Path, schema: Path, n: int) -> tuple[Path, list[Path]]:
    """A package with ``n`` case files; every 10th has a problem (missing fixture or a bad name)."""
    ws = tmp / "ws1000"
    shutil.copytree(EXAMPLE_PKG, ws, ignore=shutil.ignore_patterns("reports", "cases"))
    cases = ws / "evals" / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        text = CASE_TEMPLATE.format(
            modeline=modeline(schema), i=i, fixture="missing.txt" if i % 10 == 3 else "sample.txt"
        )
        if i % 10 == 7:
            text = text.replace(f"name: case-{i:04d}", f"name: Case_{i:04d}")
        path = cases / f"{i:04d}-case.yaml"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return ws, paths


SKILLJACK_FALLBACK_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://evalens.dev/schemas/skilljack-tasks.schema.json",
    "title": "skilljack tasks.yaml",
    "type": "object",
    "required": ["skill", "tasks"],
    "$defs": {
        "criterion": {
            "type": "object",
            "properties": {
                "weight": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "Weight (default 0.33).",
                },
                "description": {"type": "string", "description": "What the judge checks."},
            },
        },
        "criteria": {
            "type": "object",
            "properties": {
                "discovery": {"$ref": "#/$defs/criterion"},
                "adherence": {"$ref": "#/$defs/criterion"},
                "output": {"$ref": "#/$defs/criterion"},
            },
        },
        "deterministic": {
            "type": "object",
            "properties": {
                "expect_skill_activation": {"type": "boolean", "description": "Default true."},
                "expect_marker": {"type": "string"},
                "expect_tool_calls": {"type": "array", "items": {"type": "string"}},
                "expect_no_tool_calls": {"type": "array", "items": {"type": "string"}},
                "expect_contains": {"type": "array", "items": {"type": "string"}},
                "expect_not_contains": {"type": "array", "items": {"type": "string"}},
                "expect_regex": {"type": "array", "items": {"type": "string"}},
                "expect_javascript": {"type": "string"},
                "expect_file_exists": {"type": "array", "items": {"type": "string"}},
            },
        },
        "task": {
            "type": "object",
            "required": ["id", "prompt"],
            "properties": {
                "id": {"type": "string", "description": "Unique task id."},
                "prompt": {"type": "string"},
                "expected_skill_load": {"type": "string", "description": "Skill name, or none."},
                "criteria": {"$ref": "#/$defs/criteria"},
                "golden_checklist": {"type": "array", "items": {"type": "string"}},
                "deterministic": {"$ref": "#/$defs/deterministic"},
                "fixture": {
                    "type": "object",
                    "properties": {
                        "state": {"type": "string"},
                        "setup": {"type": "string"},
                        "teardown": {"type": "string"},
                    },
                },
            },
        },
    },
    "properties": {
        "skill": {"type": "string", "description": "The skill under evaluation."},
        "version": {"type": "string"},
        "defaults": {
            "type": "object",
            "properties": {
                "expected_skill_load": {"type": "string"},
                "criteria": {"$ref": "#/$defs/criteria"},
            },
        },
        "tasks": {"type": "array", "items": {"$ref": "#/$defs/task"}},
    },
}


def skilljack_text(n_tasks: int, header: str) -> str:
    """13 lines a task, like the corpus file; every 10th task is a false-positive test (``-fp-``)."""
    out = [
        header + "skill: greeting",
        'version: "1.0"',
        "",
        "defaults:",
        "  expected_skill_load: greeting",
        "  criteria:",
        "    discovery: { weight: 0.3 }",
        "    adherence: { weight: 0.4 }",
        "    output: { weight: 0.3 }",
        "",
        "tasks:",
    ]
    for i in range(1, n_tasks + 1):
        fp = i % 10 == 0
        out += [
            f"  - id: gr-fp-{i:03d}" if fp else f"  - id: gr-{i:03d}",
            f'    prompt: "Task {i}: please greet member {i} of the team in the house style."',
            f"    expected_skill_load: {'none' if fp else 'greeting'}",
            "    deterministic:",
            f"      expect_skill_activation: {'false' if fp else 'true'}",
        ]
        if not fp:
            out.append('      expect_marker: "GREETING_SUCCESS"')
        out += [
            "    criteria:",
            f'      discovery: {{ weight: 0.3, description: "Should load the greeting skill for task {i}" }}',
            '      adherence: { weight: 0.4, description: "Should follow the greeting format of the skill" }',
            '      output: { weight: 0.3, description: "Greeting is friendly and includes the marker" }',
            "    golden_checklist:",
        ]
        if fp:
            out += ['      - "Did not load the greeting skill"', '      - "Answered without the skill"']
        else:
            out.append(f'      - "Greeted member {i} with the GREETING_SUCCESS marker"')
        out.append("")
    return "\n".join(out)


def make_skilljack(tmp: Path, n_tasks: int) -> tuple[Path, Path, Probe, str]:
    """A package with ``skills/greeting`` and a big ``evals/greeting/tasks.yaml``; returns the schema note."""
    pkg = tmp / "sj"
    skill = pkg / "skills" / "greeting"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets people in the house style "
        "with the GREETING_SUCCESS marker.\n---\n\n# Greeting\n\nSay hello.\n"
    )
    if SKILLJACK_SCHEMA.is_file():
        schema, note = SKILLJACK_SCHEMA, f"schemas/{SKILLJACK_SCHEMA.name} (evalens' own)"
    else:
        schema = tmp / "skilljack-tasks.schema.json"
        schema.write_text(json.dumps(SKILLJACK_FALLBACK_SCHEMA, indent=2))
        note = "an equivalent schema written by the benchmark (schemas/skilljack-tasks.schema.json is absent)"
    path = pkg / "evals" / "greeting" / "tasks.yaml"
    path.parent.mkdir(parents=True)
    text = skilljack_text(n_tasks, modeline(schema))
    path.write_text(text, encoding="utf-8")
    mid_line, _ = find_line(text, f"  - id: gr-{n_tasks // 2 + 1:03d}")
    t_line, t_col = find_line(text, "expect_skill_activation: true", after=mid_line)
    toggle_col = t_col + len("expect_skill_activation: tru")  # "tru" is a string: a type error
    c_line, _ = find_line(text, "    golden_checklist:", after=mid_line)
    h_line, _ = find_line(text, "    expected_skill_load:", after=mid_line)
    return path.parent, path, Probe(t_line, toggle_col, "e", (c_line, 4), (h_line, 6)), note


# ------------------------------------------------------------------------------------------- report
def fmt_ms(v: float | None) -> str:
    return "-" if v is None else (f"{v:.1f} ms" if v < 1000 else f"{v / 1000:.2f} s")


def fmt_s(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f} s"


def fmt_mb(kib: int | float | None) -> str:
    return "-" if kib is None else f"{kib / 1024:.0f} MB"


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.3f}x"


def verdict(ok: bool | None) -> str:
    return "-" if ok is None else ("yes" if ok else "NO")


def dig(d: dict[str, Any] | None, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    try:
        from rich import box
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain fallback
        print(f"\n{title}")
        widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
        for r in [header, ["-" * w for w in widths], *rows]:
            print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) + " |")
        return
    table = Table(title=title, box=box.MARKDOWN, title_justify="left")
    for h in header:
        table.add_column(h)
    for r in rows:
        table.add_row(*r)
    Console(width=200).print(table)


def report(results: dict[str, Any]) -> None:
    ev, yl = results.get("evalens", {}), results.get("yls")
    header = ["measure", "evalens", "yaml-language-server 2.0.0", "evalens / YLS", "target", "met"]

    def row(
        name: str, a: Any, b: Any, f: Callable[[Any], str], target: str = "", ok: bool | None = None
    ) -> list[str]:
        return [
            name,
            f(a),
            f(b) if yl is not None else "(--no-yls)",
            fmt_ratio(ratio(a, b)),
            target,
            verdict(ok),
        ]

    A, B = dig(ev, "case") or {}, dig(yl, "case") if yl else None
    init_e, init_y = dig(ev, "init", "median"), dig(yl, "init", "median")
    ch50 = dig(A, "change", "p50")
    co50 = dig(A, "completion", "p50")
    ws_e = dig(ev, "workspace", "initialized_to_scan_s")
    nf = f"{results['meta']['workspace_files']:,}"

    r_init = ratio(init_e, init_y)
    r_open = ratio(
        dig(ev, "workspace", "open_to_all_published_s"), dig(yl, "workspace", "open_to_all_published_s")
    )

    def split(part: dict[str, Any] | None) -> str:
        a, b = dig(part, "change", "p50_breaking_edit"), dig(part, "change", "p50_repairing_edit")
        return "-" if a is None else f"{fmt_ms(a)} / {fmt_ms(b)}"

    rows = [
        row(
            f"initialize incl. process start (median of {dig(ev, 'init', 'n')})",
            init_e,
            init_y,
            fmt_s,
            f"<= {TARGET_INIT_RATIO}x YLS",
            None if r_init is None else r_init <= TARGET_INIT_RATIO,
        ),
        [
            f"  same for an empty pygls 2 server (floor, median of {dig(ev, 'init_floor', 'n')})",
            fmt_s(dig(ev, "init_floor", "median")),
            "-",
            "-",
            "",
            "-",
        ],
        row(
            "cold: process start -> first publishDiagnostics of the case (median)",
            dig(ev, "init", "spawn_to_first_diagnostics_s"),
            dig(yl, "init", "spawn_to_first_diagnostics_s"),
            fmt_s,
        ),
        row(
            "didOpen -> first publishDiagnostics (warm server)",
            dig(A, "open_to_diagnostics_ms"),
            dig(B, "open_to_diagnostics_ms"),
            fmt_ms,
        ),
        row(
            f"didChange -> publishDiagnostics p50 (n={dig(A, 'change', 'n')})",
            ch50,
            dig(B, "change", "p50"),
            fmt_ms,
            f"<= {TARGET_CHANGE_P50_MS:.0f} ms",
            None if ch50 is None else ch50 <= TARGET_CHANGE_P50_MS,
        ),
        row("didChange -> publishDiagnostics p90", dig(A, "change", "p90"), dig(B, "change", "p90"), fmt_ms),
        ["  p50 of breaking / repairing edits", split(A), split(B) if yl else "(--no-yls)", "-", "", "-"],
        row(
            f"completion p50 (n={dig(A, 'completion', 'n')})",
            co50,
            dig(B, "completion", "p50"),
            fmt_ms,
            f"<= {TARGET_COMPLETION_MS:.0f} ms",
            None if co50 is None else co50 <= TARGET_COMPLETION_MS,
        ),
        row("completion p90", dig(A, "completion", "p90"), dig(B, "completion", "p90"), fmt_ms),
        row(
            "completion, first request", dig(A, "completion", "first"), dig(B, "completion", "first"), fmt_ms
        ),
        row(f"hover p50 (n={dig(A, 'hover', 'n')})", dig(A, "hover", "p50"), dig(B, "hover", "p50"), fmt_ms),
        row("hover p90", dig(A, "hover", "p90"), dig(B, "hover", "p90"), fmt_ms),
        row("peak RSS (VmHWM), case session", dig(A, "peak_rss_kib"), dig(B, "peak_rss_kib"), fmt_mb),
        [
            f"{nf}-file workspace: initialized -> evalens/scanComplete (median of "
            f"{len(dig(ev, 'workspace', 'runs') or [])})",
            fmt_s(ws_e),
            "n/a (no start-up scan)",
            "-",
            f"<= {TARGET_WORKSPACE_S} s",
            verdict(None if ws_e is None else ws_e <= TARGET_WORKSPACE_S),
        ],
        [
            f"{nf}-file workspace: scan seconds reported in scanComplete",
            fmt_s(dig(ev, "workspace", "server_seconds")),
            "n/a",
            "-",
            "",
            "-",
        ],
        [
            f"{nf}-file workspace: peak RSS after the start-up scan",
            fmt_mb(dig(ev, "workspace", "scan_peak_rss_kib")),
            "n/a",
            "-",
            "",
            "-",
        ],
        row(
            f"didOpen of all {nf} files -> every file published",
            dig(ev, "workspace", "open_to_all_published_s"),
            dig(yl, "workspace", "open_to_all_published_s"),
            fmt_s,
            f"<= {TARGET_OPEN_ALL_RATIO}x YLS",
            None if r_open is None else r_open <= TARGET_OPEN_ALL_RATIO,
        ),
        row(
            f"peak RSS with {nf} open files",
            dig(ev, "workspace", "peak_rss_kib"),
            dig(yl, "workspace", "peak_rss_kib"),
            fmt_mb,
        ),
    ]
    lines = results["meta"]["case_lines"]
    print_table(f"Scenario A - UAAPS case ({lines} lines) and a {nf}-case workspace", header, rows)

    S, T = dig(ev, "skilljack") or {}, dig(yl, "skilljack") if yl else None
    r_ch = ratio(dig(S, "change", "p50"), dig(T, "change", "p50"))
    r_co = ratio(dig(S, "completion", "p50"), dig(T, "completion", "p50"))
    r_rss = ratio(dig(S, "peak_rss_kib"), dig(T, "peak_rss_kib"))
    rows = [
        row(
            "didOpen -> first publishDiagnostics",
            dig(S, "open_to_diagnostics_ms"),
            dig(T, "open_to_diagnostics_ms"),
            fmt_ms,
        ),
        row(
            f"didChange -> publishDiagnostics p50 (n={dig(S, 'change', 'n')})",
            dig(S, "change", "p50"),
            dig(T, "change", "p50"),
            fmt_ms,
            f"<= {TARGET_SJ_CHANGE_RATIO}x YLS, <= {TARGET_SJ_CHANGE_MS:.0f} ms",
            None
            if r_ch is None
            else r_ch <= TARGET_SJ_CHANGE_RATIO and dig(S, "change", "p50") <= TARGET_SJ_CHANGE_MS,
        ),
        row("didChange -> publishDiagnostics p90", dig(S, "change", "p90"), dig(T, "change", "p90"), fmt_ms),
        ["  p50 of breaking / repairing edits", split(S), split(T) if yl else "(--no-yls)", "-", "", "-"],
        row(
            f"completion p50 (n={dig(S, 'completion', 'n')})",
            dig(S, "completion", "p50"),
            dig(T, "completion", "p50"),
            fmt_ms,
            f"<= {TARGET_SJ_COMPLETION_RATIO}x YLS",
            None if r_co is None else r_co <= TARGET_SJ_COMPLETION_RATIO,
        ),
        row("completion p90", dig(S, "completion", "p90"), dig(T, "completion", "p90"), fmt_ms),
        row(f"hover p50 (n={dig(S, 'hover', 'n')})", dig(S, "hover", "p50"), dig(T, "hover", "p50"), fmt_ms),
        row(
            "peak RSS (VmHWM)",
            dig(S, "peak_rss_kib"),
            dig(T, "peak_rss_kib"),
            fmt_mb,
            f"<= {TARGET_SJ_RSS_RATIO}x YLS",
            None if r_rss is None else r_rss <= TARGET_SJ_RSS_RATIO,
        ),
    ]
    m = results["meta"]
    print_table(
        f"Scenario B - skilljack tasks.yaml ({m['skilljack_tasks']} tasks, {m['skilljack_lines']} lines)",
        header,
        rows,
    )

    report_large(results, header, row)

    notes = [
        f"schema for YLS: {m['case_schema']} (case), {m['skilljack_schema']} (skilljack); modeline, "
        "SchemaStore off; same text for both servers",
        f"diagnostics on open: evalens {dig(A, 'diagnostics_on_open')} / YLS {dig(B, 'diagnostics_on_open')}"
        f" (case), evalens {dig(S, 'diagnostics_on_open')} / YLS {dig(T, 'diagnostics_on_open')} (skilljack)",
        f"completion items: evalens {dig(A, 'completion', 'result_size')} / "
        f"YLS {dig(B, 'completion', 'result_size')} (case), evalens {dig(S, 'completion', 'result_size')} / "
        f"YLS {dig(T, 'completion', 'result_size')} (skilljack)",
        f"{nf}-case workspace (every 10th case has a problem): evalens scanned "
        f"{dig(ev, 'workspace', 'files')} eval files and pushed {dig(ev, 'workspace', 'publishes')} "
        "publishDiagnostics (files with problems) before scanComplete",
        f"machine load (other sessions share it): {'; '.join(m.get('load_during', []))}",
        f"machine: {m['cpus']} CPUs, load average {m['load_before']} before / {m['load_after']} after; "
        f"Python {m['python']}, Node {m['node']}; {m['started']} UTC; commit {m['commit']}; "
        f"mode {'quick' if m['quick'] else 'full'}; 2 warm-up iterations excluded from every percentile",
    ]
    for scope in ("evalens", "yls"):
        for name, part in (results.get(scope) or {}).items():
            if isinstance(part, dict) and part.get("error"):
                notes.append(f"ERROR {scope}/{name}: {part['error']}")
                if part.get("stderr_tail"):
                    notes.append("  stderr: " + part["stderr_tail"].replace("\n", "\n  "))
    print()
    for n in notes:
        print(f"* {n}")


# ------------------------------------------------------------------------------------------- main
def machine_load() -> str:
    """1-minute load average and the share of time runnable tasks waited for a CPU (PSI, last 60 s)."""
    psi = "?"
    with contextlib.suppress(OSError, ValueError, IndexError):
        first = Path("/proc/pressure/cpu").read_text().splitlines()[0]
        psi = next(f.split("=")[1] for f in first.split() if f.startswith("avg60="))
    return f"load {os.getloadavg()[0]:.2f}, cpu pressure {psi}%"


def node_version() -> str:
    try:
        return subprocess.run(
            ["node", "--version"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "missing"


def git_commit() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


async def run(args: argparse.Namespace) -> dict[str, Any]:
    quick = args.quick
    iters = {
        "inits": 3 if quick else 7,
        "changes": 12 if quick else 40,
        "requests": 12 if quick else 40,
        "ws_runs": 1 if quick else 3,
    }
    sj_iters = {"changes": 6 if quick else 20, "requests": 6 if quick else 20}
    results: dict[str, Any] = {
        "meta": {
            "started": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
            "quick": quick,
            "cpus": os.cpu_count(),
            "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "python": platform.python_version(),
            "node": node_version(),
            "commit": git_commit(),
            "iterations": iters,
            "skilljack_iterations": sj_iters,
        }
    }
    profile_dir = Path(args.profile_server).resolve() if args.profile_server else None
    if profile_dir is not None:
        profile_dir.mkdir(parents=True, exist_ok=True)
    servers = [("evalens", evalens_server(profile_dir))]
    if not args.no_yls:
        if not YLS_BIN.is_file():
            print(
                f"yaml-language-server is not installed at {YLS_BIN}: run benchmarks/install-yls.sh "
                "(or pass --no-yls)",
                file=sys.stderr,
            )
            raise SystemExit(2)
        servers.append(("yls", yls_server()))

    with tempfile.TemporaryDirectory(prefix="evalens-bench-") as tmpname:
        tmp = Path(tmpname)
        pkg, case, probe = make_case_package(tmp, CASE_SCHEMA)
        ws, ws_paths = make_workspace(tmp, CASE_SCHEMA, args.files)
        sj_dir, sj_path, sj_probe, sj_note = make_skilljack(tmp, args.tasks)
        meta = results["meta"]
        meta.update(
            case_lines=len(case.read_text().splitlines()),
            case_schema=f"schemas/{CASE_SCHEMA.name}",
            skilljack_schema=sj_note,
            skilljack_tasks=args.tasks,
            skilljack_lines=len(sj_path.read_text().splitlines()),
            workspace_files=args.files,
        )
        for key, _ in servers:
            results[key] = {}
        only = set(args.only or ["init", "case", "workspace", "skilljack", "large"])
        loads = meta["load_during"] = [f"start: {machine_load()}"]
        if "init" in only:
            init_servers = [*servers[:1], ("floor", floor_server()), *servers[1:]]
            inits = await measure_inits(init_servers, iters["inits"], pkg, case)
            loads.append(f"after initialize: {machine_load()}")
            results["evalens"]["init_floor"] = inits.pop("floor")
            for key, part in inits.items():
                results[key]["init"] = part
        if "case" in only:
            for key, part in (await single_file_scenario(servers, pkg, case, probe, iters, "case")).items():
                results[key]["case"] = part
            loads.append(f"after the case scenario: {machine_load()}")
        if "workspace" in only:
            for key, server in servers:
                if key == "evalens":
                    results[key]["workspace"] = await workspace_scenario_evalens(
                        server, ws, ws_paths, iters["ws_runs"]
                    )
                else:
                    results[key]["workspace"] = await workspace_scenario_yls(server, ws, ws_paths)
            loads.append(f"after the workspace scenario: {machine_load()}")
        if "large" in only:  # issue 43 item 4: a 20,000-line file and a 5,000-file workspace
            await large_scenarios(servers, tmp / "large", args, sj_iters, results)
            loads.append(f"after the large scenarios: {machine_load()}")
        if "skilljack" in only:
            sj = await single_file_scenario(
                servers, sj_dir.parent.parent, sj_path, sj_probe, sj_iters, "skilljack"
            )
            for key, part in sj.items():
                results[key]["skilljack"] = part
            loads.append(f"after the skilljack scenario: {machine_load()}")
    results["meta"]["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (about 2 minutes)")
    parser.add_argument("--no-yls", action="store_true", help="skip yaml-language-server")
    parser.add_argument("--json", metavar="OUT", help="also write every sample and summary to OUT")
    parser.add_argument("--files", type=int, default=1000, help="case files in the workspace scenario")
    parser.add_argument("--tasks", type=int, default=500, help="tasks in the skilljack scenario")
    parser.add_argument(
        "--large-tasks", type=int, default=1540, help="tasks of the large file (1,540: about 20,000 lines)"
    )
    parser.add_argument("--large-files", type=int, default=5000, help="case files in the large workspace")
    parser.add_argument(
        "--only",
        action="append",
        choices=["init", "case", "workspace", "skilljack", "large"],
        help="run only this part (repeatable); the tables show '-' for the rest",
    )
    parser.add_argument(
        "--profile-server",
        metavar="DIR",
        help="run evalens under cProfile and write one .prof per server process into DIR "
        "(event-loop thread only; timings then include the profiler's overhead)",
    )
    args = parser.parse_args(argv)
    results = asyncio.run(run(args))
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
        print(f"\nwrote {args.json}")
    failed = [
        k
        for k in ("evalens", "yls")
        for part in (results.get(k) or {}).values()
        if isinstance(part, dict) and part.get("error")
    ]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
