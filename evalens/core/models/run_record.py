"""The run record: what the agent did in one run of one unit (turns, tool calls, hooks, files, usage).

It is written next to the report (``<report>/<unit>/record.json``, one per run) and is what ``evalens show``, the
editors' run view and the CI page render. Every text it holds is bounded; a bounded value says so (``truncated``
on the item and a sentence in :attr:`RunRecord.bounds`), so a reader never mistakes a cut for the whole.
"""

from __future__ import annotations

from typing import Any, Literal

from evalens.core.models.base import EvalModel, doc
from evalens.core.models.cassette import CaseReplay
from evalens.core.models.verdict import CheckStatus, Verdict

RECORD_VERSION = 1
FileStatus = Literal["created", "modified", "deleted"]


class HookRun(EvalModel):
    """One hook the engine ran, and whether it denied the tool call."""

    event: str = doc(
        "Hook event (`PreToolUse`, `PostToolUse`, `PermissionRequest`, ...).",
        example="PreToolUse",
    )
    name: str | None = doc(
        "The engine's name for this run of the hook (Claude Code: `PreToolUse:Write`).",
        default=None,
        example="PreToolUse:Write",
    )
    exit_code: int | None = doc(
        "The hook command's exit status, when the engine reports it.",
        default=None,
        example=2,
    )
    blocked: bool = doc(
        "True when this hook denied the tool call (exit 2 or a deny decision of a blocking event).",
        default=False,
        example=True,
    )
    reason: str | None = doc(
        "Why it denied the call (its stderr or decision reason).",
        default=None,
        example="BLOCKED_BY_POLICY: writes to output/ are forbidden",
    )
    output: str | None = doc("What the hook printed (bounded).", default=None, example="")


class ToolCall(EvalModel):
    """One tool call of the agent with its input, result and duration."""

    id: str | None = doc("The engine's id of the call.", default=None, example="toolu_01")
    name: str = doc(
        "Tool name as the engine reports it (`Write`, `Bash`, `exec_command`, `Skill`, ...).",
        example="Write",
    )
    input: Any = doc(
        "The call's input as sent by the model (strings bounded).",
        default=None,
        example={"file_path": "output/result.txt"},
    )
    result: str | None = doc(
        "The tool's result text (bounded); absent when the run ended before it returned.",
        default=None,
        example="File created successfully",
    )
    is_error: bool = doc("True when the engine marked the result as an error.", default=False, example=False)
    blocked: bool = doc("True when a hook denied the call.", default=False, example=False)
    duration_ms: int | None = doc(
        "From the model's request of the call to its result, when the engine's trace carries timestamps.",
        unit="milliseconds",
        default=None,
        example=140,
    )
    hooks: list[HookRun] = doc(
        "Hooks run for this call, in order.",
        default=[],
        example=[{"event": "PreToolUse", "blocked": False}],
    )
    skill: str | None = doc(
        "The skill this call activated: Claude Code's `Skill` tool; for Codex, a read of an installed `SKILL.md`.",
        default=None,
        example="greeter",
    )
    truncated: bool = doc(
        "True when the input or result was cut to the record's bounds.",
        default=False,
        example=False,
    )


class Turn(EvalModel):
    """One model response: its text and the tool calls it made."""

    index: int = doc("0-based position in the conversation.", example=0)
    text: str = doc("The assistant's text in this turn (bounded).", default="", example="DONE")
    tool_calls: list[ToolCall] = doc(
        "Tool calls the model made in this turn.", default=[], example=[{"name": "Write"}]
    )
    started_at: str | None = doc(
        "When the response arrived (ISO 8601), if the trace says.",
        default=None,
        example="2026-02-22T14:30:01.120Z",
    )
    input_tokens: int | None = doc(
        "Input tokens of this model call, if the engine reports them per call.",
        default=None,
        example=1820,
    )
    output_tokens: int | None = doc("Output tokens of this model call.", default=None, example=64)


class FileChange(EvalModel):
    """A file the agent created, changed or deleted, with its diff against the starting workspace."""

    path: str = doc("Path relative to the workspace.", example="output/result.txt")
    status: FileStatus = doc("created, modified or deleted.", example="created")
    size: int | None = doc(
        "Size after the run (absent when deleted).", unit="bytes", default=None, example=26
    )
    binary: bool = doc("True when the file is not UTF-8 text (no diff).", default=False, example=False)
    diff: str | None = doc(
        "Unified diff against the starting workspace (bounded).",
        default=None,
        example="--- a/output/result.txt\n+++ b/output/result.txt\n@@ ...",
    )
    truncated: bool = doc(
        "True when the diff was cut to the record's bounds or not computed for size.",
        default=False,
        example=False,
    )
    note: str | None = doc(
        "Why there is no (full) diff.",
        default=None,
        example="not diffed: 3145728 bytes (limit 262144)",
    )


class Usage(EvalModel):
    """Tokens and cost of the agent's model calls in this run, as the engine reports them."""

    input_tokens: int | None = doc(
        "Input tokens (Codex counts cached tokens in here too).", default=None, example=37344
    )
    output_tokens: int | None = doc("Output tokens.", default=None, example=214)
    cache_read_tokens: int | None = doc(
        "Input tokens read from the provider's cache.", default=None, example=0
    )
    cache_write_tokens: int | None = doc(
        "Input tokens written to the provider's cache.", default=None, example=0
    )
    cost_usd: float | None = doc(
        "Cost in US dollars as the CLI reports it (Claude Code does; Codex reports no "
        "cost, so it stays absent: evalens does not guess prices).",
        unit="USD",
        default=None,
        example=0.0123,
    )
    model_calls: int | None = doc("Model requests the agent made, when known.", default=None, example=5)


class RecordCheck(EvalModel):
    """One check of the unit and whether it held (the same facts as the report's checks)."""

    kind: str = doc("Check kind.", example="contains")
    value: Any = doc("The exact entry checked.", default=None, example="GREETING-OK")
    status: CheckStatus = doc("PASS or FAIL.", example="FAIL")
    detail: str | None = doc("Why it failed.", default=None, example="output does not contain 'GREETING-OK'")


class RecordJudge(EvalModel):
    """The judge's ruling on this run."""

    verdict: Verdict = doc("PASS, FAIL or ERROR.", example="FAIL")
    reason: str = doc("The judge's reasoning.", default="", example="The table misses Q4.")
    model: str | None = doc("Judge model.", default=None, example="claude-sonnet-4-5")


class Activation(EvalModel):
    """One skill the run activated, read from the engine's structured events (docs/triggers.md)."""

    skill: str = doc("The installed skill that fired (its folder name).", example="greeter")
    how: Literal["tool-call", "skill-read", "mention"] = doc(
        "How it was seen: `tool-call` (Claude Code's `Skill` tool), `skill-read` (a read of the skill's "
        "SKILL.md under its installed root), `mention` (a `$name` in the prompt that Codex resolved and injected).",
        example="tool-call",
    )
    turn: int | None = doc(
        "0-based turn of the call (None: before the model's first turn, as a mention is).",
        default=None,
        example=0,
    )
    argument: str | None = doc(
        "What the call passed: the `Skill` tool's `skill` and `args`, the read command, the mention.",
        default=None,
        example="greeter",
    )
    evidence: str | None = doc(
        "What showed that the skill reached the model: the call's result (a line of the SKILL.md a read "
        "returned, the engine running a `Skill` call) or Codex's injection of a mention. A call that named the "
        "skill but brought nothing of it (an error, a redirect, a read past the end) is no activation.",
        default=None,
        example="its result holds the SKILL.md line 'name: greeter'",
    )


class RunRecord(EvalModel):
    """`<report>/<unit>/record.json`: everything one run of one unit did, bounded."""

    version: Literal[1] = doc("Record format version.", example=1)
    unit: str = doc("The unit's name (case name, task id, eval id, query index).", example="extract-text")
    run_index: int = doc("1-based run number (with `--runs N`).", default=1, example=1)
    format_id: str | None = doc(
        "Format id of the eval file (`uaaps-case`, `skilljack-tasks`, ...).",
        default=None,
        example="uaaps-case",
    )
    engine: str = doc("Agent engine.", example="claude-code")
    engine_version: str | None = doc("The engine CLI's version.", default=None, example="2.1.3 (Claude Code)")
    model: str | None = doc(
        "The agent's model as the engine reports it.",
        default=None,
        example="claude-sonnet-4-5",
    )
    session_id: str | None = doc("The engine's session / thread id.", default=None, example="15b94417-...")
    prompt: str = doc("The prompt the agent got (bounded).", default="", example="Write a greeting")
    verdict: Verdict | None = doc("This run's verdict.", default=None, example="FAIL")
    reason: str | None = doc(
        "Why, in one line.", default=None, example="output does not contain 'GREETING-OK'"
    )
    checks: list[RecordCheck] = doc(
        "Deterministic checks of this run.",
        default=[],
        example=[{"kind": "contains", "value": "OK", "status": "PASS"}],
    )
    judge: RecordJudge | None = doc(
        "The judge's ruling, if the run was judged.",
        default=None,
        example={"verdict": "PASS", "reason": "ok"},
    )
    started_at: str | None = doc("Start of the run (ISO 8601).", default=None, example="2026-02-22T14:30:00Z")
    duration_seconds: float | None = doc(
        "Wall time of the whole unit run (sandbox, agent, checks, judge).",
        unit="seconds",
        default=None,
        example=12.4,
    )
    agent_seconds: float | None = doc(
        "Wall time of the agent process.", unit="seconds", default=None, example=9.8
    )
    api_seconds: float | None = doc(
        "Time the engine reports spent waiting for its model.",
        unit="seconds",
        default=None,
        example=6.1,
    )
    exit_code: int | None = doc("The agent process's exit status.", default=None, example=0)
    timed_out: bool = doc("True when the agent was killed at the timeout.", default=False, example=False)
    error: str | None = doc(
        "Why the agent run is unusable, if it is.",
        default=None,
        example="agent error (API status 500): fake 500",
    )
    retries: list[str] = doc(
        "Attempts of this run that met a transient model API error and were run again from scratch, each with "
        "its status and the wait before the next (docs/verdicts.md#transient-api-errors).",
        default=[],
        example=["attempt 1: API status 529; retried after 1.6 s"],
    )
    output: str = doc(
        "The agent's final output (bounded).",
        default="",
        example="DONE: wrote output/result.txt",
    )
    turns: list[Turn] = doc(
        "The conversation, one entry per model response.",
        default=[],
        example=[{"index": 0, "text": "DONE"}],
    )
    hooks: list[HookRun] = doc(
        "Hooks run outside any tool call (session start, prompt submit, stop).",
        default=[],
        example=[],
    )
    skills_activated: list[str] = doc(
        "Skills the agent activated, in order.", default=[], example=["greeter"]
    )
    activations: list[Activation] = doc(
        "Installed skills the run activated, in order, each with how it was seen (docs/triggers.md).",
        default=[],
        example=[{"skill": "greeter", "how": "tool-call", "turn": 0, "argument": "greeter"}],
    )
    blocked: bool = doc("True when a hook denied a tool call.", default=False, example=False)
    files: list[FileChange] = doc(
        "Files created, changed or deleted in the workspace.",
        default=[],
        example=[{"path": "output/result.txt", "status": "created"}],
    )
    usage: Usage = doc("Tokens and cost.", default={}, example={"input_tokens": 85})
    bounds: list[str] = doc(
        "What was cut to keep the record bounded, one sentence each (empty: nothing).",
        default=[],
        example=["turn 3: tool result cut to 8000 characters"],
    )
    sources: list[str] = doc(
        "Trace files the record was read from (artifact names).",
        default=[],
        example=["events.jsonl", "claude-session.jsonl"],
    )
    baseline: str | None = doc(
        "With `--baseline`: the baseline this run belonged to (`no skill`, or `<ref> "
        "(<commit>)`): the package was not installed, or installed as it was at the ref. "
        "Absent for a run with the package.",
        default=None,
        example="no skill",
    )
    replay: CaseReplay | None = doc(
        "Under `--record` / `--replay`: how this run's model requests were answered (`mode`, `requests`, "
        "`live_requests`, its cassette; docs/replay.md). Absent for a plain live run.",
        default=None,
        example={"mode": "strict", "replayed": True, "requests": 3, "live_requests": 0},
    )


def sum_usage(items: list[Usage | None]) -> Usage | None:
    """Totals of several runs (None: a run whose agent never started, which spent nothing); a total is known
    only when every run that ran reported it, so a partial sum is never shown as the whole."""
    present = [u for u in items if u is not None]
    if not present:
        return None

    def total(name: str) -> Any:
        values = [getattr(u, name) for u in present]
        if any(v is None for v in values):
            return None
        return round(sum(values), 6) if name == "cost_usd" else sum(values)

    out = Usage(**{name: total(name) for name in Usage.model_fields})
    return out if any(v is not None for v in out.model_dump().values()) else None
