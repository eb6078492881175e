"""Initialize / initialized / configuration: settings, file watching and the start-up workspace scan."""

from __future__ import annotations

import asyncio
import gc
import importlib
import threading
import time
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from evalens.core.formats.registry import all_formats
from evalens.core.kinds import published
from evalens.core.validate import iter_candidate_files, validate_file
from evalens.server import uris
from evalens.server.features.diagnostics import publish, revalidate_disk, revalidate_open
from evalens.server.features.run_focus import next_run
from evalens.server.server import EvalensServer, log
from evalens.server.startup import gc_paused
from evalens.server.wire import NOTIFICATIONS, ScanCompleteParams

CLIENT_TIMEOUT = 5.0
"""Seconds to wait for the client to answer a request of ours at start-up; the scan runs regardless."""
INDEX_GLOBS = (
    "**/evals/**",
    "**/hooks/hooks.json",
    "**/agents/**",
    "**/evalens.toml",
    "**/.evalens.toml",
    "**/pyproject.toml",
)
"""What the package index and the rule tuning read besides the file kinds (fixtures, hooks, agents, configs)."""


def watch_globs() -> list[str]:
    """Every file kind (evalens.core.kinds, the published copy: no format module loads on the loop for it)
    plus what cross-file rules and the tuning read."""
    return list(dict.fromkeys([*(k["glob"] for k in published()), *INDEX_GLOBS]))


def load_formats() -> None:
    """Load every format module (and the models they import) in a worker thread, right after the initialize
    answer is written: the answer no longer waits for them (issue 43), and the first document opened after it
    rarely does. Thread-safe: the registry loads under its lock and a model is complete before its module's
    import returns (no model is built on first use, the pydantic race of issue 22)."""
    paused = gc_paused()
    if paused:
        gc.enable()  # the loading's own garbage goes as it is made
    try:
        all_formats()
        for name in AFTER_INITIALIZE:
            importlib.import_module(name)
    except Exception:  # noqa: BLE001 - the first validation loads them again and says what failed
        log.exception("loading the format modules failed")
    finally:
        if paused:
            # What start-up and the loading made (lsprotocol's classes, every model, the rule tables) lives as
            # long as the process: frozen out of the collector, a full collection while serving does not walk it
            # again (0.1 s each), and the interpreter's teardown, which collected it several times over, no
            # longer holds up the exit (0.5 s). Live trees a validation holds meanwhile are acyclic: reference
            # counting still frees them.
            gc.collect()
            gc.freeze()


AFTER_INITIALIZE = (
    "evalens.runner.results",
    "evalens.runner.report",
    "evalens.core.models.run_log",
    "evalens.core.models.cassette",
    "evalens.runner.uplift_words",
)
"""What the run features import on first use (the result, report, run-log and replay models, ~0.1 s; issue 43),
loaded by the same worker after the formats, so the first lens or hover of a verdict rarely waits for them."""


def register(server: EvalensServer) -> None:
    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: EvalensServer, params: types.InitializedParams) -> None:
        if ls.cap("workspace.did_change_watched_files.dynamic_registration", False):
            watchers = [types.FileSystemWatcher(glob_pattern=g) for g in watch_globs()]
            try:
                await asyncio.wait_for(
                    ls.client_register_capability_async(
                        types.RegistrationParams(
                            registrations=[
                                types.Registration(
                                    id="evalens-watch",
                                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                        watchers=watchers
                                    ),
                                )
                            ]
                        )
                    ),
                    CLIENT_TIMEOUT,
                )
            except Exception as exc:  # noqa: BLE001 - a client may refuse or never answer; we work without it
                log.warning("file watching not registered: %s", str(exc) or type(exc).__name__)
        ls.configs.set_roots(workspace_roots(ls))
        before = ls.settings.rules, ls.settings.configuration_preference, ls.settings.skill_profile
        await pull_configuration(ls)
        if (ls.settings.rules, ls.settings.configuration_preference, ls.settings.skill_profile) != before:
            revalidate_open(ls)  # documents opened while the settings were on their way
        threading.Thread(target=scan_workspace, args=(ls,), name="evalens-scan", daemon=True).start()

    @server.feature("evalens/stats")
    def on_stats(ls: EvalensServer, params: object) -> dict[str, int]:
        return stats(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_config(ls: EvalensServer, params: types.DidChangeConfigurationParams) -> None:
        before = next_run(ls.settings)
        ls.report_config_errors(tuple(ls.settings.update(params.settings)))
        await pull_configuration(ls)
        revalidate_open(ls)
        revalidate_disk(ls)
        if next_run(ls.settings) != before and ls.cap("workspace.code_lens.refresh_support", False):
            # the next run's engine, model or judge changed: the lenses' requests re-check every verdict's staleness
            try:
                ls.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001
                log.debug("code lens refresh failed", exc_info=True)


async def pull_configuration(ls: EvalensServer) -> None:
    """Ask for the ``evalens`` section when the client advertises it (others use initializationOptions)."""
    if not ls.cap("workspace.configuration", False):
        return
    try:
        result = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="evalens")])
            ),
            CLIENT_TIMEOUT,
        )
    except TimeoutError:
        log.warning(
            "the client did not answer workspace/configuration within %gs; using defaults", CLIENT_TIMEOUT
        )
        return
    except Exception:  # noqa: BLE001 - clients without workspace/configuration
        return
    ls.settings_changed()
    if result and isinstance(result[0], dict):
        ls.report_config_errors(tuple(ls.settings.update(result[0])))


def workspace_roots(ls: EvalensServer) -> list[str]:
    roots = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if not roots and ls.workspace.root_path:
        roots = [ls.workspace.root_path]
    return [r for r in roots if r]


def scan_workspace(ls: EvalensServer) -> None:
    """Validate every eval file of every workspace folder once at start-up (push diagnostics)."""
    started = time.perf_counter()
    count = 0
    try:
        for root in workspace_roots(ls):
            for path in iter_candidate_files([Path(root)]):
                uri = uris.uri_of(path)
                if not uri or ls.open_doc(uri) is not None:
                    continue
                if not uris.is_regular_file(path):  # never open a FIFO or a device
                    continue
                result = validate_file(
                    path, ls.indexes, ls.settings.rule_settings(), ls.tuning_for(str(path))
                )
                count += 1
                if result.format is None and not result.problems:
                    continue
                with ls.lock:
                    ls.disk_validations[uris.key(uri)] = result
                if result.problems and not ls.client_pulls:
                    publish(ls, uri, result, None)
    except Exception:  # noqa: BLE001 - a scan failure must not take the server down
        log.exception("workspace scan failed")
    elapsed = time.perf_counter() - started
    ls.window_log_message(
        types.LogMessageParams(
            type=types.MessageType.Info, message=f"evalens: validated {count} eval file(s) in {elapsed:.2f}s"
        )
    )
    ls.protocol.notify(
        NOTIFICATIONS["scanComplete"], ScanCompleteParams(files=count, seconds=round(elapsed, 3)).wire()
    )
    if ls.client_pulls and ls.cap("workspace.diagnostics.refresh_support", False):
        try:
            ls.workspace_diagnostic_refresh(None)
        except Exception:  # noqa: BLE001
            pass


def stats(ls: EvalensServer) -> dict[str, int]:
    """Sizes of everything the server keeps per document or request (``evalens/stats``; tests and the
    fuzz benchmark check that none grows without bound)."""
    runs = ls.runs.sizes() if ls.runs is not None else {}  # the run feature always registers in a real server
    return {**ls.sizes(), **ls.protocol.bookkeeping(), **runs}
