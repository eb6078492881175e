"""UAAPS / AAM evals: ``evals/eval-config.json``, ``evals/cases/*.yaml``, ``evals/reports/*.json``.

Rules from formats.md §2: reserved engines are errors, unknown keys warnings (forward compatibility),
paths stay inside their root, targets resolve inside the package, criteria must be checkable.
"""

from __future__ import annotations

import copy
import os
import re
from pathlib import Path as FsPath
from typing import Any

from evalens.core.documents import ParsedDocument, Path, sub_dict
from evalens.core.engines import RESERVED, default_engine, engine_names, engine_spec, engines_phrase
from evalens.core.env_policy import refused_reason
from evalens.core.formats import registry
from evalens.core.formats._shared import creatable, is_concrete, is_vague, path_escape
from evalens.core.formats.base import CaseInfo, Format, Match, RuleContext, Target, ValueChoice
from evalens.core.index import normalise_event
from evalens.core.placeholders import CASE_CRITERIA, CRITERIA_FIX, tab_stop
from evalens.core.problems import Edit, Fix, Problem, Severity, Span
from evalens.core.schema_check import suggest


def kebab(value: str) -> str:
    out = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", value)
    out = re.sub(r"[^a-z0-9]+", "-", out.lower()).strip("-")
    return out[:64] or "case"


def _doc_path(ctx: RuleContext) -> FsPath:
    return FsPath(ctx.file_path)


_WITH_ENGINES: dict[tuple[str, ...], dict[str, Any]] = {}  # the config schema per registered engine set


class UaapsConfig(Format):
    id = "uaaps-config"
    title = "UAAPS eval config"
    language = "json"
    globs = ("**/evals/eval-config.json",)
    schema_file = "uaaps-eval-config.schema.json"
    lookalike_hint = (
        'Not a UAAPS eval config: it has neither `"version": 1` nor `engine`, so it belongs to another '
        'tool. evalens leaves it alone (add `"$schema": "https://evalens.dev/schemas/'
        'uaaps-eval-config.schema.json"` to validate it anyway).'
    )

    def schema(self) -> dict[str, Any] | None:
        """The exported schema with the engine enum the registry has now (a registered engine validates)."""
        base = super().schema()
        names = engine_names()
        if base is None or base.get("properties", {}).get("engine", {}).get("enum") == list(names):
            return base
        if names not in _WITH_ENGINES:
            schema = copy.deepcopy(base)
            schema["properties"]["engine"]["enum"] = list(names)
            _WITH_ENGINES[names] = schema
        return _WITH_ENGINES[names]

    def detect(self, path: str, data: Any) -> Match:
        if not isinstance(data, dict):
            return Match.LOOKALIKE if data is not None else Match.YES
        if not data:
            return Match.YES
        version_ok = (
            "version" in data
            and isinstance(data["version"], int | float)
            and not isinstance(data["version"], bool)
            and data["version"] == 1
        )
        return Match.YES if version_ok or "engine" in data else Match.LOOKALIKE

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        out = []
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            if path == ("engine",) and p.code == "schema-enum":
                value = doc.data.get("engine") if isinstance(doc.data, dict) else None
                if value in RESERVED:
                    p.message = (
                        f"Engine `{value}` is reserved until it has a headless mode "
                        f"(unsupported-engine); use {engines_phrase()}."
                    )
                    p.code = "unsupported-engine"
                else:
                    p.severity = Severity.WARNING
                    near = suggest(str(value), list(engine_names()))
                    p.code = "unknown-engine"
                    p.message = f"Unknown engine `{value}`; evalens can run {engines_phrase('and')}." + (
                        f" Did you mean `{near}`?" if near else ""
                    )
                    if near:
                        p.fixes.append(Fix(f"Change to `{near}`", (Edit(doc.unquoted(p.span), near),)))
            if p.code == "missing-key" and (p.data or {}).get("missing") == "version" and not path:
                p.fixes.append(_insert_after_brace(doc, '"version": 1', 'Add `"version": 1`'))
            if p.code == "missing-key" and (p.data or {}).get("missing") == "engine" and not path:
                p.fixes.append(
                    _insert_after_brace(
                        doc, f'"engine": "{default_engine()}"', f'Add `"engine": "{default_engine()}"`'
                    )
                )
            out.append(p)
        return out

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        out: list[Problem] = []
        data = doc.data if isinstance(doc.data, dict) else {}
        sandbox = data.get("sandbox")
        if isinstance(sandbox, dict) and isinstance(sandbox.get("writable-paths"), list):
            for i, entry in enumerate(sandbox["writable-paths"]):
                if isinstance(entry, str) and (why := path_escape(entry)):
                    out.append(
                        Problem(
                            doc.span_for(("sandbox", "writable-paths", i)),
                            Severity.ERROR,
                            "path-escape",
                            f"`{entry}` {why}; writable paths are relative to the "
                            "sandbox workspace and must stay inside it.",
                        )
                    )
        env = data.get("env")
        if isinstance(env, dict):
            for key in env:
                if refused := refused_reason(key):
                    out.append(
                        Problem(
                            doc.span_for(("env", key), prefer_key=True),
                            Severity.ERROR,
                            "env-refused",
                            f"`{key}` is refused: {refused}. An eval config's `env` may set only the eval's "
                            "own settings; a run refuses this config (docs/sandbox.md).",
                        )
                    )
                elif re.search(r"(KEY|TOKEN|SECRET|PASSWORD)", key, re.IGNORECASE):
                    out.append(
                        Problem(
                            doc.span_for(("env", key), prefer_key=True),
                            Severity.WARNING,
                            "secret-in-config",
                            f"`{key}` looks like a secret; eval-config.json is "
                            "committed. Pass secrets through the environment instead.",
                        )
                    )
        return out

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        if path == ("engine",):
            return [ValueChoice(name, spec.label) for name in engine_names() if (spec := engine_spec(name))]
        if path == ("judge",):
            return [
                ValueChoice(m)
                for m in (
                    "claude-sonnet-4-5",
                    "claude-opus-4-1",
                    "claude-haiku-4-5",
                    "openai:gpt-5",
                    "openai:gpt-5-mini",
                )
            ]
        return []

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        """The config gets one "Run all evals" lens at its first line."""
        return [CaseInfo("*", Span(0, 0, 0, 1), Span(0, 0, 0, 1))]

    def skeleton(self, snippets: bool) -> str | None:
        if snippets:
            return (
                f'{{\n  "version": 1,\n  "engine": "${{1|{",".join(engine_names())}|}}",\n  "timeout": ${{2:120}},\n'
                '  "sandbox": { "network": false }\n}\n'
            )
        return (
            f'{{\n  "version": 1,\n  "engine": "{default_engine()}",\n  "timeout": 120,\n'
            '  "sandbox": { "network": false }\n}\n'
        )


class UaapsCase(Format):
    id = "uaaps-case"
    judged_keys = ("criteria",)
    title = "UAAPS eval case"
    language = "yaml"
    globs = ("**/evals/cases/*.yaml", "**/evals/cases/*.yml")
    schema_file = "uaaps-eval-case.schema.json"
    runnable = True
    lookalike_hint = (
        "Not a UAAPS eval case: it has none of `name`, `input`, `expected`, `judge`. "
        "evalens leaves it alone (add `# evalens: format=uaaps-case` to validate it anyway)."
    )

    def detect(self, path: str, data: Any) -> Match:
        if data is None or data == {}:
            return Match.YES
        if isinstance(data, dict) and {"name", "input", "judge", "expected", "target"} & set(data):
            return Match.YES
        return Match.LOOKALIKE

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        root = doc.root
        if root is None or root.kind != "map":
            return []
        node = root.get("name")
        if node is None or not isinstance(node.value, str) or not node.value:
            return []
        kspan = root.key_span("name") or node.span
        return [CaseInfo(node.value, kspan, node.span, ())]

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            if path == ("name",) and p.code == "schema-pattern":
                value = str(doc.data.get("name"))
                fixed = kebab(value)
                p.message = (
                    f"`{value}` is not a valid case name: use lowercase letters, digits and `-` "
                    f"(e.g. `{fixed}`)."
                )
                p.fixes.append(Fix(f"Change to `{fixed}`", (Edit(doc.unquoted(p.span), fixed),)))
            elif path == ("target",) and p.code == "schema-pattern":
                p.message = (
                    f"`{doc.data.get('target')}` is not a valid target; use `skill:<name>`, "
                    "`hook:<event>` or `agent:<name>`."
                )
            elif (
                p.code == "missing-key" and (p.data or {}).get("missing") == "criteria" and path == ("judge",)
            ):
                p.fixes.append(self._criteria_fix(doc, under_judge=True))
            elif p.code == "missing-key" and (p.data or {}).get("missing") == "judge" and not path:
                p.fixes.append(self._criteria_fix(doc, under_judge=False))
        return problems

    def _criteria_fix(self, doc: ParsedDocument, *, under_judge: bool) -> Fix:
        """``judge.criteria`` with the placeholder the user must replace: a tab stop in editors that insert
        snippets, and the ``skeleton-placeholder`` problem (and a runner that refuses to judge it) until then."""
        title = "Add a `judge.criteria` skeleton"

        def fix(at: Span, head: str, key_indent: int, tail: str = "") -> Fix:
            text = f"{head}{' ' * key_indent}criteria: >\n{' ' * (key_indent + 2)}"
            return Fix(
                title, (Edit(at, text + CRITERIA_FIX + tail, snippet=text + tab_stop(CRITERIA_FIX) + tail),)
            )

        if under_judge and doc.root is not None:
            ks = doc.root.key_span("judge")
            judge = doc.root.get("judge")
            if ks is not None and judge is not None and judge.kind == "map":
                at = Span(judge.span.start_line, 0, judge.span.start_line, 0)
                return fix(at, "", judge.span.start_col, "\n")
            if ks is not None:
                line = ks.start_line
                end = len(doc.lines[line])
                return fix(Span(line, end, line, end), "\n", 2)
        last = len(doc.lines) - 1
        while last > 0 and not doc.lines[last].strip():
            last -= 1
        end = len(doc.lines[last])
        return fix(Span(last, end, last, end), "\njudge:\n", 2)

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            if data is None:
                return [
                    Problem(
                        Span(0, 0, 0, 1),
                        Severity.INFO,
                        "empty-case",
                        "Empty eval case: use completion for a whole-case skeleton.",
                    )
                ]
            return []
        out: list[Problem] = []
        index = ctx.index
        name = data.get("name")
        if index is not None and isinstance(name, str):
            me = os.path.abspath(ctx.file_path)
            others = [r for r in index.case_names.get(name, []) if os.path.abspath(r.path) != me]
            if others:
                other = others[0]
                out.append(
                    Problem(
                        doc.span_for(("name",)),
                        Severity.ERROR,
                        "duplicate-case-name",
                        f"Case name `{name}` is also used by `{other.path.name}` (line "
                        f"{other.span.start_line + 1}); names must be unique across evals/cases/.",
                    )
                )
        inp = sub_dict(data, "input")
        for key, root_desc in (("files", "evals/"), ("workspace-files", "the sandbox workspace")):
            entries = inp.get(key)
            if not isinstance(entries, list):
                continue
            for i, entry in enumerate(entries):
                if not isinstance(entry, str):
                    continue
                span = doc.span_for(("input", key, i))
                why = path_escape(entry)
                if why:
                    out.append(
                        Problem(
                            span,
                            Severity.ERROR,
                            "path-escape",
                            f"`{entry}` {why}; `input.{key}` paths are relative to {root_desc} "
                            "and must stay inside it.",
                        )
                    )
                elif key == "files" and index is not None and not index.fixture_exists(entry):
                    near = suggest(entry, index.fixtures)
                    fixes = [Fix(f"Change to `{near}`", (Edit(doc.unquoted(span), near),))] if near else []
                    out.append(
                        Problem(
                            span,
                            Severity.ERROR,
                            "fixture-missing",
                            f"Fixture `{entry}` not found under evals/"
                            + (f"; did you mean `{near}`?" if near else "."),
                            fixes=fixes,
                            data=creatable(index.evals_dir, entry),
                        )
                    )
        target = data.get("target")
        if isinstance(target, str) and index is not None and ":" in target:
            out.extend(self._target_rule(doc, target, index))
        judge = sub_dict(data, "judge")
        criteria = judge.get("criteria")
        expected = sub_dict(data, "expected")
        has_checks = any(
            expected.get(k) not in (None, [], "")
            for k in ("contains", "not-contains", "files-created", "agent-blocked")
        )
        if isinstance(criteria, str) and criteria.strip():
            if is_vague(criteria):
                out.append(
                    Problem(
                        doc.span_for(("judge", "criteria")),
                        Severity.WARNING,
                        "vague-criteria",
                        'Vague judge criteria: words like "appropriate", "reasonable" or "good" '
                        "with no concrete check. Name what the output must contain or do.",
                    )
                )
            if not has_checks and not is_concrete(criteria):
                out.append(
                    Problem(
                        doc.span_for(("name",), prefer_key=True),
                        Severity.HINT,
                        "no-checks",
                        "This case has no `expected` checks and no concrete criteria; it can "
                        "hardly fail. Add `expected.contains` or a checkable criterion.",
                    )
                )
        return out

    def _target_rule(self, doc: ParsedDocument, target: str, index: Any) -> list[Problem]:
        kind, _, name = target.partition(":")
        span = doc.span_for(("target",))
        if kind == "skill" and name not in index.skills:
            near = suggest(name, list(index.skills))
            msg = f"Skill `{name}` not found: no skills/{name}/SKILL.md in this package"
            fixes = (
                [Fix(f"Change to `skill:{near}`", (Edit(doc.unquoted(span), f"skill:{near}"),))]
                if near
                else []
            )
            return [
                Problem(
                    span,
                    Severity.ERROR,
                    "unknown-target",
                    msg + (f"; did you mean `{near}`?" if near else "."),
                    fixes=fixes,
                )
            ]
        if kind == "hook":
            if normalise_event(name) not in index.hooks:
                known = ", ".join(h.event for h in index.hooks.values()) or "none"
                return [
                    Problem(
                        span,
                        Severity.ERROR,
                        "unknown-target",
                        f"Hook event `{name}` is not configured in hooks/hooks.json (events: {known}).",
                    )
                ]
        if kind == "agent" and name not in index.agents:
            return [
                Problem(
                    span,
                    Severity.ERROR,
                    "unknown-target",
                    f"Agent `{name}` not found: no agents/{name}/ in this package.",
                )
            ]
        return []

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        index = ctx.index
        if path == ("target",) and index is not None:
            out = [ValueChoice(f"skill:{s.name}", "skill", s.description) for s in index.skills.values()]
            out += [
                ValueChoice(f"hook:{h.event}", "hook event", f"configured in {h.path.name}")
                for h in index.hooks.values()
            ]
            out += [ValueChoice(f"agent:{a}", "agent", str(p)) for a, p in index.agents.items()]
            return out
        if len(path) >= 2 and path[:2] == ("input", "files") and index is not None:
            return [ValueChoice(f, "fixture") for f in index.fixtures]
        return []

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        index = ctx.index
        if index is None or not isinstance(value, str):
            return []
        if path == ("target",):
            kind, _, name = value.partition(":")
            if kind == "skill" and name in index.skills:
                return [Target(str(index.skills[name].path))]
            if kind == "hook":
                hook = index.hooks.get(normalise_event(name))
                if hook:
                    return [Target(str(hook.path), Span(hook.line, 0, hook.line, 0))]
            if kind == "agent" and name in index.agents:
                agent = index.agents[name]
                md = next(iter(sorted(agent.glob("*.md"))), None) if agent.is_dir() else agent
                return [Target(str(md or agent))]
        if len(path) == 3 and path[:2] == ("input", "files") and index.fixture_exists(value):
            return [Target(str(index.evals_dir / value))]
        return []

    def hover_value(self, path: Path, value: Any, ctx: RuleContext) -> str | None:
        index = ctx.index
        if path == ("target",) and isinstance(value, str) and index is not None:
            kind, _, name = value.partition(":")
            if kind == "skill" and name in index.skills:
                skill = index.skills[name]
                return f"**Skill `{name}`** — {skill.description or '(no description)'}\n\n`{skill.path}`"
            if kind == "hook":
                hook = index.hooks.get(normalise_event(name))
                if hook:
                    return f"**Hook event `{hook.event}`** configured in `{hook.path}`"
        return None

    def skeleton(self, snippets: bool) -> str | None:
        if snippets:
            return (
                "name: ${1:my-case}\ndescription: ${2:What this case checks}\ntarget: ${3:skill:name}\n"
                "input:\n  prompt: ${4:Prompt sent to the agent}\n  files: []\nexpected:\n  contains:\n"
                f"    - ${{5:text the output must contain}}\njudge:\n  criteria: >\n    {tab_stop(CASE_CRITERIA, 6)}\n"
            )
        return (
            "name: my-case\ndescription: What this case checks\ntarget: skill:name\ninput:\n"
            "  prompt: Prompt sent to the agent\n  files: []\nexpected:\n  contains:\n"
            f"    - text the output must contain\njudge:\n  criteria: >\n    {CASE_CRITERIA}\n"
        )


class UaapsReport(Format):
    id = "uaaps-report"
    title = "UAAPS eval report"
    language = "json"
    globs = ("**/evals/reports/*.json",)
    schema_file = "uaaps-eval-report.schema.json"
    lookalike_hint = (
        "Not a UAAPS eval report (no `summary.pass_rate` or `cases[].verdict`); evalens leaves it alone."
    )

    def detect(self, path: str, data: Any) -> Match:
        if not isinstance(data, dict):
            return Match.LOOKALIKE
        summary, cases = data.get("summary"), data.get("cases")
        if isinstance(summary, dict) and {"pass_rate", "total", "passed"} & set(summary):
            return Match.YES
        if isinstance(cases, list) and any(isinstance(c, dict) and "verdict" in c for c in cases[:50]):
            return Match.YES
        return Match.LOOKALIKE

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("summary"), dict)
            or not isinstance(data.get("cases"), list)
        ):
            return []
        summary, cases = data["summary"], data["cases"]
        verdicts = [c.get("verdict") for c in cases if isinstance(c, dict)]
        counted = {"total": len(verdicts), "passed": verdicts.count("PASS"), "failed": verdicts.count("FAIL")}
        out = []
        for key, n in counted.items():
            if isinstance(summary.get(key), int) and summary[key] != n:
                out.append(
                    Problem(
                        doc.span_for(("summary", key)),
                        Severity.WARNING,
                        "summary-mismatch",
                        f"`summary.{key}` is {summary[key]} but `cases` lists {n}.",
                    )
                )
        return out


def _insert_after_brace(doc: ParsedDocument, member: str, title: str) -> Fix:
    for line, text in enumerate(doc.lines):
        col = text.find("{")
        if col >= 0:
            rest = text[col + 1 :].strip()
            sep = "" if rest.startswith("}") else ","
            return Fix(title, (Edit(Span(line, col + 1, line, col + 1), f"\n  {member}{sep}"),))
    return Fix(title, (Edit(Span(0, 0, 0, 0), "{" + member + "}"),))


registry.register(UaapsConfig())
registry.register(UaapsCase())
registry.register(UaapsReport())
