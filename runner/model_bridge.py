"""What the host side of the model bridge enforces for one agent run (issue 42): the key, the upstream, the meter.

The agent under test is hostile and its shell can reach the bridge as well as its CLI can. So:

- **The key never enters the sandbox.** The agent's key variables hold a per-run placeholder; the guard writes the
  real key into the request headers on the host, and only for this run's upstream. A placeholder the agent sends
  anywhere else is worth nothing.
- **The upstream is the runner's own.** It comes from the runner's environment (or the engine's default), never
  from an eval file's ``env``: a pull request cannot point the bridge, and the key, at its own server.
- **Every call is counted here**, the CLI's and anything else that talks to the bridge, from the provider's own
  usage in each answer. ``--max-turns`` and ``--max-tokens-per-run`` see this count, a call past a limit is refused,
  and the run record's tokens are the bridge's (the engine's own report cannot see its shell's traffic).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from evalens.core.models.run_record import Usage
from evalens.runner.model_proxy import Answer, error_answer
from evalens.runner.prices import cost_of
from evalens.runner.run_limits import ModelCall, as_count

# The request headers a provider reads a key from (Anthropic: x-api-key or a bearer token; OpenAI: bearer).
KEY_HEADERS = frozenset({"x-api-key", "authorization", "api-key"})
# Paths of a model call (a count_tokens or models request is not one).
CALL_SUFFIXES = ("/messages", "/responses", "/chat/completions", "/completions")


def is_model_call(method: str, target: str) -> bool:
    """A POST that asks the model for an answer, by its path (query dropped)."""
    path = target.split("?", 1)[0].rstrip("/")
    return method == "POST" and path.endswith(CALL_SUFFIXES)


def placeholder_for(var: str) -> str:
    """A fresh placeholder for one key variable of one run (unguessable, so a leaked one names its run)."""
    return f"evalens-bridge-{var.lower().replace('_', '-')}-{secrets.token_hex(12)}"


def runner_upstream(var: str, default: str, environ: dict[str, str] | None = None) -> str:
    """The bridge's upstream for the engine's base-URL variable: the runner's own environment, else the
    engine's default. An eval file's ``env`` is never consulted."""
    env = os.environ if environ is None else environ
    return env.get(var) or default


@dataclass(slots=True)
class Tally:
    """The bridge's count of one run's model calls, from the usage the provider sent with each answer."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    models: dict[str, int] = field(default_factory=dict)  # model name → calls
    by_model: dict[str, Usage] = field(default_factory=dict)  # model name → its calls' tokens

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add(self, model: str | None, inp: int, out: int, cache_read: int, cache_write: int) -> None:
        self.calls += 1
        self.input_tokens += inp
        self.output_tokens += out
        self.cache_read_tokens += cache_read
        self.cache_write_tokens += cache_write
        name = model or ""
        self.models[name] = self.models.get(name, 0) + 1
        old = self.by_model.get(name) or Usage(input_tokens=0, output_tokens=0, cache_read_tokens=0)
        self.by_model[name] = Usage(
            input_tokens=(old.input_tokens or 0) + inp,
            output_tokens=(old.output_tokens or 0) + out,
            cache_read_tokens=(old.cache_read_tokens or 0) + cache_read,
        )

    def cost(self) -> float | None:
        """USD of every call the bridge saw, each at its own model's price; None when one has no price."""
        costs = [cost_of(usage, model or None) for model, usage in self.by_model.items()]
        return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)

    def usage(self, engine_usage: Usage | None) -> Usage:
        """The run's usage with the bridge's counts. The CLI's own cost stays when the bridge saw no more than
        the CLI reported; past that (the shell called the model too) the calls are priced per model, or the
        cost is unknown, never the CLI's smaller figure."""
        base = engine_usage or Usage()
        engine_tokens = (base.input_tokens or 0) + (base.output_tokens or 0)
        cost = base.cost_usd if base.cost_usd is not None and self.tokens <= engine_tokens else self.cost()
        return base.model_copy(
            update={
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "cache_read_tokens": self.cache_read_tokens,
                "cache_write_tokens": self.cache_write_tokens,
                "model_calls": self.calls,
                "cost_usd": cost,
            }
        )


def _events(raw: bytes) -> Iterable[dict[str, Any]]:
    """The JSON objects of a server-sent event stream (each ``data:`` payload), in order."""
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    for block in text.split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
        if not data or data == "[DONE]":
            continue
        try:
            value = json.loads(data)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


def _counts(usage: Any) -> tuple[int, int, int, int]:
    """(input, output, cache read, cache write) from a usage object of either wire protocol."""
    if not isinstance(usage, dict):
        return 0, 0, 0, 0
    details = usage.get("input_tokens_details") or usage.get("prompt_tokens_details") or {}
    cached = as_count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return (
        as_count(usage.get("input_tokens")) or as_count(usage.get("prompt_tokens")),
        as_count(usage.get("output_tokens")) or as_count(usage.get("completion_tokens")),
        as_count(usage.get("cache_read_input_tokens")) or cached,
        as_count(usage.get("cache_creation_input_tokens")),
    )


def call_usage(content_type: str, raw: bytes) -> tuple[int, int, int, int]:
    """One answer's (input, output, cache read, cache write) tokens, streamed or whole, Anthropic or OpenAI.

    Anthropic streams input in ``message_start`` and a running output count in each ``message_delta``; OpenAI's
    Responses API sends the whole usage with ``response.completed``, Chat Completions in its last chunk. The
    largest report of each count wins, so a count repeated as it grows is not added twice."""
    best = [0, 0, 0, 0]
    if "text/event-stream" in content_type:
        objects: Iterable[dict[str, Any]] = _events(raw)
    else:
        try:
            value = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return 0, 0, 0, 0
        objects = [value] if isinstance(value, dict) else []
    for obj in objects:
        for holder in (obj, obj.get("message"), obj.get("response")):
            if isinstance(holder, dict) and "usage" in holder:
                for i, n in enumerate(_counts(holder["usage"])):
                    best[i] = max(best[i], n)
    return best[0], best[1], best[2], best[3]


@dataclass(slots=True)
class Guard:
    """The bridge's rules for one agent run: placeholder → real key, the tally, and the limit that refuses.

    ``on_call`` is the run's meter (``run_limits.Meter.add_bridge``): it stops the run once a limit is passed,
    and from then on the guard refuses every further call, so one run overshoots by at most the call in flight."""

    keys: dict[str, str] = field(default_factory=dict)  # placeholder → real value
    tally: Tally = field(default_factory=Tally)
    on_call: Callable[[ModelCall], None] | None = None
    stopped: Callable[[], str | None] = lambda: None
    # Awaited before each model call goes on: the run's process count (limit_readback.PidWatch). Why here: a
    # model call is the one moment the runner knows the agent's last tool call has returned while what it left
    # running is still alive (the CLI exits, and its sandbox with it, one answer later), so a bomb whose
    # children outlive its shell is seen at every turn, not only when a timed look falls in that window.
    before_call: Callable[[], Awaitable[None]] | None = None

    @classmethod
    def for_env(cls, env: dict[str, str], key_vars: Iterable[str]) -> Guard:
        """A guard holding the real values of ``key_vars``; ``env`` (the agent's) gets placeholders instead."""
        guard = cls()
        for var in key_vars:
            value = env.get(var)
            if value:
                placeholder = placeholder_for(var)
                guard.keys[placeholder] = value
                env[var] = placeholder
        return guard

    def headers(self, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The request's headers with each placeholder written as the real key (key headers only)."""
        out = []
        for name, value in headers:
            if name.lower() in KEY_HEADERS:
                for placeholder, real in self.keys.items():
                    value = value.replace(placeholder, real)
            out.append((name, value))
        return out

    async def before(self, method: str, target: str) -> None:
        """What the run does before a model call goes on (``before_call``; nothing for other requests)."""
        if self.before_call is not None and is_model_call(method, target):
            await self.before_call()

    def refusal(self, method: str, target: str) -> Answer | None:
        """The answer to a model call made after the run passed a limit (None: let it through)."""
        why = self.stopped()
        if why is None or not is_model_call(method, target):
            return None
        return error_answer(429, f"evalens model bridge: {why}")

    def count(self, method: str, target: str, body: bytes, content_type: str, raw: bytes) -> None:
        """Count one answered model call (replayed ones too: a limit is about what the run asked for)."""
        if not is_model_call(method, target):
            return
        inp, out, cache_read, cache_write = call_usage(content_type, raw)
        self.tally.add(_model_of(body), inp, out, cache_read, cache_write)
        if self.on_call is not None:
            self.on_call(ModelCall(f"bridge-{self.tally.calls}", inp, out))


def _model_of(body: bytes) -> str | None:
    try:
        value = json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    model = value.get("model") if isinstance(value, dict) else None
    return model[:200] if isinstance(model, str) else None
