"""Record and replay (issue 24) without agents: the canonical form, redaction, and the cassette proxy between a
real HTTP client and the fake model (recording, strict replay with the upstream gone, divergence, replay=new)."""

from __future__ import annotations

import json

from evalens.runner.canonical import canonical_request, env_secrets, redact, short_diff

KEY = "sk-ant-api03-PLANTEDsecretKEY0123456789abcdef"


def _body(prompt: str, **extra: object) -> bytes:
    return json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "system": [{"type": "text", "text": "You are a helper.", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": prompt}],
            "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
            "metadata": {"user_id": "user_abc_account_1234_session_9f0e"},
            "stream": True,
            **extra,
        }
    ).encode()


def test_volatile_fields_are_normalised_and_the_conversation_kept() -> None:
    a = canonical_request(
        _body(
            "write /var/tmp/evalens/eval-abc/ws/x.txt at 2026-11-27T04:11:21Z, id 0b5e7f4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
        ),
        literals={"/var/tmp/evalens/eval-abc": "<sandbox>"},
    )
    b = canonical_request(
        _body(
            "write /var/tmp/evalens/eval-xyz/ws/x.txt at 2026-11-28T09:00:00Z, id 11111111-2222-4333-8444-555555555555",
            prompt_cache_key="pck-1",
        ),
        literals={"/var/tmp/evalens/eval-xyz": "<sandbox>"},
    )
    assert a == b
    assert "metadata" not in a and "prompt_cache_key" not in b
    assert "cache_control" not in json.dumps(a)
    assert a["messages"][0]["content"] == "write <sandbox>/ws/x.txt at <time>, id <uuid>"
    assert a["tools"] == [{"input_schema": {"type": "object"}, "name": "Bash"}]
    changed = canonical_request(_body("write the other file"))
    assert changed != canonical_request(_body("write the file"))
    assert "messages[0].content: write the other file" in short_diff(
        canonical_request(_body("write the file")), changed
    )


def test_a_planted_key_in_a_prompt_never_survives() -> None:
    body = _body(
        f"use the key {KEY} and Authorization: Bearer abcdefghijklmnop.qrs and sk-proj-ABCDEFGHIJKLMNOPQRSTUV"
    )
    text = json.dumps(
        canonical_request(body, secrets=env_secrets({"OPENAI_API_KEY": "plain-key-without-shape"}))
    )
    assert KEY not in text and "abcdefghijklmnop" not in text and "sk-proj-ABC" not in text
    assert text.count("<redacted>") == 3
    assert (
        redact("the key is plain-key-without-shape", ["plain-key-without-shape"]) == "the key is <redacted>"
    )
