"""One suite per runnable format; a format names its suite here (format id → suite class).

UAAPS cases (``uaaps-case``) run through :func:`evalens.runner.api.run_cases`, which plans a whole package
(its eval config, its cases, the package installed for the engine); every other runnable format runs through
:func:`evalens.runner.api.run_file` and a :class:`~evalens.runner.suites.base.Suite` listed here.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalens.runner.suites.base import Suite

SUITES: dict[str, str] = {  # format id -> "module:Class" (imported when a file of that format runs)
    "skilljack-tasks": "skilljack:SkilljackSuite",
    "skilljack-task": "skilljack:SkilljackSuite",
    "skill-creator-evals": "skill_creator:SkillCreatorSuite",
    "writing-skills-evals": "writing_skills:WritingSkillsSuite",
    "trigger-evals": "trigger_sets:TriggerSetSuite",
    "trigger-evals-variant": "trigger_sets:TriggerSetSuite",
    "plugin-eval-prompt": "plugin_eval:PluginEvalSuite",
    "plugin-eval-case": "plugin_eval:PluginEvalSuite",
}
FILE_FORMATS = frozenset(SUITES)


def suite_for(format_id: str) -> type[Suite] | None:
    """The suite class of a runnable format (None: the format does not run through ``run_file``)."""
    spec = SUITES.get(format_id)
    if spec is None:
        return None
    module, name = spec.split(":")
    cls: type[Suite] = getattr(import_module(f"evalens.runner.suites.{module}"), name)
    return cls
