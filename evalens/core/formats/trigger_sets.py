"""Trigger eval sets (formats.md §5.3): skill-creator's array of ``{query, should_trigger}`` under any name, and
the ``{skill_name, should_trigger: [...], should_not_trigger: [...]}`` variant seen in the wild.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evalens.core.documents import ParsedDocument, Path
from evalens.core.formats import registry
from evalens.core.formats._shared import near_miss_keys_only, problem
from evalens.core.formats.base import CaseInfo, Format, Match, RuleContext
from evalens.core.formats.writing_skills import _dicts
from evalens.core.models import skill_creator as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.problems import Edit, Fix, Problem, Severity, Span
from evalens.core.units import is_json_schema, trigger_items, wrapped_key

register(
    SchemaSpec(
        "skill-creator-trigger-evals.schema.json",
        m.TriggerEvalSet,
        "Trigger eval set",
        "Queries with whether a skill should load for each (`run_eval.py`).",
    )
)
register(
    SchemaSpec(
        "skill-creator-trigger-evals-variant.schema.json",
        m.TriggerEvalSetVariant,
        "Trigger eval set (variant)",
        "`{skill_name, should_trigger: [...], should_not_trigger: [...]}`, a variant seen in the wild.",
    )
)

# ------------------------------------------------------------------------------------------- trigger eval sets


_TRIGGER_TEXT = re.compile(r'"should_trigger"\s*:')


def _mentions(value: Any, keys: set[str], depth: int = 4) -> bool:
    """Whether an object within ``depth`` levels (first 50 items of each list) has one of ``keys``."""
    if depth < 0:
        return False
    if isinstance(value, dict):
        return bool(keys & set(value)) or any(
            _mentions(v, keys, depth - 1) for v in list(value.values())[:50]
        )
    if isinstance(value, list):
        return any(_mentions(v, keys, depth - 1) for v in value[:50])
    return False


def _routing_set(items: list[Any]) -> bool:
    """A routing set (issue #39, noise class 2): `should_trigger` names the skill that should fire (a string), in
    no item a boolean. That is another tool's router test, not a broken trigger set."""
    flags = [d["should_trigger"] for d in items if isinstance(d, dict) and "should_trigger" in d]
    return (
        bool(flags) and not any(isinstance(f, bool) for f in flags) and any(isinstance(f, str) for f in flags)
    )


class TriggerEvalSet(Format):
    id = "trigger-evals"
    title = "Trigger eval set"
    language = "json"
    globs = ("**/*trigger*.json",)
    schema_file = "skill-creator-trigger-evals.schema.json"
    runnable = True
    lookalike_hint = (
        "Not a trigger eval set (an array of `{query, should_trigger}`); evalens leaves it alone."
    )

    def sniff(self, path: str, text: str) -> bool:
        """Trigger sets may have any name: a JSON array whose items have ``query`` and ``should_trigger``."""
        return (
            path.lower().endswith(".json")
            and text.lstrip()[:1] == "["
            and '"query"' in text
            and bool(_TRIGGER_TEXT.search(text))
        )

    def detect(self, path: str, data: Any) -> Match:
        """A list of `{query, should_trigger}`. Elsewhere at a `*trigger*` name, queries or `should_trigger`
        flags nested in another shape (another tool's trigger cases or results) get the one look-alike hint;
        JSON Schemas and files with neither are left alone."""
        if isinstance(data, list) and (not data or any(isinstance(d, dict) and "query" in d for d in data)):
            return Match.LOOKALIKE if _routing_set(data) else Match.YES
        if wrapped_key(data) is not None:
            return Match.YES
        if not isinstance(data, dict) or "should_not_trigger" in data or is_json_schema(data):
            return Match.NO
        return Match.LOOKALIKE if _mentions(data, {"query", "should_trigger"}) else Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """A wrapped set is checked by its items (the rules below); the array schema does not fit its wrapper,
        and the wrapper's other keys are the repository's own. Items are open too: run_eval.py reads `query` and
        `should_trigger` and nothing else (`reason`, `purpose` break nothing), so only near-miss typos count."""
        return [] if wrapped_key(doc.data) is not None else near_miss_keys_only(doc, problems)

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        prefix, raw = trigger_items(doc.data)
        items = _dicts(raw)
        out: list[Problem] = []
        if prefix:
            out.append(
                problem(
                    doc,
                    prefix,
                    Severity.HINT,
                    "trigger-wrapped",
                    f"Trigger set wrapped in `{prefix[0]}`: evalens runs it as is, but skill-creator's "
                    "run_eval.py reads a top-level array of `{query, should_trigger}`.",
                    on_key=True,
                )
            )
        seen: dict[str, tuple[int, Any]] = {}
        for i, item in items:
            q = item.get("query")
            if not isinstance(q, str):
                continue
            key = " ".join(q.lower().split())
            if key in seen:
                first, want = seen[key]
                if want != item.get("should_trigger"):
                    out.append(
                        problem(
                            doc,
                            (*prefix, i, "should_trigger"),
                            Severity.ERROR,
                            "conflicting-query",
                            f"The same query is item {first} with the opposite `should_trigger`.",
                        )
                    )
                else:
                    out.append(
                        problem(
                            doc,
                            (*prefix, i, "query"),
                            Severity.WARNING,
                            "duplicate-query",
                            f"Duplicate of item {first}; it counts twice in precision and recall.",
                        )
                    )
            else:
                seen[key] = (i, item.get("should_trigger"))
        flags = [item.get("should_trigger") for _, item in items]
        out += one_sided(doc, prefix, flags.count(True), flags.count(False))
        return out

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        prefix, _ = trigger_items(doc.data)
        root = doc.root
        if root is not None and prefix and root.kind == "map":
            root = root.get(str(prefix[0]))
        if root is None or root.kind != "seq":
            return []
        first = root.span
        out = [
            CaseInfo(
                "*",
                Span(first.start_line, first.start_col, first.start_line, first.start_col + 1),
                Span(first.start_line, first.start_col, first.start_line, first.start_col + 1),
                (),
            )
        ]
        for i, item in enumerate(root.items):
            node = item.get("query") if item.kind == "map" else None
            if node is not None and isinstance(node.value, str):
                out.append(CaseInfo(str(i), item.key_span("query") or node.span, node.span, (*prefix, i)))
        return out

    def skeleton(self, snippets: bool) -> str | None:
        return (
            json.dumps(
                [
                    {"query": "a realistic request the skill should handle", "should_trigger": True},
                    {"query": "a near-miss request it should not handle", "should_trigger": False},
                ],
                indent=2,
            )
            + "\n"
        )


def one_sided(doc: ParsedDocument, path: Path, positives: int, negatives: int) -> list[Problem]:
    """Precision needs negatives and recall needs positives."""
    if positives and negatives or not (positives or negatives):
        return []
    missing = "negative (`should_trigger: false`)" if positives else "positive (`should_trigger: true`)"
    return [
        Problem(
            Span(0, 0, 0, 1),
            Severity.WARNING,
            "one-sided",
            f"No {missing} queries: {'precision' if positives else 'recall'} cannot be measured.",
            data={"path": list(path)},
        )
    ]


class TriggerEvalSetVariant(Format):
    id = "trigger-evals-variant"
    title = "Trigger eval set (variant)"
    language = "json"
    globs = ("**/*trigger*.json",)
    schema_file = "skill-creator-trigger-evals-variant.schema.json"
    runnable = True

    def sniff(self, path: str, text: str) -> bool:
        return path.lower().endswith(".json") and '"should_not_trigger"' in text and text.lstrip()[:1] == "{"

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """Open like the array form: nothing reads keys beyond the two lists (`_comment`, `purpose`), so only a
        near-miss typo of a known key is reported."""
        return near_miss_keys_only(doc, problems)

    def detect(self, path: str, data: Any) -> Match:
        return (
            Match.YES
            if isinstance(data, dict)
            and ("should_not_trigger" in data or isinstance(data.get("should_trigger"), list))
            else Match.NO
        )

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        pos = (
            [q for q in data.get("should_trigger", []) if isinstance(q, str)]
            if isinstance(data.get("should_trigger"), list)
            else []
        )
        neg = (
            [q for q in data.get("should_not_trigger", []) if isinstance(q, str)]
            if isinstance(data.get("should_not_trigger"), list)
            else []
        )
        canonical = json.dumps(
            [{"query": q, "should_trigger": True} for q in pos]
            + [{"query": q, "should_trigger": False} for q in neg],
            indent=2,
            ensure_ascii=False,
        )
        last = len(doc.lines) - 1
        whole = Span(0, 0, last, len(doc.lines[last]))
        out = [
            Problem(
                Span(0, 0, 0, max(1, len(doc.lines[0]))),
                Severity.INFO,
                "trigger-variant",
                "Variant trigger set `{skill_name, should_trigger: [...], should_not_trigger: [...]}`; "
                "skill-creator's run_eval.py reads a top-level array of `{query, should_trigger}`.",
                fixes=[Fix("Convert to the canonical array", (Edit(whole, canonical + "\n"),))],
                data={"path": []},
            )
        ]
        both = set(pos) & set(neg)
        for j, q in enumerate(neg):
            if q in both:
                out.append(
                    problem(
                        doc,
                        ("should_not_trigger", j),
                        Severity.ERROR,
                        "conflicting-query",
                        "This query is also listed under `should_trigger`.",
                    )
                )
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


registry.register(TriggerEvalSet())
registry.register(TriggerEvalSetVariant())
