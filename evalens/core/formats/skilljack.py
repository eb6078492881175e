"""skilljack-evals: ``tasks.yaml`` (any name), ``<task-id>/task.md``, results JSON (config: ``skilljack_config``).

Rules and messages follow formats.md §3.3 (``validateEvalFile``) and §3.4 (task packages);
the original's silent failures (unknown keys, ``none`` tasks expecting activation, unknown skills) become
diagnostics too. Rules read ``doc.data`` once per task and touch spans only for problems, so a 500-task
file stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any, TypeGuard

from evalens.core.documents import Node, ParsedDocument, Path, sub_dict
from evalens.core.formats import registry
from evalens.core.formats._shared import (
    document_data,
    js_regex_error,
    problem,
    replace_fix,
    skill_names,
    skills_in,
)
from evalens.core.formats.base import CaseInfo, Format, ItemRules, Match, RuleContext, Target, ValueChoice
from evalens.core.index import frontmatter_fields
from evalens.core.js_regex import REGEX_TIMEOUT_SECONDS, nested_quantifier
from evalens.core.models import skilljack as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.placeholders import CHECKLIST_ITEM, TASK_ASSERTION, tab_stop
from evalens.core.problems import Edit, Fix, Problem, Severity, Span
from evalens.core.schema_check import suggest
from evalens.core.units import skilljack_task

register(
    SchemaSpec(
        "skilljack-tasks.schema.json",
        m.TasksFile,
        "skilljack tasks file",
        "A skilljack-evals suite (`tasks.yaml`): the skill under test, defaults and tasks with "
        "deterministic checks and judge criteria.",
    )
)
register(
    SchemaSpec(
        "skilljack-task.schema.json",
        m.TaskFrontmatter,
        "skilljack task.md frontmatter",
        "Frontmatter of a skilljack task package (`<suite>/<task-id>/task.md`); the body is the prompt.",
    )
)
register(
    SchemaSpec(
        "skilljack-results.schema.json",
        m.ResultsFile,
        "skilljack results",
        "A skilljack-evals results file (`<output.dir>/<skill>-<timestamp>.json`).",
    )
)

SLOW_REGEX = (
    "Regex /{pattern}/ repeats a group that itself repeats: on some output it backtracks for a very "
    f'long time, and the run stops it after {REGEX_TIMEOUT_SECONDS:g} s with ERROR "check timed out". '
    "Make the inner or the outer repeat unambiguous (e.g. ^a+$ for ^(a+)+$)."
)
TOOL_NAMES = (
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "Bash",
    "Skill",
    "Task",
    "WebFetch",
    "WebSearch",
    "NotebookEdit",
    "TodoWrite",
)
_OUTPUT_CHECKS = (
    "expect_marker",
    "expect_tool_calls",
    "expect_no_tool_calls",
    "expect_contains",
    "expect_not_contains",
    "expect_regex",
    "expect_javascript",
    "expect_file_exists",
)
_TOP_SKILL = re.compile(r"^skill\s*:", re.MULTILINE)
_TOP_TASKS = re.compile(r"^tasks\s*:", re.MULTILINE)
_TASK_KEYS = frozenset(("expected_skill_load", "golden_checklist", "deterministic"))


def _skilljack_task(task: dict[str, Any]) -> bool:
    """Keys only a skilljack task (or its `defaults`) has: the skill to load, the checklist, the deterministic
    block, or judge criteria over skilljack's dimensions."""
    if _TASK_KEYS & set(task):
        return True
    criteria = task.get("criteria")
    return isinstance(criteria, dict) and bool(set(m.DIMENSIONS) & set(criteria))


def _index_of(path: Path) -> int:
    return path[1] if len(path) > 1 and isinstance(path[1], int) else -1


def suite_skills(tasks_file: str, ctx: RuleContext | None = None) -> tuple[dict[str, FsPath] | None, str]:
    """Skills the suite offers: ``skills/`` next to the tasks file (what skilljack copies), else the
    package's ``skills/``; None when neither exists (then names cannot be checked)."""
    here = FsPath(tasks_file).parent / "skills"
    if here.is_dir():
        return skills_in(here), "skills/ next to this file"
    if ctx is not None and ctx.index is not None and ctx.index.skills:
        return {n: s.path for n, s in ctx.index.skills.items()}, "the package's skills/ (pass --skills-dir)"
    return None, ""


def _activation(det: Any) -> bool | None:
    """Effective ``expect_skill_activation``: true whenever a ``deterministic`` block exists."""
    if not isinstance(det, dict):
        return None
    value = det.get("expect_skill_activation", True)
    return value if isinstance(value, bool) else True


def _insert_into_map(doc: ParsedDocument, node: Node, line_text: str) -> Edit:
    """An edit adding ``key: value`` to a block or flow mapping, matching its style."""
    s = node.span
    row = doc.lines[s.start_line] if s.start_line < len(doc.lines) else ""
    if row[s.start_col : s.start_col + 1] == "{":
        text = f" {line_text}," if node.entries else f" {line_text} "
        return Edit(Span(s.start_line, s.start_col + 1, s.start_line, s.start_col + 1), text)
    return Edit(Span(s.start_line, 0, s.start_line, 0), " " * s.start_col + line_text + "\n")


@dataclass(frozen=True)
class _SkillScope:
    """The skills a suite may name (None: no skills folder found, so nothing is unknown) and where they are."""

    skills: dict[str, FsPath] | None
    where: str
    allowed: set[str]

    def unknown(self, name: Any) -> TypeGuard[str]:
        return self.skills is not None and isinstance(name, str) and name not in self.allowed


def _duplicate_id(doc: ParsedDocument, i: int, task: dict[str, Any], seen: dict[str, int]) -> list[Problem]:
    """A task id used before (``seen``: each id's first task index, updated here)."""
    tid = task.get("id")
    if not isinstance(tid, str | int) or tid == "":
        return []
    key = str(tid)
    if key not in seen:
        seen[key] = i
        return []
    first = doc.span_for(("tasks", seen[key], "id")).start_line + 1
    return [
        problem(
            doc,
            ("tasks", i, "id"),
            Severity.ERROR,
            "duplicate-id",
            f"tasks[{i}]: Duplicate task id '{key}' (first used on line {first})",
        )
    ]


def _criteria_weights(doc: ParsedDocument, i: int, task: dict[str, Any]) -> list[Problem]:
    """Criteria weights that do not sum to about 1 (a criterion without a weight has the default)."""
    criteria = task.get("criteria")
    if not isinstance(criteria, dict) or not criteria:
        return []
    total = 0.0
    for value in criteria.values():
        weight = value.get("weight", m.DEFAULT_WEIGHT) if isinstance(value, dict) else m.DEFAULT_WEIGHT
        total += weight if isinstance(weight, int | float) and not isinstance(weight, bool) else 0
    if abs(total - 1) <= 0.1:
        return []
    return [
        problem(
            doc,
            ("tasks", i, "criteria"),
            Severity.ERROR,
            "criteria-weights",
            f"tasks[{i}]: Criteria weights sum to {total:.2f}, expected ~1.0",
            on_key=True,
        )
    ]


def _regex_problems(
    doc: ParsedDocument, path: Path, patterns: list[Any], invalid: Callable[[str, str], str]
) -> list[Problem]:
    """Patterns JavaScript cannot compile (worded by ``invalid(pattern, error)``), or that may backtrack for
    a long time."""
    out: list[Problem] = []
    for j, pattern in enumerate(patterns):
        if isinstance(pattern, str) and (err := js_regex_error(pattern)):
            out.append(problem(doc, (*path, j), Severity.ERROR, "invalid-regex", invalid(pattern, err)))
        elif isinstance(pattern, str) and nested_quantifier(pattern):
            out.append(
                problem(doc, (*path, j), Severity.WARNING, "slow-regex", SLOW_REGEX.format(pattern=pattern))
            )
    return out


class SkilljackTasks(Format):
    id = "skilljack-tasks"
    judged_keys = ("golden_checklist",)
    title = "skilljack tasks"
    language = "yaml"
    globs = ("**/tasks.yaml", "**/tasks.yml")
    schema_file = "skilljack-tasks.schema.json"
    runnable = True
    lookalike_hint = (
        "Not a skilljack tasks file: it lacks skilljack's `skill` + `tasks` pair and its task keys "
        "(`expected_skill_load`, `deterministic`, `golden_checklist`). evalens leaves it alone (add "
        "`# evalens: format=skilljack-tasks` to validate it anyway)."
    )

    def sniff(self, path: str, text: str) -> bool:
        """tasks.yaml may have any name: a YAML file under ``evals/`` with top-level ``skill`` and ``tasks``."""
        posix = path.replace("\\", "/")
        return (
            posix.endswith((".yaml", ".yml"))
            and "/evals/" in f"/{posix}"
            and bool(_TOP_SKILL.search(text))
            and bool(_TOP_TASKS.search(text))
        )

    def detect(self, path: str, data: Any) -> Match:
        """`tasks.yaml` is a common name (task queues, CrewAI, orchestrators all use it): claimed on skilljack's
        shape only, a `skill` string next to a `tasks` list, or keys only skilljack writes. Tasks with prompts
        but neither gets the one look-alike hint; anything else is left alone."""
        if data is None or data == {}:
            return Match.YES
        if not isinstance(data, dict):
            return Match.NO
        tasks = data.get("tasks")
        items = [t for t in tasks[:50] if isinstance(t, dict)] if isinstance(tasks, list) else []
        defaults = sub_dict(data, "defaults")
        if (isinstance(data.get("skill"), str) and "tasks" in data) or any(
            map(_skilljack_task, [*items, defaults])
        ):
            return Match.YES
        if isinstance(data.get("skill"), str) or any(isinstance(t.get("prompt"), str) for t in items):
            return Match.LOOKALIKE
        return Match.NO

    # ------------------------------------------------------------------------------------- diagnostics

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """Use the messages of skilljack's own ``validate`` for what it checks too."""
        for p in problems:
            data = p.data or {}
            path = tuple(data.get("path", ()))
            missing = data.get("missing")
            if p.code == "schema-type" and not path:
                p.message = "Invalid evaluation file: expected a mapping with `skill` and `tasks`."
            elif p.code == "missing-key" and not path and missing == "skill":
                p.message = "Missing required field: 'skill'"
                p.fixes.append(Fix("Add `skill:`", (Edit(Span(0, 0, 0, 0), "skill: \n"),)))
            elif (p.code == "missing-key" and not path and missing == "tasks") or (
                path == ("tasks",) and p.code == "schema-type"
            ):
                p.message = "Missing or invalid 'tasks' array"
            elif (
                p.code == "missing-key"
                and len(path) == 2
                and path[0] == "tasks"
                and missing in ("id", "prompt")
            ):
                p.message = f"tasks[{path[1]}]: Missing '{missing}'"
            elif (
                p.code == "schema-minLength"
                and len(path) == 3
                and path[0] == "tasks"
                and path[2] in ("id", "prompt")
            ):
                p.message = f"tasks[{path[1]}]: Missing '{path[2]}'"
        return problems

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        split = self._split(doc, ctx)
        if split is not None:
            return split.all(doc.data["tasks"])
        data = (
            doc.data
        )  # None: an empty new file (completion offers the skeleton); not a mapping: the schema's
        # type error (reworded in refine) says it
        return self._suite_rules(doc, data, self._scope(ctx)) if isinstance(data, dict) else []

    def item_rules(self, doc: ParsedDocument, ctx: RuleContext) -> ItemRules | None:
        """Each task's rules read the task, ``defaults`` and the suite's skills: a task unchanged since the last
        validation keeps its problems while those are equal; the suite's keys and the duplicate ids run whole."""
        return self._split(doc, ctx)

    def _split(self, doc: ParsedDocument, ctx: RuleContext) -> ItemRules | None:
        data = doc.data
        if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
            return None
        tasks: list[Any] = data["tasks"]
        scope = self._scope(ctx)
        defaults = sub_dict(data, "defaults")
        default_skill = defaults.get("expected_skill_load")

        def item(i: int, task: Any) -> list[Problem]:
            if not isinstance(task, dict):
                return []
            out = _criteria_weights(doc, i, task) + self._task_rules(doc, i, task, default_skill, scope)
            # what the runner will check and judge: the same resolved task (evalens.core.units)
            unit = skilljack_task(i, task, defaults)
            if not unit.judged and unit.det is None:
                out.append(
                    problem(
                        doc,
                        ("tasks", i, "id"),
                        Severity.WARNING,
                        "no-scoring",
                        f"tasks[{i}]: No scoring method available (no deterministic check or LLM "
                        "judge criteria defined).",
                        on_key=True,
                    )
                )
            return out

        def rest() -> list[Problem]:
            out = self._suite_rules(doc, data, scope)
            seen: dict[str, int] = {}
            for i, task in enumerate(tasks):
                if isinstance(task, dict):
                    out += _duplicate_id(doc, i, task, seen)
            return out

        context = ({k: v for k, v in data.items() if k != "tasks"}, scope)
        return ItemRules("tasks", context, item, rest)

    def _scope(self, ctx: RuleContext) -> _SkillScope:
        skills, where = suite_skills(ctx.file_path, ctx)
        return _SkillScope(skills, where, {"none", ""} | skill_names(skills))

    def _suite_rules(self, doc: ParsedDocument, data: dict[str, Any], scope: _SkillScope) -> list[Problem]:
        """The suite's own keys: an unquoted version, an unknown suite or default skill."""
        out: list[Problem] = []
        if isinstance(data.get("version"), int | float) and not isinstance(data.get("version"), bool):
            span = doc.span_for(("version",))
            raw = doc.lines[span.start_line][span.start_col : span.end_col]
            out.append(
                Problem(
                    span,
                    Severity.HINT,
                    "unquoted-version",
                    f"`version: {raw}` is a number in YAML; quote it to keep it a string.",
                    fixes=[Fix(f'Quote as "{raw}"', (Edit(span, f'"{raw}"'),))],
                    data={"path": ["version"]},
                )
            )
        skill = data.get("skill")
        if scope.unknown(skill):
            out.append(self._unknown_skill(doc, ("skill",), skill, scope, Severity.WARNING))
        default_skill = sub_dict(data, "defaults").get("expected_skill_load")
        if scope.unknown(default_skill):
            out.append(
                self._unknown_skill(
                    doc, ("defaults", "expected_skill_load"), default_skill, scope, Severity.ERROR
                )
            )
        return out

    def _task_rules(
        self, doc: ParsedDocument, i: int, task: dict[str, Any], default_skill: Any, scope: _SkillScope
    ) -> list[Problem]:
        """A task's expected skill against its activation check, its regexes and its prompt."""
        out: list[Problem] = []
        expected = task.get("expected_skill_load", default_skill)
        own_expected = "expected_skill_load" in task
        det: Any = task.get("deterministic")
        activation = _activation(det)
        if expected == "none" and activation is True:
            out.append(self._none_expects_activation(doc, i, det))
        elif isinstance(expected, str) and expected not in ("none", "") and activation is False:
            fixes = [replace_fix(doc, ("tasks", i, "expected_skill_load"), "none")] if own_expected else []
            out.append(
                problem(
                    doc,
                    ("tasks", i, "deterministic", "expect_skill_activation"),
                    Severity.WARNING,
                    "negative-test-names-skill",
                    f"tasks[{i}]: `expect_skill_activation: false` makes this a negative test, but "
                    f"`expected_skill_load` is `{expected}`; the judge will score discovery "
                    "against that skill. Use `expected_skill_load: none`.",
                    fixes=fixes,
                )
            )
        if (expected == "none" or activation is False) and isinstance(det, dict):
            ignored = [k for k in _OUTPUT_CHECKS if k in det]
            if ignored:
                out.append(
                    problem(
                        doc,
                        ("tasks", i, "deterministic", ignored[0]),
                        Severity.WARNING,
                        "ignored-checks",
                        f"tasks[{i}]: output checks ({', '.join(ignored)}) are evaluated but do "
                        "not affect pass/fail for negative tests.",
                        on_key=True,
                    )
                )
        if isinstance(det, dict) and isinstance(det.get("expect_regex"), list):
            out += _regex_problems(
                doc,
                ("tasks", i, "deterministic", "expect_regex"),
                det["expect_regex"],
                lambda pattern, err: f"tasks[{i}]: Invalid regex /{pattern}/: {err}",
            )
        if own_expected and scope.unknown(expected):
            out.append(
                self._unknown_skill(doc, ("tasks", i, "expected_skill_load"), expected, scope, Severity.ERROR)
            )
        prompt = task.get("prompt")
        if (
            isinstance(prompt, str)
            and isinstance(expected, str)
            and expected not in ("none", "")
            and activation is not False
            and _names_skill(prompt, expected)
        ):
            out.append(
                problem(
                    doc,
                    ("tasks", i, "prompt"),
                    Severity.HINT,
                    "leading-prompt",
                    f"tasks[{i}]: the prompt names the skill `{expected}`; it tests compliance "
                    "rather than discovery.",
                )
            )
        return out

    def _unknown_skill(
        self, doc: ParsedDocument, path: Path, name: str, scope: _SkillScope, severity: Severity
    ) -> Problem:
        skills = scope.skills or {}
        near = suggest(name, list(skills))
        known = ", ".join(f"`{s}`" for s in skills) or "none"
        msg = f"Skill `{name}` not found in {scope.where} (skills: {known}); use a skill name or `none`" + (
            f". Did you mean `{near}`?" if near else "."
        )
        return problem(
            doc, path, severity, "unknown-skill", msg, fixes=[replace_fix(doc, path, near)] if near else []
        )

    def _none_expects_activation(self, doc: ParsedDocument, i: int, det: dict[str, Any]) -> Problem:
        explicit = "expect_skill_activation" in det
        det_path: Path = ("tasks", i, "deterministic")
        why = "is `true`" if explicit else "defaults to `true` because a `deterministic` block exists"
        if explicit:
            fix: Fix | None = replace_fix(
                doc, (*det_path, "expect_skill_activation"), "false", "Set to `false`"
            )
            path: Path = (*det_path, "expect_skill_activation")
        else:
            node = doc.node_at_path(det_path)
            fix = (
                Fix(
                    "Add `expect_skill_activation: false`",
                    (_insert_into_map(doc, node, "expect_skill_activation: false"),),
                )
                if node is not None and node.kind == "map"
                else None
            )
            path = det_path
        return problem(
            doc,
            path,
            Severity.ERROR,
            "none-expects-activation",
            f"tasks[{i}]: `expected_skill_load: none` marks a false-positive test, but "
            f"`expect_skill_activation` {why}; the task can never pass. Set it to `false`.",
            on_key=not explicit,
            fixes=[fix] if fix else [],
        )

    # ------------------------------------------------------------------------------------- editor knowledge

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        root = doc.root
        if root is None or root.kind != "map":
            return []
        tasks = root.get("tasks")
        out: list[CaseInfo] = []
        if tasks is None or tasks.kind != "seq":
            return out
        ks = root.key_span("tasks")
        if ks is not None:
            out.append(CaseInfo("*", ks, ks, ()))
        for i, item in enumerate(tasks.items):
            if item.kind != "map":
                continue
            node = item.get("id")
            if node is None or node.kind != "scalar" or node.value in (None, ""):
                continue
            out.append(CaseInfo(str(node.value), item.key_span("id") or node.span, node.span, ("tasks", i)))
        return out

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        if path in (("skill",), ("defaults", "expected_skill_load")) or (
            len(path) == 3 and path[0] == "tasks" and path[2] == "expected_skill_load"
        ):
            skills, where = suite_skills(ctx.file_path, ctx)
            out = [ValueChoice(n, "skill", f"`{p}`") for n, p in (skills or {}).items()]
            if path != ("skill",):
                out.append(
                    ValueChoice(
                        "none",
                        "false-positive test",
                        "No skill may load; pair with `deterministic.expect_skill_activation: false`.",
                    )
                )
            return out
        if (
            len(path) >= 4
            and path[0] == "tasks"
            and path[2] == "deterministic"
            and path[3] in ("expect_tool_calls", "expect_no_tool_calls")
        ):
            return [ValueChoice(t, "tool") for t in TOOL_NAMES]
        return []

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        if not isinstance(value, str):
            return []
        if path in (("skill",), ("defaults", "expected_skill_load")) or (
            len(path) == 3 and path[0] == "tasks" and path[2] == "expected_skill_load"
        ):
            skills, _ = suite_skills(ctx.file_path, ctx)
            if skills and value in skills:
                return [Target(str(skills[value]))]
        if len(path) == 4 and path[2] == "fixture" and path[3] in ("setup", "teardown"):
            target = FsPath(ctx.file_path).parent / value
            if target.is_file():
                return [Target(str(target))]
        return []

    def hover_value(self, path: Path, value: Any, ctx: RuleContext) -> str | None:
        if path in (("skill",), ("defaults", "expected_skill_load")) or (
            len(path) == 3 and path[0] == "tasks" and path[2] == "expected_skill_load"
        ):
            if value == "none":
                return (
                    "**`none`** — a false-positive test: it passes only if **no** skill loads (set "
                    "`deterministic.expect_skill_activation: false`)."
                )
            skills, where = suite_skills(ctx.file_path, ctx)
            if skills and isinstance(value, str) and value in skills:
                fields = frontmatter_fields(skills[value].read_text(encoding="utf-8", errors="replace"))
                return f"**Skill `{value}`** — {fields.get('description') or '(no description)'}\n\n`{skills[value]}`"
            return None
        if len(path) >= 2 and path[0] == "tasks" and isinstance(path[1], int):
            data = document_data(ctx, "yaml")
            if (
                not isinstance(data, dict)
                or not isinstance(data.get("tasks"), list)
                or not 0 <= path[1] < len(data["tasks"])
                or not isinstance(data["tasks"][path[1]], dict)
            ):
                return None
            if len(path) == 2 or path[2] in ("id", "criteria", "deterministic"):
                return effective_task_markdown(data, path[1])
        return None

    def skeleton(self, snippets: bool) -> str | None:
        text = (
            'skill: ${1:my-skill}\nversion: "1.0"\n\ndefaults:\n  expected_skill_load: ${1:my-skill}\n'
            "  criteria:\n    discovery: { weight: 0.3 }\n    adherence: { weight: 0.4 }\n"
            '    output: { weight: 0.3 }\n\ntasks:\n  - id: ${2:ms}-001\n    prompt: "${3:A request the '
            'skill should handle, without naming it}"\n    deterministic:\n      expect_skill_activation: true\n'
            f'      expect_marker: "${{4:MARKER}}"\n    golden_checklist:\n      - "{tab_stop(CHECKLIST_ITEM, 5)}"\n\n'
            '  - id: ${2:ms}-fp-001\n    prompt: "${6:A related request the skill must NOT handle}"\n'
            "    expected_skill_load: none\n    deterministic:\n      expect_skill_activation: false\n"
        )
        return text if snippets else re.sub(r"\$\{\d+:([^}]*)\}", r"\1", text)


def _names_skill(prompt: str, skill: str) -> bool:
    low = prompt.lower()
    return "skill" in low and re.search(rf"\b{re.escape(skill.lower())}\b", low) is not None


def effective_task_markdown(data: dict[str, Any], i: int) -> str:
    """The values skilljack will actually use for task ``i`` (inheritance and implicit defaults spelt out)."""
    task = data["tasks"][i]
    defaults = sub_dict(data, "defaults")
    expected = task.get("expected_skill_load")
    source = "task"
    if expected is None:
        expected, source = defaults.get("expected_skill_load"), "defaults"
    det = task.get("deterministic")
    activation = _activation(det)
    lines = [f"**Task `{task.get('id', i)}` — effective settings**", ""]
    lines.append(
        f"- expected skill: `{expected if expected not in (None, '') else '(none given)'}`"
        + (f" (from {source})" if expected not in (None, "") else "")
    )
    if activation is None:
        lines.append("- activation check: none (no `deterministic` block)")
    else:
        why = (
            "explicit"
            if isinstance(det, dict) and "expect_skill_activation" in det
            else "default: a `deterministic` block exists"
        )
        lines.append(f"- expect_skill_activation: `{str(activation).lower()}` ({why})")
    crit = sub_dict(task, "criteria")
    dcrit = sub_dict(defaults, "criteria")
    dims = [d for d in m.DIMENSIONS if d in crit or d in dcrit]
    if dims:
        parts = []
        for d in dims:
            own = sub_dict(crit, d)
            inherited = sub_dict(dcrit, d)
            if "weight" in own:
                parts.append(f"{d} {own['weight']}")
            elif "weight" in inherited:
                parts.append(f"{d} {inherited['weight']} (defaults)")
            else:
                parts.append(f"{d} {m.DEFAULT_WEIGHT} (built-in)")
        lines.append("- judge weights: " + ", ".join(parts))
    else:
        lines.append("- judge: not run (no criteria on the task or in defaults)")
    lines.append(f"- runs: {m.DEFAULT_RUNS} (`--runs` default)")
    return "\n".join(lines)


def _value_at(data: Any, path: Path) -> Any:
    for part in path:
        if isinstance(part, int) and isinstance(data, list) and 0 <= part < len(data):
            data = data[part]
        elif isinstance(part, str) and isinstance(data, dict):
            data = data.get(part)
        else:
            return None
    return data


# ------------------------------------------------------------------------------------------- task.md


def _task_skills(task_dir: FsPath, out: list[Problem]) -> dict[str, FsPath]:
    """The skills a task.md task sees (the suite's and its environment's); an empty skills folder is a
    problem added to ``out``."""
    skills: dict[str, FsPath] = {}
    for folder in (task_dir.parent / "skills", task_dir / "environment" / "skills"):
        if folder.is_dir():
            found = skills_in(folder)
            if not found:
                out.append(
                    Problem(
                        Span(0, 0, 0, 3),
                        Severity.WARNING,
                        "empty-skills-dir",
                        f"skills directory {folder} contains no skills (no SKILL.md found)",
                    )
                )
            skills.update(found)
    return skills


def _expected_skill_rules(
    doc: ParsedDocument, data: dict[str, Any], skills: dict[str, FsPath]
) -> list[Problem]:
    """``expected_skill`` against ``expect_skill_invocation`` and the skills there are."""
    invocation = data.get("expect_skill_invocation")
    expected = data.get("expected_skill")
    invoke = invocation if isinstance(invocation, bool) else bool(skills)
    if not isinstance(expected, str):
        if invoke and len(skills) > 1:
            return [
                Problem(
                    Span(0, 0, 0, 3),
                    Severity.ERROR,
                    "ambiguous-skill",
                    f"multiple skills found ({', '.join(skills)}) — set expected_skill in frontmatter",
                )
            ]
        return []
    if invocation is False:
        return [
            problem(
                doc,
                ("expected_skill",),
                Severity.WARNING,
                "expected-skill-ignored",
                f"expected_skill '{expected}' ignored because expect_skill_invocation is false",
            )
        ]
    if skills and expected not in skill_names(skills):
        near = suggest(expected, list(skills))
        return [
            problem(
                doc,
                ("expected_skill",),
                Severity.WARNING,
                "unknown-skill",
                f"expected_skill '{expected}' not found among available skills: {', '.join(skills)}",
                fixes=[replace_fix(doc, ("expected_skill",), near)] if near else [],
            )
        ]
    return []


def _check_rules(doc: ParsedDocument, data: dict[str, Any], task_dir: FsPath) -> list[Problem]:
    """The task's checks: a verifier block without a script or command, bad regexes, no check at all, output
    checks that cannot count."""
    out: list[Problem] = []
    invocation = data.get("expect_skill_invocation")
    verifier = data.get("verifier")
    has_script = (
        any(p.stem in ("verify", "test") for p in (task_dir / "verifier").glob("*"))
        if (task_dir / "verifier").is_dir()
        else False
    )
    if isinstance(verifier, dict) and not verifier.get("command") and not has_script:
        out.append(
            problem(
                doc,
                ("verifier",),
                Severity.ERROR,
                "verifier-missing",
                "verifier block present but no verifier/verify.* (or test.*) script and no verifier.command",
                on_key=True,
            )
        )
    checks = sub_dict(data, "checks")
    regexes = checks.get("regex")
    if isinstance(regexes, list):
        out += _regex_problems(
            doc,
            ("checks", "regex"),
            regexes,
            lambda pattern, err: f'invalid regex in checks.regex: "{pattern}" — {err}',
        )
    has_assertions = bool(data.get("assertions"))
    if invocation is not False and not checks and verifier is None and not has_script and not has_assertions:
        out.append(
            Problem(
                Span(0, 0, 0, 3),
                Severity.ERROR,
                "no-checks",
                "task must define at least one of checks:, verifier, or assertions:",
            )
        )
    output_checks = [k for k in m.OUTPUT_CHECK_KEYS if k in checks] if invocation is False else []
    if output_checks:
        out.append(
            problem(
                doc,
                ("checks",),
                Severity.WARNING,
                "ignored-checks",
                f"output checks ({', '.join(output_checks)}) have no effect on pass/fail "
                "when expect_skill_invocation is false",
                on_key=True,
            )
        )
    return out


class SkilljackTaskMd(Format):
    id = "skilljack-task"
    judged_keys = ("assertions",)
    title = "skilljack task package"
    language = "markdown"
    globs = ("**/task.md",)
    schema_file = "skilljack-task.schema.json"
    runnable = True
    _KEYS = frozenset(m.TaskFrontmatter.model_fields)

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        """A task.md without any frontmatter is someone else's markdown, not a broken task; a broken one is
        ours, and its syntax problems are worded as skilljack's loader words them (not as SKILL.md's)."""
        for p in doc.problems:
            if p.code == "frontmatter-unclosed":
                p.message = "invalid YAML frontmatter — not closed with ---"
            elif p.code == "syntax" and not p.message.startswith("invalid YAML frontmatter"):
                p.message = "invalid YAML frontmatter — " + p.message.removeprefix("YAML syntax error: ")
        return not any(p.code == "frontmatter-missing" for p in doc.problems)

    def detect(self, path: str, data: Any) -> Match:
        if not isinstance(data, dict) or self._KEYS & set(data):
            return Match.YES  # no frontmatter values, or a broken one: a task that needs fixing
        return Match.NO  # `task.md` is a common name; frontmatter without skilljack's keys is someone else's

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """skilljack's messages: one line per unknown-key group, typed checks, difficulty."""
        out: list[Problem] = []
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            value = _value_at(doc.data, path)
            if not path and p.code == "schema-type":
                continue  # rules() says it in skilljack's words
            if p.code == "unknown-key":
                group = "checks key(s)" if path[:1] == ("checks",) else "frontmatter key(s)"
                near = (p.data or {}).get("suggestion")
                p.message = f"unknown {group} ignored: {path[-1]}" + (
                    f" (did you mean `{near}`?)" if near else ""
                )
            elif path == ("difficulty",):
                p.message = f"invalid difficulty '{value}' (expected easy|medium|hard)"
            elif path[:1] == ("assertions",):
                p.message = "assertions must be an array of strings"
            elif len(path) >= 2 and path[0] == "checks" and p.code == "schema-type":
                key = path[1]
                p.message = (
                    f"checks.{key} must be a string"
                    if key in ("marker", "javascript")
                    else f"checks.{key} must be an array of strings"
                )
            out.append(p)
        return out

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data if doc.data is not None else {}
        if not isinstance(data, dict):
            return [
                Problem(
                    doc.span_for(()),
                    Severity.ERROR,
                    "frontmatter-not-mapping",
                    "frontmatter must be a YAML mapping",
                )
            ]
        out: list[Problem] = []
        body = "\n".join(doc.lines[doc.body_start_line :]).strip()
        if not body:
            line = max(0, doc.body_start_line - 1)
            out.append(
                Problem(
                    Span(line, 0, line, len(doc.lines[line])),
                    Severity.ERROR,
                    "missing-prompt",
                    "missing prompt body (markdown after frontmatter)",
                )
            )
        task_dir = FsPath(ctx.file_path).parent
        tid = data.get("id")
        if isinstance(tid, str) and tid != task_dir.name:
            out.append(
                problem(
                    doc,
                    ("id",),
                    Severity.ERROR,
                    "id-mismatch",
                    f"frontmatter id '{tid}' does not match directory name '{task_dir.name}'",
                    fixes=[replace_fix(doc, ("id",), task_dir.name)],
                )
            )
        skills = _task_skills(task_dir, out)
        out += _expected_skill_rules(doc, data, skills)
        out += _check_rules(doc, data, task_dir)
        return out

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        root = doc.root
        node = root.get("id") if root is not None and root.kind == "map" else None
        first = Span(0, 0, 0, 3)
        if node is not None and isinstance(node.value, str):
            return [CaseInfo(node.value, root.key_span("id") or node.span, node.span, ())]  # type: ignore[union-attr]
        return [CaseInfo("", first, first, ())]  # name: the task directory (the runner knows the path)

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        task_dir = FsPath(ctx.file_path).parent
        if path == ("expected_skill",):
            out: list[ValueChoice] = []
            for folder in (task_dir.parent / "skills", task_dir / "environment" / "skills"):
                out += [ValueChoice(n, "skill", str(p)) for n, p in skills_in(folder).items()]
            return out
        if path == ("id",):
            return [ValueChoice(task_dir.name, "the task's directory name")]
        if path == ("difficulty",):
            return [ValueChoice(v) for v in ("easy", "medium", "hard")]
        if len(path) >= 2 and path[:2] in (("checks", "tool_calls"), ("checks", "no_tool_calls")):
            return [ValueChoice(t, "tool") for t in TOOL_NAMES]
        return []

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        if path == ("expected_skill",) and isinstance(value, str):
            task_dir = FsPath(ctx.file_path).parent
            for folder in (task_dir / "environment" / "skills", task_dir.parent / "skills"):
                found = skills_in(folder)
                if value in found:
                    return [Target(str(found[value]))]
        return []

    def skeleton(self, snippets: bool) -> str | None:
        return (
            "---\nexpected_skill: my-skill\nchecks:\n  marker: MARKER\n  not_contains: [ERROR]\nassertions:\n"
            f'  - "{TASK_ASSERTION}"\n---\n\nA request the skill should handle, without '
            "naming it.\n"
        )


# ------------------------------------------------------------------------------------------- results


class SkilljackResults(Format):
    id = "skilljack-results"
    title = "skilljack results"
    language = "json"
    globs = ("**/baselines/*.json",)
    schema_file = "skilljack-results.schema.json"

    def sniff(self, path: str, text: str) -> bool:
        head = text[:4000]
        return path.lower().endswith(".json") and '"skillName"' in head and '"summary"' in text

    def detect(self, path: str, data: Any) -> Match:
        return Match.YES if isinstance(data, dict) and "skillName" in data and "summary" in data else Match.NO

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data: Any = doc.data if isinstance(doc.data, dict) else {}
        out: list[Problem] = []
        summary = sub_dict(data, "summary")
        tasks = data.get("tasks")
        if (
            isinstance(tasks, list)
            and isinstance(summary.get("totalTasks"), int)
            and tasks
            and summary["totalTasks"] != len(tasks)
        ):
            out.append(
                problem(
                    doc,
                    ("summary", "totalTasks"),
                    Severity.WARNING,
                    "summary-mismatch",
                    f"`summary.totalTasks` is {summary['totalTasks']} but `tasks` lists {len(tasks)}.",
                )
            )
        reasons = data.get("failureReasons")
        if (
            isinstance(data.get("passed"), bool)
            and isinstance(reasons, list)
            and data["passed"] == bool(reasons)
        ):
            out.append(
                problem(
                    doc,
                    ("passed",),
                    Severity.WARNING,
                    "passed-mismatch",
                    f"`passed` is {str(data['passed']).lower()} but `failureReasons` "
                    f"{'lists ' + str(len(reasons)) + ' reason(s)' if reasons else 'is empty'}.",
                )
            )
        return out

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        return []


registry.register(SkilljackTasks())
registry.register(SkilljackTaskMd())
registry.register(SkilljackResults())
