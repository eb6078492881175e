"""skill-creator / agentskills.io (formats.md §5): ``evals/evals.json``, ``grading.json``, trigger eval sets.

``expectations`` and ``assertions`` are both accepted (never both in one case) with quick fixes between them;
object-form assertions, inline-object ``files`` and missing fixtures are flagged, as the ecosystem's stricter
checkers do (§5.4: magnus919 ``evals-v1``, confluent ``check_eval_schema.py``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path as FsPath
from typing import Any

from evalens.runner.documents import ParsedDocument, Path
from evalens.runner.formats import registry
from evalens.runner.formats._shared import (
    frontmatter_name,
    inner,
    is_unfalsifiable,
    path_error,
    problem,
    replace_fix,
)
from evalens.runner.formats.base import CaseInfo, Format, Match, RuleContext, Target, ValueChoice
from evalens.runner.formats.writing_skills import _dicts, _files_under, _id_cases, skill_dir_of
from evalens.runner.models import skill_creator as m
from evalens.runner.models.catalog import SchemaSpec, register
from evalens.runner.problems import Edit, Fix, Problem, Severity, Span
from evalens.runner.schema_check import suggest

register(SchemaSpec("skill-creator-evals.schema.json", m.EvalsFile, "skill-creator evals.json",
                    "Evals of a skill (Anthropic skill-creator / agentskills.io): prompts, input files and the "
                    "statements a grader checks (`expectations` or `assertions`)."))
register(SchemaSpec("skill-creator-grading.schema.json", m.GradingFile, "skill-creator grading.json",
                    "The grader's verdict on one run (`<run-dir>/grading.json`), read by the viewer and "
                    "`aggregate_benchmark.py`."))
register(SchemaSpec("skill-creator-benchmark.schema.json", m.BenchmarkFile, "skill-creator benchmark.json",
                    "With-skill vs without-skill runs aggregated by skill-creator (`benchmarks/<timestamp>/"
                    "benchmark.json`), read by its viewer."))
register(SchemaSpec("skill-creator-trigger-evals.schema.json", m.TriggerEvalSet, "Trigger eval set",
                    "Queries with whether a skill should load for each (`run_eval.py`)."))
register(SchemaSpec("skill-creator-trigger-evals-variant.schema.json", m.TriggerEvalSetVariant,
                    "Trigger eval set (variant)",
                    "`{skill_name, should_trigger: [...], should_not_trigger: [...]}`, a variant seen in the wild."))

CHECK_KEYS = ("expectations", "assertions")
_PLACEHOLDER = re.compile(r"<[A-Z][A-Za-z_ ]*>|\bTODO\b|\bXXX\b|\bTBD\b")
_ABSTRACT = re.compile(r"^\s*(?:please\s+)?(?:build|make|create|write)\s+me\s+an?\b", re.IGNORECASE)


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether a match is written inside quotes (the prompt talks about it rather than leaving it unfilled)."""
    return start > 0 and end < len(text) and text[start - 1] == text[end] and text[end] in "'\"`"


def _object_text(item: dict[str, Any]) -> str:
    """The statement an object-form assertion stands for: its description, else its name."""
    for key in ("description", "text", "name", "id"):
        if isinstance(item.get(key), str) and item[key].strip():
            return item[key].strip()
    return json.dumps(item)


class SkillCreatorEvals(Format):
    id = "skill-creator-evals"
    title = "skill-creator evals.json"
    language = "json"
    globs = ("**/evals.json",)
    schema_file = "skill-creator-evals.schema.json"
    runnable = True
    lookalike_hint = ("Not an evals.json evalens knows: neither skill-creator (`skill_name`, `evals`) nor "
                      "writing-skills (`version`, `skill`, `cases`). evalens leaves it alone.")

    def detect(self, path: str, data: Any) -> Match:
        if data is None or data == {}:
            return Match.YES
        if isinstance(data, dict) and ("evals" in data or "skill_name" in data):
            return Match.YES
        return Match.LOOKALIKE

    # ------------------------------------------------------------------------------------- diagnostics

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """Object assertions and string ids get their own rules; the generic type errors are dropped."""
        out: list[Problem] = []
        data = doc.data
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            if len(path) == 4 and path[0] == "evals" and path[2] in CHECK_KEYS and p.code == "schema-type":
                continue  # see object-assertion
            if len(path) == 3 and path[0] == "evals" and path[2] == "id" and p.code == "schema-type":
                value = data["evals"][path[1]]["id"]
                if isinstance(value, str) and value:
                    p.severity = Severity.WARNING
                    p.code = "string-id"
                    p.message = (f"skill-creator documents integer ids; `\"{value}\"` is a string (its scripts "
                                 "never read evals.json, but strict validators reject it).")
            elif len(path) == 4 and path[0] == "evals" and path[2] == "files" and p.code == "schema-type":
                p.message = ("`files` entries are paths (strings) relative to the skill root; inline "
                             "`{path, content}` objects are not read by skill-creator. Put the content in a file "
                             "(e.g. `evals/files/<name>`) and list its path.")
            out.append(p)
        return out

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        out: list[Problem] = []
        root = skill_dir_of(ctx.file_path)
        out += self._skill_name_rule(doc, data, root)
        evals = data.get("evals")
        seen: dict[Any, int] = {}
        names_used: dict[str, list[int]] = {"expectations": [], "assertions": []}
        for i, case in _dicts(evals):
            cid = case.get("id")
            if isinstance(cid, int | str) and not isinstance(cid, bool):
                if cid in seen:
                    line = doc.span_for(("evals", seen[cid], "id")).start_line + 1
                    out.append(problem(doc, ("evals", i, "id"), Severity.ERROR, "duplicate-id",
                                       f"duplicate case ID `{cid}`; first seen at $.evals[{seen[cid]}].id "
                                       f"(line {line})."))
                else:
                    seen[cid] = i
            present = [k for k in CHECK_KEYS if k in case]
            for k in present:
                names_used[k].append(i)
            if len(present) == 2:
                out.append(problem(doc, ("evals", i, "assertions"), Severity.ERROR, "both-check-keys",
                                   f"evals[{i}] has both `expectations` and `assertions`; use one name per case "
                                   "(skill-creator's schemas.md says `expectations`, agentskills.io `assertions`).",
                                   on_key=True))
            elif not present:
                out.append(problem(doc, ("evals", i), Severity.ERROR, "missing-assertions",
                                   f"evals[{i}] has no `assertions` (or `expectations`): nothing can be graded.",
                                   on_key=True))
            elif present == ["expectations"]:
                fix = self._rename(doc, [i], "expectations", "assertions")
                out.append(problem(doc, ("evals", i, "expectations"), Severity.HINT, "legacy-expectations",
                                   "`expectations` is the name in skill-creator's schemas.md; its SKILL.md and "
                                   "agentskills.io call the list `assertions`.", on_key=True,
                                   fixes=[fix] if fix else []))
            for key in present:
                items = case[key]
                if isinstance(items, list) and not items:
                    out.append(problem(doc, ("evals", i, key), Severity.WARNING, "no-assertions",
                                       f"evals[{i}].{key} is empty, so the case can never fail.", on_key=True))
                for j, item in enumerate(items if isinstance(items, list) else []):
                    out += self._assertion_rules(doc, (i, key, j), item)
            if "expected_output" not in case:
                out.append(problem(doc, ("evals", i), Severity.WARNING, "missing-expected-output",
                                   f"evals[{i}] has no `expected_output` (documented as required: a human-readable "
                                   "description of success).", on_key=True))
            prompt = case.get("prompt")
            if isinstance(prompt, str) and prompt.strip():
                out += self._prompt_rules(doc, i, prompt)
            files = case.get("files")
            if isinstance(files, list):
                out += self._file_rules(doc, i, files, root)
        if names_used["expectations"] and names_used["assertions"]:
            fixes = [f for f in (self._rename(doc, names_used["expectations"], "expectations", "assertions",
                                              "Use `assertions` in every case"),
                                 self._rename(doc, names_used["assertions"], "assertions", "expectations",
                                              "Use `expectations` in every case")) if f]
            out.append(problem(doc, ("evals",), Severity.WARNING, "mixed-check-keys",
                               "This file mixes `expectations` (evals " + ", ".join(map(str, names_used["expectations"]))
                               + ") and `assertions` (evals " + ", ".join(map(str, names_used["assertions"]))
                               + "); pick one name.", on_key=True, fixes=fixes))
        return out

    def _skill_name_rule(self, doc: ParsedDocument, data: dict[str, Any], root: FsPath) -> list[Problem]:
        name = data.get("skill_name")
        skill_md = next((root / n for n in ("SKILL.md", "skill.md") if (root / n).is_file()), None)
        if not isinstance(name, str) or skill_md is None:
            return []
        expected = frontmatter_name(skill_md) or root.name
        if name == expected:
            return []
        return [problem(doc, ("skill_name",), Severity.WARNING, "skill-name-mismatch",
                        f"`skill_name` is `{name}` but the skill's SKILL.md is named `{expected}`.",
                        fixes=[replace_fix(doc, ("skill_name",), expected)])]

    def _assertion_rules(self, doc: ParsedDocument, where: tuple[int, str, int], item: Any) -> list[Problem]:
        i, key, j = where
        path: Path = ("evals", i, key, j)
        if isinstance(item, dict):
            text = _object_text(item)
            return [problem(doc, path, Severity.ERROR, "object-assertion",
                            f"Object-form assertion: skill-creator expects plain strings (the grader writes them "
                            f"back as `grading.json` `expectations[].text`). Write it as one verifiable sentence, "
                            f"e.g. {json.dumps(text)}.",
                            fixes=[Fix("Replace with its description as a string",
                                       (Edit(doc.span_for(path), json.dumps(text)),))])]
        if not isinstance(item, str):
            return [problem(doc, path, Severity.ERROR, "schema-type", f"`evals[{i}].{key}[{j}]` must be a string.")]
        if len(item.strip()) < 8 or is_unfalsifiable(item):
            return [problem(doc, path, Severity.WARNING, "vague-assertion",
                            f"Vague {key[:-1]}: {json.dumps(item)} gives the grader nothing concrete to find "
                            "false. Name the file, value, command or behaviour.")]
        return []

    def _prompt_rules(self, doc: ParsedDocument, i: int, prompt: str) -> list[Problem]:
        path: Path = ("evals", i, "prompt")
        out = []
        if m_ := next((x for x in _PLACEHOLDER.finditer(prompt) if not _quoted(prompt, x.start(), x.end())), None):
            out.append(problem(doc, path, Severity.WARNING, "placeholder",
                               f"The prompt still contains the placeholder `{m_.group()}`."))
        if _ABSTRACT.search(prompt):
            out.append(problem(doc, path, Severity.HINT, "abstract-prompt",
                               "Abstract \"Build me a …\" prompt: real requests name files, data and context."))
        elif len(prompt.strip()) < 40:
            out.append(problem(doc, path, Severity.HINT, "short-prompt",
                               f"The prompt is {len(prompt.strip())} characters; realistic prompts (≥ 40) give the "
                               "skill something to work with."))
        return out

    def _file_rules(self, doc: ParsedDocument, i: int, files: list[Any], root: FsPath) -> list[Problem]:
        out: list[Problem] = []
        for j, entry in enumerate(files):
            if not isinstance(entry, str):
                continue
            path: Path = ("evals", i, "files", j)
            why = path_error(entry)
            if why:
                out.append(problem(doc, path, Severity.ERROR, "path-escape",
                                   f"`{entry}` {why}: path escapes skill root (files are relative to it)."))
                continue
            if entry.startswith("./") or entry.endswith("/"):
                clean = entry.removeprefix("./").rstrip("/")
                out.append(problem(doc, path, Severity.HINT, "path-style",
                                   f"Strict relative paths have no `./` prefix or trailing `/`: `{clean}`.",
                                   fixes=[replace_fix(doc, path, clean)]))
            if not (root / entry).exists():
                known = _files_under(root, skip=set(), limit=2000)
                near = suggest(entry, known)
                out.append(problem(doc, path, Severity.ERROR, "file-missing",
                                   f"file does not exist: {entry} (relative to the skill root {root.name}/)"
                                   + (f"; did you mean `{near}`?" if near else ""),
                                   fixes=[replace_fix(doc, path, near)] if near else []))
        return out

    def _rename(self, doc: ParsedDocument, cases: list[int], old: str, new: str, title: str | None = None) -> Fix | None:
        edits = []
        for i in cases:
            span = doc.key_span_at_path(("evals", i, old))
            if span is not None:
                edits.append(Edit(inner(doc, span), new))
        return Fix(title or f"Rename `{old}` to `{new}`", tuple(edits)) if edits else None

    # ------------------------------------------------------------------------------------- editor knowledge

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        return _id_cases(doc, "evals")

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        root = skill_dir_of(ctx.file_path)
        if len(path) >= 3 and path[0] == "evals" and path[2] == "files":
            return [ValueChoice(f, "file") for f in _files_under(root, skip={"evals.json"})]
        if path == ("skill_name",):
            skill_md = root / "SKILL.md"
            name = frontmatter_name(skill_md) if skill_md.is_file() else None
            return [ValueChoice(name or root.name, "the skill's name")]
        return []

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        root = skill_dir_of(ctx.file_path)
        if path == ("skill_name",) and (root / "SKILL.md").is_file():
            return [Target(str(root / "SKILL.md"))]
        if len(path) == 4 and path[0] == "evals" and path[2] == "files" and isinstance(value, str) and \
                not path_error(value) and (root / value).exists():
            return [Target(str(root / value))]
        return []

    def hover_value(self, path: Path, value: Any, ctx: RuleContext) -> str | None:
        root = skill_dir_of(ctx.file_path)
        if path == ("skill_name",) and (root / "SKILL.md").is_file():
            from evalens.runner.index import frontmatter_fields

            fields = frontmatter_fields((root / "SKILL.md").read_text(encoding="utf-8", errors="replace"))
            return f"**Skill `{fields.get('name', root.name)}`** — {fields.get('description') or '(no description)'}"
        if len(path) == 4 and path[0] == "evals" and path[2] == "files" and isinstance(value, str) and \
                not path_error(value):
            target = root / value
            if target.is_file():
                return f"`{target}` — {target.stat().st_size:,} bytes, copied into the workspace at `{value}`"
            if target.is_dir():
                return f"`{target}/` — a folder, copied into the workspace at `{value}`"
            return f"`{value}` does not exist under the skill root `{root}`"
        return None

    def skeleton(self, snippets: bool) -> str | None:
        return json.dumps({"skill_name": "my-skill", "evals": [
            {"id": 1, "prompt": "A realistic user request that names its files and context",
             "expected_output": "What success looks like, in plain words", "files": [],
             "assertions": ["The output names output/report.md as the file it wrote"]}]}, indent=2) + "\n"


# ------------------------------------------------------------------------------------------- grading.json


class SkillCreatorGrading(Format):
    id = "skill-creator-grading"
    title = "skill-creator grading.json"
    language = "json"
    globs = ("**/grading.json",)
    schema_file = "skill-creator-grading.schema.json"
    lookalike_hint = ("Not a grading.json evalens knows: neither skill-creator (`expectations`, `summary`) nor "
                      "writing-skills (`case_id`, `results`). evalens leaves it alone.")

    def detect(self, path: str, data: Any) -> Match:
        if isinstance(data, dict) and ({"expectations", "summary", "assertion_results"} & set(data)):
            return Match.YES
        return Match.LOOKALIKE

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            if p.code == "missing-key" and not path and (p.data or {}).get("missing") == "expectations" and \
                    "assertion_results" in data:
                p.message = ("The viewer and aggregate_benchmark.py read `expectations`; this file calls the list "
                             "`assertion_results` (agentskills.io's name).")
                fix = self._rename_key(doc, "assertion_results", "expectations")
                if fix:
                    p.fixes.append(fix)
            elif len(path) == 3 and path[:2] == ("eval_feedback", "suggestions") and p.code == "schema-type" and \
                    isinstance(data["eval_feedback"]["suggestions"][path[2]], str):
                p.severity = Severity.WARNING
                p.code = "suggestion-string"
                p.message = ("skill-creator's schema has `{assertion, reason}` objects in "
                             "`eval_feedback.suggestions`; this one is a plain string.")
        return problems

    def _rename_key(self, doc: ParsedDocument, old: str, new: str) -> Fix | None:
        span = doc.key_span_at_path((old,))
        return Fix(f"Rename `{old}` to `{new}`", (Edit(inner(doc, span), new),)) if span else None

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        results = [e.get("passed") for _, e in _dicts(data.get("expectations"))]
        summary = data.get("summary") if isinstance(data.get("summary"), dict) else None
        if summary is None or not isinstance(data.get("expectations"), list):
            return []
        passed = sum(1 for r in results if r is True)
        want: dict[str, Any] = {"passed": passed, "failed": len(results) - passed, "total": len(results),
                                "pass_rate": round(passed / len(results), 2) if results else 0.0}
        out = []
        for key, value in want.items():
            have = summary.get(key)
            if not isinstance(have, int | float) or isinstance(have, bool):
                continue
            if (key == "pass_rate" and abs(have - value) > 0.011) or (key != "pass_rate" and have != value):
                out.append(problem(doc, ("summary", key), Severity.WARNING, "summary-mismatch",
                                   f"`summary.{key}` is {have} but `expectations` give {value}.",
                                   fixes=[replace_fix(doc, ("summary", key), json.dumps(value))]))
        return out


# ------------------------------------------------------------------------------------------- benchmark.json


class SkillCreatorBenchmark(Format):
    id = "skill-creator-benchmark"
    title = "skill-creator benchmark.json"
    language = "json"
    globs = ("**/benchmark.json",)
    schema_file = "skill-creator-benchmark.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        return Match.YES if isinstance(data, dict) and "runs" in data and \
            ({"metadata", "run_summary"} & set(data)) else Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            if len(path) == 3 and path[0] == "runs" and path[2] == "configuration" and p.code == "schema-enum":
                p.message += " skill-creator's viewer shows empty values for any other name."
            elif len(path) == 2 and path[0] == "runs" and p.code == "missing-key" and \
                    (p.data or {}).get("missing") == "result":
                run = data["runs"][path[1]]
                if isinstance(run, dict) and "pass_rate" in run:
                    p.message = (f"runs[{path[1]}] has `pass_rate` at the top level; the viewer reads "
                                 "`result.pass_rate` and shows empty values.")
        return problems


# ------------------------------------------------------------------------------------------- trigger eval sets


_TRIGGER_TEXT = re.compile(r'"should_trigger"\s*:')


class TriggerEvalSet(Format):
    id = "trigger-evals"
    title = "Trigger eval set"
    language = "json"
    globs = ("**/*trigger*.json",)
    schema_file = "skill-creator-trigger-evals.schema.json"
    runnable = True
    lookalike_hint = "Not a trigger eval set (an array of `{query, should_trigger}`); evalens leaves it alone."

    def sniff(self, path: str, text: str) -> bool:
        """Trigger sets may have any name: a JSON array whose items have ``query`` and ``should_trigger``."""
        return path.lower().endswith(".json") and text.lstrip()[:1] == "[" and '"query"' in text and \
            bool(_TRIGGER_TEXT.search(text))

    def detect(self, path: str, data: Any) -> Match:
        if isinstance(data, list) and (not data or any(isinstance(d, dict) and "query" in d for d in data)):
            return Match.YES
        return Match.NO if isinstance(data, dict) and "should_not_trigger" in data else Match.LOOKALIKE

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        items = _dicts(doc.data)
        out: list[Problem] = []
        seen: dict[str, tuple[int, Any]] = {}
        for i, item in items:
            q = item.get("query")
            if not isinstance(q, str):
                continue
            key = " ".join(q.lower().split())
            if key in seen:
                first, want = seen[key]
                if want != item.get("should_trigger"):
                    out.append(problem(doc, (i, "should_trigger"), Severity.ERROR, "conflicting-query",
                                       f"The same query is item {first} with the opposite `should_trigger`."))
                else:
                    out.append(problem(doc, (i, "query"), Severity.WARNING, "duplicate-query",
                                       f"Duplicate of item {first}; it counts twice in precision and recall."))
            else:
                seen[key] = (i, item.get("should_trigger"))
        flags = [item.get("should_trigger") for _, item in items]
        out += one_sided(doc, (), flags.count(True), flags.count(False))
        return out

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        root = doc.root
        if root is None or root.kind != "seq":
            return []
        first = root.span
        out = [CaseInfo("*", Span(first.start_line, first.start_col, first.start_line, first.start_col + 1),
                        Span(first.start_line, first.start_col, first.start_line, first.start_col + 1), ())]
        for i, item in enumerate(root.items):
            node = item.get("query") if item.kind == "map" else None
            if node is not None and isinstance(node.value, str):
                out.append(CaseInfo(str(i), item.key_span("query") or node.span, node.span, (i,)))
        return out

    def skeleton(self, snippets: bool) -> str | None:
        return json.dumps([{"query": "a realistic request the skill should handle", "should_trigger": True},
                           {"query": "a near-miss request it should not handle", "should_trigger": False}],
                          indent=2) + "\n"


def one_sided(doc: ParsedDocument, path: Path, positives: int, negatives: int) -> list[Problem]:
    """Precision needs negatives and recall needs positives."""
    if positives and negatives or not (positives or negatives):
        return []
    missing = "negative (`should_trigger: false`)" if positives else "positive (`should_trigger: true`)"
    return [Problem(Span(0, 0, 0, 1), Severity.WARNING, "one-sided",
                    f"No {missing} queries: {'precision' if positives else 'recall'} cannot be measured.",
                    data={"path": list(path)})]


class TriggerEvalSetVariant(Format):
    id = "trigger-evals-variant"
    title = "Trigger eval set (variant)"
    language = "json"
    globs = ("**/*trigger*.json",)
    schema_file = "skill-creator-trigger-evals-variant.schema.json"
    runnable = True

    def sniff(self, path: str, text: str) -> bool:
        return path.lower().endswith(".json") and '"should_not_trigger"' in text and text.lstrip()[:1] == "{"

    def detect(self, path: str, data: Any) -> Match:
        return Match.YES if isinstance(data, dict) and ("should_not_trigger" in data or
                                                        isinstance(data.get("should_trigger"), list)) else Match.NO

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        pos = [q for q in data.get("should_trigger", []) if isinstance(q, str)] \
            if isinstance(data.get("should_trigger"), list) else []
        neg = [q for q in data.get("should_not_trigger", []) if isinstance(q, str)] \
            if isinstance(data.get("should_not_trigger"), list) else []
        canonical = json.dumps([{"query": q, "should_trigger": True} for q in pos] +
                               [{"query": q, "should_trigger": False} for q in neg], indent=2, ensure_ascii=False)
        last = len(doc.lines) - 1
        whole = Span(0, 0, last, len(doc.lines[last]))
        out = [Problem(Span(0, 0, 0, max(1, len(doc.lines[0]))), Severity.INFO, "trigger-variant",
                       "Variant trigger set `{skill_name, should_trigger: [...], should_not_trigger: [...]}`; "
                       "skill-creator's run_eval.py reads a top-level array of `{query, should_trigger}`.",
                       fixes=[Fix("Convert to the canonical array", (Edit(whole, canonical + "\n"),))],
                       data={"path": []})]
        both = set(pos) & set(neg)
        for j, q in enumerate(neg):
            if q in both:
                out.append(problem(doc, ("should_not_trigger", j), Severity.ERROR, "conflicting-query",
                                   "This query is also listed under `should_trigger`."))
        out += one_sided(doc, (), len(pos), len(neg))
        return out

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        root = doc.root
        if root is None or root.kind != "map":
            return []
        ks = root.key_span("should_trigger") or root.span
        out = [CaseInfo("*", ks, ks, ())]
        for key in ("should_trigger", "should_not_trigger"):
            seq = root.get(key)
            for j, node in enumerate(seq.items if seq is not None and seq.kind == "seq" else []):
                out.append(CaseInfo(f"{key}[{j}]", node.span, node.span, (key, j)))
        return out


registry.register(SkillCreatorEvals())
registry.register(SkillCreatorGrading())
registry.register(SkillCreatorBenchmark())
registry.register(TriggerEvalSet())
registry.register(TriggerEvalSetVariant())
