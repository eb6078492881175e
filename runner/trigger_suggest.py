"""``evalens triggers suggest SKILL_DIR``: candidate trigger queries from the judge model, as an edit to review
(docs/triggers.md). Should-trigger requests come from the skill's description; should-not-trigger ones are near
misses, written against the other installed skills' descriptions (requests that look like this skill's but belong
to another, or to none). The trigger set is never written: the edit is printed as a diff."""

from __future__ import annotations

import asyncio
import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core.formats.trigger_sets import trigger_items
from evalens.core.units import trigger_queries
from evalens.runner.engines import get_engine
from evalens.runner.judge import ask_json, judge_deadline, resolve_judge
from evalens.runner.suites.base import read_json
from evalens.runner.trigger_optimize import current_description

SYSTEM = (
    "You write test requests for an agent skill's trigger evaluation: requests a user might type, and whether the "
    "agent should use this skill for them. Requests that should use it cover what its description promises, in "
    "varied wording. Requests that should not use it are near misses: close in topic or words, but meant for one "
    "of the other installed skills or for none. Reply with a JSON object "
    '{"should_trigger": ["..."], "should_not_trigger": ["..."]}, nothing else.'
)


@dataclass
class Suggestion:
    trigger_set: Path
    added: list[tuple[str, bool]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # proposals already in the set (or repeated)
    diff: str = ""
    new_text: str = ""


def _append(data: Any, added: list[tuple[str, bool]]) -> Any:
    """The trigger set with ``added`` in its own shape: the array, a wrapped array, or the two lists."""
    if data is None:
        data = []
    if isinstance(data, dict) and ("should_trigger" in data or "should_not_trigger" in data):
        out = dict(data)
        for key, want in (("should_trigger", True), ("should_not_trigger", False)):
            out[key] = list(out.get(key) or []) + [q for q, w in added if w == want]
        return out
    prefix, items = trigger_items(data)
    rows = list(items) + [{"query": q, "should_trigger": w} for q, w in added]
    if prefix:
        out = dict(data)
        out[prefix[0]] = rows
        return out
    return rows


def _load(skill_dir: Path, trigger_set: Path) -> tuple[str, str | None, Any]:
    """The skill's description, the trigger set's text (None: no file yet) and its data."""
    md = skill_dir / "SKILL.md" if (skill_dir / "SKILL.md").is_file() else skill_dir / "skill.md"
    description = current_description(md.read_text(encoding="utf-8"))
    if not trigger_set.is_file():
        return description, None, None
    data = read_json(trigger_set)
    if data is None:
        raise ValueError(f"{trigger_set}: not a readable JSON trigger set")
    return description, trigger_set.read_text(encoding="utf-8"), data


async def suggest(
    skill_dir: Path,
    trigger_set: Path,
    others: dict[str, str],
    *,
    count: int,
    engine: str,
    model: str | None = None,
    judge_model: str | None = None,
) -> Suggestion:
    """Ask the judge for ``count`` requests of each kind; keep the new ones; the edit as a diff."""
    description, old_text, data = await asyncio.to_thread(_load, skill_dir, trigger_set)
    exists = old_text is not None

    _name, have = trigger_queries(data if data is not None else [])
    listing = "\n".join(f"- {n}: {d}" for n, d in sorted(others.items())) or "(none)"
    present = "\n".join(f"- [{'use' if w else 'do not use'}] {q}" for q, w in have) or "(none yet)"
    user = (
        f"Other installed skills:\n{listing}\n\nRequests already in the set:\n{present}\n\n"
        f"Write {count} new requests that should use the skill and {count} near misses that should not. "
        f"The skill is `{skill_dir.name}`; its description is:\n{description}\n"
    )
    spec = resolve_judge(judge_model, default_provider=get_engine(engine).default_provider, agent_model=model)
    reply = await ask_json(spec, SYSTEM, user, deadline=judge_deadline(override=120))
    result = Suggestion(trigger_set=trigger_set)
    seen = {q.strip().lower() for q, _ in have}
    for key, want in (("should_trigger", True), ("should_not_trigger", False)):
        values = reply.get(key)
        for value in (values if isinstance(values, list) else [])[:count]:
            text = str(value).strip()
            if not text:
                continue
            if text.lower() in seen:
                result.skipped.append(text)
                continue
            seen.add(text.lower())
            result.added.append((text, want))
    result.new_text = json.dumps(_append(data, result.added), indent=2, ensure_ascii=False) + "\n"
    result.diff = "".join(
        difflib.unified_diff(
            (old_text or "").splitlines(keepends=True),
            result.new_text.splitlines(keepends=True),
            fromfile=str(trigger_set) if exists else "/dev/null",
            tofile=f"{trigger_set} (proposed)",
        )
    )
    return result
