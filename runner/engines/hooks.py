"""The hook protocol Claude Code and Codex share: which hook events can deny a tool call, how a hook run says
it denied one, and the hook runs the Codex shim records in files (read by the record, the live view and the
verdict alike)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalens.core.documents import sub_dict

BLOCKING_EVENTS = (
    "PreToolUse",
    "PermissionRequest",
)  # hook events that can deny a tool call; PostToolUse cannot


def hook_denial(event: str, exit_code: Any, stdout: Any, stderr: Any) -> str | None:
    """Why a hook run denied a tool call, or None. Only events that can deny count (a PostToolUse hook exiting
    2 blocks nothing: the tool already ran): exit status 2, or a JSON decision ``permissionDecision: deny`` /
    ``decision: block`` on stdout (the hook protocol Claude Code and Codex share)."""
    if event not in BLOCKING_EVENTS:
        return None
    if exit_code == 2:
        return str(stderr or "").strip()[:300] or "hook exited with status 2"
    try:
        decision = json.loads(str(stdout or "").strip() or "null")
    except ValueError:
        return None
    if not isinstance(decision, dict):
        return None
    specific = sub_dict(decision, "hookSpecificOutput")
    request = sub_dict(specific, "decision")  # PermissionRequest
    if (
        specific.get("permissionDecision") == "deny"
        or decision.get("decision") == "block"
        or request.get("behavior") == "deny"
    ):
        why = specific.get("permissionDecisionReason") or decision.get("reason") or request.get("message")
        return str(why or "the hook denied the tool call")[:300]
    return None


@dataclass(frozen=True)
class HookFile:
    """One hook run the shim recorded as ``<name>.event/.out/.err`` and, last, ``<name>.rc``; the name starts
    with the run's start time in nanoseconds, so names sort oldest first."""

    name: str
    event: str  # as recorded ("" when the shim wrote none)
    code: int
    stdout: str
    stderr: str


def read_hook_file(folder: Path, name: str, limit: int | None = None) -> HookFile | None:
    """The hook run ``name`` in ``folder``, each part up to ``limit`` characters; None while its exit code is
    not (fully) written."""

    def read(suffix: str) -> str:
        try:
            with open(folder / f"{name}{suffix}", encoding="utf-8", errors="replace") as fh:
                return fh.read(-1 if limit is None else limit)
        except OSError:
            return ""

    try:
        code = int(read(".rc").strip())
    except ValueError:
        return None
    return HookFile(name, read(".event").strip(), code, read(".out"), read(".err"))


def hook_file_names(folder: Path) -> list[str]:
    """The hook runs recorded in ``folder`` (those with an exit code), oldest first."""
    try:
        return sorted(p.name[: -len(".rc")] for p in folder.glob("*.rc")) if folder.is_dir() else []
    except OSError:
        return []


def hook_denials(records: Path) -> list[str]:
    """Denials recorded by the hook shim, oldest first, as readable reasons."""
    out: list[str] = []
    for name in hook_file_names(records):
        hook = read_hook_file(records, name)
        reason = hook_denial(hook.event, hook.code, hook.stdout, hook.stderr) if hook is not None else None
        if hook is not None and reason is not None:
            out.append(f"{hook.event} hook: {reason}")
    return out
