"""A reader of a step's log as the GitHub runner reads it (actions/runner ``ActionCommandManager``): a line
whose text after leading whitespace starts with ``::`` is a command, a legacy ``##[command]`` is found anywhere
in a line, and ``::stop-commands::TOKEN`` turns parsing off until a line ``::TOKEN::``."""

from __future__ import annotations

import re

COMMANDS = {
    "error",
    "warning",
    "notice",
    "debug",
    "group",
    "endgroup",
    "add-mask",
    "set-output",
    "save-state",
    "add-path",
    "set-env",
    "echo",
    "add-matcher",
    "remove-matcher",
    "stop-commands",
}
_V2 = re.compile(r"^::([A-Za-z-]+)(?: ([^:]*))?::(.*)$")
_V1 = re.compile(r"##\[([A-Za-z-]+)(?: [^\]]*)?\](.*)")


def commands(log: str) -> list[tuple[str, str]]:
    """``(command, data)`` for every line the runner would act on, in order."""
    out: list[tuple[str, str]] = []
    stopped: str | None = None
    for raw in log.splitlines():
        line = raw.lstrip()
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        m = _V2.match(line)
        if m and m.group(1).lower() in COMMANDS:
            if m.group(1).lower() == "stop-commands":
                stopped = m.group(3)
            out.append((m.group(1).lower(), m.group(3)))
            continue
        legacy = _V1.search(raw)
        if legacy and legacy.group(1).lower() in COMMANDS:
            out.append((legacy.group(1).lower(), legacy.group(2)))
    return out
