"""Claude Code's own eval cases (`claude plugin eval`, 2.1.269+): a case folder's `prompt.md`, `case.yaml` and
`graders/<name>.md` (shared/reference/claude-plugin-evals.md; `models/plugin_eval.py`).

A case is a folder holding `prompt.md` and/or `case.yaml`; its graders are `case.yaml`'s `graders:` list followed by
the `graders/*.md` files. What Claude Code 2.1.332's loader refuses is an error here (an unknown `prompt.md` or
grader key, a range, a missing option, a duplicate grader name, the blank `init` template, a case with no grader);
what it silently ignores is a warning (an unknown `case.yaml` key, a grader file without frontmatter, an `env` key
outside `EVAL_*`). The case-level checks read the sibling files from disk and are reported on the case's `prompt.md`,
else on its `case.yaml`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from evalens.core.documents import ParsedDocument, Path, parse
from evalens.core.formats import registry
from evalens.core.formats._shared import js_regex_error, path_escape, problem, whole_checkout
from evalens.core.formats.base import CaseInfo, Format, Match, RuleContext, Target
from evalens.core.models import plugin_eval as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.placeholders import (
    GRADER_RUBRIC,
    INIT_RUBRIC,
    placeholder_in,
    placeholder_problem,
    tab_stop,
)
from evalens.core.problems import Problem, Severity, Span
from evalens.core.regular_files import read_regular_bytes

register(
    SchemaSpec(
        "claude-plugin-eval-prompt.schema.json",
        m.PromptFrontmatter,
        "claude plugin eval prompt.md",
        "The frontmatter of a `claude plugin eval` case's `prompt.md` (its body is the prompt).",
    )
)
register(
    SchemaSpec(
        "claude-plugin-eval-case.schema.json",
        m.CaseYaml,
        "claude plugin eval case.yaml",
        "A `claude plugin eval` case's `case.yaml`: the whole case, or what `prompt.md` leaves out.",
    )
)
register(
    SchemaSpec(
        "claude-plugin-eval-grader.schema.json",
        m.Grader,
        "claude plugin eval grader",
        "The frontmatter of a `claude plugin eval` grader file (`graders/<name>.md`); the body fills `criteria` or "
        "`pattern`.",
    )
)

E, W = Severity.ERROR, Severity.WARNING
PROMPT_TEMPLATE = "TODO: describe what the agent should do"
GRADER_TEMPLATE = INIT_RUBRIC
# prompt.md keys no other format's prompt file has: evidence that a prompt.md under evals/ is a case
_SPECIFIC_PROMPT_KEYS = frozenset(
    {
        "max_turns",
        "allowed_tools",
        "disallowed_tools",
        "timeout_seconds",
        "expected_outcome",
        "schema_version",
    }
)
_MAX_CASE_FILE = 1 << 20  # the loader's own cap on prompt.md and each grader file
_ENV_KEY = re.compile(r"^EVAL_[A-Z0-9_]*$")


def _folder(path: str) -> FsPath:
    return FsPath(path).parent


def is_case_folder(folder: FsPath) -> bool:
    """A folder Claude Code loads as a case: it holds `prompt.md` or `case.yaml`."""
    return (folder / "prompt.md").is_file() or (folder / "case.yaml").is_file()


def _body_only(doc: ParsedDocument) -> bool:
    """A Markdown file with no frontmatter at all (the parser's one problem: ``frontmatter-missing``)."""
    return bool(doc.problems) and all(p.code == "frontmatter-missing" for p in doc.problems)


def _in_eval_dir(path: str) -> bool:
    return "evals" in FsPath(path.replace("\\", "/")).parts[:-1]


@dataclass(slots=True)
class GraderFile:
    """One `graders/<name>.md`: its frontmatter (None: it has none, and the loader skips it) and body."""

    path: FsPath
    data: Any
    body: str


@dataclass(slots=True)
class CaseFiles:
    """The files of one case folder as Claude Code merges them (`prompt.md` over `case.yaml`)."""

    folder: FsPath
    prompt: dict[str, Any] | None = None  # prompt.md frontmatter ({} when it has none)
    prompt_claimed: bool = False  # prompt.md has a frontmatter (a body-only prompt.md is no document of ours)
    body: str | None = None  # prompt.md body (None: no prompt.md)
    case: dict[str, Any] | None = None  # case.yaml (None: none)
    graders: list[GraderFile] = field(default_factory=list)

    def grader_names(self) -> list[tuple[str, str]]:
        """(name, where) of every grader the loader builds, in its order: the list, then the files."""
        out: list[tuple[str, str]] = []
        for i, item in enumerate((self.case or {}).get("graders") or []):
            if isinstance(item, dict):
                out.append((str(item.get("name") or ""), f"case.yaml graders[{i}]"))
        for g in self.graders:
            if isinstance(g.data, dict):
                out.append((str(g.data.get("name") or g.path.stem), f"graders/{g.path.name}"))
        return out

    def run_field(self, key: str) -> Any:
        """A run field after the merge: `prompt.md`'s frontmatter, else `case.yaml`'s `execution`."""
        if self.prompt and key in self.prompt:
            return self.prompt[key]
        execution = (self.case or {}).get("execution")
        return execution.get(key) if isinstance(execution, dict) else None


def _read_doc(path: FsPath, language: str) -> ParsedDocument | None:
    raw = read_regular_bytes(str(path), _MAX_CASE_FILE)
    if raw is None:
        return None
    return parse(raw.decode("utf-8", errors="replace"), language)  # type: ignore[arg-type]


def _body(doc: ParsedDocument) -> str:
    start = doc.body_start_line if doc.ok else 0
    return "\n".join(doc.lines[start:]).strip()


def _body_span(doc: ParsedDocument) -> Span:
    """The body's text, first to last non-blank line (a grader file's rubric when its frontmatter has none)."""
    start = doc.body_start_line if doc.ok else 0
    filled = [i for i in range(start, len(doc.lines)) if doc.lines[i].strip()] or [start]
    last = filled[-1]
    return Span(filled[0], 0, last, len(doc.lines[last]) if last < len(doc.lines) else 0)


def case_files(folder: FsPath, own: ParsedDocument | None = None, own_name: str = "") -> CaseFiles:
    """Read a case folder; ``own`` (the open document, named ``own_name``) stands in for its file on disk."""
    files = CaseFiles(folder)
    prompt = own if own_name == "prompt.md" else _read_doc(folder / "prompt.md", "markdown")
    if prompt is not None and (own_name == "prompt.md" or (folder / "prompt.md").is_file()):
        files.prompt = prompt.data if isinstance(prompt.data, dict) else {}
        files.body = _body(prompt)
        files.prompt_claimed = prompt.ok
    case = own if own_name == "case.yaml" else _read_doc(folder / "case.yaml", "yaml")
    if case is not None and isinstance(case.data, dict):
        files.case = case.data
    graders = folder / "graders"
    if graders.is_dir():
        for path in sorted(graders.glob("*.md"))[:256]:
            doc = _read_doc(path, "markdown")
            if doc is not None:
                files.graders.append(GraderFile(path, doc.data if doc.ok else None, _body(doc)))
    return files


def grader_problems(doc: ParsedDocument, path: Path, data: dict[str, Any], body: str = "") -> list[Problem]:
    """What the loader refuses in one grader object: an option of another kind, a missing required option (a
    grader file's body may give `criteria` / `pattern`), a bad JavaScript pattern, the blank `init` template; what
    it loads but no run can pass (a call-count range that is empty); and a rubric still evalens's own skeleton
    (``skeleton-placeholder``: loaded, but the runner never judges it)."""
    kind = data.get("type")
    if kind not in m.KIND_OPTIONS:
        return []  # a missing or unknown type is the schema's error
    out: list[Problem] = []
    allowed = set(m.COMMON_GRADER_KEYS) | set(m.KIND_OPTIONS[kind])
    for key in data:
        if key not in allowed and key in m.Grader.model_fields:
            owners = [k for k, opts in m.KIND_OPTIONS.items() if key in opts]
            out.append(
                problem(
                    doc,
                    (*path, key),
                    E,
                    "plugin-eval-grader-option",
                    f"`{key}` is not an option of a `{kind}` grader (it belongs to {', '.join(owners)}); "
                    f"Claude Code refuses the case. A `{kind}` grader takes {', '.join(m.KIND_OPTIONS[kind])}.",
                    on_key=True,
                )
            )
    from_body = "criteria" if kind in ("llm", "baseline") else "pattern" if kind == "regex" else None
    for key in m.KIND_REQUIRED[kind]:
        if data.get(key) in (None, "") and not (key == from_body and body):
            where = " (or the grader file's body)" if from_body == key and path == () else ""
            out.append(
                problem(
                    doc,
                    path,
                    E,
                    "plugin-eval-grader-missing",
                    f"A `{kind}` grader needs `{key}`{where}; Claude Code refuses the case without it.",
                    on_key=bool(path),
                )
            )
    pattern = (
        data.get("pattern") if isinstance(data.get("pattern"), str) else body if kind == "regex" else None
    )
    if kind == "regex" and pattern:
        target = (*path, "pattern") if "pattern" in data else path
        why: str | None
        if re.search(r"\(\?[a-z]+\)", pattern):
            why = "JavaScript has no inline flags such as `(?i)`; use `flags: i`"
        else:
            why = js_regex_error(pattern)
        if why:
            out.append(
                problem(
                    doc,
                    target,
                    W,
                    "plugin-eval-regex",
                    f"The pattern is not a JavaScript regex ({why}): the case loads, but the grader cannot match.",
                )
            )
    low, high = data.get("min", 1), data.get("max")
    if kind == "tool_used" and isinstance(low, int) and isinstance(high, int) and high < low:
        out.append(
            problem(
                doc,
                (*path, "max"),
                W,
                "plugin-eval-count-range",
                f"`max: {high}` is below `min` ({low}{' when unset' if 'min' not in data else ''}): the case loads, "
                f'but no run can pass this grader (Claude Code expects {low}..{high} calls). For "never called" '
                "write `min: 0` beside `max: 0`.",
            )
        )
    criteria = data.get("criteria") if isinstance(data.get("criteria"), str) else body
    if kind in ("llm", "baseline") and criteria and GRADER_TEMPLATE in criteria:
        out.append(
            problem(
                doc,
                (*path, "criteria") if "criteria" in data else path,
                E,
                "plugin-eval-template",
                "The rubric is still the blank `init` template: replace the TODO line with what a successful "
                "response looks like (Claude Code refuses the case as it is).",
            )
        )
    elif kind in ("llm", "baseline") and (found := placeholder_in(criteria)) is not None:
        # evalens's own grader skeleton (PluginEvalGrader.skeleton): Claude Code loads it; evalens never judges it
        if "criteria" in data:
            at = (*path, "criteria")
            out.append(placeholder_problem(doc.span_for(at), f"`{'.'.join(map(str, at))}`", found, at))
        else:
            out.append(placeholder_problem(_body_span(doc), "The rubric (this file's body)", found, (*path,)))
    return out


def strict_wording(problems: list[Problem], what: str) -> list[Problem]:
    """The schema's unknown-key errors in the loader's terms: a strict object refuses the key, nothing is
    ignored (the schema check's generic wording says "it is ignored", which is true only of `case.yaml`)."""
    for p in problems:
        if p.code == "unknown-key" and p.severity is E:
            key = str((p.data or {}).get("path", ["?"])[-1])
            near = (p.data or {}).get("suggestion")
            hint = f"; did you mean `{near}`?" if near else ""
            p.message = f"`{key}` is not a key of {what}: Claude Code refuses the case{hint}"
        elif p.code == "unknown-key":
            p.message = p.message.replace(
                "; it is ignored.", ": Claude Code drops it silently, so it does nothing."
            )
    return problems


def _first_line(doc: ParsedDocument) -> Span:
    first = doc.lines[0] if doc.lines else ""
    return Span(0, 0, 0, max(1, len(first)))


def _the_case(doc: ParsedDocument) -> list[CaseInfo]:
    """A case file is one runnable unit, the whole case; its lens goes on line 1. Its name is left to the caller
    (:func:`case_name` of the folder), since `prompt.md`'s `name` overrides `case.yaml`'s and neither file knows
    the other's."""
    if not isinstance(doc.data, dict):
        return []
    first = _first_line(doc)
    return [CaseInfo("", first, first, ())]


def case_name(folder: FsPath) -> str:
    """The case's name as the loader gives it: `prompt.md`'s `name`, else `case.yaml`'s, else the folder's (what
    `--case` matches, and the unit's id in evalens)."""
    files = case_files(folder)
    for source in (files.prompt, files.case):
        name = (source or {}).get("name")
        if isinstance(name, str) and name:
            return name
    return folder.name


def case_problems(doc: ParsedDocument, files: CaseFiles, own_name: str) -> list[Problem]:
    """The case-level checks, reported on ``own_name``'s document: graders (none, duplicate names, files the
    loader skips), the prompt (none, the blank template), `env` keys, tools and the Skill-only signal."""
    out: list[Problem] = []
    line1 = _first_line(doc)
    names = files.grader_names()
    if not names:
        out.append(
            Problem(
                line1,
                E,
                "plugin-eval-no-grader",
                "This case has no grader: Claude Code refuses it (`invalid case.yaml: graders: Required`). Add a "
                "`graders/<name>.md` file with a `type:` frontmatter, or a `graders:` list in case.yaml.",
            )
        )
    seen: dict[str, str] = {}
    for name, where in names:
        if name and name in seen:
            out.append(
                Problem(
                    line1,
                    E,
                    "plugin-eval-duplicate-grader",
                    f'Two graders are named "{name}" ({seen[name]} and {where}): Claude Code refuses the case.',
                )
            )
        seen.setdefault(name, where)
    for g in files.graders:
        if g.data is None:
            out.append(
                Problem(
                    line1,
                    W,
                    "plugin-eval-grader-skipped",
                    f"graders/{g.path.name} has no frontmatter, so Claude Code skips it silently: start it with "
                    "`---`, `type: …`, `---`.",
                )
            )
    prompt = files.body or files.run_field("prompt")
    if files.body is not None and PROMPT_TEMPLATE in files.body:
        out.append(
            Problem(
                Span(doc.body_start_line, 0, doc.body_start_line, 1) if own_name == "prompt.md" else line1,
                E,
                "plugin-eval-template",
                "The prompt is still the blank `init` template: replace the TODO line with the user prompt to "
                "test (Claude Code refuses the case as it is).",
            )
        )
    elif not (isinstance(prompt, str) and prompt.strip()):
        out.append(
            Problem(
                line1,
                E,
                "plugin-eval-no-prompt",
                "This case has no prompt: write it as prompt.md's body, or as `execution.prompt` in case.yaml.",
            )
        )
    out += _run_field_problems(doc, files, own_name)
    return out


def _run_field_problems(doc: ParsedDocument, files: CaseFiles, own_name: str) -> list[Problem]:
    out: list[Problem] = []
    base: Path = () if own_name == "prompt.md" else ("execution",)
    data = doc.data if isinstance(doc.data, dict) else {}  # a body-only prompt.md has no fields
    env = data.get("env") if own_name == "prompt.md" else (data.get("execution") or {}).get("env")
    if isinstance(env, dict):
        for key in env:
            if isinstance(key, str) and not _ENV_KEY.match(key):
                out.append(
                    problem(
                        doc,
                        (*base, "env", key),
                        W,
                        "plugin-eval-env",
                        f"`{key}` is not an `EVAL_*` name: the case loads, but every run ends in an error "
                        "(only `EVAL_*` variables can be set from a case; others come from the operator's shell).",
                        on_key=True,
                    )
                )
    allowed = files.run_field("allowed_tools")
    granted = set(m.READ_ONLY_TOOLS) | ({str(t) for t in allowed} if isinstance(allowed, list) else set())
    for item in _all_graders(files):
        kind = item.get("type")
        tool = item.get("tool")
        low = item.get("min")
        expected = low if isinstance(low, int) else 1
        if kind == "tool_used" and isinstance(tool, str) and tool not in granted and expected >= 1:
            if not tool.startswith("mcp__"):
                out.append(
                    Problem(
                        _first_line(doc),
                        W,
                        "plugin-eval-tool-not-listed",
                        f"A grader counts calls to `{tool}`, which this case's `allowed_tools` does not list: the "
                        f"agent never has it, so the grader cannot pass (add `{tool}` to `allowed_tools`; tools beyond "
                        "the read-only set also need the operator's `--allow-tools`).",
                    )
                )
    return out


def _all_graders(files: CaseFiles) -> list[dict[str, Any]]:
    listed = [g for g in (files.case or {}).get("graders") or [] if isinstance(g, dict)]
    return listed + [g.data for g in files.graders if isinstance(g.data, dict)]


def case_file(folder: FsPath, value: Any) -> FsPath | None:
    """A file a case names (scaffold, history, baseline) as a path inside its case folder, or None: the loader
    takes only files of the case folder, and an absolute path or a `..` is never followed (nor opened)."""
    if not isinstance(value, str) or path_escape(value) is not None:
        return None
    target = folder / value
    return target if target.is_file() and not target.is_symlink() else None


def _file_target(folder: FsPath, value: Any) -> list[Target]:
    target = case_file(folder, value)
    return [Target(str(target))] if target is not None else []


class PluginEvalPrompt(Format):
    id = "plugin-eval-prompt"
    title = "claude plugin eval prompt.md"
    language = "markdown"
    globs = ("**/prompt.md",)
    schema_file = "claude-plugin-eval-prompt.schema.json"
    lookalike_hint = (
        "A prompt.md evalens does not read as a `claude plugin eval` case (no graders/ beside it)."
    )

    def detect(self, path: str, data: Any) -> Match:
        """A case's prompt by the evidence Claude Code itself needs: a `graders/` folder or a `case.yaml` beside
        it, or, under an `evals/` folder, a frontmatter key only plugin-eval cases have (`max_turns`, …)."""
        folder = _folder(path)
        if (folder / "graders").is_dir() or (folder / "case.yaml").is_file():
            return Match.YES
        if _in_eval_dir(path) and isinstance(data, dict) and _SPECIFIC_PROMPT_KEYS & set(data):
            return Match.YES
        return Match.NO

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        """In a case folder (a `graders/` folder or a `case.yaml` beside it, as the loader needs): an unclosed
        frontmatter, which the loader refuses, and a body without frontmatter, which is a valid prompt whose case
        is still checked (a case with no grader the loader can read is refused)."""
        folder = _folder(path)
        if not ((folder / "graders").is_dir() or (folder / "case.yaml").is_file()):
            return False
        return _body_only(doc) or any(p.code == "frontmatter-unclosed" for p in doc.problems)

    def unparsed_problems(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        """A body-only prompt.md is no error (the body is the prompt): its case's checks are reported here,
        unless a case.yaml beside it reports them."""
        if not _body_only(doc):
            return list(doc.problems)
        folder = _folder(ctx.file_path)
        if (folder / "case.yaml").is_file():
            return []
        return case_problems(doc, case_files(folder, doc, "prompt.md"), "prompt.md")

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        return strict_wording(problems, "prompt.md's frontmatter")

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        if not isinstance(doc.data, dict):
            return []
        files = case_files(_folder(ctx.file_path), doc, "prompt.md")
        return case_problems(doc, files, "prompt.md")

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        return _the_case(doc)

    def skeleton(self, snippets: bool) -> str | None:
        """`claude plugin eval init --bare`'s prompt.md, with the prompt to write as a tab stop: the TODO line
        `init` writes is refused by the loader until it is replaced."""
        prompt = (
            "${1:Describe the task the agent is given}"
            if snippets
            else "Describe the task the agent is given."
        )
        return f"---\nmax_turns: 10\nallowed_tools: [Read, Glob, Grep, Skill]\n---\n\n{prompt}\n"


class PluginEvalCase(Format):
    id = "plugin-eval-case"
    title = "claude plugin eval case.yaml"
    language = "yaml"
    globs = ("**/case.yaml",)
    schema_file = "claude-plugin-eval-case.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """`case.yaml` is a common name: claimed with a case's own keys (`graders`, `execution`, `context`) or a
        `prompt.md` / `graders/` beside it."""
        folder = _folder(path)
        if (folder / "prompt.md").is_file() or (folder / "graders").is_dir():
            return Match.YES
        if isinstance(data, dict) and {"graders", "execution"} & set(data):
            return Match.YES
        return Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        return strict_wording(problems, "a grader")

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        return _the_case(doc)

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            return []
        out: list[Problem] = []
        for i, item in enumerate(data.get("graders") or []):
            if isinstance(item, dict):
                out += grader_problems(doc, ("graders", i), item)
        folder = _folder(ctx.file_path)
        context: dict[str, Any] = data["context"] if isinstance(data.get("context"), dict) else {}
        for key in ("scaffold_script", "history_file"):
            value = context.get(key)
            if isinstance(value, str) and value and case_file(folder, value) is None:
                escape = path_escape(value)
                if not escape and not whole_checkout(folder):
                    continue  # a case copied without its scripts (a corpus, an archive) proves nothing missing
                out.append(
                    problem(
                        doc,
                        ("context", key),
                        W,
                        "plugin-eval-file-missing",
                        f"`{value}` {escape}: it must name a file in this case folder."
                        if escape
                        else f"`{value}` is not a file in this case folder.",
                    )
                )
        execution: dict[str, Any] = data["execution"] if isinstance(data.get("execution"), dict) else {}
        files = case_files(folder, doc, "case.yaml")
        if context.get("history_file") and not (files.body or execution.get("prompt")):
            out.append(
                problem(
                    doc,
                    ("context", "history_file"),
                    E,
                    "plugin-eval-no-prompt",
                    "`context.history_file` needs a prompt: the resumed session needs a next turn.",
                )
            )
        if not files.prompt_claimed:  # with a prompt.md frontmatter, the case-level checks are reported there
            out += case_problems(doc, files, "case.yaml")
        return out

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        if path[-1:] in (("scaffold_script",), ("history_file",), ("baseline_file",)):
            return _file_target(_folder(ctx.file_path), value)
        return []

    def skeleton(self, snippets: bool) -> str | None:
        return (
            'schema_version: "1.1"\nname: my-case\nexecution:\n  prompt: "Describe the task."\n  max_turns: 10\n'
            "graders:\n  - {name: says-done, type: regex, pattern: DONE}\n"
        )


class PluginEvalGrader(Format):
    id = "plugin-eval-grader"
    title = "claude plugin eval grader"
    language = "markdown"
    globs = ("**/graders/*.md",)
    schema_file = "claude-plugin-eval-grader.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """A grader of a case folder, or any `graders/*.md` whose frontmatter names a grader `type`."""
        if is_case_folder(_folder(path).parent):
            return Match.YES
        return Match.YES if isinstance(data, dict) and data.get("type") in m.GRADER_TYPES else Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        return strict_wording(problems, "a grader")

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        """Without frontmatter the loader skips the file (the case says so); an unclosed one is refused."""
        return any(p.code == "frontmatter-unclosed" for p in doc.problems) and is_case_folder(
            _folder(path).parent
        )

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        if not isinstance(doc.data, dict):
            return []
        return grader_problems(doc, (), doc.data, _body(doc))

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        if path == ("baseline_file",):
            return _file_target(_folder(ctx.file_path).parent, value)
        return []

    def skeleton(self, snippets: bool) -> str | None:
        rubric = tab_stop(GRADER_RUBRIC) if snippets else GRADER_RUBRIC
        return f"---\ntype: llm\nweight: 1\n---\n\n{rubric}\n"


registry.register(PluginEvalPrompt())
registry.register(PluginEvalCase())
registry.register(PluginEvalGrader())
