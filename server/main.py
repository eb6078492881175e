"""``evalens lsp``: start the language server on stdio (or TCP for debugging)."""

from __future__ import annotations

import argparse
import logging


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
    from evalens.server.server import create_server

    server = create_server()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return server.exit_code
