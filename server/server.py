"""The evalens language server: state shared by the feature modules, nothing feature-specific.

Handlers live in ``features/<feature>.py``; each is thin and reads the one ``Validation`` the store keeps
per open document version.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.server import uris
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer

from evalens import __version__

log = logging.getLogger("evalens.server")


@dataclass
class Settings:
    """User settings (initializationOptions + workspace/configuration section ``evalens``)."""

    engine: str | None = None
    judge: str | None = None
    timeout: float | None = None
    max_parallel_runs: int = 2
    keep_sandbox: bool = False
    api_key_env_vars: list[str] = field(default_factory=list)
    skill_profile: str = "auto"  # auto: by context (plugin, .claude/skills, UAAPS package); or a profile name
    code_lens: bool = True
    rules: dict[str, str] | None = None  # rule code (or glob) -> level, over the config files
    configuration_preference: str = "editorFirst"  # or filesystemFirst / editorOnly, as in ruff's server

    def update(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            return
        raw = raw.get("evalens", raw)
        if not isinstance(raw, dict):
            return
        mapping = {"engine": "engine", "judge": "judge", "timeout": "timeout",
                   "maxParallelRuns": "max_parallel_runs", "keepSandbox": "keep_sandbox",
                   "apiKeyEnvVars": "api_key_env_vars", "skillProfile": "skill_profile", "codeLens": "code_lens",
                   "rules": "rules", "configurationPreference": "configuration_preference"}
        defaults = Settings()
        for key, attr in mapping.items():
            if key in raw:  # null means "back to the default" (e.g. use the eval config's engine again)
                setattr(self, attr, getattr(defaults, attr) if raw[key] is None else raw[key])

    def rule_settings(self) -> dict[str, Any]:
        return {"skillProfile": self.skill_profile}

    def rule_overrides(self) -> tuple[Any, list[str]]:
        """The ``rules`` setting as parsed levels, and what was wrong with it."""
        from evalens.core.config import PREFERENCES, editor_levels

        errors: list[str] = []
        levels = editor_levels(self.rules, errors)
        if self.configuration_preference not in PREFERENCES:
            errors.append(f"evalens.configurationPreference must be one of {', '.join(PREFERENCES)}, not "
                          f"{self.configuration_preference!r}.")
        return levels, errors


class EvalensServer(LanguageServer):
    """pygls server plus evalens state: validations per document and the package indexes."""

    def __init__(self) -> None:
        from evalens.server.protocol import EvalensProtocol

        super().__init__("evalens", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=EvalensProtocol)
        self.exit_code = 1
        from evalens.core.config import ConfigCache
        from evalens.core.index import IndexCache

        self.settings = Settings()
        self.indexes = IndexCache(self.read_text)
        self.configs = ConfigCache(ttl=5.0)  # stop_at: the workspace folders, set once they are known
        self._overrides: tuple[Any, list[str]] | None = None  # parsed ``rules`` setting (None: re-parse)
        self._reported: set[tuple[str, ...]] = set()
        self.validations: dict[str, Any] = {}  # uris.key -> (version, Validation) of open documents
        self.last_good: dict[str, Any] = {}  # uris.key -> last Validation whose document parsed
        self.disk_validations: dict[str, Any] = {}  # uris.key -> Validation of unopened files (start-up scan)
        self.lock = threading.RLock()
        self._graveyard: list[Any] = []
        self.runs: Any = None  # set by features.run (the "Run eval" machinery)

    # ----------------------------------------------------------------------------------- process
    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve on stdio with the tolerant framing of ``transport``; ``exit_code`` follows the LSP rules
        (0 after ``shutdown``, else 1)."""
        import asyncio
        import sys

        from evalens.server.protocol import serve
        from pygls.io_ import StdoutWriter

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
        import asyncio

        from evalens.server.protocol import serve

        self._stop_event = threading.Event()

        async def main() -> int:
            done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

            async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                self.protocol.set_writer(writer)  # type: ignore[arg-type]
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
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)

    # ----------------------------------------------------------------------------------- documents
    def open_doc(self, uri: str) -> Any:
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

    def tuning_for(self, path: str) -> Any:
        """The rule tuning of a file: its nearest config file (cached by mtime) and the ``rules`` setting."""
        from evalens.core.config import NO_FILE, Tuning

        if self._overrides is None:
            self._overrides = self.settings.rule_overrides()
        levels, setting_errors = self._overrides
        preference = self.settings.configuration_preference
        file = NO_FILE if preference == "editorOnly" else self.configs.for_file(path)
        self.report_config_errors((*setting_errors, *file.errors))
        return Tuning(file, levels, preference if preference in ("filesystemFirst", "editorOnly") else "editorFirst")

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

    def validate_uri(self, uri: str) -> Any:
        """Validate the document at ``uri``: the open buffer (cached per version), else the file on disk."""
        from evalens.core.validate import Validation, validate_file, validate_text

        doc = self.open_doc(uri)
        path = uris.path_of(uri) or uri
        if doc is None:
            if path == uri or not uris.is_regular_file(path):  # never open a FIFO or a device
                return Validation(path, None, None, [])
            return validate_file(Path(path), self.indexes, self.settings.rule_settings(), self.tuning_for(path))
        k = uris.key(uri)
        with self.lock:
            cached = self.validations.get(k)
            if cached is not None and cached[0] == doc.version and doc.version is not None:
                return cached[1]
        result = validate_text(path, doc.source, self.indexes, self.settings.rule_settings(), self.tuning_for(path))
        with self.lock:
            replaced = [self.validations.get(k), self.last_good.get(k)]
            self.validations[k] = (doc.version, result)
            if result.doc is not None and result.doc.ok:
                self.last_good[k] = result
        self._graveyard.append(replaced)  # freed after the answer is out: a big tree takes ~20 ms to free
        return result

    def cached_validation(self, uri: str) -> Any:
        """The validation last made for the open document at ``uri`` (None if none)."""
        with self.lock:
            hit = self.validations.get(uris.key(uri))
        return hit[1] if hit is not None else None

    def free_replaced(self) -> None:
        """Drop replaced validations (called once diagnostics are published)."""
        self._graveyard.clear()

    def validation_for(self, uri: str) -> Any:
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


def create_server() -> EvalensServer:
    """Build the server with every feature module registered."""
    from evalens.server.features import (
        code_actions,
        code_lens,
        completion,
        definition,
        diagnostics,
        hover,
        lifecycle,
        run_view,
        symbols,
    )

    server = EvalensServer()
    for module in (lifecycle, diagnostics, completion, hover, definition, symbols, code_actions, code_lens, run_view):
        module.register(server)
    return server
