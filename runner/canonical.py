"""The canonical form of a model request, and secret redaction: what a cassette stores and replay compares.

Two runs of the same unit send the same request up to things that say nothing about the agent's behaviour: the
sandbox's random folder, session and request ids, timestamps, cache hints, metadata, the time a tool command
took. Those are dropped or replaced by placeholders here, once, so a replay matches what a recording saw and a
real change (the prompt, the skill, a tool result) still differs. Secrets are redacted before anything is
compared or written, so a cassette is safe to commit (docs/replay.md).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "<redacted>"
# Request keys that carry ids, caching or client bookkeeping, never the conversation (dropped at the top level).
VOLATILE_KEYS = frozenset(
    {
        "metadata",
        "user",
        "stream_options",
        "prompt_cache_key",
        "client_metadata",
        "request_id",
        "safety_identifier",
    }
)
DROPPED_ANYWHERE = frozenset({"cache_control"})  # cache hints on any block
SECRET_PATTERNS = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{16,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{8,}=*"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),
)
KEY_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY")
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?"
)
_WEEKDAY = r"(?:(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?,?\s+)?"
_YEAR = r"(?:19|20)\d{2}\b"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# Calendar phrases in prose, in the forms the CLIs write them ("the current month is December 2026", "Today is
# Tuesday, December 1, 2026", "1 Dec 2026", "12/01/2026"): a recording stays good on any later day (issue 40).
DATE_PHRASES = (
    (re.compile(rf"\b{_WEEKDAY}{_MONTH}\s+{_DAY},?\s+{_YEAR}"), "<date>"),
    (re.compile(rf"\b{_WEEKDAY}{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}"), "<date>"),
    (re.compile(rf"\b{_MONTH},?\s+{_YEAR}"), "<month>"),
    (re.compile(r"\b(?:19|20)\d{2}/\d{1,2}/\d{1,2}\b|\b\d{1,2}/\d{1,2}/(?:19|20)\d{2}\b"), "<date>"),
    (re.compile(r"\b(?:19|20)\d{2}-\d{2}\b(?!-)"), "<month>"),
)
# Text that changes from run to run without the agent doing anything differently.
VOLATILE_TEXT = (
    (
        re.compile(
            r"(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])", re.I
        ),
        "<uuid>",
    ),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    *DATE_PHRASES,
    # the CLI's own build in its request ("cc_version=2.1.197.4f9" in Claude Code's billing block)
    (re.compile(r"(cc_version=)[0-9][\w.\-]*"), r"\1<version>"),
    (re.compile(r"(Wall time|took|elapsed)(:?\s*)\d+(?:\.\d+)?\s*(s|ms|seconds?)\b", re.I), r"\1\2<n> \3"),
    (re.compile(r"(Chunk ID:\s*)\S+"), r"\1<id>"),
    (re.compile(r"EVALENS-MATERIAL-[0-9a-f]{12,}"), "EVALENS-MATERIAL-<nonce>"),  # the judge's per-call fence
    (re.compile(r"(session ID\s*)\d+", re.I), r"\1<n>"),
    (re.compile(r"/var/tmp/evalens[\w./\-]*?/(?=workspace|home|config|tmp)"), "<sandbox>/"),
    # `claude plugin eval`'s own per-run folder (/tmp/claude-eval-XXXXXX), in its children's prompts and paths
    (re.compile(r"claude-eval-[A-Za-z0-9]{6}\b"), "claude-eval-<run>"),
    # the host's facts in a CLI's own prompt: Claude Code's kernel, Codex's time zone
    (re.compile(r"(OS Version:\s*)[^\n]+"), r"\1<os>"),
    (re.compile(r"(<timezone>)[^<]*(</timezone>)"), r"\1<tz>\2"),
)


def env_secrets(env: dict[str, str] | None = None, extra: Iterable[str] = ()) -> list[str]:
    """The literal key values in the environment (the provider keys and ``extra`` variables), longest first."""
    env = dict(os.environ) if env is None else env
    values = {env[k] for k in (*KEY_VARS, *extra) if len(env.get(k) or "") >= 8}
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known key value and every secret-shaped token replaced by ``<redacted>``."""
    for value in secrets:
        text = text.replace(value, REDACTED)
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def _text(value: str, literals: list[tuple[str, str]], secrets: list[str]) -> str:
    for literal, placeholder in literals:
        value = value.replace(literal, placeholder)
    for pattern, repl in VOLATILE_TEXT:
        value = pattern.sub(repl, value)
    return redact(value, secrets)


def _walk(node: Any, literals: list[tuple[str, str]], secrets: list[str], top: bool) -> Any:
    if isinstance(node, dict):
        return {
            k: _walk(v, literals, secrets, False)
            for k, v in sorted(node.items())
            if k not in DROPPED_ANYWHERE and not (top and k in VOLATILE_KEYS)
        }
    if isinstance(node, list):
        return [_walk(v, literals, secrets, False) for v in node]
    if isinstance(node, str):
        return _text(node, literals, secrets)
    return node


def canonical_request(
    body: bytes, *, literals: dict[str, str] | None = None, secrets: Iterable[str] = ()
) -> Any:
    """The canonical form of a request body: JSON with keys sorted, volatile keys dropped, ``literals`` (a path →
    its placeholder, e.g. the sandbox folder → ``<sandbox>``) and volatile text replaced, secrets redacted. A body
    that is not JSON is kept as redacted text."""
    pairs = sorted((literals or {}).items(), key=lambda kv: len(kv[0]), reverse=True)
    keys = list(secrets)
    try:
        value = json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _text(body.decode("utf-8", "replace"), pairs, keys)
    return _walk(value, pairs, keys, True)


def recanonical(value: Any) -> Any:
    """A stored canonical request put through today's rules: canonicalisation is idempotent, so a cassette
    recorded under older rules (before a volatile phrase was known) still matches a request of today."""
    return _walk(value, [], [], True)


def redact_value(node: Any, secrets: Iterable[str] = ()) -> Any:
    """A response value with secrets redacted in every string (nothing else changes: replay sends it back)."""
    keys = list(secrets)
    if isinstance(node, dict):
        return {k: redact_value(v, keys) for k, v in node.items()}
    if isinstance(node, list):
        return [redact_value(v, keys) for v in node]
    if isinstance(node, str):
        return redact(node, keys)
    return node


def _lines(value: Any, path: str = "") -> list[str]:
    """One line per scalar, and per line of a long text, each prefixed by where it is (``messages[2].content``),
    so a diff shows the line that changed and not a whole system prompt."""
    if isinstance(value, dict):
        return [line for k, v in value.items() for line in _lines(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [line for i, v in enumerate(value) for line in _lines(v, f"{path}[{i}]")]
    if isinstance(value, str):
        return [f"{path}: {line}" for line in value.split("\n")] or [f"{path}: "]
    return [f"{path}: {json.dumps(value)}"]


def short_diff(recorded: Any, got: Any, limit: int = 12) -> str:
    """The first changed lines between a recorded and a new canonical request (unified, at most ``limit``)."""
    out = [
        line[:200]
        for line in difflib.unified_diff(_lines(recorded), _lines(got), "recorded", "now", n=0, lineterm="")
    ]
    if len(out) > limit:
        out = out[:limit] + [f"... ({len(out) - limit} more diff lines)"]
    return "\n".join(out)


# A tool definition's parts that are the CLI's own wording: its description and its argument schema. A release
# rewrites them (2.1.332 added a required field to one of Claude Code's tools; Codex 0.171.0 reworded a shell
# option and its model list) while the run offers the same tools.
_CLI_WORDING = frozenset({"description", "input_schema", "parameters"})


def _run_owned(name: str) -> bool:
    """A tool the run brings (an MCP server of the package: ``mcp__server__tool``, in both CLIs' naming), whose
    definition the package wrote; the CLIs' built-in tools never have a double underscore."""
    return "__" in name


def _tool_as_offered(tool: Any) -> Any:
    if not isinstance(tool, dict) or _run_owned(str(tool.get("name") or "")):
        return tool
    out = {k: v for k, v in tool.items() if k not in _CLI_WORDING and k != "tools"}
    if isinstance(tool.get("tools"), list):  # Codex's namespaces: each member as offered, by name
        out["tools"] = [_tool_as_offered(t) for t in tool["tools"]]
    return out


def without_cli_tool_wording(request: Any) -> Any:
    """The request with each built-in tool's description and schema left out, for a replay on another CLI version
    (issue 40). It reads the request's own structure (the top-level ``tools`` list of the Messages and Responses
    APIs), never its prose. What the run decides stays compared: which tools are offered (a tool added or removed,
    say by ``disallowed-tools``, still differs), every other field of a tool, and the whole definition of a tool
    the package brings."""
    if not isinstance(request, dict) or not isinstance(request.get("tools"), list):
        return request
    return {**request, "tools": [_tool_as_offered(t) for t in request["tools"]]}
