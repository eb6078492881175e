"""The ``evalens.*`` settings the server reads, as one pydantic model with the camelCase names editors use.

They arrive in ``initializationOptions`` and in the ``evalens`` section of ``workspace/configuration`` (and
``didChangeConfiguration``). A key sent as ``null`` goes back to its default (e.g. use the eval config's engine
again); a value of the wrong type is ignored with a message naming the setting, the rest still applies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

if TYPE_CHECKING:
    from evalens.core.config import RuleLevels


class Settings(BaseModel):
    """User settings (``evalens.<camelCaseName>``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    engine: str | None = None
    judge: str | None = None
    timeout: float | None = Field(default=None, ge=0)  # seconds; 0 or null: the eval config's
    max_parallel_runs: int = Field(default=2, ge=1)
    keep_sandbox: bool = False
    api_key_env_vars: list[str] = Field(default_factory=list)  # names of environment variables, never keys
    skill_profile: str = "auto"  # auto: by context (plugin, .claude/skills, UAAPS package); or a profile name
    code_lens: bool = True
    rules: dict[str, Any] | None = None  # rule code (or glob) -> level, over the config files
    configuration_preference: str = "editorFirst"  # checked by rule_overrides (one message with the rules')

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
            merged[name] = getattr(defaults, name) if value is None else value
        errors: list[str] = []
        try:
            new = Settings.model_validate(merged)
        except ValidationError as exc:
            bad = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
            errors = [f"evalens.{to_camel(name)}: {msg}" for name, msg in _messages(exc)]
            for name in bad:
                merged[name] = getattr(self, name)
            new = Settings.model_validate(merged)
        for name in Settings.model_fields:
            setattr(self, name, getattr(new, name))
        return errors

    def rule_settings(self) -> dict[str, Any]:
        return {"skillProfile": self.skill_profile}

    def rule_overrides(self) -> tuple[RuleLevels, list[str]]:
        """The ``rules`` setting as parsed levels, and what was wrong with it."""
        from evalens.core.config import PREFERENCES, editor_levels

        errors: list[str] = []
        levels = editor_levels(self.rules, errors)
        if self.configuration_preference not in PREFERENCES:
            errors.append(f"evalens.configurationPreference must be one of {', '.join(PREFERENCES)}, not "
                          f"{self.configuration_preference!r}.")
        return levels, errors


def _messages(exc: ValidationError) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for e in exc.errors():
        if e["loc"]:
            out.append((str(e["loc"][0]), f"{e['msg']} (got {e.get('input')!r:.60})"))
    return out
