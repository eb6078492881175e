"""Commands that run agents or write files act only inside the workspace folders (issue 28 B7).

A client (or a document it made up) could otherwise have ``evalens.runCase`` run an agent on a package anywhere
on disk, or ``createFile`` / ``newCase`` write beside any file. With no workspace folder at all (a single file
opened on its own) there is no boundary to enforce and nothing is refused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evalens.server.features.lifecycle import workspace_roots
from evalens.server.features.run_state import CommandRefused


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def outside_reason(ls: Any, path: str | Path) -> str | None:
    """Why ``path`` (links resolved) is outside every workspace folder, or None when it is inside one."""
    roots = [os.path.realpath(r) for r in workspace_roots(ls)]
    if not roots:
        return None
    real = os.path.realpath(path)
    if any(_inside(real, root) for root in roots):
        return None
    return f"{path} is outside the workspace folders ({', '.join(roots)})"


def require_inside(ls: Any, path: str | Path, command: str) -> None:
    """Raise :class:`CommandRefused` (one line the editor shows) when ``path`` is outside the workspace."""
    why = outside_reason(ls, path)
    if why is not None:
        raise CommandRefused(
            f"{command} refused: {why}; evalens runs agents and writes files only inside them"
        )
