"""A cassette: the model traffic of one unit-run, recorded at the model bridge (``evals/cassettes/<unit>-<run>.json``).

Each exchange holds the request in its canonical form (what replay compares) and the response as the upstream
sent it, a streamed response as its list of server-sent events. Nothing in a cassette is a key: headers are never
stored, and secrets in bodies are redacted by pattern before anything is written (``runner/canonical.py``,
``docs/replay.md``).
"""

from __future__ import annotations

from typing import Any, Literal

from evalens.core.models.base import EvalModel, doc

CASSETTE_VERSION = 1
REPLAY_MARK = "↺"
Mode = Literal["record", "strict", "new"]


class CassetteResponse(EvalModel):
    """What the upstream answered, as the agent or the judge received it (secrets redacted)."""

    status: int = doc("HTTP status.", example=200)
    content_type: str = doc(
        "The response's Content-Type.",
        default="application/json",
        example="text/event-stream",
    )
    body: Any = doc(
        "The body: parsed JSON when it was JSON, else its text; None for a streamed response.",
        default=None,
        example={"id": "msg_1", "type": "message"},
    )
    events: list[str] | None = doc(
        "A streamed response: each server-sent event block as sent, without its blank-line separator.",
        default=None,
        example=['event: message_start\ndata: {"type": "message_start"}'],
    )


class CassetteExchange(EvalModel):
    """One request and its answer, in arrival order."""

    index: int = doc("1-based position among the unit-run's requests.", example=1)
    source: Literal["agent", "judge"] = doc(
        "Who asked: the agent CLI (through the bridge) or evalens's judge.", example="agent"
    )
    method: str = doc("HTTP method.", default="POST", example="POST")
    path: str = doc("Request path and query, as sent to the bridge.", example="/v1/messages")
    request: Any = doc(
        "The request in canonical form: the JSON body with volatile fields dropped or replaced by placeholders "
        "and secrets redacted (docs/replay.md). Replay compares exactly this.",
        type_="object",
        example={"model": "claude-sonnet-4-5", "messages": []},
    )
    response: CassetteResponse = doc("The answer.")


class Cassette(EvalModel):
    """The ordered model exchanges of one unit-run."""

    version: int = doc("Cassette format version.", default=CASSETTE_VERSION, example=1)
    unit: str = doc("The unit's name (with `[side]` for a baseline run).", example="extract-text")
    run: int = doc("The run's index among the unit's runs (1-based).", default=1, example=1)
    engine: str | None = doc("The agent engine.", default=None, example="claude-code")
    cli: str | None = doc(
        "The engine CLI's own `--version` when the cassette was recorded: a replay on another version says so.",
        default=None,
        example="2.1.332 (Claude Code)",
    )
    exchanges: list[CassetteExchange] = doc("Every exchange, in order.", default=[])
    shared: dict[str, Any] = doc(
        "Large request parts written once (a CLI sends its tool list, system prompt and the conversation so far "
        'with every request): a request holds `{"$shared": KEY}` in their place, KEY being the hash of the part.',
        default={},
        example={"3f2a9c0d1b7e4a55": {"name": "Bash", "input_schema": {"type": "object"}}},
    )
    digest: str | None = doc(
        "SHA-256 of the cassette as recorded (every other field, as canonical JSON): a cassette edited by hand "
        "after its recording no longer matches and never answers. A digest is no signature (anyone can "
        "compute one); `--replay-base` is what keeps a change from answering with its own cassettes.",
        default=None,
        example="9b1c…",
    )


class CaseReplay(EvalModel):
    """How a unit's verdict came about with respect to cassettes: recorded live, replayed, or replayed then live.
    Written on the report case; every face words it through ``runner/replay.py::replay_label``."""

    mode: Mode = doc(
        "`record`: run live and stored; `strict`: answered from the cassette only; `new`: replayed up to the "
        "first request that differed, live from there.",
        example="strict",
    )
    replayed: bool = doc("At least one model request of the unit was answered from a cassette.", example=True)
    requests: int = doc("Model requests the unit made (agent and judge).", example=4)
    live_requests: int = doc("Of those, how many went to the real upstream.", default=0, example=0)
    diverged: str | None = doc(
        "The first request that differed from the cassette (index and a short diff), when one did.",
        default=None,
        example="request 3 differs from the recording: ...",
    )
    cli_changed: str | None = doc(
        "The engine CLI the cassette was recorded with and the one it was replayed on, when they differ.",
        default=None,
        example="recorded with 2.1.197 (Claude Code), replayed on 2.1.332 (Claude Code)",
    )
    untrusted: str | None = doc(
        "With `--replay-base`: why the unit's cassette answered nothing (the change itself added or edited it, "
        "so a verdict replayed from it would be the change's own word).",
        default=None,
        example="evals/cassettes/greet-1.json was added or edited since origin/main: ...",
    )
    cassettes: list[str] = doc(
        "The unit's cassette files, relative to the package root.",
        default=[],
        example=["evals/cassettes/extract-text-1.json"],
    )


def replay_label(info: CaseReplay | None) -> str | None:
    """How every face (show, JUnit, lens, hover) words a verdict that came from a cassette; None for a live run.
    One wording, one place."""
    if info is None or not info.replayed:
        return None
    live = f", {info.live_requests} live" if info.live_requests else ""
    cli = f"; {info.cli_changed}" if info.cli_changed else ""
    return f"{REPLAY_MARK} replayed ({info.requests - info.live_requests} of {info.requests} requests{live}{cli})"
