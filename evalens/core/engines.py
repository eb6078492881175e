"""The agent engines evalens can run, declared in one place.

Everything that names engines reads this registry: the CLI's ``--engine`` choices, the UAAPS eval config's
schema enum and completion, the runner's ``get_engine`` (which imports the adapter named here only when an agent
runs), preflight and ``evalens doctor``, the judge's default provider and the server's engine check. ``core``
imports no runner code, so an engine is declared by the import path of its adapter (an
:class:`evalens.runner.engines.base.Engine` subclass). Adding an engine is its adapter module plus one
:func:`register_engine` call; ``tests/core/test_engine_registry.py`` registers a toy one and finds it everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineSpec:
    """An engine as the rest of evalens sees it before any agent runs."""

    name: str  # as written in eval configs and ``--engine`` ("claude-code")
    label: str  # what completion and docs call it ("Claude Code (claude -p)")
    provider: str  # the provider of the engine's own model ("anthropic"), also the judge's when none is named
    adapter: str  # "module:Class" of its runner adapter, imported when an agent runs


_ENGINES: dict[str, EngineSpec] = {}

# Named by the UAAPS spec but without a headless mode: refused with their own message, never "unknown".
RESERVED = ("copilot", "cursor")


def register_engine(spec: EngineSpec) -> EngineSpec:
    """Make ``spec`` known everywhere engines are listed (a name registered again is replaced)."""
    if spec.name in RESERVED:
        raise ValueError(f"{spec.name} is reserved by the UAAPS spec")
    _ENGINES[spec.name] = spec
    return spec


def unregister_engine(name: str) -> None:
    """Forget an engine (a test's toy engine)."""
    _ENGINES.pop(name, None)


def engine_names() -> tuple[str, ...]:
    """The engines that can run, in registration order (the first is the default)."""
    return tuple(_ENGINES)


def engine_spec(name: str | None) -> EngineSpec | None:
    return _ENGINES.get(name or "")


def default_engine() -> str:
    return next(iter(_ENGINES))


def judge_provider(engine: str | None) -> str:
    """The judge provider for runs on ``engine`` when none is named: the engine's own provider (an unknown
    engine: the default engine's)."""
    spec = engine_spec(engine) or _ENGINES[default_engine()]
    return spec.provider


def engines_phrase(conjunction: str = "or") -> str:
    """``claude-code`` or ``codex``: the engines for a message."""
    names = [f"`{n}`" for n in _ENGINES]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


register_engine(
    EngineSpec(
        "claude-code", "Claude Code (claude -p)", "anthropic", "evalens.runner.engines.claude_code:ClaudeCode"
    )
)
register_engine(EngineSpec("codex", "Codex (codex exec)", "openai", "evalens.runner.engines.codex:Codex"))
