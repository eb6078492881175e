"""Files the agent created, changed or deleted, with unified diffs against the workspace as it started.

Before the agent starts, :func:`baseline` keeps a bounded copy of every workspace file (the fixtures, the
placeholders); after it ends, :func:`changes` compares. Nothing is read through a link or from a FIFO: the
workspace is the agent's, and it may have planted anything there.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from evalens.core.models.run_record import FileChange
from evalens.core.regular_files import read_regular_bytes
from evalens.runner.bounds import (
    BASELINE_FILE_LIMIT,
    BASELINE_TOTAL_LIMIT,
    DIFF_FILE_LIMIT,
    DIFF_TOTAL_LIMIT,
    MAX_FILES,
    Bounds,
    limit,
)
from evalens.runner.sandbox import snapshot


@dataclass(slots=True)
class Baseline:
    """The starting workspace: (size, mtime_ns) of every file, and the bytes of those small enough to keep."""

    meta: dict[str, tuple[int, int]] = field(default_factory=dict)
    content: dict[str, bytes] = field(default_factory=dict)


def baseline(workspace: Path) -> Baseline:
    """Snapshot the workspace before the agent runs (bounded: files over the per-file or total limit keep only
    their size)."""
    base = Baseline(meta=snapshot(workspace, regular_only=True))
    total = 0
    file_cap, total_cap = limit(BASELINE_FILE_LIMIT), limit(BASELINE_TOTAL_LIMIT)
    for rel, (size, _mtime) in sorted(base.meta.items()):
        if size > file_cap or total + size > total_cap:
            continue
        data = read_regular_bytes(workspace / rel, file_cap, follow_links=False)
        if data is not None and len(data) <= file_cap:
            base.content[rel] = data
            total += len(data)
    return base


def _text(data: bytes | None) -> str | None:
    if data is None or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _diff(rel: str, old: str, new: str, *, created: bool = False, deleted: bool = False) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if created else f"a/{rel}",
        tofile="/dev/null" if deleted else f"b/{rel}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def changes(base: Baseline, workspace: Path, bounds: Bounds) -> list[FileChange]:
    """Every file created, modified or deleted since :func:`baseline`, with bounded diffs."""
    after = snapshot(workspace, regular_only=True)
    file_cap = limit(BASELINE_FILE_LIMIT)
    diff_cap, total_cap = limit(DIFF_FILE_LIMIT), limit(DIFF_TOTAL_LIMIT)
    paths = sorted(p for p in set(after) | set(base.meta) if after.get(p) != base.meta.get(p))
    if len(paths) > limit(MAX_FILES):
        bounds.note(f"files: {len(paths)} changed, the first {limit(MAX_FILES)} are listed")
        paths = paths[: limit(MAX_FILES)]
    out: list[FileChange] = []
    spent = 0
    for rel in paths:
        status = "deleted" if rel not in after else "created" if rel not in base.meta else "modified"
        change = FileChange(
            path=rel,
            status=status,  # type: ignore[arg-type]
            size=after[rel][0] if rel in after else None,
        )
        new_bytes = read_regular_bytes(workspace / rel, file_cap, follow_links=False) if rel in after else b""
        old_bytes = base.content.get(rel, b"") if rel in base.meta else b""
        if rel in base.meta and rel not in base.content:
            change.note = (
                f"no diff: the starting file ({base.meta[rel][0]} bytes) was over the baseline limit"
            )
            change.truncated = True
        elif new_bytes is None:
            change.note = "no diff: the file could not be read (not a regular file)"
        elif len(new_bytes) > file_cap:
            change.note = f"no diff: {after[rel][0]} bytes (limit {file_cap})"
            change.truncated = True
        else:
            old_text, new_text = _text(old_bytes), _text(new_bytes)
            if old_text is None or new_text is None:
                change.binary = True
                change.note = "binary file: no diff"
            else:
                diff = _diff(
                    rel, old_text, new_text, created=status == "created", deleted=status == "deleted"
                )
                if status == "modified" and not diff:
                    continue  # touched but the same bytes: not a change worth showing
                if spent >= total_cap:
                    change.note = "diff not kept: the record's diff budget is spent"
                    change.truncated = True
                else:
                    room = min(diff_cap, total_cap - spent)
                    change.diff, change.truncated = (
                        bounds.cut(diff, room, f"diff of {rel}") if len(diff) > room else (diff, False)
                    )
                    spent += len(change.diff)
        if change.truncated and change.note:
            bounds.note(f"{rel}: {change.note}")
        out.append(change)
    return out
