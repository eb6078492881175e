"""skill-creator / agentskills.io (formats.md §5): ``evals/evals.json``, ``grading.json``, trigger eval sets.

``expectations`` and ``assertions`` are both accepted (never both in one case) with quick fixes between them;
object-form assertions, inline-object ``files`` and missing fixtures are flagged, as the ecosystem's stricter
checkers do (§5.4: magnus919 ``evals-v1``, confluent ``check_eval_schema.py``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path as FsPath
from typing import Any

from evalens.core.aggregate import with_related
from evalens.core.documents import ParsedDocument, Path
from evalens.core.formats import registry
from evalens.core.formats._shared import (
    creatable,
    frontmatter_name,
    inner,
    input_terms,
    is_abstract_request,
    is_bare_prompt,
    is_unfalsifiable,
    names_input_term,
    near_miss_keys_only,
    path_error,
    problem,
    replace_fix,
)
from evalens.core.formats.base import CaseInfo, Format, Match, RuleContext, Target, ValueChoice
from evalens.core.formats.writing_skills import _dicts, _files_under, _id_cases, skill_dir_of
from evalens.core.index import container_root, frontmatter_fields, skill_catalog
from evalens.core.models import skill_creator as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.placeholders import EVAL_ASSERTION
from evalens.core.problems import Edit, Fix, Problem, Severity
from evalens.core.regular_files import read_regular_bytes
from evalens.core.schema_check import suggest

register(
    SchemaSpec(
        "skill-creator-evals.schema.json",
        m.EvalsFile,
        "skill-creator evals.json",
        "Evals of a skill (Anthropic skill-creator / agentskills.io): prompts, input files and the "
        "statements a grader checks (`expectations` or `assertions`).",
    )
)
register(
    SchemaSpec(
        "skill-creator-grading.schema.json",
        m.GradingFile,
        "skill-creator grading.json",
        "The grader's verdict on one run (`<run-dir>/grading.json`), read by the viewer and "
        "`aggregate_benchmark.py`.",
    )
)
register(
    SchemaSpec(
        "skill-creator-eval-metadata.schema.json",
        m.EvalMetadataFile,
        "skill-creator eval_metadata.json",
        "One eval directory of a skill-creator workspace (`iteration-N/eval-<id>/eval_metadata.json`).",
    )
)
register(
    SchemaSpec(
        "skill-creator-benchmark.schema.json",
        m.BenchmarkFile,
        "skill-creator benchmark.json",
        "With-skill vs without-skill runs aggregated by skill-creator (`benchmarks/<timestamp>/"
        "benchmark.json`), read by its viewer.",
    )
)

CHECK_KEYS = ("expectations", "assertions")
_PLACEHOLDER = re.compile(r"<(?![A-Z][a-z]+(?:[A-Z][a-z]+)*>)[A-Z][A-Za-z_ ]*>|\bTODO\b|\bXXX\b|\bTBD\b")
"""Template slots (`<FILE>`, `<File name>`, `<YOUR_NAME>`, TODO); a single PascalCase word in angle brackets
(`<Static>`, `<Box>`) is a component or type the prompt talks about."""
_ABSTRACT = re.compile(r"^\s*(?:please\s+)?(?:build|make|create|write)\s+me\s+an?\b", re.IGNORECASE)


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether a match is written inside quotes (the prompt talks about it rather than leaving it unfilled)."""
    return start > 0 and end < len(text) and text[start - 1] == text[end] and text[end] in "'\"`"


_CASE_KEYS = frozenset(("expected_output", "assertions", "expectations"))


def _case_like(items: list[Any]) -> bool:
    """Whether a list holds skill-creator-style cases: a ``prompt`` with what success looks like."""
    return any(isinstance(c, dict) and "prompt" in c and _CASE_KEYS & set(c) for c in items[:50])


_FOREIGN_IDS = frozenset(("eval_id", "case_id", "test_id", "testId", "caseId"))


def _own_runner_cases(items: list[Any]) -> bool:
    """Cases a project's own runner reads (issue #39, noise class 2): they carry another id key (`eval_id`) and
    no `id`, or every check is an object of the runner's own shape. skill-creator writes an integer `id` and
    strings; without its `skill_name` wrapper that is the only evidence the file is its."""
    cases = [c for c in items[:50] if isinstance(c, dict)]
    if cases and not any("id" in c for c in cases) and any(_FOREIGN_IDS & set(c) for c in cases):
        return True
    checks = [a for c in cases for k in ("assertions", "expectations") for a in (c.get(k) or []) if k in c]
    return bool(checks) and all(isinstance(a, dict) for a in checks)


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


_TEXT_KEYS = ("description", "text", "check", "assertion", "name", "id")


def _text_key(item: dict[str, Any]) -> str | None:
    """The key that holds the statement of an object-form assertion."""
    return next((k for k in _TEXT_KEYS if isinstance(item.get(k), str) and item[k].strip()), None)


def _object_text(item: dict[str, Any]) -> str:
    """The statement an object-form assertion stands for: its description (or text, check, …), else its name."""
    key = _text_key(item)
    return item[key].strip() if key else json.dumps(item, ensure_ascii=False)


def _workspace_assertions(root: FsPath, limit: int = 200) -> dict[str, tuple[int, FsPath]]:
    """Eval id -> (number of assertions, file) drafted in a skill-creator workspace next to the skill: its
    ``iteration-N/eval-*/eval_metadata.json`` (``eval_id`` + ``assertions``), inside the skill folder or in the
    documented sibling ``<skill>-workspace/``. Bounded, regular files only."""
    out: dict[str, tuple[int, FsPath]] = {}
    bases = [root, root.parent / f"{root.name}-workspace"]
    seen = 0
    for base in bases:
        if not base.is_dir():
            continue
        for meta in sorted(base.glob("iteration-*/eval-*/eval_metadata.json")):
            seen += 1
            if seen > limit:
                return out
            raw = read_regular_bytes(meta, 1 << 20)
            try:
                data = json.loads(raw) if raw is not None else None
            except ValueError:
                continue
            if (
                not isinstance(data, dict)
                or not isinstance(data.get("assertions"), list)
                or not data["assertions"]
            ):
                continue
            eid = data.get("eval_id")
            if isinstance(eid, int | str) and not isinstance(eid, bool):
                out.setdefault(str(eid), (len(data["assertions"]), meta))
    return out


def _shown(path: FsPath, top: FsPath) -> str:
    """A folder or file as a reader finds it: from the folder above what it shares with ``top`` (the root the
    evals belong to), e.g. ``docs-repair/skills/x/``, so two folders of one name are told apart."""
    path, top = path.absolute(), top.absolute()  # a relative file path meets absolute roots here
    try:
        common = FsPath(os.path.commonpath([path, top]))
        rel = path.relative_to(common.parent).as_posix()
    except ValueError:
        rel = path.name
    return rel + ("/" if path.is_dir() else "")


def _from_a_root(target: FsPath, roots: list[FsPath]) -> str | None:
    """``target`` as a `files` entry from the first root it lies under (no ``..``), or None."""
    for r in roots:
        try:
            return target.absolute().relative_to(r.absolute()).as_posix()
        except ValueError:
            continue
    return None


_INPUT_BYTES = 256 * 1024
_INPUT_FILES = 8


def _case_input_terms(case: dict[str, Any], root: FsPath) -> frozenset[str]:
    """The names a case's input files use in code (``_shared.input_terms``): at most a few files, each read up
    to a bound, so a case attaching a large data set stays fast."""
    texts = []
    files = case.get("files")
    for entry in (files if isinstance(files, list) else [])[:_INPUT_FILES]:
        if not isinstance(entry, str) or not entry.strip() or path_error(entry):
            continue
        raw = read_regular_bytes(root / entry, _INPUT_BYTES)
        if raw is not None:
            texts.append(raw[:_INPUT_BYTES].decode("utf-8", "replace"))
    return input_terms(texts)


def _file_entry(path: Path, value: Any) -> bool:
    """An ``evals[i].files[j]`` entry naming a path inside the skill root (what definition and hover follow)."""
    return (
        len(path) == 4
        and path[0] == "evals"
        and path[2] == "files"
        and isinstance(value, str)
        and not path_error(value)
    )


class SkillCreatorEvals(Format):
    id = "skill-creator-evals"
    judged_keys = ("assertions", "expectations")
    title = "skill-creator evals.json"
    language = "json"
    globs = ("**/evals.json",)
    schema_file = "skill-creator-evals.schema.json"
    runnable = True
    lookalike_hint = (
        'Eval cases, but not in skill-creator\'s `{"skill_name": …, "evals": [...]}` wrapper: another '
        "tool's format, so evalens leaves it alone."
    )

    def sniff(self, path: str, text: str) -> bool:
        """skill-creator evals kept under another name (``evals-old.json``, ``evals.v2.json``): recognised by
        content, the ``skill_name`` + ``evals`` wrapper; ``detect`` then confirms the shape."""
        return (
            path.lower().endswith(".json")
            and text.lstrip()[:1] == "{"
            and '"skill_name"' in text
            and '"evals"' in text
        )

    def detect(self, path: str, data: Any) -> Match:
        """Claimed on skill-creator's own shape: ``evals`` as a list next to ``skill_name``, or a list of case
        objects (``prompt`` plus ``expected_output`` / ``assertions`` / ``expectations``). Case objects
        without that wrapper (another tool's case list) get the one look-alike hint; anything else at this
        common name is left alone."""
        if (
            FsPath(path).name.lower() != "evals.json"
        ):  # found by content under another name: the cases must be ours
            evals = data.get("evals") if isinstance(data, dict) else None
            return (
                Match.YES
                if isinstance(evals, list)
                and evals
                and all(isinstance(c, dict) and "prompt" in c for c in evals[:50])
                else Match.NO
            )
        if data is None or data == {}:
            return Match.YES
        if isinstance(data, dict):
            evals = data.get("evals")
            if isinstance(evals, list) and isinstance(data.get("skill_name"), str) or evals == []:
                return Match.YES
            if isinstance(evals, list) and _case_like(evals):
                # no wrapper: claimed only when the cases are skill-creator's own, not a runner's of the same name
                return Match.LOOKALIKE if _own_runner_cases(evals) else Match.YES
            if isinstance(data.get("skill_name"), str) and "evals" in data:
                return Match.YES  # the wrapper with a broken `evals`: ours, and the schema says what is wrong
            return Match.NO
        return Match.LOOKALIKE if isinstance(data, list) and _case_like(data) else Match.NO

    # ------------------------------------------------------------------------------------- diagnostics

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """skill-creator's evals.json is an open format (nothing reads it mechanically; repositories add their own
        keys), so only a near-miss of a known key is reported. Object assertions and string ids get their own
        rules; the generic type errors are dropped."""
        out: list[Problem] = []
        data = doc.data
        for p in near_miss_keys_only(doc, problems):
            path = tuple((p.data or {}).get("path", ()))
            if p.code == "missing-key" and not path and (p.data or {}).get("missing") == "skill_name":
                p.severity = Severity.WARNING  # documented as required, but nothing fails without it
            if len(path) == 4 and path[0] == "evals" and path[2] in CHECK_KEYS and p.code == "schema-type":
                continue  # see object-assertion
            if len(path) == 3 and path[0] == "evals" and path[2] == "id" and p.code == "schema-type":
                value = data["evals"][path[1]]["id"]
                if isinstance(value, str) and value:
                    p.severity = Severity.HINT  # a deliberate naming scheme, not a mistake: nothing reads it
                    p.code = "string-id"
                    p.message = (
                        f'skill-creator documents integer ids; `"{value}"` is a string (its scripts '
                        "never read evals.json, but strict validators reject it)."
                    )
            elif len(path) == 4 and path[0] == "evals" and path[2] == "files" and p.code == "schema-type":
                p.message = (
                    "`files` entries are paths (strings) relative to the skill root; inline "
                    "`{path, content}` objects are not read by skill-creator. Put the content in a file "
                    "(e.g. `evals/files/<name>`) and list its path."
                )
            out.append(p)
        return out

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        """Cases without assertions are fine: skill-creator's SKILL.md says to save test cases first and write
        assertions later, and `expectations` (its schemas.md) and `assertions` (its SKILL.md, agentskills.io) are
        both the documented name; only mixing them in one file or one case is flagged."""
        data = doc.data if isinstance(doc.data, dict) else {}
        out: list[Problem] = []
        root = skill_dir_of(ctx.file_path)
        out += self._skill_name_rule(doc, data, root, ctx)
        file_root = self._skill_root(data, root, ctx)
        evals = data.get("evals")
        seen: dict[Any, int] = {}
        names_used: dict[str, list[int]] = {"expectations": [], "assertions": []}
        objects: list[tuple[Path, dict[str, Any]]] = []
        for i, case in _dicts(evals):
            cid = case.get("id")
            if isinstance(cid, int | str) and not isinstance(cid, bool):
                if cid in seen:
                    line = doc.span_for(("evals", seen[cid], "id")).start_line + 1
                    out.append(
                        problem(
                            doc,
                            ("evals", i, "id"),
                            Severity.ERROR,
                            "duplicate-id",
                            f"duplicate case ID `{cid}`; first seen at $.evals[{seen[cid]}].id "
                            f"(line {line}).",
                        )
                    )
                else:
                    seen[cid] = i
            present = [k for k in CHECK_KEYS if k in case]
            for k in present:
                names_used[k].append(i)
            if len(present) == 2:
                out.append(
                    problem(
                        doc,
                        ("evals", i, "assertions"),
                        Severity.WARNING,
                        "both-check-keys",
                        f"evals[{i}] has both `expectations` and `assertions`; use one name per case "
                        "(skill-creator's schemas.md says `expectations`, agentskills.io `assertions`; "
                        "evalens grades `assertions` and ignores the other).",
                        on_key=True,
                    )
                )
            terms: list[frozenset[str]] = []  # the case's input terms, read once and only when needed
            for key in present:
                items = case[key]
                for j, item in enumerate(items if isinstance(items, list) else []):
                    if isinstance(item, dict):
                        objects.append((("evals", i, key, j), item))
                    else:
                        out += self._assertion_rules(doc, (i, key, j), item, case, file_root, terms)
            if "expected_output" not in case:
                out.append(
                    problem(
                        doc,
                        ("evals", i),
                        Severity.WARNING,
                        "missing-expected-output",
                        f"evals[{i}] has no `expected_output` (documented as required: a human-readable "
                        "description of success).",
                        on_key=True,
                    )
                )
            prompt = case.get("prompt")
            if isinstance(prompt, str) and prompt.strip():
                attached = isinstance(case.get("files"), list) and any(
                    isinstance(f, str) and f.strip() for f in case["files"]
                )
                out += self._prompt_rules(doc, i, prompt, attached)
            files = case.get("files")
            if isinstance(files, list):
                out += self._file_rules(
                    doc,
                    i,
                    files,
                    file_root,
                    also=root if file_root == root else container_root(FsPath(ctx.file_path)),
                    evals_dir=FsPath(ctx.file_path).parent,
                )
        out += self._object_assertions(doc, objects)
        out += self._drafted_elsewhere(doc, evals, root)
        out += self._duplicate_prompts(doc, evals)
        if names_used["expectations"] and names_used["assertions"]:
            fixes = [
                f
                for f in (
                    self._rename(
                        doc,
                        names_used["expectations"],
                        "expectations",
                        "assertions",
                        "Use `assertions` in every case",
                    ),
                    self._rename(
                        doc,
                        names_used["assertions"],
                        "assertions",
                        "expectations",
                        "Use `expectations` in every case",
                    ),
                )
                if f
            ]
            out.append(
                problem(
                    doc,
                    ("evals",),
                    Severity.WARNING,
                    "mixed-check-keys",
                    "This file mixes `expectations` (evals "
                    + ", ".join(map(str, names_used["expectations"]))
                    + ") and `assertions` (evals "
                    + ", ".join(map(str, names_used["assertions"]))
                    + "); pick one name.",
                    on_key=True,
                    fixes=fixes,
                )
            )
        return out

    def _drafted_elsewhere(self, doc: ParsedDocument, evals: Any, root: FsPath) -> list[Problem]:
        """A case without assertions is fine until the workspace grades some for it: skill-creator drafts them
        while the first runs go, then says to copy them back into evals.json. Until then the next iteration (and
        every other reader) grades nothing for that case."""
        cases = [
            (i, c)
            for i, c in _dicts(evals)
            if not any(c.get(k) for k in CHECK_KEYS)
            and isinstance(c.get("id"), int | str)
            and not isinstance(c.get("id"), bool)
        ]
        if not cases:
            return []
        graded = _workspace_assertions(root)
        out = []
        for i, case in cases:
            found = graded.get(str(case["id"]))
            if found:
                count, where = found
                rel = where.relative_to(root) if where.is_relative_to(root) else where
                out.append(
                    problem(
                        doc,
                        ("evals", i),
                        Severity.WARNING,
                        "missing-assertions",
                        f"evals[{i}] has no assertions, but the workspace grades {count} for it "
                        f"(`{rel}`); skill-creator says to copy drafted assertions back into "
                        "evals.json.",
                        on_key=True,
                    )
                )
        return out

    def _object_assertions(
        self, doc: ParsedDocument, objects: list[tuple[Path, dict[str, Any]]]
    ) -> list[Problem]:
        """One diagnostic for a file's object-form assertions (often a documented house convention), with a
        quick fix that turns all of them into strings at once."""
        if not objects:
            return []
        edits = tuple(
            Edit(doc.span_for(path), json.dumps(_object_text(item), ensure_ascii=False))
            for path, item in objects
        )
        n = len(objects)
        keys = ", ".join(sorted({k for _, item in objects for k in item})[:4])
        used = list(dict.fromkeys(k for _, item in objects if (k := _text_key(item)))) or ["whole object"]
        first = problem(
            doc,
            objects[0][0],
            Severity.WARNING,
            "object-assertion",
            (
                f"{n} assertions are objects (`{{{keys}}}`)"
                if n > 1
                else f"Object-form assertion (`{{{keys}}}`)"
            )
            + ": skill-creator's schemas list plain strings (the grader writes each back as "
            "`grading.json` `expectations[].text`); evalens grades the "
            + " / ".join(f"`{k}`" for k in used)
            + ". Write each as one verifiable sentence.",
            fixes=[
                Fix(
                    f"Convert {'all ' + str(n) + ' object assertions' if n > 1 else 'it'} to strings "
                    f"(their {' / '.join(used)})",
                    edits,
                )
            ],
        )
        return [
            with_related(
                first,
                [
                    Problem(
                        doc.span_for(path),
                        Severity.WARNING,
                        "object-assertion",
                        f"object assertion: {_object_text(item)}",
                    )
                    for path, item in objects[1:]
                ],
            )
        ]

    def _duplicate_prompts(self, doc: ParsedDocument, evals: Any) -> list[Problem]:
        """The same prompt (and input files) twice. With different assertions or expected output the cases
        either check different aspects of one output or contradict each other (one is stale); which, only the
        author can tell, so it is advice. With the same ones the case only counts twice."""
        out: list[Problem] = []
        seen: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
        for i, case in _dicts(evals):
            prompt = case.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                continue
            key = (_norm(prompt), json.dumps(case.get("files") or [], sort_keys=True))
            if key not in seen:
                seen[key] = (i, case)
                continue
            first, other = seen[key]
            line = doc.span_for(("evals", first, "prompt")).start_line + 1
            checks = [
                json.dumps([c.get(k) for k in (*CHECK_KEYS, "expected_output")], sort_keys=True)
                for c in (other, case)
            ]
            why = (
                "with different assertions or expected output: one run cannot satisfy both if they contradict "
                "(e.g. one is stale); if they check different aspects, they could be one case"
                if checks[0] != checks[1]
                else "with the same checks; it counts twice"
            )
            p = problem(
                doc,
                ("evals", i, "prompt"),
                Severity.HINT,
                "duplicate-prompt",
                f"evals[{i}] repeats the prompt of evals[{first}] (line {line}) {why}.",
            )
            out.append(
                with_related(
                    p,
                    [
                        Problem(
                            doc.span_for(("evals", first, "prompt")),
                            Severity.HINT,
                            p.code,
                            f"first use of this prompt (evals[{first}])",
                        )
                    ],
                )
            )
        return out

    def _skill_name_rule(
        self, doc: ParsedDocument, data: dict[str, Any], root: FsPath, ctx: RuleContext
    ) -> list[Problem]:
        """``skill_name`` names a skill by its SKILL.md ``name``: this skill's own, or (for evals kept at a
        plugin's root) one of the plugin's. A name no SKILL.md carries is stale, e.g. after a rename."""
        name = data.get("skill_name")
        if not isinstance(name, str) or not name.strip():
            return []
        skill_md = next((root / n for n in ("SKILL.md", "skill.md") if (root / n).is_file()), None)
        own = (frontmatter_name(skill_md) or root.name) if skill_md is not None else None
        if name == own or (own is not None and name == root.name):
            return []  # its SKILL.md name, or the folder name it is installed under
        catalog = skill_catalog(ctx.file_path, ctx.index)
        if own is not None and name in catalog:
            return [
                problem(
                    doc,
                    ("skill_name",),
                    Severity.WARNING,
                    "skill-name-mismatch",
                    f"`skill_name` is `{name}` but the skill's SKILL.md is named `{own}`.",
                    fixes=[replace_fix(doc, ("skill_name",), own)],
                )
            ]
        if name in catalog or (own is None and not catalog):
            return []
        names = sorted({md: n for n, md in reversed(list(catalog.items()))}.values())  # a SKILL.md name each
        first = own or suggest(name, names)
        targets = ([first] if first else []) + [n for n in names if n != first][: 5 - bool(first)]
        known = ", ".join(f"`{n}`" for n in names[:8]) + (" …" if len(names) > 8 else "")
        fixes = [
            Fix(f"Point at skill `{t}`", replace_fix(doc, ("skill_name",), t).edits, preferred=not k)
            for k, t in enumerate(targets)
        ]
        return [
            problem(
                doc,
                ("skill_name",),
                Severity.WARNING,
                "unknown-skill",
                f"`skill_name` `{name}` names no skill in this plugin or package (SKILL.md names: "
                f"{known or 'none'}); was the skill renamed?",
                fixes=fixes,
            )
        ]

    def _assertion_rules(
        self,
        doc: ParsedDocument,
        where: tuple[int, str, int],
        item: Any,
        case: dict[str, Any],
        file_root: FsPath,
        terms: list[frozenset[str]],
    ) -> list[Problem]:
        """An assertion must be a string; a short vague one is a hint unless it names what the case's own input
        files use in code (then the grader has something concrete to look for in the output)."""
        i, key, j = where
        path: Path = ("evals", i, key, j)
        if not isinstance(item, str):
            return [
                problem(
                    doc, path, Severity.ERROR, "schema-type", f"`evals[{i}].{key}[{j}]` must be a string."
                )
            ]
        if is_unfalsifiable(item):
            if not terms:
                terms.append(_case_input_terms(case, file_root))
            if names_input_term(item, terms[0]):
                return []
            return [
                problem(
                    doc,
                    path,
                    Severity.HINT,
                    "vague-assertion",  # a text heuristic: advice, never a verdict
                    f"Vague {key[:-1]}: {json.dumps(item, ensure_ascii=False)} gives the grader nothing "
                    "concrete to find false. Name the file, value, command or behaviour.",
                )
            ]
        return []

    def _prompt_rules(self, doc: ParsedDocument, i: int, prompt: str, attached: bool) -> list[Problem]:
        """Placeholders, abstract and bare prompts. A short prompt in a case that attaches input files ("Standard
        roast this" with `files: [spaghetti.py]`) names its data through them: that is how users ask about an
        attached file, so it is not bare."""
        path: Path = ("evals", i, "prompt")
        out = []
        if m_ := next(
            (x for x in _PLACEHOLDER.finditer(prompt) if not _quoted(prompt, x.start(), x.end())), None
        ):
            out.append(
                problem(
                    doc,
                    path,
                    Severity.WARNING,
                    "placeholder",
                    f"The prompt still contains the placeholder `{m_.group()}`.",
                )
            )
        if is_abstract_request(prompt, _ABSTRACT):
            out.append(
                problem(
                    doc,
                    path,
                    Severity.HINT,
                    "abstract-prompt",
                    'Abstract "Build me a …" prompt: real requests name files, data and context.',
                )
            )
        elif not attached and is_bare_prompt(prompt):
            out.append(
                problem(
                    doc,
                    path,
                    Severity.HINT,
                    "short-prompt",
                    f"The prompt is only {json.dumps(prompt.strip(), ensure_ascii=False)}; realistic "
                    "requests name their files, data and context.",
                )
            )
        return out

    def _skill_root(self, data: dict[str, Any], root: FsPath, ctx: RuleContext) -> FsPath:
        """The skill `files` are relative to: the evals' own skill folder, or (for evals kept at a plugin's root,
        with no SKILL.md beside them) the skill `skill_name` names."""
        if any((root / n).is_file() for n in ("SKILL.md", "skill.md")):
            return root
        name = data.get("skill_name")
        if isinstance(name, str) and name.strip():
            md = skill_catalog(ctx.file_path, ctx.index).get(name.strip())
            if md is not None:
                return md.parent
        return root

    def _file_rules(
        self,
        doc: ParsedDocument,
        i: int,
        files: list[Any],
        root: FsPath,
        also: FsPath | None = None,
        evals_dir: FsPath | None = None,
    ) -> list[Problem]:
        """`files` entries exist under the skill root (skill-creator's schemas.md: "relative to skill root"), or,
        for evals kept beside no SKILL.md, under the folder that holds them. A path that resolves only from the
        evals folder itself does not resolve where skill-creator looks: the message says where it does exist and
        offers the path from a root that is read."""
        out: list[Problem] = []
        for j, entry in enumerate(files):
            if not isinstance(entry, str):
                continue
            path: Path = ("evals", i, "files", j)
            why = path_error(entry)
            if why:
                out.append(
                    problem(
                        doc,
                        path,
                        Severity.ERROR,
                        "path-escape",
                        f"`{entry}` {why}: path escapes skill root (files are relative to it).",
                    )
                )
                continue
            if entry.startswith("./") or entry.endswith("/"):
                clean = entry.removeprefix("./").rstrip("/")
                out.append(
                    problem(
                        doc,
                        path,
                        Severity.HINT,
                        "path-style",
                        f"Strict relative paths have no `./` prefix or trailing `/`: `{clean}`.",
                        fixes=[replace_fix(doc, path, clean)],
                    )
                )
            bases = [root, *(b for b in (also,) if b is not None)]
            if not any((b / entry).exists() for b in bases):
                where = _shown(root, also or root)
                there = evals_dir / entry if evals_dir is not None else None
                near = _from_a_root(there, bases) if there is not None and there.exists() else None
                near_root = root
                if near is not None and also is not None and not (root / near).exists():
                    near_root = also
                if near is None:
                    near = suggest(entry, _files_under(root, skip=set(), limit=2000))
                found = (
                    f" It exists relative to the evals folder ({_shown(there, also or root)}), but skill-creator "
                    "resolves `files` from the skill root."
                    if there is not None and there.exists()
                    else ""
                )
                out.append(
                    problem(
                        doc,
                        path,
                        Severity.ERROR,
                        "file-missing",
                        f"file does not exist: {entry} (relative to the skill root {where})"
                        + (
                            f"; did you mean `{near}`"
                            + (f" (from {_shown(near_root, near_root)})" if near_root != root else "")
                            + "?"
                            if near
                            else ""
                        )
                        + found,
                        fixes=[replace_fix(doc, path, near)] if near else [],
                        data=creatable(root, entry),
                    )
                )
        return out

    def _rename(
        self, doc: ParsedDocument, cases: list[int], old: str, new: str, title: str | None = None
    ) -> Fix | None:
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
        if _file_entry(path, value) and (root / value).exists():
            return [Target(str(root / value))]
        return []

    def hover_value(self, path: Path, value: Any, ctx: RuleContext) -> str | None:
        root = skill_dir_of(ctx.file_path)
        if path == ("skill_name",) and (root / "SKILL.md").is_file():
            fields = frontmatter_fields((root / "SKILL.md").read_text(encoding="utf-8", errors="replace"))
            return f"**Skill `{fields.get('name', root.name)}`** — {fields.get('description') or '(no description)'}"
        if _file_entry(path, value):
            target = root / value
            if target.is_file():
                return f"`{target}` — {target.stat().st_size:,} bytes, copied into the workspace at `{value}`"
            if target.is_dir():
                return f"`{target}/` — a folder, copied into the workspace at `{value}`"
            return f"`{value}` does not exist under the skill root `{root}`"
        return None

    def skeleton(self, snippets: bool) -> str | None:
        return (
            json.dumps(
                {
                    "skill_name": "my-skill",
                    "evals": [
                        {
                            "id": 1,
                            "prompt": "A realistic user request that names its files and context",
                            "expected_output": "What success looks like, in plain words",
                            "files": [],
                            "assertions": [EVAL_ASSERTION],
                        }
                    ],
                },
                indent=2,
            )
            + "\n"
        )


# ------------------------------------------------------------------------------------------- grading.json


class SkillCreatorGrading(Format):
    id = "skill-creator-grading"
    title = "skill-creator grading.json"
    language = "json"
    globs = ("**/grading.json",)
    schema_file = "skill-creator-grading.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """Claimed on the grader's output: `expectations` (or agentskills.io's `assertion_results`) as a list of
        `{text, passed}` results, or a `summary` with a `pass_rate`."""
        if not isinstance(data, dict):
            return Match.NO
        for key in ("expectations", "assertion_results", "assertions"):
            items = data.get(key)
            if isinstance(items, list) and (
                not items or any(isinstance(e, dict) and {"text", "passed"} & set(e) for e in items[:50])
            ):
                return Match.YES
        summary = data.get("summary")
        return Match.YES if isinstance(summary, dict) and "pass_rate" in summary else Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """The grader's output is open: the viewer and `aggregate_benchmark.py` read only their keys, so a
        run's own bookkeeping (`run_id`, `pass_rate` beside `summary`) is not a problem, only near-miss typos."""
        data = doc.data if isinstance(doc.data, dict) else {}
        misplaced: list[Problem] = []
        kept: list[Problem] = []
        for p in problems:
            home = self._read_elsewhere(data, p)
            if home is None:
                kept.append(p)
                continue
            key = p.data["path"][0]  # type: ignore[index]
            where = f"`summary.{key}`" if home == "summary" else f"`{home}`"
            p.message = (
                f"Top-level `{key}` is ignored: the viewer and `aggregate_benchmark.py` read {where}, "
                "which this file does not have."
            )
            misplaced.append(p)
        problems = near_miss_keys_only(doc, kept)
        if misplaced:  # say it once: the keys a grader wrote beside the missing `summary` are one finding
            problems.append(with_related(misplaced[0], misplaced[1:]))
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            other = next((k for k in ("assertion_results", "assertions") if k in data), None)
            if (
                p.code == "missing-key"
                and not path
                and (p.data or {}).get("missing") == "expectations"
                and other
            ):
                p.message = (
                    "The viewer and aggregate_benchmark.py read `expectations`; this file calls the list "
                    f"`{other}`" + (" (agentskills.io's name)." if other == "assertion_results" else ".")
                )
                fix = self._rename_key(doc, other, "expectations")
                if fix:
                    p.fixes.append(fix)
            elif (
                len(path) == 3
                and path[:2] == ("eval_feedback", "suggestions")
                and p.code == "schema-type"
                and isinstance(data["eval_feedback"]["suggestions"][path[2]], str)
            ):
                p.severity = Severity.WARNING
                p.code = "suggestion-string"
                p.message = (
                    "skill-creator's schema has `{assertion, reason}` objects in "
                    "`eval_feedback.suggestions`; this one is a plain string."
                )
        return problems

    _READ_ELSEWHERE = {
        "pass_rate": "summary",
        "passed": "summary",
        "failed": "summary",
        "total": "summary",
        "notes": "user_notes_summary",
    }
    """Top-level keys whose value the viewer and `aggregate_benchmark.py` read at another place."""

    def _read_elsewhere(self, data: dict[str, Any], p: Problem) -> str | None:
        """Where the tools read an unknown top-level key's value, when the file lacks that place and `summary`
        (the run's totals then aggregate as 0); None for anything else: beside a real `summary` it is harmless."""
        path = tuple((p.data or {}).get("path", ()))
        if p.code != "unknown-key" or len(path) != 1 or path[0] not in self._READ_ELSEWHERE:
            return None
        home = self._READ_ELSEWHERE[str(path[0])]
        return None if home in data or "summary" in data else home

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
        want: dict[str, Any] = {
            "passed": passed,
            "failed": len(results) - passed,
            "total": len(results),
            "pass_rate": round(passed / len(results), 2) if results else 0.0,
        }
        out = []
        for key, value in want.items():
            have = summary.get(key)
            if not isinstance(have, int | float) or isinstance(have, bool):
                continue
            if (key == "pass_rate" and abs(have - value) > 0.011) or (key != "pass_rate" and have != value):
                out.append(
                    problem(
                        doc,
                        ("summary", key),
                        Severity.WARNING,
                        "summary-mismatch",
                        f"`summary.{key}` is {have} but `expectations` give {value}.",
                        fixes=[replace_fix(doc, ("summary", key), json.dumps(value))],
                    )
                )
        return out


# ------------------------------------------------------------------------------------------- benchmark.json


class SkillCreatorBenchmark(Format):
    id = "skill-creator-benchmark"
    title = "skill-creator benchmark.json"
    language = "json"
    globs = ("**/benchmark.json",)
    schema_file = "skill-creator-benchmark.schema.json"

    def sniff(self, path: str, text: str) -> bool:
        """Benchmarks kept under another name (``benchmark-v2.json``): skill-creator's `run_summary` or runs
        with a `configuration`, next to its arm names; ``detect`` then confirms the shape."""
        if not path.lower().endswith(".json") or text.lstrip()[:1] != "{":
            return False
        arms = '"with_skill"' in text or '"without_skill"' in text
        return arms and ('"run_summary"' in text or ('"runs"' in text and '"configuration"' in text))

    def detect(self, path: str, data: Any) -> Match:
        """Claimed on skill-creator's run records (`configuration` / `result` per run), or with no runs yet its
        `run_summary.with_skill.pass_rate`; `runs` next to `metadata` is what every benchmark tool writes."""
        if not isinstance(data, dict):
            return Match.NO
        runs = data.get("runs")
        runs = [r for r in runs[:50] if isinstance(r, dict)] if isinstance(runs, list) else []
        if runs:
            return Match.YES if any({"configuration", "result"} & set(r) for r in runs) else Match.NO
        summary = data.get("run_summary")
        arms = [summary.get(k) for k in ("with_skill", "without_skill")] if isinstance(summary, dict) else []
        return Match.YES if any(isinstance(a, dict) and "pass_rate" in a for a in arms) else Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            if (
                len(path) == 3
                and path[0] == "runs"
                and path[2] == "configuration"
                and p.code == "schema-enum"
            ):
                p.message += " skill-creator's viewer shows empty values for any other name."
            elif (
                len(path) == 2
                and path[0] == "runs"
                and p.code == "missing-key"
                and (p.data or {}).get("missing") == "result"
            ):
                run = data["runs"][path[1]]
                if isinstance(run, dict) and "pass_rate" in run:
                    p.message = (
                        f"runs[{path[1]}] has `pass_rate` at the top level; the viewer reads "
                        "`result.pass_rate` and shows empty values."
                    )
        return problems


# ------------------------------------------------------------------------------------------- workspaces


_RUN = re.compile(r"^run-\d+$")


def _gradings(folder: FsPath) -> list[FsPath]:
    """``grading.json`` files at most three levels below ``folder`` (a run's `outputs/` may be a large tree)."""
    found = [
        g for pattern in ("grading.json", "*/grading.json", "*/*/grading.json") for g in folder.glob(pattern)
    ]
    return sorted(found)[:20]


def _unread_layout(eval_dir: FsPath) -> str | None:
    """What of this eval's runs skill-creator's ``aggregate_benchmark.py`` does not read, or None (modelled on
    anthropics/skills@12726c4 ``scripts/aggregate_benchmark.py``, ``load_run_results``): it reads the eval folders
    named ``eval-*`` in the iteration folder, or in its ``runs/`` when that exists; in each, every configuration
    folder holding ``run-*/`` folders (each with its ``grading.json``) or one ``grading.json`` of its own (the
    single-run layout, beside ``outputs/``). Nothing graded yet is not a problem."""
    iteration = eval_dir.parent
    runs_dir = iteration / "runs"
    search = runs_dir if runs_dir.is_dir() else iteration if any(iteration.glob("eval-*")) else None
    configs = sorted(d for d in eval_dir.iterdir() if d.is_dir() and not d.name.startswith("."))[:20]
    graded = [g for c in configs for g in _gradings(c)]
    if not graded:
        return None
    if eval_dir.parent != search or not eval_dir.name.startswith("eval-"):
        where = (
            f"`{iteration.name}/runs/` (it exists, so the folders beside it are not read)"
            if runs_dir.is_dir()
            else f"`{iteration.name}/`"
        )
        return (
            f"aggregate_benchmark.py reads eval folders named `eval-*` in {where}: `{eval_dir.name}/` is not "
            "read, so the benchmark has no runs for this eval. Rename it `eval-<id>-…` (and keep it in that "
            "folder)."
        )
    misplaced = [c for c in configs if _RUN.match(c.name)]
    if misplaced:
        names = ", ".join(f"`{c.name}/`" for c in misplaced)
        return (
            f"{names} sit directly in the eval folder: aggregate_benchmark.py reads each folder here as a "
            "configuration, so it reports a configuration named `run-1`, and the viewer shows only "
            "`with_skill` / `without_skill`. Move the runs into `with_skill/run-N/` (or `without_skill/`)."
        )
    lost = []
    for c in configs:
        runs = sorted(c.glob("run-*"))
        if runs:
            lost += [
                g for r in runs if not (r / "grading.json").is_file() for g in sorted(r.rglob("grading.json"))
            ]
        elif not (c / "grading.json").is_file():
            lost += sorted(c.rglob("grading.json"))[:1]
    if lost:
        first = lost[0].relative_to(eval_dir).as_posix()
        return (
            f"`{first}` is not where aggregate_benchmark.py looks (`<config>/run-N/grading.json`, or "
            "`<config>/grading.json` for a single run), so the benchmark skips that run. Move it up beside "
            "`outputs/`."
        )
    return None


class SkillCreatorEvalMetadata(Format):
    """One eval directory of a skill-creator workspace. Its file is open (nothing but the grader reads it); what
    can break is the directory around it: `aggregate_benchmark.py` reads `eval-*/<config>/run-N/grading.json` (or
    one `<config>/grading.json`) and `timing.json`, so runs it does not find (``_unread_layout``), or timings
    that are all null, aggregate as nothing or 0."""

    id = "skill-creator-eval-metadata"
    title = "skill-creator eval_metadata.json"
    language = "json"
    globs = ("**/eval_metadata.json",)
    schema_file = "skill-creator-eval-metadata.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        return (
            Match.YES if isinstance(data, dict) and ("eval_id" in data or "assertions" in data) else Match.NO
        )

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        return near_miss_keys_only(doc, problems)

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        eval_dir = FsPath(ctx.file_path).absolute().parent
        out: list[Problem] = []
        anchor = ("eval_id",) if isinstance(doc.data, dict) and "eval_id" in doc.data else ()
        why = _unread_layout(eval_dir)
        if why:
            out.append(problem(doc, anchor, Severity.WARNING, "workspace-no-runs", why, on_key=True))
        timings = (
            sorted(eval_dir.glob("*/run-*/timing.json"))[:50] + sorted(eval_dir.glob("*/timing.json"))[:50]
        )
        null = []
        for t in timings:
            raw = read_regular_bytes(t, 1 << 16)
            try:
                data = json.loads(raw) if raw is not None else None
            except ValueError:
                continue
            if isinstance(data, dict) and data and all(v is None for v in data.values()):
                null.append(t)
        if null:
            first = null[0].relative_to(eval_dir)
            out.append(
                problem(
                    doc,
                    anchor,
                    Severity.WARNING,
                    "timing-all-null",
                    f"{len(null)} timing.json file(s) under this eval hold only nulls (`{first}`): "
                    "aggregate_benchmark.py reads time and tokens from them and reports 0.",
                    on_key=True,
                )
            )
        return out


registry.register(SkillCreatorEvals())
registry.register(SkillCreatorGrading())
registry.register(SkillCreatorBenchmark())
registry.register(SkillCreatorEvalMetadata())
