"""``evalens lsp``: start the language server on stdio (or TCP for debugging)."""

from __future__ import annotations

import argparse
import gc
import logging


class _BenignRaces(logging.Filter):
    """A ``$/cancelRequest`` for a request that was already answered is the editor being late, not a fault
    (VS Code cancels superseded code-lens requests after every run); pygls warns about it, we log it at debug."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and str(record.msg).startswith(
            "Cancel notification for unknown"
        ):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


def _log_to_stderr() -> None:
    """Warnings and errors to stderr as ``LEVEL logger: message``, without a timestamp: editors add their own
    (the VS Code extension maps the level to its log channel's level)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_BenignRaces())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalens lsp", description=__doc__)
    parser.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2087)
    parser.add_argument("--log-file", help="write the server log here")
    args = parser.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
        for handler in logging.getLogger().handlers:
            handler.addFilter(_BenignRaces())
    else:
        _log_to_stderr()
    # Start-up (lsprotocol's ~600 classes, the models, the rule tables) ran ~150 collections of the cyclic GC,
    # ~30 ms before the initialize answer (issue 43): the collector stays off until the format loader, after the
    # answer, has collected once and frozen what start-up made (startup.resume_gc_after_loading)
    gc.disable()
    # lazy: the server (pygls, lsprotocol) costs ~0.3 s; `evalens lsp --help` and a bad flag answer without it
    from evalens.server.server import create_server

    # the feature modules load after the initialize answer (server/startup.py)
    server = create_server(lazy=True)
    # lazy: as create_server above
    from evalens.server.startup import finish_loading, resume_gc_after_loading

    resume_gc_after_loading()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()

    finish_loading()
    return server.exit_code
