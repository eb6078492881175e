"""The text a skeleton or a quick fix writes where only the user can say what to check: a judge's criteria, a
grader's checklist item or assertion. It is inserted as a snippet's tab stop, flagged (``placeholder-text``)
while it stays in the file, and never judged by the runner: a case judged against its skeleton's own sentence
measured nothing and printed PASS (issue 45 #5). Every skeleton names its text here, so the rule and the
runner know each one without guessing at wording."""

from __future__ import annotations

import re
from collections.abc import Iterator

from evalens.core.documents import Node, ParsedDocument
from evalens.core.problems import Problem, Severity

#: The judge criteria of the UAAPS case skeleton (completion in an empty case file).
CASE_CRITERIA = "The output names a concrete, checkable fact."
#: What the quick fix for a missing ``judge`` (or ``judge.criteria``) writes: the slot to fill is in brackets.
CRITERIA_FIX = "The output <names a concrete, checkable fact>."
#: The golden checklist item of the skilljack ``tasks.yaml`` skeleton.
CHECKLIST_ITEM = "A checkable fact"
#: The assertion of the skilljack ``task.md`` skeleton.
TASK_ASSERTION = "A checkable fact about the output"
#: The assertion of the skill-creator ``evals.json`` skeleton.
EVAL_ASSERTION = "The output names output/report.md as the file it wrote"
#: The rubric of the ``claude plugin eval`` grader skeleton.
GRADER_RUBRIC = "What a successful response contains."

PLACEHOLDERS = (CASE_CRITERIA, CRITERIA_FIX, CHECKLIST_ITEM, TASK_ASSERTION, EVAL_ASSERTION, GRADER_RUBRIC)

# A fill-in slot of three words or more in angle brackets (`<names a concrete, checkable fact>`); an HTML tag
# (`<h1>`, `<title>`, `<a href="x">`) has no such run of plain words.
_SLOT = re.compile(r"<[a-z][a-z,'-]*(?: [a-z][a-z,'-]*){2,}>")
_SNIPPET_SPECIAL = re.compile(r"[$}\\]")


def _norm(text: str) -> str:
    return " ".join(text.split()).rstrip(".").casefold()


_KNOWN = {_norm(p): p for p in PLACEHOLDERS}


def placeholder_in(text: object) -> str | None:
    """The skeleton's placeholder ``text`` still is or holds (whitespace, case and a final full stop aside), or
    None when the user wrote their own."""
    if not isinstance(text, str) or not text.strip():
        return None
    known = _KNOWN.get(_norm(text))
    if known is not None:
        return known
    slot = _SLOT.search(" ".join(text.split()))
    return slot.group(0) if slot else None


def tab_stop(text: str, index: int = 1) -> str:
    """``text`` as a snippet's tab stop whose default is the text itself (``${1:…}``), escaped as LSP snippets
    require, so the editor selects the placeholder and the first keystroke replaces it."""
    escaped = _SNIPPET_SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    return f"${{{index}:{escaped}}}"


def refusal(field: str, text: str) -> str:
    """Why the runner will not judge ``field``: the sentence every face shows for such a unit."""
    return (
        f"not judged: {field} is still the skeleton's placeholder ({text!r}); write what the output must "
        "contain or do"
    )


#: The rule that flags a placeholder left in the file (``rules.toml``); tunable, but the runner refuses anyway.
CODE = "skeleton-placeholder"


def _scalars(node: Node, path: tuple, under: bool, keys: frozenset[str]) -> Iterator[tuple[tuple, Node]]:
    if node.kind == "scalar":
        if under and isinstance(node.value, str):
            yield path, node
    elif node.kind == "map":
        for key, _, child in node.entries:
            yield from _scalars(child, (*path, key), under or key in keys, keys)
    else:
        for i, child in enumerate(node.items):
            yield from _scalars(child, (*path, i), under, keys)


def placeholder_problems(doc: ParsedDocument, keys: tuple[str, ...]) -> list[Problem]:
    """One error per text under ``keys`` (the fields a judge or grader reads: ``Format.judged_keys``) that is
    still a skeleton's placeholder. An error, so the lens offers no run until it is replaced."""
    if doc.root is None or not keys:
        return []
    out = []
    for path, node in _scalars(doc.root, (), False, frozenset(keys)):
        found = placeholder_in(node.value)
        if found is None:
            continue
        where = ".".join(str(p) for p in path)
        out.append(
            Problem(
                node.span,
                Severity.ERROR,
                "skeleton-placeholder",  # CODE, a literal where it is emitted (tests/unit/test_rules_catalog.py)
                f"`{where}` is still the skeleton's placeholder ({found!r}): write what the output must contain "
                "or do; evalens will not judge a placeholder.",
                data={"path": list(path), "placeholder": found},
            )
        )
    return out
