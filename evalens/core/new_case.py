""" "New eval case for this skill": where a new case for a SKILL.md goes, in the format its package already uses.

- the skill's own ``evals/evals.json`` (skill-creator: a new ``evals[]`` entry with the next integer id and
  the list name the file already uses; writing-skills: a new ``cases[]`` entry with one required expectation);
- else a UAAPS package (``<root>/skills/<name>/SKILL.md`` beside ``<root>/evals/cases/``): a new
  ``evals/cases/NN-new-case.yaml`` numbered like its siblings, with ``target: skill:<name>``;
- else a new ``evals/evals.json`` in the skill-creator format, the one agentskills.io documents
  (``skill_name``, ``evals[].id / prompt / expected_output / assertions``).

Required fields follow ``../shared/reference/formats.md`` (§2.3, §4.2, §5.1); the prompt is left empty and the
cursor put there. Pure apart from reading files through ``read`` (the editor's buffers win over the disk).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evalens.core.documents import parse
from evalens.core.formats.uaaps import UaapsCase
from evalens.core.index import frontmatter_fields
from evalens.core.problems import Span

Reader = Callable[[Path], "str | None"]
NUMBERED = re.compile(r"^(\d+)-")


@dataclass(frozen=True, slots=True)
class NewCase:
    """What to write: a new file (``insert is None``) or ``text`` inserted at ``insert`` in ``path``; the
    cursor (0-based line, code-point column) is on the prompt in the file as it will be."""

    format: str  # uaaps-case | skill-creator-evals | writing-skills-evals
    path: Path
    text: str
    cursor: tuple[int, int]
    insert: Span | None = None
    title: str = ""


def _prompt_at(text: str, needle: str) -> tuple[int, int]:
    """(line, column) just inside the quotes after ``needle`` (``prompt: "`` / ``"prompt": "``)."""
    at = text.index(needle) + len(needle)
    line = text.count("\n", 0, at)
    return line, at - (text.rfind("\n", 0, at) + 1)


def skill_name(skill_md: Path, read: Reader) -> str:
    name = frontmatter_fields(read(skill_md) or "").get("name", "").strip()
    return name or skill_md.parent.name


def plan(skill_md: Path, read: Reader) -> NewCase:
    """Where and how a new case for the skill at ``skill_md`` is written; ``ValueError`` when the skill's
    ``evals/evals.json`` exists but cannot take an entry (it does not parse)."""
    name = skill_name(skill_md, read)
    evals_json = skill_md.parent / "evals" / "evals.json"
    text = read(evals_json) if evals_json.is_file() else None
    if text is not None:
        found = _into_evals_json(evals_json, text)
        if found is None:  # writing a new file over it would lose it
            raise ValueError(
                f"{evals_json} does not parse as an evals.json with an `evals` or `cases` list; fix it first"
            )
        return found
    root = skill_md.parent.parent.parent if skill_md.parent.parent.name == "skills" else None
    if root is not None and (
        (root / "evals" / "cases").is_dir() or (root / "evals" / "eval-config.json").is_file()
    ):
        return _uaaps_case(root / "evals" / "cases", name)
    body = (
        json.dumps(
            {"skill_name": name, "evals": [{"id": 1, "prompt": "", "expected_output": "", "assertions": []}]},
            indent=2,
        )
        + "\n"
    )
    return NewCase(
        "skill-creator-evals", evals_json, body, _prompt_at(body, '"prompt": "'), title="evals/evals.json"
    )


def _uaaps_case(cases: Path, skill: str) -> NewCase:
    try:
        files = (
            sorted(p.name for p in cases.iterdir() if p.suffix in (".yaml", ".yml")) if cases.is_dir() else []
        )
    except OSError:
        files = []
    numbers = [int(m.group(1)) for m in (NUMBERED.match(f) for f in files) if m]
    width = max((len(m.group(1)) for m in (NUMBERED.match(f) for f in files) if m), default=2)
    stems = {re.sub(NUMBERED, "", Path(f).stem) for f in files}
    base = f"{skill}-new-case" if re.fullmatch(r"[a-z0-9-]{1,50}", skill) else "new-case"
    case = base
    n = 2
    while case in stems:
        case, n = f"{base}-{n}", n + 1
    prefix = f"{max(numbers, default=0) + 1:0{width}d}-" if numbers or not files else ""
    body = f'name: {case}\ntarget: skill:{skill}\ninput:\n  prompt: ""\njudge:\n  criteria: ""\n'
    return NewCase(
        UaapsCase.id,
        cases / f"{prefix}{case}.yaml",
        body,
        _prompt_at(body, 'prompt: "'),
        title=f"evals/cases/{prefix}{case}.yaml",
    )


def _into_evals_json(path: Path, text: str) -> NewCase | None:
    """A new entry at the end of the file's ``evals`` (skill-creator) or ``cases`` (writing-skills) array."""
    doc = parse(text, "json")
    if not doc.ok or not isinstance(doc.data, dict):
        return None
    data = doc.data
    if isinstance(data.get("evals"), list):
        items = data["evals"]
        ids = [e.get("id") for e in items if isinstance(e, dict)]
        next_id = max((i for i in ids if isinstance(i, int) and not isinstance(i, bool)), default=0) + 1
        checks = (
            "expectations"
            if any(isinstance(e, dict) and "expectations" in e for e in items)
            and not any(isinstance(e, dict) and "assertions" in e for e in items)
            else "assertions"
        )
        entry: dict[str, object] = {"id": next_id, "prompt": "", "expected_output": "", checks: []}
        return _append(path, doc, "evals", entry, "skill-creator-evals")
    if isinstance(data.get("cases"), list):
        taken = {e.get("id") for e in data["cases"] if isinstance(e, dict)}
        case, n = "new-case", 2
        while case in taken:
            case, n = f"new-case-{n}", n + 1
        entry = {
            "id": case,
            "prompt": "",
            "expectations": [{"criterion": "", "description": "", "required": True}],
        }
        return _append(path, doc, "cases", entry, "writing-skills-evals")
    return None


def _append(path: Path, doc: object, key: str, entry: dict[str, object], fmt: str) -> NewCase | None:
    """Insert ``entry`` after the array's last item (or into an empty array), indented like the file."""
    array = doc.node_at_path((key,))  # type: ignore[attr-defined]
    lines: list[str] = doc.lines  # type: ignore[attr-defined]
    if array is None or array.kind != "seq":
        return None
    key_line = array.span.start_line
    outer = len(lines[key_line]) - len(lines[key_line].lstrip())
    if array.items:
        last = array.items[-1].span
        first = array.items[0].span.start_line
        indent = len(lines[first]) - len(lines[first].lstrip()) if first != key_line else outer + 2
        step = max(2, indent - outer) if indent > outer else 2
        body = _entry_text(entry, indent, step)
        text = ",\n" + " " * indent + body
        at = Span(last.end_line, last.end_col, last.end_line, last.end_col)
    else:
        step = 2
        indent = outer + step
        text = "\n" + " " * indent + _entry_text(entry, indent, step) + "\n" + " " * outer
        span = array.span  # `[]`: insert between the brackets
        at = Span(span.start_line, span.start_col + 1, span.start_line, span.start_col + 1)
    line, col = _prompt_at(text, '"prompt": "')
    cursor = (at.start_line + line, (at.start_col if line == 0 else 0) + col)
    return NewCase(fmt, path, text, cursor, insert=at, title=f"evals/evals.json ({key}[{len(array.items)}])")


def _entry_text(entry: dict[str, object], indent: int, step: int) -> str:
    """``entry`` as JSON indented by ``step``, its inner lines shifted to sit at ``indent``."""
    lines = json.dumps(entry, indent=step, ensure_ascii=False).splitlines()
    return "\n".join([lines[0], *(" " * indent + line for line in lines[1:])])
