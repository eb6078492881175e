"""What ``evalens lsp`` does before its ``initialize`` answer, and nothing more (issue 43).

The answer carries the server's capabilities, which pygls computes from the registered features, their
options and the command names. Importing the feature modules to register them costs pydantic, the wire
models, the validation path and the formats (~0.15 s, a third of the start); so the process that serves an
editor registers placeholders read from ``capabilities.json``, the features' names, options and commands as
the real registration makes them, and answers. A worker thread then imports the feature modules
(``load``); the first message after ``initialize`` waits for it on the loop and registers the real handlers
in place of the placeholders (``activate``), so no handler ever runs before its module is loaded and every
message is handled in the order it came. ``tests/server/test_start_up.py`` holds the manifest to the live
registration, the two servers' answers to each other and the answer's path to its modules.

``create_server()`` (tests, in process) registers every feature at once, as before.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from evalens.server.server import EvalensServer

log = logging.getLogger("evalens.server")

FEATURE_MODULES = tuple(
    f"evalens.server.features.{name}"
    for name in (
        "lifecycle",
        "diagnostics",
        "completion",
        "hover",
        "definition",
        "symbols",
        "code_actions",
        "code_lens",
        "run_view",
        "new_case",
        "optimize_description",
    )
)
"""Every feature module, in the order they register (a command's place in the answer's list follows it)."""

MANIFEST = Path(__file__).with_name("capabilities.json")
"""The features' names and options and the command names (``python -m evalens.server.startup`` writes it)."""

LOAD_TIMEOUT = 60.0
"""Seconds the first message after ``initialize`` waits for the feature modules before importing them itself."""

_LOADERS: list[threading.Thread] = []
"""The loader started after ``initialize`` (at most one per server)."""

_GC_PAUSED = threading.Event()


def resume_gc_after_loading() -> None:
    """``evalens lsp`` turned the cyclic GC off for its start-up (issue 43); the format loader, which runs after
    the initialize answer, turns it back on, and once the formats are loaded collects once and freezes what is
    left (``lifecycle.load_formats``)."""
    _GC_PAUSED.set()


# ------------------------------------------------------------------------------------ the manifest
def record(server: EvalensServer) -> dict[str, Any]:
    """What the feature modules registered on ``server``: every feature with its options (as JSON, with the
    options' type) and every command, in registration order; the initialize handler is this module's own."""
    fm = server.protocol.fm
    converter = fm.converter
    features: dict[str, Any] = {}
    for method in fm.features:
        if method == types.INITIALIZE:
            continue
        options = fm.feature_options.get(method)
        features[method] = (
            None
            if options is None
            else {"type": type(options).__name__, "value": converter.unstructure(options)}
        )
    return {"features": features, "commands": list(fm.commands)}


def full_record() -> dict[str, Any]:
    """The manifest as the feature modules make it today (an eager server's registration)."""
    # cycle: evalens.server.server imports this module in create_server
    from evalens.server.server import create_server

    return record(create_server())


def write_manifest() -> None:
    MANIFEST.write_text(json.dumps(full_record(), indent=1) + "\n", encoding="utf-8")


def read_manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return data


# ------------------------------------------------------------------------------------ installing
class Startup:
    """The placeholders a lazy server answers ``initialize`` with, and their replacement by the real
    features (once, on the loop, before the first message after ``initialize`` is handled)."""

    def __init__(self, server: EvalensServer, lazy: bool) -> None:
        self.server = server
        self.active = False
        self.imported = threading.Event()
        self.loading = False  # the loader thread was started
        self.manifest: dict[str, Any] | None = None

        def on_initialize(ls: Any, params: types.InitializeParams) -> None:
            self.on_initialize(ls, params)

        server.feature(types.INITIALIZE)(on_initialize)
        if not lazy:
            self.activate()
            return
        self.manifest = read_manifest()
        fm = server.protocol.fm
        for method, spec in self.manifest["features"].items():
            options = (
                None if spec is None else fm.converter.structure(spec["value"], getattr(types, spec["type"]))
            )
            server.feature(method, options)(_placeholder(method))
        for name in self.manifest["commands"]:
            server.command(name)(_placeholder(name))
        server.protocol.before_handling = self.activate

    def on_initialize(self, ls: EvalensServer, params: types.InitializeParams) -> None:
        info = params.client_info
        ls.editor = (info.name, info.version or "") if info is not None else ("", "")
        ls.initial_options = params.initialization_options
        if self.active:
            self.apply_options()
        # after this callback: the initialize answer is written first
        asyncio.get_running_loop().call_soon(self.start_loading)

    def apply_options(self) -> None:
        ls = self.server
        ls.settings_changed()
        ls.report_config_errors(tuple(ls.settings.update(ls.initial_options)))

    def start_loading(self) -> None:
        self.loading = True
        thread = threading.Thread(target=self.load, name="evalens-formats", daemon=True)
        _LOADERS.append(thread)
        thread.start()

    def load(self) -> None:
        """The worker thread: the feature modules first (the next message waits for them), then the formats
        and the run models (``lifecycle.load_formats``)."""
        try:
            for name in FEATURE_MODULES:
                importlib.import_module(name)
        except Exception:  # noqa: BLE001 - activate imports them again on the loop and says what failed
            log.exception("loading the feature modules failed")
        finally:
            self.imported.set()
        # lazy: the format loader lives with the other start-up work, in the features' lifecycle module
        from evalens.server.features.lifecycle import load_formats

        load_formats()

    def activate(self) -> None:
        """Register the real features (the placeholders' replacement) and apply the initialization options."""
        if self.active:
            return
        self.active = True
        ls = self.server
        ls.protocol.before_handling = None
        if self.manifest is not None:
            if self.loading:  # else (no loader yet) the loop imports them itself, below
                self.imported.wait(LOAD_TIMEOUT)
            fm = ls.protocol.fm
            for method in self.manifest["features"]:
                fm.features.pop(method, None)
                fm.feature_options.pop(method, None)
            for name in self.manifest["commands"]:
                fm.commands.pop(name, None)
        for name in FEATURE_MODULES:
            importlib.import_module(name).register(ls)
        if self.manifest is not None:
            self.apply_options()


def _placeholder(name: str) -> Any:
    def placeholder(ls: Any, *args: Any) -> None:
        raise RuntimeError(f"{name} reached its start-up placeholder: the features were not activated")

    return placeholder


def install(server: EvalensServer, lazy: bool) -> Startup:
    return Startup(server, lazy)


def finish_loading(timeout: float = 10.0) -> None:
    """Wait for the loader before the process exits. Why: a daemon thread still importing modules while the
    interpreter finalises aborts the process (SIGABRT, exit -6), and an editor that sends ``exit`` right after
    ``initialize`` saw that instead of the exit code LSP asks for."""
    for thread in _LOADERS:
        thread.join(timeout)


def gc_paused() -> bool:
    """Whether start-up asked the loader to turn the collector back on (and clears the ask)."""
    paused = _GC_PAUSED.is_set()
    _GC_PAUSED.clear()
    return paused


if __name__ == "__main__":
    write_manifest()
