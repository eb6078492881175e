"""Validation by items (issue 43): an edit inside one task of a 500-task ``tasks.yaml`` re-checks that task alone.

The incremental parse (``documents.reparse_item``) keeps every unchanged item of the document's list as the very
node of the last parse. Each item's problems (its schema check, its format rules, its placeholders) depend only
on that node, its index and what the format's ``ItemRules.context`` names, so a validation keeps them per item
(``ItemResults``) and the next one reuses those whose node, index and context are unchanged. The root, the
changed items and the cross-item rules (``ItemRules.rest``: duplicate ids, names) are checked on every
validation. ``tests/core/test_item_cache.py`` holds the result to a validation from scratch over random edits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalens.core import schema_check
from evalens.core.documents import Node, ParsedDocument
from evalens.core.formats.base import Format, ItemRules, RuleContext
from evalens.core.placeholders import placeholder_split
from evalens.core.problems import Problem


@dataclass(slots=True)
class ItemResults:
    """The per-item problems of one validation, for the next validation of the same document to reuse."""

    key: str
    schema: dict[str, Any]  # held, so that an identity comparison cannot meet a recycled id
    context: tuple[Any, ...]
    nodes: list[Node]
    schema_problems: list[list[Problem]]
    rule_problems: list[list[Problem]]
    placeholders: list[list[Problem]]

    def reusable(self, key: str, schema: dict[str, Any], context: tuple[Any, ...]) -> bool:
        return self.key == key and self.schema is schema and self.context == context


def check(
    doc: ParsedDocument,
    fmt: Format,
    schema: dict[str, Any],
    ctx: RuleContext,
    split: ItemRules,
    previous: ItemResults | None,
) -> tuple[list[Problem], ItemResults] | None:
    """The schema, rule and placeholder problems of ``doc`` (what the whole-document path gives), reusing
    ``previous``'s for the items it checked that are unchanged; None when the schema cannot be checked by items.

    Problems come category by category (schema, rules, placeholders), the root's before the items' in item
    order, so a validation from scratch and one that reuses items list them alike (the final sort is stable).
    Problems are never changed after they are made (``aggregate`` and ``tune`` copy), so sharing is safe."""
    key = split.key
    seq = doc.root.get(key) if doc.root is not None and doc.root.kind == "map" else None
    if seq is None or seq.kind != "seq":
        return None
    items = seq.items
    context = (fmt.id, fmt.judged_keys, ctx.file_path, dict(ctx.settings), split.context)
    old = previous if previous is not None and previous.reusable(key, schema, context) else None
    fresh = [
        i for i, node in enumerate(items) if old is None or i >= len(old.nodes) or old.nodes[i] is not node
    ]
    schema_part = schema_check.check_split(doc, schema, key, fresh)
    if schema_part is None:
        return None
    found, fresh_schema = schema_part
    # refine rewords each problem by itself (the ItemRules promise): the root's and the changed items' only
    refined = fmt.refine(doc, found + [p for i in fresh for p in fresh_schema[i]], ctx)
    root_schema, fresh_schema = schema_check.split_by_item(refined, key, fresh)
    root_placeholders, fresh_placeholders = placeholder_split(doc, fmt.judged_keys, key, fresh)
    values = doc.data[key]
    fresh_set = set(fresh)
    result = ItemResults(key, schema, context, list(items), [], [], [])
    for i in range(len(items)):
        if i in fresh_set:
            result.schema_problems.append(fresh_schema[i])
            result.rule_problems.append(split.item(i, values[i]))
            result.placeholders.append(fresh_placeholders[i])
        else:
            assert old is not None
            result.schema_problems.append(old.schema_problems[i])
            result.rule_problems.append(old.rule_problems[i])
            result.placeholders.append(old.placeholders[i])
    problems = root_schema
    for group in result.schema_problems:
        problems += group
    problems += split.rest()
    for group in result.rule_problems:
        problems += group
    problems += root_placeholders
    for group in result.placeholders:
        problems += group
    return problems, result
