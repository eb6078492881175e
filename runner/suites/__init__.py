"""One suite per runnable format; a format names its suite here (format id → suite class).

Every face that starts or shows a run asks this module what a format's runs are, so none of them branches on
a format id: :func:`names_per_file` says where a unit's name is unique (and so what keys its runs, verdicts and
reports), and :func:`evalens.runner.api.run` starts a batch of any of them.

UAAPS cases (:data:`PACKAGE_FORMAT`) run as a package (its eval config, its cases, the package installed for
the engine) through :func:`evalens.runner.api.run_cases`; every other runnable format runs through
:func:`evalens.runner.api.run_file` and a :class:`~evalens.runner.suites.base.Suite` listed here.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from evalens.core.index import evals_parent
from evalens.core.labels import PLUGIN_EVAL_FORMATS

if TYPE_CHECKING:
    from evalens.runner.suites.base import Suite

PACKAGE_FORMAT = "uaaps-case"  # a package's case: its name is unique in the package, which plans its batch
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
RUNNABLE_FORMATS = frozenset({PACKAGE_FORMAT, *SUITES})


def runnable(format_id: str | None) -> TypeGuard[str]:
    """Whether evalens runs files of ``format_id`` (a config, a SKILL.md or an unknown file does not)."""
    return format_id in RUNNABLE_FORMATS


def names_per_file(format_id: str | None) -> TypeGuard[str]:
    """Whether a unit's name is unique only within its file (a task id, a query's index, a plugin case's folder),
    so the file keys its runs and verdicts, and a whole-file unit (``*``) can stand for all of them; False for a
    package's case, whose name is unique in its package (another case file may not reuse it) and whose batch
    the package plans."""
    return format_id in SUITES


def suite_for(format_id: str) -> type[Suite] | None:
    """The suite class of a format that runs per file (None: a package's case, or not runnable)."""
    spec = SUITES.get(format_id)
    if spec is None:
        return None
    module, name = spec.split(":")
    cls: type[Suite] = getattr(import_module(f"evalens.runner.suites.{module}"), name)
    return cls


def suite_root(fmt: str | None, file: Path) -> Path:
    """The folder a unit of ``file`` belongs to, by path alone (no suite loaded, nothing parsed): its package for
    a package's case, the suite for skilljack, the plugin for a plugin's case, the skill otherwise. Its evalens
    reports are in ``evals/reports/`` below it, so the server restores from there and a comparison of the file
    (runner/comparison.py) writes its batches there, where each batch of it alone would report."""
    # lazy: evalens.runner.suites.base ~0.6 s to import; the server starts without it
    from evalens.runner.suites.base import skill_root_of

    if not names_per_file(fmt):
        return evals_parent(file) or file.parent
    if fmt == "skilljack-task":
        return file.parent.parent
    if fmt == "skilljack-tasks":
        return file.parent
    if (
        fmt in PLUGIN_EVAL_FORMATS
    ):  # a plugin's case: its reports go under the plugin, as the suite writes them
        # lazy: as above
        from evalens.runner.suites.plugin_eval_paths import plugin_root_of

        return plugin_root_of(file.parent) or file.parent
    return skill_root_of(file)
