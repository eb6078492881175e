"""Inline suppression, the way ruff's ``# noqa`` and eslint's ``eslint-disable`` comments work.

- YAML (and the YAML frontmatter of SKILL.md / task.md): ``# evalens: ignore[code, other]`` at the end of a line
  silences those codes on that line; alone on a line it silences them on the next line that is not blank or a
  comment. Without ``[...]`` it silences every code. ``# evalens: ignore-file[code]`` anywhere silences the codes
  in the whole file.
- Markdown body: the same as HTML comments, ``<!-- evalens: ignore-file[long-skill] -->``.
- JSON has no comments: a top-level ``"$evalens": {"ignore": ["code", ...]}`` member silences codes in the whole
  file (``"ignore": true`` silences all). Files other tools read strictly are better tuned from the config file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from evalens.core.documents import ParsedDocument
from evalens.core.problems import Edit, Fix, Problem, Severity, Span
from evalens.core.rules import is_enforced, is_known, is_tunable

JSON_KEY = "$evalens"
_HASH = re.compile(r"(?:^|\s)#\s*evalens:\s*(ignore(?:-file)?)\b(?:\[([^\]]*)\])?")
_HTML = re.compile(r"<!--\s*evalens:\s*(ignore(?:-file)?)\b(?:\[([^\]]*)\])?\s*-->")


@dataclass(slots=True)
class Directive:
    """One suppression: the codes it names (None: all) and the line it covers (None: the whole file)."""

    span: Span
    target: int | None
    codes: tuple[str, ...] | None
    used: set[str] = field(default_factory=set)

    def covers(self, problem: Problem) -> bool:
        if self.target is not None and problem.span.start_line != self.target:
            return False
        return self.codes is None or problem.code in self.codes


def _codes(raw: str | None) -> tuple[str, ...] | None:
    if raw is None:
        return None
    return tuple(c.strip() for c in raw.split(",") if c.strip())


def find_directives(doc: ParsedDocument) -> list[Directive]:
    """Every suppression directive in a document (cheap when there is none: one substring test)."""
    if doc.language == "json":
        return _json_directives(doc)
    if "evalens:" not in doc.text:
        return []
    out: list[Directive] = []
    lines = doc.lines
    frontmatter_end = doc.body_start_line if doc.language == "markdown" else len(lines)
    for i, line in enumerate(lines):
        if "evalens:" not in line:
            continue
        matches = list(_HASH.finditer(line)) if i < frontmatter_end else []
        if doc.language == "markdown":
            matches += list(_HTML.finditer(line))
        for m in matches:
            start = m.start() + (1 if line[m.start()].isspace() else 0)
            span = Span(i, start, i, m.end())
            if m.group(1) == "ignore-file":
                target = None
            elif line[:start].strip():  # after code on the same line
                target = i
            else:
                target = _next_code_line(lines, i + 1, frontmatter_end if m.re is _HASH else len(lines))
            out.append(Directive(span, target, _codes(m.group(2))))
    return out


def _next_code_line(lines: list[str], start: int, end: int) -> int:
    for j in range(start, min(end, len(lines))):
        stripped = lines[j].strip()
        if stripped and not stripped.startswith("#"):
            return j
    return start


def _json_directives(doc: ParsedDocument) -> list[Directive]:
    data = doc.data
    if not isinstance(data, dict) or JSON_KEY not in data:
        return []
    span = doc.span_for((JSON_KEY,))
    value = data[JSON_KEY]
    ignore: Any = value.get("ignore") if isinstance(value, dict) else None
    if ignore is True:
        return [Directive(span, None, None)]
    if isinstance(ignore, list) and all(isinstance(c, str) for c in ignore):
        return [Directive(doc.span_for((JSON_KEY, "ignore")), None, tuple(ignore))]
    return [Directive(span, None, ())]  # malformed: reported as unused below


def is_own_key(problem: Problem) -> bool:
    """Problems about the ``$evalens`` member itself (e.g. an unknown key in a closed schema)."""
    path: Any = (problem.data or {}).get("path")
    return bool(path) and path[0] == JSON_KEY


def apply_directives(problems: list[Problem], directives: list[Directive]) -> list[Problem]:
    """Drop suppressed problems; add a hint for each directive (or code in it) that silenced nothing."""
    kept: list[Problem] = []
    for p in problems:
        if is_tunable(p.code) and (hit := next((d for d in directives if d.covers(p)), None)):
            hit.used.add(p.code)
            continue
        kept.append(p)
    for d in directives:
        if d.codes == ():
            kept.append(
                _hint(
                    d.span,
                    f'`"{JSON_KEY}"` must be `{{"ignore": ["code", ...]}}` or '
                    '`{"ignore": true}`; it silences nothing.',
                )
            )
            continue
        if d.codes is None:
            if not d.used:
                kept.append(_hint(d.span, "This `evalens: ignore` silences nothing here."))
            continue
        for code in d.codes:
            if code in d.used:
                continue
            if not is_known(code):
                why = f"`{code}` is not an evalens rule, so there is nothing to silence"
            elif not is_tunable(code):
                why = f"`{code}` cannot be silenced (the file cannot be read as it is)"
            else:
                why = f"No `{code}` problem here; the suppression is unused"
            kept.append(_hint(d.span, why + "."))
    return kept


def _hint(span: Span, message: str) -> Problem:
    return Problem(span, Severity.HINT, "unused-suppression", message)


# --------------------------------------------------------------------------------------------- quick fixes


def suppression_fixes(problem: Problem, doc: ParsedDocument) -> list[Fix]:
    """ "Ignore `code` on this line / in this file" actions, as ruff's and eslint's servers offer them; none for
    a rule the runner enforces (``path-escape``: the case is refused anyway, so an ignore would only hide why)."""
    if not is_tunable(problem.code) or is_enforced(problem.code) or problem.code == "unused-suppression":
        return []
    if doc.language == "json":
        fix = _json_file_fix(problem.code, doc)
        return [fix] if fix else []
    line = problem.span.start_line
    in_yaml = doc.language == "yaml" or 0 < line < doc.body_start_line - 1  # frontmatter, not its `---`
    out = []
    if in_yaml and line < len(doc.lines) and not _opens_quote(doc.lines[line]):
        out.append(_line_fix(problem.code, doc, line))
    file_fix = _yaml_file_fix(problem.code, doc)
    if file_fix:
        out.append(file_fix)
    return out


def _opens_quote(text: str) -> bool:
    """Whether a YAML line ends inside a quoted scalar that goes on (a comment appended there is text)."""
    quote = None
    i = 0
    while i < len(text):
        c = text[i]
        if quote is None:
            if c == "#" and (i == 0 or text[i - 1] in " \t"):
                return False
            if c in "\"'" and (i == 0 or text[i - 1] in " \t:[{,-"):
                quote = c
        elif c == "\\" and quote == '"':
            i += 1
        elif c == quote:
            if quote == "'" and text[i + 1 : i + 2] == "'":
                i += 1
            else:
                quote = None
        i += 1
    return quote is not None


def _merge(codes: str, code: str) -> str:
    items = [c.strip() for c in codes.split(",") if c.strip()]
    return ", ".join([*items, code] if code not in items else items)


def _line_fix(code: str, doc: ParsedDocument, line: int) -> Fix:
    text = doc.lines[line]
    for m in _HASH.finditer(text):
        if m.group(1) == "ignore" and m.group(2) is not None:  # extend the line's own directive
            start, end = m.span(2)
            return Fix(
                f"Ignore `{code}` on this line",
                (Edit(Span(line, start, line, end), _merge(m.group(2), code)),),
                preferred=False,
            )
    end = len(text.rstrip())
    return Fix(
        f"Ignore `{code}` on this line",
        (Edit(Span(line, end, line, len(text)), f"  # evalens: ignore[{code}]"),),
        preferred=False,
    )


def _yaml_file_fix(code: str, doc: ParsedDocument) -> Fix | None:
    limit = doc.body_start_line - 1 if doc.language == "markdown" else len(doc.lines)
    if doc.language == "markdown" and limit < 1:
        return None  # no frontmatter to hold the comment
    for i, text in enumerate(doc.lines[:limit]):
        for m in _HASH.finditer(text):
            if m.group(1) == "ignore-file" and m.group(2) is not None:
                start, end = m.span(2)
                return Fix(
                    f"Ignore `{code}` in this file",
                    (Edit(Span(i, start, i, end), _merge(m.group(2), code)),),
                    preferred=False,
                )
    at = 1 if doc.language == "markdown" else 0
    return Fix(
        f"Ignore `{code}` in this file",
        (Edit(Span(at, 0, at, 0), f"# evalens: ignore-file[{code}]\n"),),
        preferred=False,
    )


def _json_file_fix(code: str, doc: ParsedDocument) -> Fix | None:
    root = doc.root
    if root is None or root.kind != "map" or not isinstance(doc.data, dict):
        return None
    title = f"Ignore `{code}` in this file (`$evalens`)"
    current = doc.data.get(JSON_KEY)
    if isinstance(current, dict) and isinstance(current.get("ignore"), list):
        codes = [c for c in current["ignore"] if isinstance(c, str)]
        if code in codes:
            return None
        span = doc.span_for((JSON_KEY, "ignore"))
        return Fix(title, (Edit(span, json.dumps([*codes, code])),), preferred=False)
    if current is not None:
        return None  # a malformed member: its own hint says how to write it
    brace = root.span
    indent = (
        next((len(t) - len(t.lstrip()) for t in doc.lines[brace.start_line + 1 :] if t.strip()), 2)
        if brace.end_line > brace.start_line
        else 0
    )
    member = f'"{JSON_KEY}": {{"ignore": [{json.dumps(code)}]}}'
    empty = not doc.data
    if brace.end_line > brace.start_line:
        text = "\n" + " " * indent + member + ("" if empty else ",")
    else:
        text = member + ("" if empty else ", ")
    return Fix(
        title,
        (Edit(Span(brace.start_line, brace.start_col + 1, brace.start_line, brace.start_col + 1), text),),
        preferred=False,
    )
