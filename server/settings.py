"""The ``evalens.*`` settings the server reads, as one pydantic model with the camelCase names editors use.

They arrive in ``initializationOptions`` and in the ``evalens`` section of ``workspace/configuration`` (and
``didChangeConfiguration``). A key sent as ``null`` goes back to its default (e.g. use the eval config's engine
again); a value of the wrong type is ignored with a message naming the setting, the rest still applies.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from evalens.core.config import PREFERENCES, RuleLevels, editor_levels


class RunSettings(BaseModel):
    """``evalens.run.*``: repeats and the budget of every batch the editor starts (docs/repeats.md)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    repeats: int = Field(default=5, ge=0, le=100)  # the "Run N×" lens and Test Explorer profile; 0 or 1: none
    max_cost: float | None = Field(default=None, ge=0)  # USD per batch; then the rest are SKIP
    max_tokens: int | None = Field(default=None, ge=0)  # tokens in + out per batch


class RunOverrides(BaseModel):
    """``evalens.runOverrides``: the per-run overrides an editor remembers for its workspace (VS Code's "Run
    Overrides…" quick pick keeps them in the workspace's state, not in the settings), laid over the settings for
    every run it starts. The server needs them also when no run is asked: a verdict's staleness is judged against
    the inputs of the next run, which takes them."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    engine: str | None = Field(default=None, min_length=1, max_length=200)
    model: str | None = Field(default=None, min_length=1, max_length=200)
    max_cost: float | None = Field(default=None, ge=0)  # USD per batch, instead of ``run.maxCost``


class Settings(BaseModel):
    """User settings (``evalens.<camelCaseName>``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    engine: str | None = None
    model: str | None = None  # the agent's model; null: the engine's default (or the eval config's)
    judge: str | None = None
    timeout: float | None = Field(default=None, ge=0)  # seconds; 0 or null: the eval config's
    max_parallel_runs: int = Field(default=2, ge=1)
    keep_sandbox: bool = False
    api_key_env_vars: list[str] = Field(default_factory=list)  # names of environment variables, never keys
    skill_profile: str = "auto"  # auto: by context (plugin, .claude/skills, UAAPS package); or a profile name
    code_lens: bool = True
    rules: dict[str, Any] | None = None  # rule code (or glob) -> level, over the config files
    configuration_preference: str = "editorFirst"  # checked by rule_overrides (one message with the rules')
    run: RunSettings = Field(default_factory=RunSettings)
    run_overrides: RunOverrides | None = None  # sent whole by the editor each time; None: it remembers none

    def update(self, raw: object) -> list[str]:
        """Apply the settings an editor sent (the whole ``evalens`` section or ``{"evalens": {...}}``);
        what was wrong, one line per setting (those settings keep their value)."""
        if not isinstance(raw, dict):
            return []
        section = raw.get("evalens", raw)
        if not isinstance(section, dict):
            return []
        fields = {info.alias or name: name for name, info in Settings.model_fields.items()}
        given = {fields[k]: v for k, v in section.items() if k in fields}
        if not given:
            return []
        defaults = Settings()
        merged = self.model_dump()
        for name, value in given.items():
            if name in NESTED and isinstance(value, dict):  # one key of a group: the others keep their value
                current = getattr(self, name)
                keys = {info.alias or n: n for n, info in type(current).model_fields.items()}
                value = {
                    **merged[name],
                    **{
                        keys[k]: (getattr(type(current)(), keys[k]) if v is None else v)
                        for k, v in value.items()
                        if k in keys
                    },
                }
            merged[name] = getattr(defaults, name) if value is None else value
        errors: list[str] = []
        try:
            new = Settings.model_validate(merged)
        except ValidationError as exc:
            errors = [f"evalens.{name}: {msg}" for name, msg in _messages(exc)]
            for e in exc.errors():
                name = str(e["loc"][0]) if e["loc"] else ""
                if name in NESTED and len(e["loc"]) > 1:  # only that key of the group keeps its value
                    merged[name][str(e["loc"][1])] = getattr(getattr(self, name), str(e["loc"][1]))
                elif name:
                    merged[name] = getattr(self, name).model_dump() if name in NESTED else getattr(self, name)
            new = Settings.model_validate(merged)
        for name in Settings.model_fields:
            setattr(self, name, getattr(new, name))
        return errors

    def rule_settings(self) -> dict[str, Any]:
        return {"skillProfile": self.skill_profile}

    def rule_overrides(self) -> tuple[RuleLevels, list[str]]:
        """The ``rules`` setting as parsed levels, and what was wrong with it."""
        errors: list[str] = []
        levels = editor_levels(self.rules, errors)
        if self.configuration_preference not in PREFERENCES:
            errors.append(
                f"evalens.configurationPreference must be one of {', '.join(PREFERENCES)}, not "
                f"{self.configuration_preference!r}."
            )
        return levels, errors


NESTED = {"run"}  # settings that are a group of keys (``evalens.run.repeats``)


def _messages(exc: ValidationError) -> list[tuple[str, str]]:
    """(``maxParallelRuns`` or ``run.maxCost``, what was wrong) per error."""
    out: list[tuple[str, str]] = []
    for e in exc.errors():
        if e["loc"]:
            name = ".".join(to_camel(str(part)) for part in e["loc"][:2] if isinstance(part, str))
            out.append((name, f"{e['msg']} (got {e.get('input')!r:.60})"))
    return out
