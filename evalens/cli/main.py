"""The ``evalens`` command line: a thin dispatcher; each subcommand imports its module lazily.

Start-up time matters (editors spawn ``evalens lsp``), so nothing heavy is imported here.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import cast

from evalens import __version__
from evalens.runner.interrupts import Interrupted, caught, check, install

USAGE = """usage: evalens <command> [options]

commands:
  lsp                      start the language server on stdio
  validate PATH...         validate eval files or folders (path:line:col: severity: message)
  schema [--export DIR]    list the bundled JSON Schemas or write them to DIR
  run [PATH...]            run evals of any format: a UAAPS package or its cases, or an eval file (run --help)
  compare BASE NEW         verdict changes between two reports; --test paired: is a drop real?
  rejudge REPORT           judge a finished batch's transcripts again
  resume DIR               finish a batch that was cut short (killed, interrupted)
  eval [CASE...]           deprecated: `evalens run` with the same options
  report merge|ci|split    merge shard reports, write CI outputs from a report, show a shard split
  doctor [--json]          check what running evals needs: agent CLIs, keys, judge SDKs, sandbox, temp space
  show [REPORT] [UNIT]     what the agent did: turns, tool calls, files and diffs, tokens, cost (--html -o FILE)
  triggers optimize DIR    propose a skill description that triggers better, accepted only on held-out proof
  triggers suggest DIR     propose new should / should-not trigger queries, as a diff to review
"""


EXIT_BROKEN_PIPE = 141  # what a shell reports for a writer stopped by SIGPIPE (`evalens validate … | head`)


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch; a closed stdout (``| head``) or Ctrl-C ends the command quietly, without a traceback."""
    for stream in (sys.stdout, sys.stderr):  # text from a file (a lone surrogate) must print, not raise
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        code = _dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print("evalens: interrupted", file=sys.stderr)
        return 130


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not report the broken pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# Each command's module, imported only when that command runs (see _command).
COMMANDS = {
    "lsp": "evalens.server.main",
    "validate": "evalens.cli.validate",
    "schema": "evalens.cli.schema",
    "eval": "evalens.cli.eval",
    "run": "evalens.cli.run",
    "compare": "evalens.cli.verbs:compare",
    "rejudge": "evalens.cli.verbs:rejudge",
    "resume": "evalens.cli.verbs:resume",
    "report": "evalens.cli.report",
    "show": "evalens.cli.show",
    "triggers": "evalens.cli.triggers",
    "doctor": "evalens.cli.doctor",
}


def _command(command: str) -> Callable[[list[str]], int]:
    """The ``main`` of one command's module: the one place a command's code is loaded."""
    # lazy: `evalens --help` stays at the interpreter's start (0.1 s) and `evalens validate` loads no runner,
    # server or judge SDK: evalens.runner.api costs 0.6 s, evalens.server.main (pygls) 1 s, anthropic 2-3 s
    module_name, _, function = COMMANDS[command].partition(":")
    module = importlib.import_module(module_name)
    return cast("Callable[[list[str]], int]", getattr(module, function or "main"))


def _dispatch(args: list[str]) -> int:
    if not args or args[0] in {"-h", "--help", "help"}:
        print(USAGE, end="")
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command in {"--version", "-V"}:
        print(f"evalens {__version__}")
        return 0
    if command in {"eval", "run", "rejudge", "resume"}:
        return _run_command(command, rest)
    if command in COMMANDS:
        return _command(command)(rest)
    print(f"evalens: unknown command {command!r}\n\n{USAGE}", file=sys.stderr, end="")
    return 2


def _run_command(command: str, rest: list[str]) -> int:
    """``run`` (and ``eval``, ``rejudge``, ``resume``): a signal at any moment ends them with one line and the conventional 128+n."""
    install()
    try:
        code = _command(command)(rest)
        check()  # a signal swallowed where nothing could catch it still ends the command as interrupted
        return code
    except Interrupted as exc:
        caught()
        print(f"evalens {command}: interrupted", file=sys.stderr)
        return exc.exit_code
