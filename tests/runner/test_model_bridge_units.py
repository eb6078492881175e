"""The host side of the model bridge without agents (issue 42): a real HTTP client, the run's proxy and the fake
model. The agent's placeholder becomes the real key only on the way upstream, every call is counted from the
provider's own usage, and a call after the run passed a limit is refused without reaching the upstream."""

from __future__ import annotations

import asyncio
import json

import pytest

from evalens.runner.model_bridge import Guard, call_usage, is_model_call, runner_upstream
from evalens.runner.model_proxy import ModelProxy
from evalens.runner.run_limits import Meter, RunLimits
from tests.fakemodel import FakeModelServer

REAL = "fake-anthropic-key-REAL-7f3a"


async def _post(port: int, path: str, key: str, body: dict) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    writer.write(
        (
            f"POST {path} HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        ).encode()
        + data
    )
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, rest = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), rest


MESSAGE = {"model": "claude-x", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}


def test_the_placeholder_becomes_the_real_key_only_upstream_and_every_call_is_counted() -> None:
    env = {"ANTHROPIC_API_KEY": REAL, "PATH": "/usr/bin"}
    guard = Guard.for_env(env, ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"])
    placeholder = env["ANTHROPIC_API_KEY"]
    assert placeholder != REAL and REAL not in json.dumps(env) and "OPENAI_API_KEY" not in env

    async def go() -> list[int]:
        with FakeModelServer() as fake:
            proxy = await ModelProxy(fake.anthropic_base_url, "agent", guard=guard).start()
            try:
                statuses = [
                    (await _post(proxy.port, "/v1/messages", placeholder, MESSAGE))[0] for _ in range(3)
                ]
                # another key than the run's placeholder is passed on as it is: it was never ours to swap
                statuses.append((await _post(proxy.port, "/v1/messages", "mine", MESSAGE))[0])
            finally:
                await proxy.stop()
            keys = [r["key"] for r in fake.records if not r.get("judge")]
        assert keys == [REAL, REAL, REAL, "mine"]
        return statuses

    assert asyncio.run(go()) == [200, 200, 200, 200]
    tally = guard.tally
    assert (tally.calls, tally.input_tokens, tally.output_tokens) == (4, 4 * 17, 4 * 7)
    assert tally.models == {"claude-x": 4}
    assert tally.usage(None).model_calls == 4


def test_the_shells_extra_calls_are_priced_per_model_never_at_the_clis_smaller_figure() -> None:
    """The CLI reported its own two calls' cost; the bridge saw a third call, to another model, from the shell:
    the run's cost is the bridge's calls at their models' prices (unknown when one has no price)."""
    from evalens.core.models.run_record import Usage
    from evalens.runner.model_bridge import Tally
    from evalens.runner.prices import cost_of

    cli = Usage(input_tokens=200, output_tokens=20, cost_usd=0.001)
    tally = Tally()
    tally.add("gpt-5-codex", 100, 10, 0, 0)
    tally.add("gpt-5-codex", 100, 10, 0, 0)
    assert tally.usage(cli).cost_usd == 0.001  # nothing beyond the CLI's own calls: its cost stands
    tally.add("o3", 600_000, 15_000, 0, 0)
    both = tally.usage(cli)
    opus = cost_of(Usage(input_tokens=600_000, output_tokens=15_000), "o3")
    assert opus is not None and both.cost_usd is not None and both.cost_usd > opus > 0.001
    assert (both.input_tokens, both.output_tokens, both.model_calls) == (600_200, 15_020, 3)
    tally.add("no-such-model", 1, 1, 0, 0)
    assert tally.usage(cli).cost_usd is None


def test_a_call_after_the_limit_is_refused_and_never_reaches_the_upstream() -> None:
    stopped: list[str] = []
    meter = Meter(RunLimits(max_tokens=50), stopped.append)
    guard = Guard.for_env({"ANTHROPIC_API_KEY": REAL}, ["ANTHROPIC_API_KEY"])
    guard.on_call, guard.stopped = meter.add_bridge, lambda: meter.exceeded

    async def go() -> tuple[list[int], int, bytes]:
        with FakeModelServer() as fake:
            proxy = await ModelProxy(fake.anthropic_base_url, "agent", guard=guard).start()
            try:
                answers = [await _post(proxy.port, "/v1/messages", "k", MESSAGE) for _ in range(4)]
            finally:
                await proxy.stop()
            return [s for s, _ in answers], len(fake.records), answers[-1][1]

    statuses, upstream_calls, last = asyncio.run(go())
    # 24 tokens a call: the third passes 50, so the fourth is refused at the bridge
    assert statuses == [200, 200, 200, 429] and upstream_calls == 3
    assert b"token limit" in last and b"--max-tokens-per-run 50" in last
    assert len(stopped) == 1 and meter.tokens == 72 and meter.turns == 3


def test_the_runs_look_before_a_model_call_ends_before_the_upstream_sees_it() -> None:
    """The process count (issue 44 item 4) is taken at each model call, while what the agent's last tool call
    left running still lives: the look finishes before the call goes on, and only model calls wait for it."""
    guard = Guard.for_env({"ANTHROPIC_API_KEY": REAL}, ["ANTHROPIC_API_KEY"])
    seen: list[int] = []

    async def go() -> list[int]:
        with FakeModelServer() as fake:

            async def look() -> None:
                await asyncio.sleep(0.05)  # a look that takes a while still ends before the call goes on
                seen.append(len(fake.records))

            guard.before_call = look
            proxy = await ModelProxy(fake.anthropic_base_url, "agent", guard=guard).start()
            try:
                for _ in range(2):
                    await _post(proxy.port, "/v1/messages", "k", MESSAGE)
                await _post(proxy.port, "/v1/messages/count_tokens", "k", MESSAGE)
            finally:
                await proxy.stop()
        return seen

    assert asyncio.run(go()) == [0, 1]


@pytest.mark.parametrize(
    ("content_type", "raw", "expected"),
    [
        (
            "text/event-stream",
            b'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":100,'
            b'"cache_read_input_tokens":40,"output_tokens":1}}}\n\n'
            b'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":12}}\n\n'
            b'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":30}}\n\n',
            (100, 30, 40, 0),
        ),
        (
            "text/event-stream",
            b'data: {"type":"response.created","response":{"usage":null}}\n\n'
            b'data: {"type":"response.completed","response":{"usage":{"input_tokens":900,"output_tokens":50,'
            b'"input_tokens_details":{"cached_tokens":300}}}}\n\n',
            (900, 50, 300, 0),
        ),
        ("application/json", b'{"usage":{"prompt_tokens":17,"completion_tokens":7}}', (17, 7, 0, 0)),
        ("text/event-stream", b'data: {"choices":[]}\n\ndata: [DONE]\n\n', (0, 0, 0, 0)),
        ("application/json", b"not json", (0, 0, 0, 0)),
    ],
)
def test_usage_is_read_from_either_providers_answer(content_type: str, raw: bytes, expected: tuple) -> None:
    assert call_usage(content_type, raw) == expected


def test_what_counts_as_a_call_and_where_the_upstream_comes_from() -> None:
    assert is_model_call("POST", "/v1/messages?beta=true") and is_model_call("POST", "/v1/responses")
    assert not is_model_call("POST", "/v1/messages/count_tokens") and not is_model_call("GET", "/v1/models")
    # the runner's own environment, never the agent's (an eval file's env reaches only the agent's)
    assert runner_upstream("ANTHROPIC_BASE_URL", "https://default", {}) == "https://default"
    assert (
        runner_upstream("ANTHROPIC_BASE_URL", "https://d", {"ANTHROPIC_BASE_URL": "http://x"}) == "http://x"
    )
