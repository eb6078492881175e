"""The evalens language server: state shared by the feature modules, nothing feature-specific.

Handlers live in ``features/<feature>.py``; each is thin and reads the one ``Validation`` the store keeps
per open document version.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from evalens import __version__
from evalens.server import uris
from evalens.server.protocol import EvalensProtocol, serve

if TYPE_CHECKING:
    from pygls.workspace import TextDocument

    from evalens.core.config import ConfigCache, RuleLevels, Tuning
    from evalens.core.index import IndexCache
    from evalens.core.validate import Validation
    from evalens.server.features.run import Runs
    from evalens.server.settings import Settings

log = logging.getLogger("evalens.server")
T = TypeVar("T")


class EvalensServer(LanguageServer):
    """pygls server plus evalens state: validations per document and the package indexes."""

    protocol: EvalensProtocol

    def __init__(self) -> None:
        super().__init__(
            "evalens",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=EvalensProtocol,
        )
        self.exit_code = 1
        self._settings: Settings | None = None  # made on first use
        self._indexes: IndexCache | None = None  # made on first use, as the configs
        self._configs: ConfigCache | None = None
        self.initial_options: object = None  # initializationOptions, applied when the features load
        self._overrides: tuple[RuleLevels, list[str]] | None = (
            None  # parsed ``rules`` setting (None: re-parse)
        )
        self._reported: set[tuple[str, ...]] = set()
        self.validations: dict[str, tuple[int | None, Validation]] = {}  # uris.key -> of open documents
        self.last_good: dict[str, Validation] = {}  # uris.key -> last Validation whose document parsed
        self.disk_validations: dict[str, Validation] = {}  # uris.key -> of unopened files (start-up scan)
        self.lock = threading.RLock()
        self._graveyard: list[list[Validation | tuple[int | None, Validation] | None]] = []
        self._validating: dict[str, tuple[int | None, Future[Validation]]] = {}  # uris.key -> in flight
        self.pending: dict[str, asyncio.Task[None]] = {}  # uris.key -> the newest edit's validation task
        self.validated = 0  # how many times an open document was validated (``evalens/stats``)
        self.runs: Runs | None = None  # set by features.run_commands (the "Run eval" machinery)
        self.editor: tuple[str, str] = ("", "")  # the initialize request's clientInfo: name and version

    @property
    def settings(self) -> Settings:
        """The ``evalens.*`` settings (server/settings.py)."""
        if self._settings is None:
            # lazy: pydantic and the settings model (~60 ms) are not on the initialize answer's path (issue 43)
            from evalens.server.settings import Settings

            self._settings = self._once("_settings", Settings)
        return self._settings

    @property
    def indexes(self) -> IndexCache:
        """The package indexes, read through the open documents (made on first use)."""
        if self._indexes is None:
            # lazy: as the settings above, the package index is not on the initialize answer's path
            from evalens.core.index import IndexCache

            self._indexes = self._once("_indexes", lambda: IndexCache(self.read_text))
        return self._indexes

    @property
    def configs(self) -> ConfigCache:
        """The config files by mtime; stop_at: the workspace folders, set once they are known."""
        if self._configs is None:
            # lazy: the rule tuning (the format registry, the rule catalog) is not on the initialize answer's path
            from evalens.core.config import ConfigCache

            self._configs = self._once("_configs", lambda: ConfigCache(ttl=5.0))
        return self._configs

    def _once(self, name: str, make: Callable[[], T]) -> T:
        """The value of attribute ``name``, made by ``make`` if it is None: once, whichever thread asks first."""
        with self.lock:
            value = getattr(self, name)
            if value is None:
                value = make()
                setattr(self, name, value)
        return value

    # ----------------------------------------------------------------------------------- process
    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve on stdio with the tolerant framing of ``transport``; ``exit_code`` follows the LSP rules
        (0 after ``shutdown``, else 1)."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            self.exit_code = asyncio.run(serve(self, (stdin or sys.stdin.buffer).fileno()))
        except BrokenPipeError:
            log.error("the client closed the connection; exiting")
            self.exit_code = 1
        except KeyboardInterrupt:
            self.exit_code = 130
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """One client over TCP (debugging), with the same framing and lifecycle as stdio."""
        self._stop_event = threading.Event()

        async def main() -> int:
            done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

            async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                self.protocol.set_writer(writer)
                code = await serve(self, read=lambda: reader.read(65536))
                writer.close()
                if not done.done():
                    done.set_result(code)

            async with await asyncio.start_server(connection, host, port):
                log.info("serving on %s:%s", host, port)
                return await done

        try:
            self.exit_code = asyncio.run(main())
        except KeyboardInterrupt:
            self.exit_code = 130
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        """Stop without waiting for worker threads (a long discovery must not hold up the exit)."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)

    async def off_loop(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work(*args)`` in the server's worker threads: handlers whose answer may read other files
        (the package index walks a package, a hover reads the SKILL.md a value names) never hold the loop."""
        return await asyncio.get_running_loop().run_in_executor(
            self.thread_pool, functools.partial(work, *args)
        )

    # ----------------------------------------------------------------------------------- capabilities
    def cap(self, dotted: str, default: Any = None) -> Any:
        return get_capability(self.client_capabilities, dotted, default)

    @property
    def client_pulls(self) -> bool:
        return self.cap("text_document.diagnostic", None) is not None

    @property
    def snippets(self) -> bool:
        return bool(self.cap("text_document.completion.completion_item.snippet_support", False))

    @property
    def draws_links(self) -> bool:
        """Whether the editor's hover draws a Markdown link as its text: Neovim before 0.10 shows
        ``[path](file:///…)`` as written (issue 45 #8), so it gets the path alone; no capability says so, its
        clientInfo does."""
        name, version = self.editor
        if name != "Neovim":
            return True
        parts = re.match(r"(\d+)\.(\d+)", version)
        return parts is None or (int(parts.group(1)), int(parts.group(2))) >= (0, 10)

    @property
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)

    # ----------------------------------------------------------------------------------- documents
    def open_doc(self, uri: str) -> TextDocument | None:
        """The open document at ``uri`` (any spelling of it), or None."""
        return self.workspace.text_documents.get(uris.key(uri))

    def open_uris(self) -> list[str]:
        """The URIs of the open documents, as the client spelled them."""
        return [doc.uri for doc in list(self.workspace.text_documents.values())]

    def read_text(self, path: Path) -> str | None:
        """Open documents win over the disk (the index sees unsaved edits); special files are never read."""
        uri = uris.uri_of(path)
        doc = self.open_doc(uri) if uri else None
        if doc is not None:
            return doc.source
        return uris.read_regular(path)

    # ----------------------------------------------------------------------------------- rule tuning
    def settings_changed(self) -> None:
        self._overrides = None
        self._reported.clear()  # say again what is still wrong

    def tuning_for(self, path: str) -> Tuning:
        """The rule tuning of a file: its nearest config file (cached by mtime) and the ``rules`` setting."""
        if self._overrides is None:
            self._overrides = self.settings.rule_overrides()
        levels, setting_errors = self._overrides
        # lazy: as ``configs`` (loaded by then: the features import the config module)
        from evalens.core.config import NO_FILE, Tuning

        preference = self.settings.configuration_preference
        file = NO_FILE if preference == "editorOnly" else self.configs.for_file(path)
        self.report_config_errors((*setting_errors, *file.errors))
        return Tuning(
            file, levels, preference if preference in ("filesystemFirst", "editorOnly") else "editorFirst"
        )

    def report_config_errors(self, errors: tuple[str, ...]) -> None:
        """One message per distinct set of configuration problems (the invalid entries are ignored)."""
        if not errors or errors in self._reported:
            return
        self._reported.add(errors)
        text = "evalens: invalid configuration (these entries are ignored):\n" + "\n".join(errors)
        log.warning(text)
        try:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=text))
        except Exception:  # noqa: BLE001 - no client yet (direct calls in tests)
            pass

    def validate_uri(self, uri: str) -> Validation:
        """Validate the document at ``uri``: the open buffer (cached per version), else the file on disk."""
        # lazy: the validation path (pydantic, the formats) loads after the initialize answer (issue 43)
        from evalens.core.validate import Validation, validate_file

        doc = self.open_doc(uri)
        path = uris.path_of(uri) or uri
        if doc is None:
            if path == uri or not uris.is_regular_file(path):  # never open a FIFO or a device
                return Validation(path, None, None, [])
            return validate_file(
                Path(path), self.indexes, self.settings.rule_settings(), self.tuning_for(path)
            )
        return self.validate_snapshot(uri, doc.version, doc.source)

    def validate_snapshot(self, uri: str, version: int | None, source: str) -> Validation:
        """Validate one version of an open document (thread-safe: edits validate off the loop). A version that
        is being validated by another thread is waited for, not validated twice, and a result never replaces
        the cached one of a newer version."""
        k = uris.key(uri)
        path = uris.path_of(uri) or uri
        with self.lock:
            cached = self.validations.get(k)
            if cached is not None and cached[0] == version and version is not None:
                return cached[1]
            running = self._validating.get(k)
            if running is not None and running[0] == version and version is not None:
                waiting: Future[Validation] | None = running[1]
            else:
                waiting = None
                mine: Future[Validation] = Future()
                self._validating[k] = (version, mine)
                self.validated += 1
                previous = cached[1] if cached is not None else None
        if waiting is not None:
            return waiting.result()
        # lazy: as in validate_uri
        from evalens.core.validate import validate_text

        try:
            result = validate_text(
                path,
                source,
                self.indexes,
                self.settings.rule_settings(),
                self.tuning_for(path),
                previous,  # an edit inside one item of a big YAML list re-parses and re-checks that item only
            )
        except BaseException as exc:
            with self.lock:
                self._done_validating(k, mine)
            mine.set_exception(exc)
            raise
        with self.lock:
            current = self.validations.get(k)
            newer = current is not None and _newer(current[0], version)
            if not newer and self.open_doc(uri) is not None:  # closed meanwhile: keep nothing for it
                if current is not None and current[1].case_names() != result.case_names():
                    # case names feed the package index (duplicate checks, the verdicts a package lens counts):
                    # whichever request validates a renaming edit first makes the index see it
                    self.indexes.invalidate(Path(path))
                replaced = [current, self.last_good.get(k)]
                self.validations[k] = (version, result)
                if result.doc is not None and result.doc.ok:
                    self.last_good[k] = result
                self._graveyard.append(replaced)  # freed after the answer is out: a big tree takes ~20 ms
            self._done_validating(k, mine)
        mine.set_result(result)
        return result

    def _done_validating(self, k: str, mine: Future[Validation]) -> None:
        if self._validating.get(k, (None, None))[1] is mine:
            del self._validating[k]

    def cached_validation(self, uri: str) -> Validation | None:
        """The validation last made for the open document at ``uri`` (None if none)."""
        with self.lock:
            hit = self.validations.get(uris.key(uri))
        return hit[1] if hit is not None else None

    def sizes(self) -> dict[str, int]:
        """How much the server keeps per document (``evalens/stats``)."""
        return {
            "openDocuments": len(self.workspace.text_documents),
            "validations": len(self.validations),
            "lastGood": len(self.last_good),
            "diskValidations": len(self.disk_validations),
            "graveyard": len(self._graveyard),
            "validating": len(self._validating),
            "pendingValidations": len(self.pending),
            "validatedTotal": self.validated,
            "indexes": len(self.indexes),
        }

    def free_replaced(self) -> None:
        """Drop replaced validations (called once diagnostics are published)."""
        self._graveyard.clear()

    def validation_for(self, uri: str) -> Validation | None:
        if self.open_doc(uri) is not None:
            return self.validate_uri(uri)
        return self.disk_validations.get(uris.key(uri))

    def forget_validation(self, uri: str) -> None:
        """Make the next look at ``uri`` validate again (what it depends on changed)."""
        with self.lock:
            self.validations.pop(uris.key(uri), None)

    def forget(self, uri: str) -> None:
        """Drop what is kept for a document (on close and save): nothing outlives it."""
        with self.lock:
            self.validations.pop(uris.key(uri), None)
            self.last_good.pop(uris.key(uri), None)
        if self.runs is not None:
            self.runs.forget(uri)


def _newer(a: int | None, b: int | None) -> bool:
    """Whether document version ``a`` is newer than ``b`` (unversioned never counts as newer)."""
    return a is not None and b is not None and a > b


def create_server(lazy: bool = False) -> EvalensServer:
    """Build the server with every feature module registered; ``lazy`` (``evalens lsp``): with the
    placeholders of ``startup.py`` until the first message after ``initialize``, which loads the features."""
    # cycle: startup imports the feature modules, each of which imports evalens.server.server (EvalensServer)
    from evalens.server.startup import install

    server = EvalensServer()
    install(server, lazy)
    return server
