"""The default judge is of a different family from the agent when that family is configured (issue #25): a
claude-code agent is judged by OpenAI when an OpenAI key is set, a codex agent by Anthropic likewise, else by the
agent's own family (a base URL alone does not count: preflight would refuse a judge without a key); a named judge is kept; the reason goes to the report (``judge.choice``)."""

from __future__ import annotations

import pytest

from evalens.core.models.uaaps import ReportJudge
from evalens.runner.engines import get_engine
from evalens.runner.judge import default_judge, resolve_judge
from evalens.runner.preflight import preflight


@pytest.mark.parametrize(
    ("engine", "env", "provider", "because"),
    [
        ("claude-code", {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}, "openai", "OPENAI_API_KEY is set"),
        ("claude-code", {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "anthropic", "no key of openai is set"),
        ("claude-code", {"ANTHROPIC_API_KEY": "k"}, "anthropic", "no key of openai is set"),
        (
            "codex",
            {"ANTHROPIC_AUTH_TOKEN": "t", "OPENAI_API_KEY": "k"},
            "anthropic",
            "ANTHROPIC_AUTH_TOKEN is set",
        ),
        ("codex", {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, "openai", "no key of anthropic is set"),
        (
            "codex",
            {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "x"},
            "openai",
            "no key of anthropic",
        ),
        (None, {}, "anthropic", "the claude-code agent's own family"),  # the default engine
    ],
)
def test_default_judge_is_of_another_family_when_configured(
    engine: str | None, env: dict[str, str], provider: str, because: str
) -> None:
    chosen = default_judge(engine, env)
    assert chosen.provider == provider and because in chosen.why
    other = provider != ("openai" if engine == "codex" else "anthropic")
    assert ("a different family" in chosen.why) == other
    spec = resolve_judge(None, default_provider=chosen)
    assert spec.provider == provider and spec.why == chosen.why
    assert spec.model == {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5-mini"}[provider]


def test_an_empty_variable_configures_nothing() -> None:
    assert default_judge("claude-code", {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}).provider == "anthropic"


def test_a_named_judge_is_kept_and_says_so() -> None:
    cross = default_judge("claude-code", {"OPENAI_API_KEY": "k"})
    named = resolve_judge("claude-judge", default_provider=cross)
    assert (named.provider, named.model, named.why) == (
        "anthropic",
        "claude-judge",
        "anthropic: named (claude-judge)",
    )
    prefixed = resolve_judge("anthropic:my-model", default_provider=cross)
    assert prefixed.provider == "anthropic" and prefixed.why == "anthropic: named (anthropic:my-model)"
    bare = resolve_judge("house-model", default_provider=cross)  # no provider in the name: the default's
    assert bare.provider == "openai" and bare.why.startswith(
        "house-model named without a provider; openai: a different"
    )


def test_preflight_resolves_the_cross_family_judge_and_the_report_carries_why() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "PATH": ""}
    _result, spec = preflight(get_engine("claude-code"), env=env)
    assert spec is not None and spec.provider == "openai" and spec.key_env == ("OPENAI_API_KEY",)
    judge = ReportJudge(model=spec.model, model_provider=spec.provider, choice=spec.why)
    assert judge.model_dump(exclude_none=True)["choice"].startswith(
        "openai: a different family from the claude-code"
    )
    _result, own = preflight(get_engine("codex"), env={"OPENAI_API_KEY": "k", "PATH": ""})
    assert own is not None and own.provider == "openai" and "own family" in own.why
