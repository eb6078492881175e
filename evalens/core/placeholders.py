"""The text a skeleton or a quick fix writes where only the user can say what to check: a judge's criteria, a
grader's checklist item or assertion. It is inserted as a snippet's tab stop, flagged (``placeholder-text``)
while it stays in the file, and never judged by the runner: a case judged against its skeleton's own sentence
measured nothing and printed PASS (issue 45 #5). Every skeleton names its text here, so the rule and the
runner know each one without guessing at wording."""

from __future__ import annotations

import re
from collections.abc import Iterator

from evalens.core.documents import Node, ParsedDocument
from evalens.core.problems import Problem, Severity, Span

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
#: The rubric of the ``claude plugin eval`` grader skeleton (``PluginEvalGrader.skeleton``).
GRADER_RUBRIC = "What a successful response contains."
#: The rubric ``claude plugin eval init --bare`` writes in ``graders/criteria.md``; Claude Code's loader refuses it
#: (the ``plugin-eval-template`` error says so in its words), and the runner never judges it on any engine.
INIT_RUBRIC = "TODO: describe what a successful response looks like"

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


def _scalars(
    node: Node, path: tuple, under: bool, keys: frozenset[str], skip: Node | None = None
) -> Iterator[tuple[tuple, Node]]:
    if node.kind == "scalar":
        if under and isinstance(node.value, str):
            yield path, node
    elif node.kind == "map":
        for key, _, child in node.entries:
            if child is not skip:
                yield from _scalars(child, (*path, key), under or key in keys, keys)
    else:
        for i, child in enumerate(node.items):
            yield from _scalars(child, (*path, i), under, keys)


def placeholder_problems(doc: ParsedDocument, keys: tuple[str, ...]) -> list[Problem]:
    """One error per text under ``keys`` (the fields a judge or grader reads: ``Format.judged_keys``) that is
    still a skeleton's placeholder. An error, so the lens offers no run until it is replaced."""
    if doc.root is None or not keys:
        return []
    return _problems(_scalars(doc.root, (), False, frozenset(keys)))


def placeholder_split(
    doc: ParsedDocument, keys: tuple[str, ...], key: str, fresh: list[int]
) -> tuple[list[Problem], dict[int, list[Problem]]]:
    """``placeholder_problems`` by items of the root mapping's list ``key`` (issue 43, as
    ``schema_check.check_split``): those outside the list's items, and those of the items ``fresh``."""
    items: dict[int, list[Problem]] = {i: [] for i in fresh}
    seq = doc.root.get(key) if doc.root is not None and doc.root.kind == "map" else None
    if doc.root is None or not keys or seq is None:
        return [], items
    wanted = frozenset(keys)
    rest = _problems(_scalars(doc.root, (), False, wanted, skip=seq))
    for i in fresh:
        if i < len(seq.items):
            items[i] = _problems(_scalars(seq.items[i], (key, i), key in wanted, wanted))
    return rest, items


def rubric_placeholder(text: object) -> str | None:
    """What a ``claude plugin eval`` grader's rubric (its ``criteria``, or a grader file's body) still holds of a
    skeleton: evalens's own (:func:`placeholder_in`) or ``init``'s TODO line; None: the user's own rubric."""
    if isinstance(text, str) and INIT_RUBRIC in text:
        return INIT_RUBRIC
    return placeholder_in(text)


def placeholder_problem(span: Span, what: str, found: str, path: tuple) -> Problem:
    """The ``skeleton-placeholder`` error on ``span``: ``what`` (a field in backticks, or "The rubric") still is
    the skeleton's ``found``. One wording for every format."""
    return Problem(
        span,
        Severity.ERROR,
        "skeleton-placeholder",  # CODE, a literal where it is emitted (tests/core/test_rules_catalog.py)
        f"{what} is still the skeleton's placeholder ({found!r}): write what the output must contain or do; "
        "evalens will not judge a placeholder.",
        data={"path": list(path), "placeholder": found},
    )


def _problems(found: Iterator[tuple[tuple, Node]]) -> list[Problem]:
    out = []
    for path, node in found:
        found_text = placeholder_in(node.value)
        if found_text is not None:
            out.append(
                placeholder_problem(node.span, f"`{'.'.join(str(p) for p in path)}`", found_text, path)
            )
    return out
