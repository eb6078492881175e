"""A `claude plugin eval` grader left as a skeleton is never judged (issue 45 #5, as for the other formats): the
rubric evalens's grader skeleton writes (completion in an empty `graders/<name>.md`) is the ``skeleton-placeholder``
error, in a grader file's body or frontmatter `criteria` and in `case.yaml`'s `graders:` list; `init --bare`'s TODO
rubric stays the loader's own ``plugin-eval-template`` error, once. The runner refuses both: ERROR with the reason,
no agent and no budget, and the dry run says so beforehand."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest

from evalens.core import placeholders
from evalens.core.formats.plugin_eval import PROMPT_TEMPLATE
from evalens.core.formats.registry import by_id
from evalens.core.placeholders import GRADER_RUBRIC, INIT_RUBRIC, tab_stop
from evalens.core.rules import is_enforced
from evalens.core.suppress import suppression_fixes
from evalens.runner import run_file
from evalens.runner.suites import suite_for
from evalens.runner.suites.base import FileRunRequest
from tests.format_helpers import check

OWN = "The reply greets the user by name and says output/greeting.txt was written."
PROMPT = "---\nmax_turns: 5\nallowed_tools: [Read, Write]\n---\n\nGreet Ada in output/greeting.txt.\n"


def _case(tmp_path: Path, grader: str | None = None, case_yaml: str | None = None) -> Path:
    """A plugin with one case `greet`: its prompt.md, and a grader file and/or a case.yaml as given."""
    plugin = tmp_path / "greet-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "greet-plugin"}\n')
    folder = plugin / "evals" / "greet"
    (folder / "graders").mkdir(parents=True)
    (folder / "prompt.md").write_text(PROMPT)
    if grader is not None:
        (folder / "graders" / "criteria.md").write_text(grader)
    if case_yaml is not None:
        (folder / "case.yaml").write_text(case_yaml)
    return folder


def _grader_file(rubric: str) -> str:
    return f"---\ntype: llm\nweight: 1\n---\n\n{rubric}\n"


def _codes(path: Path) -> list[str]:
    return [p.code for p in check(path).problems]


def test_the_grader_skeleton_is_flagged_until_its_rubric_is_written(tmp_path: Path):
    fmt = by_id("plugin-eval-grader")
    assert fmt is not None
    skeleton = fmt.skeleton(False) or ""
    assert (fmt.skeleton(True) or "").replace(
        tab_stop(GRADER_RUBRIC), GRADER_RUBRIC
    ) == skeleton  # the tab stop
    grader = _case(tmp_path, skeleton) / "graders" / "criteria.md"
    (found,) = [p for p in check(grader).problems if p.code == placeholders.CODE]
    assert found.severity == 1 and found.data == {"path": [], "placeholder": GRADER_RUBRIC}
    lines = skeleton.splitlines()
    assert (found.span.start_line, found.span.end_line) == (lines.index(GRADER_RUBRIC),) * 2  # on the rubric
    assert found.message.startswith("The rubric (this file's body) is still the skeleton's placeholder")
    assert "will not judge" in found.message
    grader.write_text(skeleton.replace(GRADER_RUBRIC, OWN))
    assert placeholders.CODE not in _codes(grader)


@pytest.mark.parametrize(
    ("where", "text", "path"),
    [
        (
            "graders/criteria.md",
            "---\ntype: llm\ncriteria: What a successful response contains.\n---\n",
            ["criteria"],
        ),
        (
            "case.yaml",
            "schema_version: '1'\nname: greet\ngraders:\n  - name: says\n    type: llm\n"
            "    criteria: What a successful response contains.\n",
            ["graders", 0, "criteria"],
        ),
        (
            "case.yaml",
            "schema_version: '1'\nname: greet\ngraders:\n  - name: same\n    type: baseline\n"
            "    baseline_file: base.md\n    criteria: >\n      The output <names a concrete, checkable fact>.\n",
            ["graders", 0, "criteria"],
        ),
    ],
)
def test_a_placeholder_criteria_is_flagged_where_it_is_written(
    tmp_path: Path, where: str, text: str, path: list
):
    folder = _case(
        tmp_path, text if where.startswith("graders/") else None, text if where == "case.yaml" else None
    )
    (found,) = [p for p in check(folder / where).problems if p.code == placeholders.CODE]
    assert found.data["path"] == path and f"`{'.'.join(map(str, path))}`" in found.message


def test_inits_todo_rubric_is_the_loaders_error_once(tmp_path: Path):
    grader = _case(tmp_path, _grader_file(INIT_RUBRIC)) / "graders" / "criteria.md"
    codes = _codes(grader)
    assert codes.count("plugin-eval-template") == 1 and placeholders.CODE not in codes, codes


def _suite(folder: Path, runs: int = 1):
    request = FileRunRequest(file=folder / "prompt.md", runs=runs)
    suite_cls = suite_for("plugin-eval-prompt")
    assert suite_cls is not None
    return suite_cls(request, "plugin-eval-prompt")


class _NoBudget:
    def admit(self, unit: str) -> None:
        raise AssertionError("a refused unit must not reach the budget")


@pytest.mark.parametrize("rubric", [GRADER_RUBRIC, INIT_RUBRIC, f"{OWN}\n\n{INIT_RUBRIC}"])
def test_the_runner_refuses_a_skeleton_rubric_without_agent_or_budget(tmp_path: Path, rubric: str):
    suite = _suite(_case(tmp_path, _grader_file(rubric)), runs=2)
    (unit,) = suite.units()
    why = suite.placeholder_refusal(unit)
    expected = GRADER_RUBRIC if rubric == GRADER_RUBRIC else INIT_RUBRIC
    assert why == placeholders.refusal("the `criteria` grader's criteria (graders/criteria.md)", expected)
    (planned,) = suite.dry_run([unit])
    assert planned.endswith(f"; {why}; it will be ERROR, no agent started"), planned

    heard: list[tuple[str, int]] = []

    class Hooks:
        async def started(self, unit, run):
            heard.append(("started", run))

        async def finished(self, unit, run, done, records):
            heard.append((done.verdict, run))

    batch = SimpleNamespace(hooks=lambda side: Hooks())
    session = SimpleNamespace()  # never used: no agent starts
    result, base = asyncio.run(
        run_file._run_unit(suite.request, suite, unit, session, None, _NoBudget(), batch, None, [])
    )
    assert base is None and result.verdict == "ERROR" and result.reason == why
    assert heard == [("started", 1), ("ERROR", 1), ("started", 2), ("ERROR", 2)]


def test_a_case_yaml_grader_is_refused_too_and_the_users_rubric_runs(tmp_path: Path):
    case_yaml = (
        "schema_version: '1'\nname: greet\ngraders:\n  - name: says\n    type: llm\n"
        f"    criteria: {GRADER_RUBRIC}\n"
    )
    folder = _case(tmp_path, _grader_file(OWN), case_yaml)
    (unit,) = _suite(folder).units()
    assert _suite(folder).placeholder_refusal(unit) == placeholders.refusal(
        "the `says` grader's criteria (case.yaml graders[0])", GRADER_RUBRIC
    )
    (folder / "case.yaml").write_text(case_yaml.replace(GRADER_RUBRIC, OWN))
    assert _suite(folder).placeholder_refusal(unit) is None


def test_inits_todo_is_refused_on_every_engine_and_offers_no_ignore(tmp_path: Path):
    """Issue 45 #10: "Ignore `plugin-eval-template`" was offered on `init --bare`'s TODO rubric, which the runner
    refuses whatever the rule's level. The rule is ``enforced`` in the catalog, so no ignore is offered; and the
    TODO prompt is refused too (not only by Claude Code's loader): on codex the agent would have run it."""
    assert is_enforced("plugin-eval-template")
    folder = _case(tmp_path, _grader_file(INIT_RUBRIC))
    result = check(folder / "graders" / "criteria.md")
    (todo,) = [p for p in result.problems if p.code == "plugin-eval-template"]
    assert suppression_fixes(todo, result.doc) == []
    (folder / "graders" / "criteria.md").write_text(_grader_file(OWN))
    (folder / "prompt.md").write_text(PROMPT.replace("Greet Ada in output/greeting.txt.", PROMPT_TEMPLATE))
    for engine in ("claude-code", "codex"):
        request = FileRunRequest(file=folder / "prompt.md", engine=engine)
        suite_cls = suite_for("plugin-eval-prompt")
        assert suite_cls is not None
        suite = suite_cls(request, "plugin-eval-prompt")
        (unit,) = suite.units()
        why = suite.placeholder_refusal(unit)
        assert why is not None and why.startswith(
            "not run: the case prompt is still the blank `init` template"
        )
    (folder / "prompt.md").write_text(PROMPT)
    (unit,) = _suite(folder).units()
    assert _suite(folder).placeholder_refusal(unit) is None
