"""The LLM judge: `anthropic` SDK for Claude models, `openai` SDK for OpenAI models; strict JSON verdicts.

The judge must answer ``{"verdict": "PASS"|"FAIL", "reason": "..."}``; anything else is retried once and then
becomes an ERROR verdict — an unusable judge never yields a PASS. SDKs are imported only when a judge runs.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ValidationError

OPENAI_PREFIXES = ("gpt", "o1", "o3", "o4", "o5", "codex", "chatgpt", "text-", "openai")
PROVIDER_KEYS = {"anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), "openai": ("OPENAI_API_KEY",)}
PROVIDER_BASE_URLS = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}
DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5-mini"}
OUTPUT_LIMIT = 8000
FILE_PREVIEW_LIMIT = 1500

SYSTEM_PROMPT = (
    "You are a strict evaluator of an AI agent's work. Decide whether the agent's result meets the criteria. "
    "Answer with one JSON object and nothing else: "
    '{"verdict": "PASS" or "FAIL", "reason": "<one or two sentences>"}.'
)


class MissingKey(Exception):
    """No API key for a provider the run needs; raised before any agent starts."""


class JudgeReply(BaseModel):
    """The only judge answer accepted."""

    verdict: Literal["PASS", "FAIL"]
    reason: str


@dataclass(slots=True)
class JudgeSpec:
    """A resolved judge: provider, model, and which env vars hold its key and base URL."""

    provider: str  # "anthropic" | "openai"
    model: str
    key_env: tuple[str, ...]

    @property
    def label(self) -> str:
        return self.model


@dataclass(slots=True)
class JudgeOutcome:
    """PASS / FAIL from the judge, or ERROR when it could not be used."""

    verdict: Literal["PASS", "FAIL", "ERROR"]
    reason: str
    model: str
    provider: str
    raw: str = ""


def resolve_judge(spec: str | None, *, default_provider: str, agent_model: str | None = None,
                  key_env: tuple[str, ...] | None = None) -> JudgeSpec:
    """``provider:model`` or a bare model name (``claude-*`` → anthropic, ``gpt-*``/``o*`` → openai)."""
    provider: str | None = None
    model = spec
    if spec and ":" in spec:
        head, tail = spec.split(":", 1)
        if head in PROVIDER_KEYS:
            provider, model = head, tail
    if provider is None:
        if model and model.lower().startswith("claude"):
            provider = "anthropic"
        elif model and model.lower().startswith(OPENAI_PREFIXES):
            provider = "openai"
        else:
            provider = default_provider
    if not model:
        model = agent_model or DEFAULT_MODELS[provider]
    return JudgeSpec(provider, model, key_env or PROVIDER_KEYS[provider])


def require_key(key_env: tuple[str, ...], who: str, env: dict[str, str] | None = None) -> None:
    """Fail fast with one clear message when none of ``key_env`` is set."""
    source = os.environ if env is None else env
    if not any(source.get(k) for k in key_env):
        names = " or ".join(key_env)
        raise MissingKey(f"missing API key for {who}: set {names} (no agent was started)")


def build_prompt(criteria: str, prompt: str, output: str, files: dict[str, str], checks: list[dict]) -> str:
    """The judge's user message: criteria, task, bounded output, created files and deterministic results."""
    if len(output) > OUTPUT_LIMIT:
        output = output[:OUTPUT_LIMIT] + f"\n…[truncated {len(output) - OUTPUT_LIMIT} characters]"
    parts = [
        "## Criteria", criteria.strip(), "",
        "## Task given to the agent", prompt.strip(), "",
        "## Agent's final output", output or "(empty)", "",
        "## Files the agent created",
    ]
    if files:
        for path, preview in files.items():
            parts += [f"### {path}", preview[:FILE_PREVIEW_LIMIT]]
    else:
        parts.append("(none)")
    parts += ["", "## Deterministic checks (already evaluated)"]
    parts += [f"- {c['kind']} {json.dumps(c['value'])}: {c['status']}" for c in checks] or ["(none)"]
    parts += ["", 'Reply with JSON only: {"verdict": "PASS" or "FAIL", "reason": "..."}']
    return "\n".join(parts)


def parse_reply(text: str) -> JudgeReply:
    """Strict parse; tolerates only a code fence around the object. Raises ValueError otherwise."""
    body = text.strip()
    fence = re.match(r"^```(?:json)?\s*(.*?)\s*```$", body, re.S)
    if fence:
        body = fence.group(1)
    try:
        return JudgeReply.model_validate_json(body)
    except ValidationError as exc:
        raise ValueError(f"judge reply is not the required JSON: {body[:200]!r}") from exc


async def _ask(spec: JudgeSpec, user: str, env: dict[str, str]) -> str:
    key = next((env[k] for k in spec.key_env if env.get(k)), None)
    base_url = env.get(PROVIDER_BASE_URLS[spec.provider]) or None
    if spec.provider == "anthropic":
        import anthropic

        client = anthropic.AsyncAnthropic(api_key=key, base_url=base_url, max_retries=1, timeout=120)
        try:
            message = await client.messages.create(
                model=spec.model, max_tokens=1024, system=SYSTEM_PROMPT,
                messages=[{"role": "user", "content": user}],
            )
        finally:
            await client.close()
        return "".join(getattr(b, "text", "") for b in message.content)
    import openai

    client = openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=1, timeout=120)
    try:
        completion = await client.chat.completions.create(
            model=spec.model, response_format={"type": "json_object"},
            messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}],
        )
    finally:
        await client.close()
    return completion.choices[0].message.content or ""


async def judge_case(spec: JudgeSpec, user_prompt: str, env: dict[str, str] | None = None) -> JudgeOutcome:
    """Ask the judge; malformed answers are retried once, then the outcome is ERROR with the reason."""
    env = dict(os.environ) if env is None else env
    last_error = ""
    raw = ""
    for _attempt in range(2):
        try:
            raw = await _ask(spec, user_prompt, env)
        except Exception as exc:  # SDK errors vary by provider and version; all mean "judge unusable"
            last_error = f"judge call failed: {type(exc).__name__}: {str(exc)[:300]}"
            continue
        try:
            reply = parse_reply(raw)
        except ValueError as exc:
            last_error = str(exc)
            continue
        return JudgeOutcome(reply.verdict, reply.reason, spec.model, spec.provider, raw)
    return JudgeOutcome("ERROR", last_error + " (after 1 retry)", spec.model, spec.provider, raw)
