"""Runnable units, built once from the positioned parse, for every face: validation, the editor's lens and
listing, and the runner.

The runner never reads an eval file itself: it asks :func:`read_doc` (the same parse validation uses, merge keys
and anchors resolved by :mod:`evalens.core.documents`) and builds its units from that document. A format's
inheritance (skilljack's ``defaults``, a ``task.md``'s checks mapped onto ``expect_*`` keys) is resolved here,
once, by :func:`skilljack_tasks` and :func:`skilljack_task_md`; the format's rules, the hover and the runner's
checks all read those tasks, so what validation says a task checks is what a run checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from evalens.core.documents import ParsedDocument, Path, PathKey, parse, sub_dict, sub_list
from evalens.core.formats._shared import skills_in
from evalens.core.formats.registry import by_id, language_of
from evalens.core.models.skilljack import DEFAULT_WEIGHT, DIMENSIONS
from evalens.core.validate import read_source

Location = list[PathKey]

__all__ = [
    "Location",
    "SkilljackTask",
    "Unit",
    "read_doc",
    "skilljack_task_md",
    "skilljack_tasks",
    "trigger_queries",
]


@dataclass
class Unit:
    """One runnable unit of an eval file: its id and where it is written in the file."""

    id: str
    location: Location
    data: Any = None  # the suite's typed view of the unit (a task, a case, a query)
    aliases: list[str] = field(default_factory=list)  # other names `--tasks` accepts (a query's index)


REFUSED = frozenset(
    ("syntax", "json-comment", "trailing-comma", "merge-invalid", "complex-key", "multi-document")
)
"""Parse problems that keep the format's own tool from loading the file (``JSON.parse``, js-yaml, PyYAML all
refuse them): a run refuses them too, whatever the tolerant parse recovered."""


def read_doc(file: FsPath, format_id: str | None = None) -> ParsedDocument:
    """An eval file's positioned parse, as validation reads it (raises ``FileNotFoundError`` / ``OSError`` when
    missing or unreadable and ``ValueError`` when it does not load: a run needs the document the tools see)."""
    if not file.exists():
        raise FileNotFoundError(2, "No such file", str(file))
    text, problem = read_source(file)
    if text is None:
        raise OSError(problem.message if problem is not None else f"cannot read {file}")
    fmt = by_id(format_id) if format_id else None
    doc = parse(text, fmt.language if fmt is not None else language_of(str(file)))
    refused = [p for p in doc.problems if p.code in REFUSED or not doc.ok]
    if refused or not doc.ok:
        first = refused[0] if refused else None
        raise ValueError(
            f"line {first.span.start_line + 1}: {first.message}" if first is not None else "empty file"
        )
    return doc


# ------------------------------------------------------------------------------------------------ skilljack


@dataclass
class SkilljackTask:
    """A skilljack task with inheritance resolved (formats.md §3.2, §3.4)."""

    id: str
    prompt: str
    expected: str  # skill name, "none" or ""
    criteria: dict[str, dict[str, Any]]  # dimension -> {weight, description}
    checklist: list[str]
    det: dict[str, Any] | None  # deterministic block (task.md checks mapped onto expect_* keys)
    skills: dict[str, FsPath] = field(default_factory=dict)
    location: Location = field(
        default_factory=list
    )  # where the task is written (["tasks", 2]; [] for task.md)
    det_paths: dict[str, Location] = field(default_factory=dict)  # expect_* key -> where it is written
    expected_at: Location | None = None  # where the expected skill is written

    @property
    def negative(self) -> bool:
        return self.expected == "none" or (
            self.det is not None and self.det.get("expect_skill_activation") is False
        )

    @property
    def judged(self) -> bool:
        """skilljack runs its judge only for a task with at least one criterion."""
        return bool(self.criteria)


def skilljack_tasks(data: Any, skills: dict[str, FsPath] | None = None) -> tuple[str, list[SkilljackTask]]:
    """The skill and the tasks of a ``tasks.yaml`` (each task's ``location`` is ``["tasks", index]``), ``defaults`` inherited as
    skilljack's ``parseTask`` does: a task's own value, else the default, else the built-in; a
    ``deterministic`` block implies ``expect_skill_activation: true``."""
    defaults = sub_dict(data, "defaults")
    out = [
        skilljack_task(index, raw, defaults, skills)
        for index, raw in enumerate(sub_list(data, "tasks"))
        if isinstance(raw, dict)
    ]
    skill = data.get("skill", "") if isinstance(data, dict) else ""
    return str(skill or ""), out


def skilljack_task(
    index: int, raw: dict[str, Any], defaults: dict[str, Any], skills: dict[str, FsPath] | None = None
) -> SkilljackTask:
    """One task of ``skilljack_tasks``: the rules resolve the edited task alone (issue 43), the same way."""
    dcrit = sub_dict(defaults, "criteria")
    here: Location = ["tasks", index]
    tcrit = sub_dict(raw, "criteria")
    criteria = {}
    for d in DIMENSIONS:
        if d in tcrit or d in dcrit:
            own, inherited = sub_dict(tcrit, d), sub_dict(dcrit, d)
            criteria[d] = {
                "weight": own.get("weight", inherited.get("weight", DEFAULT_WEIGHT)),
                "description": own.get("description", inherited.get("description", "")),
            }
    block = raw.get("deterministic")
    det = {"expect_skill_activation": True, **block} if isinstance(block, dict) else None
    own_expected = "expected_skill_load" in raw
    return SkilljackTask(
        id=str(raw.get("id", "")),
        prompt=str(raw.get("prompt", "")),
        expected=str(raw.get("expected_skill_load", defaults.get("expected_skill_load", "")) or ""),
        criteria=criteria,
        checklist=[str(x) for x in raw.get("golden_checklist") or []],
        det=det,
        skills=dict(skills or {}),
        location=here,
        det_paths={k: [*here, "deterministic", k] for k in det or {}},
        expected_at=[*here, "expected_skill_load"] if own_expected else ["defaults", "expected_skill_load"],
    )


def skilljack_task_md(doc: ParsedDocument, path: FsPath) -> tuple[str, SkilljackTask]:
    """A ``task.md`` package: checks map one-to-one onto ``expect_*``; assertions become the checklist; skills
    come from the suite's ``skills/`` and the task's ``environment/skills/``."""
    front = doc.data if isinstance(doc.data, dict) else {}
    task_dir = path.parent
    skills = {**skills_in(task_dir.parent / "skills"), **skills_in(task_dir / "environment" / "skills")}
    invoke = front.get("expect_skill_invocation")
    invoke = invoke if isinstance(invoke, bool) else bool(skills)
    expected = front.get("expected_skill") or (next(iter(skills)) if len(skills) == 1 else "")
    det: dict[str, Any] = {"expect_skill_activation": invoke}
    det_paths: dict[str, Location] = {"expect_skill_activation": ["expect_skill_invocation"]}
    for key, value in sub_dict(front, "checks").items():
        det["expect_" + {"files_exist": "file_exists"}.get(key, key)] = value
        det_paths["expect_" + {"files_exist": "file_exists"}.get(key, key)] = ["checks", key]
    body = "\n".join(doc.lines[doc.body_start_line :]).strip()
    criteria = {
        d: {"weight": w, "description": ""}
        for d, w in (("discovery", 0.3), ("adherence", 0.4), ("output", 0.3))
    }
    task = SkilljackTask(
        id=str(front.get("id") or task_dir.name),
        prompt=body,
        expected="none" if not invoke else str(expected or ""),
        criteria=criteria if front.get("assertions") else {},
        checklist=[str(a) for a in front.get("assertions") or []],
        det=det,
        skills=skills,
        location=[],
        det_paths=det_paths,
        expected_at=["expected_skill"] if invoke else ["expect_skill_invocation"],
    )
    return str(expected or task_dir.parent.name), task


# ------------------------------------------------------------------------------------------------ trigger sets


def is_json_schema(data: dict[str, Any]) -> bool:
    """A JSON Schema describing trigger sets is not one (its properties name the same keys)."""
    schema = data.get("$schema")
    return (isinstance(schema, str) and "json-schema.org" in schema) or (
        isinstance(data.get("properties"), dict) and data.get("type") == "object"
    )


def wrapped_key(data: Any) -> str | None:
    """The key of the one list of ``{query, should_trigger}`` items a wrapper object holds (``{skill_name,
    queries: [...]}``, ``{description, cases: [...]}``), or None: a trigger set in a wrapped shape."""
    if (
        not isinstance(data, dict)
        or is_json_schema(data)
        or not isinstance(data.get("skill_name", data.get("skill")), str)
    ):
        return None  # the wrapper names the one skill under test, as skill-creator's files do
    keys = [
        k
        for k, v in data.items()
        if isinstance(v, list)
        and v
        and all(
            isinstance(i, dict)
            and "query" in i
            and isinstance(i.get("should_trigger"), bool)
            and not _NOT_A_QUERY & set(i)
            for i in v[:50]
        )
    ]
    return keys[0] if len(keys) == 1 else None


_NOT_A_QUERY = frozenset(("trigger_rate", "trigger_count", "triggered", "passed", "run_count", "target"))
"""Item keys of run results (rates, pass flags) and of routers (a `target` skill per query): not one skill's
trigger set, even when each item has `query` and `should_trigger`."""


def trigger_items(data: Any) -> tuple[Path, list[Any]]:
    """Where a trigger set's items are (a path prefix) and the items: the top-level array, or the wrapped list.
    The one reading of the shape, shared by the rules, the outline and the runner."""
    key = wrapped_key(data)
    if key is not None:
        return (key,), data[key]
    return (), data if isinstance(data, list) else []


def trigger_queries(data: Any) -> tuple[str | None, list[tuple[str, bool]]]:
    """The skill name and the (query, should trigger) pairs of a trigger eval set, in any of its shapes."""
    prefix, items = trigger_items(data)
    if isinstance(data, dict) and not prefix:
        return data.get("skill_name"), [(q, True) for q in data.get("should_trigger") or []] + [
            (q, False) for q in data.get("should_not_trigger") or []
        ]
    name = (
        data.get("skill_name") if isinstance(data, dict) and isinstance(data.get("skill_name"), str) else None
    )
    return name, [
        (str(d["query"]), bool(d.get("should_trigger")))
        for d in items
        if isinstance(d, dict) and "query" in d
    ]
