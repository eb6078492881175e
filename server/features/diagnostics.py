"""Diagnostics: push on open/change/save for clients that cannot pull, pull for those that can.

Also re-validates open documents when package files appear or vanish (watched files).
"""

from __future__ import annotations

import asyncio
import gc
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from evalens.core.config import CONFIG_NAMES
from evalens.core.index import find_package_root
from evalens.core.validate import validate_file
from evalens.server import uris
from evalens.server.convert import SOURCE, to_diagnostic
from evalens.server.server import EvalensServer, log


def diagnostics_of(ls: EvalensServer, result: Any) -> list[types.Diagnostic]:
    if result is None or result.doc is None:
        lines = [""]
    else:
        lines = result.doc.lines
    extra = ls.runs.diagnostics_for(result.path) if ls.runs is not None and result is not None else []
    uri = from_fs_path(result.path) if result is not None else None
    return [to_diagnostic(p, lines, ls.encoding, uri) for p in (result.problems if result else [])] + extra


def cannot_validate(exc: BaseException) -> types.Diagnostic:
    """The one diagnostic of a document the server failed on: it says why, and old ones do not linger."""
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)),
        message=f"evalens could not validate this file ({type(exc).__name__}: {str(exc)[:300]}).",
        severity=types.DiagnosticSeverity.Error,
        code="internal",
        source=SOURCE,
    )


def publish(ls: EvalensServer, uri: str, result: Any, version: int | None) -> None:
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics_of(ls, result))
    )


def refresh(ls: EvalensServer, uri: str) -> None:
    """Validate an open document and deliver its diagnostics the way the client wants them.

    The cyclic GC stays paused until the diagnostics are sent. ``validate_text`` pauses it too, but the
    collection that its new nodes trigger as soon as it is re-enabled then ran before the publish: about a
    quarter of the change-to-diagnostics time of a 500-task tasks.yaml (py-spy: ``gc_collect_main`` under
    ``validate_uri``). Now it runs after the client has its diagnostics."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            on_validated(ls, uri, ls.validate_uri(uri))
        except Exception as exc:  # noqa: BLE001 - never let one bad document kill the server
            log.exception("validation failed for %s", uri)
            if not ls.client_pulls:
                doc = ls.open_doc(uri)
                ls.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(
                        uri=doc.uri if doc else uri,
                        version=doc.version if doc else None,
                        diagnostics=[cannot_validate(exc)],
                    )
                )
    finally:
        if enabled:
            gc.enable()
        _free_later(ls)  # replaced trees (kept by validate_uri until now) go after the publish


def on_validated(ls: EvalensServer, uri: str, result: Any) -> None:
    if not ls.client_pulls:
        doc = ls.open_doc(uri)
        publish(ls, doc.uri if doc else uri, result, doc.version if doc else None)


def revalidate_open(ls: EvalensServer, except_uri: str | None = None, root: Path | None = None) -> None:
    """Re-validate open documents: all of them, or (``root``) only those of one package, the only ones
    whose cross-file checks can see an edit there (a case ``name:`` feeds its package's duplicate check)."""
    skip = uris.key(except_uri) if except_uri else None
    changed = False
    for uri in ls.open_uris():
        if uris.key(uri) == skip:
            continue
        if root is not None:
            path = uris.path_of(uri)
            if not path or find_package_root(Path(path)) != root:
                continue
        before = _problem_keys(ls.cached_validation(uri))
        ls.forget_validation(uri)
        refresh(ls, uri)
        changed |= _problem_keys(ls.cached_validation(uri)) != before
    if ls.client_pulls and ls.cap("workspace.diagnostics.refresh_support", False):
        ls.workspace_diagnostic_refresh(None)
    if changed and ls.cap("workspace.code_lens.refresh_support", False):
        # the "✗ N errors" lens counts these problems; the editor re-asks for lenses only on its own edits,
        # so a fix elsewhere (a created fixture) left the old count until the next keystroke
        ls.workspace_code_lens_refresh(None)


def _problem_keys(result: Any) -> list[tuple]:
    return [(p.code, p.severity, p.span) for p in result.problems] if result is not None else []


def revalidate_disk(ls: EvalensServer) -> None:
    """Re-validate the unopened files of the start-up scan (rule levels changed), off the event loop."""
    threading.Thread(target=_revalidate_disk, args=(ls,), name="evalens-rescan", daemon=True).start()


def _revalidate_disk(ls: EvalensServer) -> None:
    with ls.lock:
        known = list(ls.disk_validations.items())
    for key, old in known:
        path, uri = old.path, uris.uri_of(old.path)
        if not uri or ls.open_doc(key) is not None or not uris.is_regular_file(path):
            continue
        try:
            result = validate_file(Path(path), ls.indexes, ls.settings.rule_settings(), ls.tuning_for(path))
        except Exception:  # noqa: BLE001 - one bad file must not stop the others
            log.exception("re-validation failed for %s", path)
            continue
        with ls.lock:
            ls.disk_validations[key] = result
        if not ls.client_pulls:
            publish(ls, uri, result, None)
    if ls.client_pulls and ls.cap("workspace.diagnostics.refresh_support", False):
        ls.workspace_diagnostic_refresh(None)


def watch_closed(ls: EvalensServer, uri: str) -> None:
    """A closed file goes back into the workspace pull, off the event loop. did_open took it out; left out, a
    pulling editor kept the problems (and verdicts) it last pulled for it, never cleared by a fix or a re-run."""
    threading.Thread(target=_watch_closed, args=(ls, uri), name="evalens-closed", daemon=True).start()


def _watch_closed(ls: EvalensServer, uri: str) -> None:
    path = uris.path_of(uri)
    if not path or not uris.is_regular_file(path):
        return
    try:
        result = validate_file(Path(path), ls.indexes, ls.settings.rule_settings(), ls.tuning_for(path))
    except Exception:  # noqa: BLE001 - a file that cannot be read is not reported
        log.exception("re-validation failed for %s", path)
        return
    if result.format is None and not result.problems:
        return  # not an eval file: the start-up scan would not have kept it either
    with ls.lock:
        if ls.open_doc(uri) is not None:
            return  # opened again meanwhile: the document pull has it
        ls.disk_validations[uris.key(uri)] = result
    if ls.cap("workspace.diagnostics.refresh_support", False):
        ls.workspace_diagnostic_refresh(None)


def validate_soon(ls: EvalensServer, uri: str) -> None:
    """Validate an edited document off the loop, on a snapshot of its newest version, with no fixed delay
    (issue 43): an edit after a pause validates at once. Edits that arrive while a validation runs are
    coalesced: the running one finishes, is not published when a newer version came meanwhile, and one more
    validation takes the newest (ruff's snapshot model: typing in a 6,500-line tasks.yaml never holds up a hover
    or a completion, and never queues one validation per keystroke)."""
    key = uris.key(uri)
    running = ls.pending.get(key)
    if running is not None and not running.done():
        return  # it validates the newest version before it ends
    old_names = _case_names(ls.cached_validation(uri))
    task = asyncio.get_running_loop().create_task(_validate_changed(ls, uri, old_names))
    ls.pending[key] = task
    task.add_done_callback(lambda t: ls.pending.pop(key, None) if ls.pending.get(key) is t else None)


async def _validate_changed(ls: EvalensServer, uri: str, old_names: tuple[str, ...]) -> None:
    """Validate the newest version until no newer one came while validating, then publish that one."""
    while True:
        doc = ls.open_doc(uri)
        if doc is None:
            return
        version, source = doc.version, doc.source
        failed: Exception | None = None
        try:
            result = await ls.off_loop(_validate_if_newest, ls, uri, version, source)
            if result is None:
                continue  # overtaken before its thread started: take the newest
        except Exception as exc:  # noqa: BLE001 - never let one bad document kill the server
            log.exception("validation failed for %s", uri)
            result, failed = None, exc
        doc = ls.open_doc(uri)
        if doc is None:
            return
        if doc.version == version:
            break
        # edited while it ran: its diagnostics are out of date, the newest version is validated next
    if failed is not None:
        if not ls.client_pulls:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=doc.uri, version=version, diagnostics=[cannot_validate(failed)]
                )
            )
        return
    on_validated(ls, uri, result)
    _free_later(ls)
    path = uris.path_of(uri)
    if path and result is not None and _case_names(result) != old_names:
        ls.indexes.invalidate(Path(path))  # case names feed duplicate checks in sibling files
        root = find_package_root(Path(path))
        if root is not None:
            revalidate_open(ls, except_uri=uri, root=root)
        if ls.cap("workspace.code_lens.refresh_support", False):
            ls.workspace_code_lens_refresh(None)  # a package's lens counts its cases' verdicts by name


def _validate_if_newest(ls: EvalensServer, uri: str, version: int | None, source: str) -> Any:
    """Validate the snapshot in a worker thread, unless a newer version of the document came meanwhile."""
    doc = ls.open_doc(uri)
    if doc is None or doc.version != version:
        return None
    return ls.validate_snapshot(uri, version, source)


async def settled(ls: EvalensServer, uri: str) -> None:
    """Wait for the pending validation of an edit of ``uri`` (if any), so a request answers from it instead
    of validating the same version again; a cancelled one (a newer edit came) is not waited on."""
    task = ls.pending.get(uris.key(uri))
    if task is not None and not task.done():
        await asyncio.wait([task])


def _case_names(result: Any) -> tuple[str, ...]:
    return result.case_names() if result is not None else ()


def _pulled(ls: EvalensServer, uri: str) -> Any:
    """The validation a pull reports (blocking): the open document's, the scanned file's, or the file on disk
    if it is a regular file."""
    result = ls.validation_for(uri)
    return result if result is not None else ls.validate_uri(uri)


def _free_later(ls: EvalensServer) -> None:
    """Free replaced document trees after the diagnostics went out, not before."""
    try:
        asyncio.get_running_loop().call_soon(ls.free_replaced)
    except RuntimeError:
        ls.free_replaced()


def register(server: EvalensServer) -> None:
    """The document lifecycle (open, change, save, close) pushes or prepares diagnostics."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: EvalensServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.disk_validations.pop(uris.key(uri), None)
        refresh(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: EvalensServer, params: types.DidChangeTextDocumentParams) -> None:
        validate_soon(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: EvalensServer, params: types.DidSaveTextDocumentParams) -> None:
        path = uris.path_of(params.text_document.uri)
        if path:
            ls.indexes.invalidate(Path(path))
        ls.forget(params.text_document.uri)
        refresh(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: EvalensServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.forget(uri)
        if not ls.client_pulls:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        else:
            watch_closed(ls, uri)

    _register_watch_and_pull(server)


def _register_watch_and_pull(server: EvalensServer) -> None:
    """Files changed outside the editor, and the pull model's document and workspace reports."""

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: EvalensServer, params: types.DidChangeWatchedFilesParams) -> None:
        config_changed = False
        for change in params.changes:
            path = uris.path_of(change.uri)
            if path:
                ls.indexes.invalidate(Path(path))
                config_changed |= Path(path).name in CONFIG_NAMES
            if change.type == types.FileChangeType.Deleted:
                ls.disk_validations.pop(uris.key(change.uri), None)
        ls.configs.forget()  # a config file may have appeared or vanished
        revalidate_open(ls)
        if config_changed:
            revalidate_disk(ls)

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="evalens", inter_file_dependencies=True, workspace_diagnostics=True
        ),
    )
    async def pull(
        ls: EvalensServer, params: types.DocumentDiagnosticParams
    ) -> types.FullDocumentDiagnosticReport:
        uri = params.text_document.uri
        await settled(ls, uri)
        try:
            result = await ls.off_loop(_pulled, ls, uri)
            return types.FullDocumentDiagnosticReport(items=diagnostics_of(ls, result) if result else [])
        except Exception as exc:  # noqa: BLE001 - one diagnostic saying why beats an error response
            log.exception("validation failed for %s", uri)
            return types.FullDocumentDiagnosticReport(items=[cannot_validate(exc)])
        finally:
            _free_later(ls)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    def pull_workspace(
        ls: EvalensServer, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        items: list[types.WorkspaceDocumentDiagnosticReport] = []
        with ls.lock:
            disk = dict(ls.disk_validations)
        for key, result in disk.items():
            uri = uris.uri_of(result.path)
            if uri is None or ls.open_doc(key) is not None:
                continue
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, version=None, items=diagnostics_of(ls, result)
                )
            )
        return types.WorkspaceDiagnosticReport(items=items)
