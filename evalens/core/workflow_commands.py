"""Text that reaches a GitHub Actions log, made inert for the runner's command parser.

The runner parses every line a step prints on stdout or stderr: a line whose text, after leading whitespace, starts
with ``::`` is a workflow command (``::error file=…::``, ``::stop-commands::TOKEN``), and the legacy parser
takes ``##[`` anywhere in a line. A judge's reason, an agent's output, a case name or a file name is text a pull
request can steer, so everything evalens prints in CI goes through :func:`escape` first (GitHub Docs, "Workflow
commands for GitHub Actions"; actions/runner ``ActionCommand.TryParseV2`` trims leading whitespace).
"""

from __future__ import annotations

import os
import re

from evalens.core.terminal_text import for_terminal

_LEADING_COMMAND = re.compile(r"^(\s*):(?=:)")


def in_actions(env: dict[str, str] | None = None) -> bool:
    """Whether this process runs inside a GitHub Actions step (whose output the runner parses)."""
    return (env if env is not None else os.environ).get("GITHUB_ACTIONS") == "true"


def escape(text: object, *, prop: bool = False) -> str:
    """``text`` as one line no command parser reads as a command.

    ``%`` → ``%25``, CR → ``%0D``, LF → ``%0A`` (the runner's own data escaping, so an annotation message shows
    the original text); a ``::`` that would open the line becomes ``%3A:`` and ``##[`` becomes ``##%5B``.
    ``prop=True`` is for a command's property values (``file=``, ``title=``): ``:`` and ``,`` escaped too."""
    out = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        return out.replace(":", "%3A").replace(",", "%2C")
    return _LEADING_COMMAND.sub(r"\1%3A", out).replace("##[", "##%5B")


def shown(text: object, env: dict[str, str] | None = None, *, ci: bool | None = None) -> str:
    """Free text printed to a log: terminal controls (ESC, OSC, CSI, bidi overrides) made visible, and inside
    GitHub Actions (``ci``; default: this process's environment) escaped for the command parser too; elsewhere
    line breaks and percent signs stay."""
    return escape(for_terminal(text)) if (in_actions(env) if ci is None else ci) else for_terminal(text)
