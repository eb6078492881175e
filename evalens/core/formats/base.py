"""What a file format brings to evalens: detection, schema, rules, cases and editor knowledge.

Each format lives in one module of this package and registers a ``Format`` subclass in ``registry``.
Features never branch on file names; they ask the document's format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from evalens.core.documents import Language, ParsedDocument, Path
from evalens.core.problems import Problem, Span
from evalens.schemas import load_schema

if TYPE_CHECKING:
    from evalens.core.index import PackageIndex


class Match(Enum):
    """How well a file fits a format."""

    NO = 0
    LOOKALIKE = 1  # the path fits but the content belongs to another tool
    YES = 2


@dataclass(slots=True)
class CaseInfo:
    """A runnable unit inside a document (a UAAPS case, a skilljack task, an evals.json case)."""

    name: str
    span: Span  # where the lens goes: the name's key line
    name_span: Span  # the name value, for diagnostics
    path: Path = ()  # the case's path in the document ((): the whole document)


@dataclass(slots=True)
class ValueChoice:
    """A value offered in completion, with docs."""

    value: str
    detail: str = ""
    documentation: str = ""


@dataclass(slots=True)
class Target:
    """A place a value points to (go to definition)."""

    path: str  # file system path
    span: Span | None = None


@dataclass(slots=True)
class RuleContext:
    """What rules may look at beyond the document itself."""

    file_path: str
    index: PackageIndex | None
    settings: dict[str, Any] = field(default_factory=dict)
    doc: ParsedDocument | None = None  # the open document, when a feature (e.g. hover) has it at hand


@dataclass(slots=True)
class ItemRules:
    """A format's rules split at the one list of units its files hold (skilljack's ``tasks``), so that an edit
    inside one unit re-checks that unit alone (issue 43, ``evalens.core.item_cache``): a 500-task file re-ran
    every rule over every task on each keystroke.

    ``item(i, value)`` gives the problems of item ``i`` of ``doc.data[key]`` and may read nothing outside it but
    what ``context`` holds (compared by equality: while it is equal, an unchanged item's problems are reused).
    ``rest()`` gives every other problem, cross-item ones (duplicate ids, names, references) included, and runs
    on every validation. A format that offers this also promises that its ``refine`` treats each schema problem
    by itself: it is given the problems of the root and of the changed items only."""

    key: str
    context: Any
    item: Callable[[int, Any], list[Problem]]
    rest: Callable[[], list[Problem]]

    def all(self, items: list[Any]) -> list[Problem]:
        """Every problem, in the order a validation by items gives them (the whole-document ``rules``)."""
        return self.rest() + [p for i, value in enumerate(items) for p in self.item(i, value)]


@cache
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a path glob (``**/``, ``*``, ``?``, ``{a,b}``) into a regex matching a path's tail."""
    out = ""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "{":
            end = pattern.index("}", i)
            out += "(?:" + "|".join(re.escape(p) for p in pattern[i + 1 : end].split(",")) + ")"
            i = end + 1
            continue
        else:
            out += re.escape(c)
        i += 1
    return re.compile(r"(?:^|/)" + out + r"$")


class Format:
    """Base class; subclasses override what their file kind supports."""

    id: ClassVar[str]
    title: ClassVar[str]
    language: ClassVar[Language]
    globs: ClassVar[tuple[str, ...]] = ()
    schema_file: ClassVar[str | None] = None
    runnable: ClassVar[bool] = False
    #: Keys whose text a judge or grader reads (``judge.criteria``, a checklist, assertions): a skeleton's
    #: placeholder left there is the ``skeleton-placeholder`` error (``evalens.core.placeholders``).
    judged_keys: ClassVar[tuple[str, ...]] = ()
    lookalike_hint: ClassVar[str] = ""

    def path_matches(self, path: str) -> bool:
        posix = path.replace("\\", "/")
        return any(glob_regex(g).search(posix) for g in self.globs)

    def detect(self, path: str, data: Any) -> Match:
        """Content check for a file whose path matched (or that was sniffed)."""
        return Match.YES

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        """Whether a file at a matching path that does not parse is still this format's (its problems shown)."""
        return True

    def unparsed_problems(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        """The problems of a claimed file that does not parse (``claims_unparsed``): the parser's, unless the
        format reads such a file its own way (a `claude plugin eval` prompt.md needs no frontmatter)."""
        return list(doc.problems)

    def schema(self) -> dict[str, Any] | None:
        if not self.schema_file:
            return None

        return load_schema(self.schema_file)

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        """Semantic and cross-file rules beyond the schema."""
        return []

    def item_rules(self, doc: ParsedDocument, ctx: RuleContext) -> ItemRules | None:
        """The rules split by unit, for documents whose units can be re-checked one by one; None: ``rules``
        checks the whole document on every edit."""
        return None

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """Reword or re-grade schema problems and attach fixes (e.g. reserved engines)."""
        return problems

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        return []

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        """Completion values that come from the workspace (skills, fixtures, …) at ``path``."""
        return []

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        return []

    def hover_value(self, path: Path, value: Any, ctx: RuleContext) -> str | None:
        """Markdown about a value (e.g. the skill a target names), shown under the field docs."""
        return None

    def skeleton(self, snippets: bool) -> str | None:
        """Whole-file snippet offered in an empty file."""
        return None
