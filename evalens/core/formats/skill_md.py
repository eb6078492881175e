"""``SKILL.md`` frontmatter under a profile (formats.md §6): ``agentskills`` (strict), ``claude-code``,
``uaaps``, chosen by the skill's context unless the ``skillProfile`` setting forces one. Messages are skills-ref's (§6.2) and quick_validate.py's (§6.3); severities follow §6.6.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path as FsPath
from typing import Any

import yaml

from evalens.core.documents import ParsedDocument, Path
from evalens.core.formats import registry
from evalens.core.formats._shared import inner, problem, replace_fix
from evalens.core.formats.base import Format, Match, RuleContext, Target, ValueChoice
from evalens.core.models import skill_md as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.platform import Platform, infer_platform
from evalens.core.problems import Edit, Fix, Problem, Severity, Span
from evalens.core.schema_check import suggest

register(
    SchemaSpec(
        "skill-md-frontmatter.schema.json",
        m.SkillFrontmatter,
        "SKILL.md frontmatter",
        "Frontmatter of an agent skill's SKILL.md (agentskills.io specification, Claude Code extension "
        "keys, UAAPS variant).",
    )
)

E, W, H = Severity.ERROR, Severity.WARNING, Severity.HINT
SEVERITY = {  # formats.md §6.6: situation → (agentskills, claude-code, uaaps); None = not reported
    "unknown-key": (E, H, H),
    "compatibility-object": (E, W, None),
    "compatibility-string": (None, None, E),
    "name-hyphens": (E, E, W),
    "name-directory": (E, W, W),  # Claude Code names a skill by its folder and loads it either way
    "angle-brackets": (W, W, H),
    "reserved-word": (W, W, H),
}
UAAPS_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
LISTING_CAP = 1536
"""Claude Code's per-skill listing cap on `description` + `when_to_use` (`skillListingMaxDescChars`, default 1536;
docs/skills and settings of 2026-08-22)."""
CLAUDE_BOOL_KEYS = ("disable-model-invocation", "user-invocable", "background")
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
_ALLOWED_LIST = str(sorted(m.AGENTSKILLS_KEYS))
MAX_LINES = 500
_CC_KEY_LINE = re.compile(r"^([a-zA-Z_-]+):\s+(.+)$")
_CC_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")


def claude_code_requoted(lines: list[str]) -> dict[int, str]:
    """Claude Code's second reading of frontmatter that fails as YAML (2.1.332, read from `claude plugin validate`
    on generated skills): a top-level `key: value` line (the key of letters, `_`, `-`) whose value holds `: ` or
    one of ``{}[]*&#!|>%@` `` and is not already quoted is rewritten `key: "value"` and the frontmatter parsed
    again; indented lines and other keys stay as written (`argument-hint: [a] [b]` and `description: x: y` load,
    `description: 'open` and an indented `hint: [a] [b]` do not). The lines it rewrites, by index."""
    out: dict[int, str] = {}
    for i, line in enumerate(lines):
        found = _CC_KEY_LINE.match(line)
        if not found:
            continue
        key, value = found.groups()
        if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
            continue
        if _CC_SPECIAL.search(value):
            out[i] = f'{key}: "{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
    return out


def profile_of(ctx: RuleContext, data: Any = None) -> str:
    """The ``skillProfile`` setting when it names a profile; otherwise (``auto``, unset) the platform the skill
    targets, inferred from evidence (evalens.core.platform)."""
    return platform_of(ctx, data).profile


def platform_of(ctx: RuleContext, data: Any = None) -> Platform:
    if data is None and getattr(ctx, "doc", None) is not None:
        data = ctx.doc.data  # type: ignore[union-attr]
    found = infer_platform(FsPath(ctx.file_path), data)
    value = (ctx.settings or {}).get("skillProfile")
    if value in m.PROFILES:
        found.profile, found.forced = value, True
    return found


def context_profile(skill_md: FsPath, data: Any = None) -> str:
    """The profile evidence gives a SKILL.md (no user setting)."""
    return infer_platform(skill_md, data).profile


def _severity(situation: str, profile: str) -> Severity | None:
    return SEVERITY[situation][m.PROFILES.index(profile)]


def _required_text(
    doc: ParsedDocument, field: str, value: Any, limit: int, code: str, too_long: str, message: str
) -> tuple[str | None, list[Problem]]:
    """The specification's rule for its required text fields (`name`, `description`): a non-empty string of at
    most ``limit`` characters. Answers the text (None when it is no non-empty string) and what breaks the rule;
    ``message`` is skills-ref's wording, with ``{text}`` and ``{n}``."""
    path: Path = (field,)
    if not isinstance(value, str) or not value.strip():
        return None, [problem(doc, path, E, code, f"Field '{field}' must be a non-empty string")]
    if len(value) <= limit:
        return value, []
    return value, [problem(doc, path, E, too_long, message.format(text=value, n=len(value)))]


class SkillMd(Format):
    id = "skill-md"
    title = "SKILL.md"
    language = "markdown"
    globs = ("**/SKILL.md", "**/skill.md")
    schema_file = "skill-md-frontmatter.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """``SKILL.md`` is a skill by its name; a lowercase ``skill.md`` (also loaded, but a common word: notes,
        ``modes/skill.md``) only with a skill's frontmatter."""
        if FsPath(path).name == "SKILL.md":
            return Match.YES
        return Match.YES if isinstance(data, dict) and ("name" in data or "description" in data) else Match.NO

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        """A ``SKILL.md`` without frontmatter is a broken skill; a lowercase ``skill.md`` without one is a note."""
        if FsPath(path).name != "SKILL.md":
            return False
        _claude_code_reading(path, doc)
        return True

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        """The schema serves hover and completion; what is wrong depends on the profile, so ``rules`` decides."""
        return []

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            return [
                Problem(
                    Span(0, 0, 0, 3),
                    E,
                    "frontmatter-not-mapping",
                    "SKILL.md frontmatter must be a YAML mapping",
                )
            ]
        platform = platform_of(ctx, data)
        profile = platform.profile
        out: list[Problem] = self._bom(doc, ctx)
        out += self._missing_fields(data, profile)
        if profile == "agentskills" and (platform.forced or not platform.claude):
            # strictly portable skills only: where Claude Code reads the skill too, its YAML reader takes flow
            # style, and a list of tools stays the `not-portable` hint (severity policy)
            out += self._flow_style(doc)
        out += self._unknown_keys(doc, data, platform)
        if "name" in data:
            name_problems = self._name_rules(doc, data["name"], profile, FsPath(ctx.file_path).parent.name)
            out += (
                _claude_code_name(name_problems, data["name"]) if profile == "claude-code" else name_problems
            )
        if "description" in data:
            out += self._description_rules(doc, data["description"], profile)
        if profile == "claude-code":
            out += self._listing_cap(doc, data)
        if "compatibility" in data:
            found = self._compatibility_rules(doc, data["compatibility"], profile)
            if profile == "claude-code":  # accepted and not acted on (docs/skills): nothing fails on it
                for p in found:
                    p.severity = W if p.severity is E else p.severity
            out += found
        out += self._typed_keys(doc, data, platform)
        total = len(doc.lines) - (
            1 if doc.lines and doc.lines[-1] == "" else 0
        )  # a final newline ends a line
        body_lines = total - doc.body_start_line
        if total > MAX_LINES:
            line = min(MAX_LINES, total - 1)
            out.append(
                Problem(
                    Span(line, 0, line, len(doc.lines[line])),
                    H,
                    "long-skill",
                    f"SKILL.md has {total} lines ({body_lines} in the body); the specification "
                    f"suggests under {MAX_LINES}. Move detail into references/ files.",
                )
            )
        return out

    def _bom(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        """A byte order mark before ``---``: skills-ref reads the text and finds no frontmatter. The editor's
        text may keep the mark (then it is removable in place) or drop it (then the file on disk has it)."""
        why = (
            'SKILL.md starts with a UTF-8 byte order mark (BOM) before `---`: skills-ref rejects it ("SKILL.md '
            'must start with YAML frontmatter (---)").'
        )
        if doc.text.startswith("\ufeff"):
            return [
                Problem(
                    Span(0, 0, 0, 1),
                    E,
                    "bom",
                    why + " Remove the BOM.",
                    fixes=[Fix("Remove the byte order mark", (Edit(Span(0, 0, 0, 1), ""),))],
                )
            ]
        try:
            with open(ctx.file_path, "rb") as fh:
                on_disk = fh.read(3) == b"\xef\xbb\xbf"
        except OSError:
            on_disk = False
        if on_disk:
            return [Problem(Span(0, 0, 0, 3), E, "bom", why + " Save the file as UTF-8 without BOM.")]
        return []

    def _flow_style(self, doc: ParsedDocument) -> list[Problem]:
        """skills-ref reads frontmatter with strictyaml, which refuses YAML flow style (`[a, b]`, `{a: b}`):
        "Invalid YAML in frontmatter: … Found ugly disallowed JSONesque flow mapping" (skills-ref 0.1.1,
        ``tests/core/test_skills_ref_oracle.py``). Block style is read; a flow list of tools has a fix to the
        space-separated string the specification writes."""
        end = doc.body_start_line - 1
        if end < 1:
            return []
        try:
            events = list(yaml.parse("\n".join(["", *doc.lines[1:end]])))
        except yaml.YAMLError:
            return []  # the parse problems say it
        out = []
        for event in events:
            if (
                not isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent)
                or not event.flow_style
            ):
                continue
            line, col = event.start_mark.line, event.start_mark.column
            shape = "list" if isinstance(event, yaml.SequenceStartEvent) else "mapping"
            span = Span(line, col, line, len(doc.lines[line]) if line < len(doc.lines) else col + 1)
            key = doc.lines[line].split(":", 1)[0].strip() if line < len(doc.lines) else ""
            fixes = []
            tools = doc.data.get("allowed-tools") if isinstance(doc.data, dict) else None
            if key == "allowed-tools" and isinstance(tools, list) and all(isinstance(t, str) for t in tools):
                fixes = [
                    replace_fix(doc, ("allowed-tools",), " ".join(tools), "Write the tools space-separated")
                ]
            out.append(
                Problem(
                    span,
                    E,
                    "syntax",
                    f"Invalid YAML in frontmatter: skills-ref (strictyaml) refuses a flow-style {shape} "
                    f"(`{doc.lines[line][col:].strip()[:40]}`); write it in block style.",
                    fixes=fixes,
                )
            )
            break  # skills-ref stops at the first one
        return out

    def _missing_fields(self, data: dict[str, Any], profile: str) -> list[Problem]:
        """skills-ref and UAAPS require `name` and `description`. Claude Code requires neither: the name defaults
        to the skill's folder and the description to the body's first paragraph ("All fields are optional. Only
        `description` is recommended", docs/skills 2026-08-22); `claude plugin validate` 2.1.332 warns only on a
        missing description."""
        out = []
        for key in ("name", "description"):
            if key in data:
                continue
            if profile != "claude-code":
                out.append(
                    Problem(
                        Span(0, 0, 0, 3),
                        E,
                        "missing-field",
                        f"Missing required field in frontmatter: {key}",
                        data={"missing": key},
                    )
                )
            elif key == "description":
                out.append(
                    Problem(
                        Span(0, 0, 0, 3),
                        W,
                        "missing-field",
                        "No description in frontmatter: Claude Code lists the skill with the body's first "
                        "paragraph, and decides when to use it from that text alone.",
                        data={"missing": key},
                    )
                )
        return out

    def _listing_cap(self, doc: ParsedDocument, data: dict[str, Any]) -> list[Problem]:
        """Claude Code lists each skill as `description` + `when_to_use`, cut at 1,536 characters
        (`skillListingMaxDescChars`, docs/skills and settings 2026-08-22): the rest never reaches the agent. A
        truncation, not a load failure, so a warning."""
        desc, when = data.get("description"), data.get("when_to_use")
        parts = [v for v in (desc, when) if isinstance(v, str)]
        total = sum(len(v) for v in parts)
        if total <= LISTING_CAP:
            return []
        key = "description" if isinstance(desc, str) else "when_to_use"
        what = "`description` + `when_to_use`" if len(parts) == 2 else f"`{key}`"
        return [
            problem(
                doc,
                (key,),
                W,
                "description-too-long",
                f"{what} is {total} characters: Claude Code cuts a skill's listing at {LISTING_CAP:,}, so the "
                f"agent never sees the last {total - LISTING_CAP}. Put the trigger words first and trim the rest.",
            )
        ]

    def _unknown_keys(self, doc: ParsedDocument, data: dict[str, Any], platform: Platform) -> list[Problem]:
        """Keys the profile's reader does not know. Under the strict agentskills rules skills-ref rejects them
        (an error), except Claude Code's own keys in a skill that also targets Claude Code: those only make it
        less portable (a hint). Claude Code ignores keys it does not know and never fails on them (its schema
        only counts them), so in a repository that targets only Claude Code an unknown key is reported only as
        a likely typo of a known key the skill lacks (a warning: what it meant to set is silently not set).
        The `skillProfile` setting naming Claude Code says the same. When only the skill's own keys say Claude
        Code, other agents may read it too: a hint."""
        profile = platform.profile
        known = m.AGENTSKILLS_KEYS if profile == "agentskills" else m.AGENTSKILLS_KEYS + m.CLAUDE_CODE_KEYS
        extra = [k for k in data if k not in known]
        severity = _severity("unknown-key", profile)
        if profile == "claude-code" and (platform.forced or platform.claude_only_repository):
            extra = [k for k in extra if (near := _near_key(k, known)) is not None and near not in data]
            severity = W
        if not extra or severity is None:
            return []
        out = []
        strict = [
            k for k in extra if platform.forced or not (profile == "agentskills" and k in m.CLAUDE_CODE_KEYS)
        ]
        for key in extra:
            if key not in strict:
                out.append(
                    problem(
                        doc,
                        (key,),
                        H,
                        "unexpected-field",
                        f"`{key}` is a Claude Code key: Claude Code reads it, but skills-ref and other "
                        f"agents reject or ignore it, and this repository also targets them "
                        f"({platform.why()}).",
                        on_key=True,
                        fixes=self._remove_key(doc, key),
                    )
                )
                continue
            near = _near_key(key, known)
            fixes = []
            if near and near not in data:
                span = doc.key_span_at_path((key,))
                if span is not None:
                    fixes.append(Fix(f"Rename `{key}` to `{near}`", (Edit(inner(doc, span), near),)))
            fixes += self._remove_key(doc, key)
            if profile == "agentskills" and key == strict[0]:
                msg = f"Unexpected fields in frontmatter: {', '.join(sorted(strict))}. Only {_ALLOWED_LIST} are allowed."
            elif profile == "agentskills":  # skills-ref's message names them all once; say it once
                msg = f"`{key}` is another unexpected field (skills-ref rejects it; only {_ALLOWED_LIST} are allowed)."
            else:
                msg = (
                    f"`{key}` is not a known frontmatter key ({'Claude Code' if profile == 'claude-code' else 'UAAPS'}"
                    " profile); it is ignored."
                )
            if near:
                msg += f" Did you mean `{near}`?"
            out.append(problem(doc, (key,), severity, "unexpected-field", msg, on_key=True, fixes=fixes))
        return out

    def _remove_key(self, doc: ParsedDocument, key: str) -> list[Fix]:
        ks = doc.key_span_at_path((key,))
        node = doc.node_at_path((key,))
        if ks is None or node is None:
            return []
        end = doc.trim(node.span).end_line
        return [Fix(f"Remove `{key}`", (Edit(Span(ks.start_line, 0, end + 1, 0), ""),), preferred=False)]

    def _name_rules(self, doc: ParsedDocument, name: Any, profile: str, directory: str) -> list[Problem]:
        path: Path = ("name",)
        if isinstance(name, str):  # skills-ref counts the name after NFKC normalisation
            name = unicodedata.normalize("NFKC", name.strip())
        name, out = _required_text(
            doc,
            "name",
            name,
            64,
            code="invalid-name",
            too_long="name-too-long",
            message="Skill name '{text}' exceeds 64 character limit ({n} chars)",
        )
        if name is None:
            return out
        if profile == "uaaps":
            if not UAAPS_NAME.match(name):
                slug = _slug(name)
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "invalid-name",
                        f"Skill name '{name}' does not match the UAAPS pattern ^[a-z0-9][a-z0-9-]{{0,63}}$",
                        fixes=[replace_fix(doc, path, slug)] if slug and UAAPS_NAME.match(slug) else [],
                    )
                )
            elif name.endswith("-") or "--" in name:
                out.append(
                    problem(
                        doc,
                        path,
                        W,
                        "name-hyphens",
                        f"Skill name '{name}' has a trailing or double hyphen: valid for UAAPS, rejected "
                        "by the agentskills specification (not portable).",
                    )
                )
        else:
            upper = name != name.lower()
            bad_chars = not all(c.isalnum() or c == "-" for c in name)
            slug = _slug(name)
            fixes = [replace_fix(doc, path, slug)] if slug and slug != name else []
            if upper and bad_chars:  # one problem, one fix: not two near-duplicates about the same value
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "invalid-name",
                        f"Skill name '{name}' must be lowercase and contain only letters, digits and hyphens",
                        fixes=fixes,
                    )
                )
            elif upper:
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "invalid-name",
                        f"Skill name '{name}' must be lowercase",
                        fixes=[replace_fix(doc, path, name.lower())],
                    )
                )
            if name.startswith("-") or name.endswith("-"):
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "name-hyphens",
                        "Skill name cannot start or end with a hyphen",
                        fixes=[replace_fix(doc, path, name.strip("-"))],
                    )
                )
            if "--" in name:
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "name-hyphens",
                        "Skill name cannot contain consecutive hyphens",
                        fixes=[replace_fix(doc, path, re.sub(r"-{2,}", "-", name))],
                    )
                )
            if bad_chars and not upper:
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "invalid-name",
                        f"Skill name '{name}' contains invalid characters. Only letters, digits, and "
                        "hyphens are allowed.",
                        fixes=fixes,
                    )
                )
            elif not bad_chars and not name.isascii():
                out.append(
                    problem(
                        doc,
                        path,
                        W,
                        "non-ascii-name",
                        f"Skill name '{name}' has non-ASCII letters: skills-ref accepts them, the "
                        "specification allows only a–z, 0–9 and `-`.",
                    )
                )
        directory = unicodedata.normalize("NFKC", directory)
        severity = _severity("name-directory", profile)
        if directory and directory != name and severity is not None:
            out.append(
                problem(
                    doc,
                    path,
                    severity,
                    "name-directory-mismatch",
                    f"Directory name '{directory}' must match skill name '{name}'",
                    fixes=[replace_fix(doc, path, directory, f"Change name to `{directory}`")],
                )
            )
        low = name.lower()
        word = next((w for w in ("claude", "anthropic") if w in low), None)
        if word and (severity := _severity("reserved-word", profile)) is not None:
            out.append(
                problem(
                    doc,
                    path,
                    severity,
                    "reserved-word",
                    f"Skill name '{name}' contains the reserved word \"{word}\" (Anthropic's upload "
                    "rejects it).",
                )
            )
        return out

    def _description_rules(self, doc: ParsedDocument, desc: Any, profile: str) -> list[Problem]:
        path: Path = ("description",)
        if profile == "claude-code":
            return self._claude_description(doc, desc)
        desc, out = _required_text(
            doc,
            "description",
            desc,
            1024,
            code="invalid-description",
            too_long="description-too-long",
            message="Description exceeds 1024 character limit ({n} chars)",
        )
        if desc is None:
            return out
        severity = _severity("angle-brackets", profile)
        if ("<" in desc or ">" in desc) and severity is not None:
            out.append(
                problem(
                    doc,
                    path,
                    severity,
                    "angle-brackets",
                    "Description cannot contain angle brackets (`<` or `>`): Anthropic's packager and "
                    "upload reject them.",
                )
            )
        return out

    def _claude_description(self, doc: ParsedDocument, desc: Any) -> list[Problem]:
        """Claude Code's reader: a non-string description is dropped (`claude plugin validate` 2.1.332: an
        error), an empty one lists the skill with no text; its length is the listing cap's business
        (``_listing_cap``); over the agentskills 1,024 Claude Code still lists it, but skill-creator's packager and
        uploads refuse it (a warning)."""
        path: Path = ("description",)
        if desc is None or (isinstance(desc, str) and not desc.strip()):
            return [
                problem(
                    doc,
                    path,
                    W,
                    "invalid-description",
                    "The description is empty: Claude Code lists the skill with no text, and decides when to use "
                    "it from that text alone.",
                )
            ]
        if not isinstance(desc, str):
            return [
                problem(
                    doc,
                    path,
                    E,
                    "invalid-description",
                    f"description must be a string, got {_json_type(desc)}: Claude Code drops it at load time.",
                )
            ]
        out = []
        if "<" in desc or ">" in desc:
            out.append(
                problem(
                    doc,
                    path,
                    W,
                    "angle-brackets",
                    "Description cannot contain angle brackets (`<` or `>`): Anthropic's packager and "
                    "upload reject them.",
                )
            )
        if 1024 < len(desc) <= LISTING_CAP:
            out.append(
                problem(
                    doc,
                    path,
                    W,
                    "description-too-long",
                    f"Description is {len(desc)} characters: Claude Code lists up to {LISTING_CAP:,}, but the "
                    "agentskills specification, skills-ref, skill-creator's quick_validate.py and claude.ai "
                    "uploads reject more than 1024.",
                )
            )
        return out

    def _compatibility_rules(self, doc: ParsedDocument, value: Any, profile: str) -> list[Problem]:
        path: Path = ("compatibility",)
        if isinstance(value, str):
            severity = _severity("compatibility-string", profile)
            if severity is not None:
                return [
                    problem(
                        doc,
                        path,
                        severity,
                        "compatibility-type",
                        "UAAPS expects `compatibility` as an object `{requires, optional, packages}`, not a "
                        "string.",
                    )
                ]
            if not value.strip():
                return [
                    problem(
                        doc,
                        path,
                        E,
                        "compatibility-empty",
                        "Field 'compatibility' must be 1–500 characters when present",
                    )
                ]
            if len(value) > 500:
                return [
                    problem(
                        doc,
                        path,
                        E,
                        "compatibility-too-long",
                        f"Compatibility exceeds 500 character limit ({len(value)} chars)",
                    )
                ]
            return []
        if isinstance(value, dict):
            severity = _severity("compatibility-object", profile)
            if severity is not None:
                return [
                    problem(
                        doc, path, severity, "compatibility-type", "Field 'compatibility' must be a string"
                    )
                ]
            out = []
            for key, items in value.items():
                if key not in ("requires", "optional", "packages"):
                    out.append(
                        problem(
                            doc,
                            (*path, key),
                            E,
                            "unexpected-field",
                            f"`compatibility.{key}` is not allowed; UAAPS allows `requires`, `optional`, "
                            "`packages`.",
                            on_key=True,
                        )
                    )
                elif not (isinstance(items, list) and all(isinstance(i, str) for i in items)):
                    out.append(
                        problem(
                            doc,
                            (*path, key),
                            E,
                            "schema-type",
                            f"`compatibility.{key}` must be a list of strings.",
                        )
                    )
            return out
        if value is None:
            return []
        if profile == "agentskills" and isinstance(value, int | float) and not isinstance(value, bool):
            return [  # skills-ref (strictyaml) reads `42` as the string "42" and accepts it
                problem(
                    doc,
                    path,
                    W,
                    "compatibility-type",
                    f"`compatibility` is the number {value}: skills-ref reads it as a string, other YAML readers "
                    "as a number. Quote it, or describe the environment in words.",
                )
            ]
        return [
            problem(
                doc,
                path,
                E,
                "compatibility-type",
                "Field 'compatibility' must be a string"
                if profile != "uaaps"
                else "`compatibility` must be an object {requires, optional, packages}",
            )
        ]

    def _typed_keys(self, doc: ParsedDocument, data: dict[str, Any], platform: Platform) -> list[Problem]:
        """Types the readers check. skills-ref does not type-check `allowed-tools` and turns `metadata` values into
        strings, so neither is an error there; a list of tools is Claude Code's form."""
        profile = platform.profile
        out: list[Problem] = []
        meta = data.get("metadata")
        if "metadata" in data and not isinstance(meta, dict):
            out.append(
                problem(
                    doc,
                    ("metadata",),
                    # Claude Code drops a non-mapping `metadata` and loads the skill (`claude plugin validate`
                    # 2.1.332: a warning)
                    W if profile == "claude-code" else E,
                    "schema-type",
                    "Field 'metadata' must be a mapping of string keys to string values"
                    + (" (Claude Code drops it at load time)" if profile == "claude-code" else ""),
                )
            )
        elif (
            isinstance(meta, dict) and profile != "claude-code"
        ):  # string->string is agentskills' / UAAPS' rule
            for key, value in meta.items():
                if not isinstance(value, str):
                    shape = (
                        "a mapping"
                        if isinstance(value, dict)
                        else "a list"
                        if isinstance(value, list)
                        else f"`{value}` ({type(value).__name__}), not a string"
                    )
                    out.append(
                        problem(
                            doc,
                            ("metadata", key),
                            W,
                            "metadata-value",
                            f"`metadata.{key}` is {shape}: the specification maps strings to strings, and "
                            "skills-ref reads every value as a string, so readers of the YAML and of "
                            "skills-ref see different values. Check what your consumers compare against "
                            "before changing it.",
                        )
                    )
        tools = data.get("allowed-tools")
        if isinstance(tools, list) and profile != "claude-code":
            out.append(
                problem(
                    doc,
                    ("allowed-tools",),
                    H,
                    "not-portable",
                    "`allowed-tools` as a list is Claude Code's form; the specification writes a "
                    "space-separated string (`Bash(git:*) Read`), which every agent reads.",
                )
            )
        elif "allowed-tools" in data and tools is not None and not isinstance(tools, str | list):
            out.append(
                problem(
                    doc,
                    ("allowed-tools",),
                    E
                    if profile == "claude-code"
                    else W,  # `claude plugin validate` 2.1.197 and 2.1.332: an error
                    "schema-type",
                    f"allowed-tools must be a string or array of strings, got {_json_type(tools)}."
                    if profile == "claude-code"
                    else "Field 'allowed-tools' should be a space-separated string, e.g. `Bash(git:*) Read`",
                )
            )
        if "license" in data and not isinstance(data["license"], str):
            out.append(
                problem(
                    doc,
                    ("license",),
                    W if profile == "claude-code" else E,  # Claude Code accepts and ignores it
                    "schema-type",
                    "Field 'license' must be a string",
                )
            )
        if profile == "claude-code":
            out += self._claude_types(doc, data)
        elif profile != "agentskills":
            for key, kind, word in (
                ("disable-model-invocation", bool, "a boolean"),
                ("user-invocable", bool, "a boolean"),
                ("model", str, "a string"),
                ("agent", str, "a string"),
                ("argument-hint", str, "a string"),
                ("hooks", dict, "a mapping"),
            ):
                if key in data and not isinstance(data[key], kind):
                    out.append(problem(doc, (key,), E, "schema-type", f"Field '{key}' must be {word}"))
            if "context" in data and data["context"] != "fork":
                out.append(
                    problem(
                        doc,
                        ("context",),
                        E,
                        "schema-enum",
                        f"`context` must be `fork`, not `{data['context']}`.",
                        fixes=[replace_fix(doc, ("context",), "fork")],
                    )
                )
        return out

    def _claude_types(self, doc: ParsedDocument, data: dict[str, Any]) -> list[Problem]:
        """What Claude Code's frontmatter reader takes (docs/skills 2026-08-22): booleans in any of its spellings,
        `context` `fork` or `inline`, the `effort` levels, `shell` `bash` or `powershell`, tool lists and globs as
        a string or a list. `claude plugin validate` (2.1.197 and 2.1.332) rejects only a `shell` it cannot run;
        any other value it cannot read it ignores and loads the skill, so that is a warning: what the author set
        does not happen."""
        out: list[Problem] = []
        for key in CLAUDE_BOOL_KEYS:
            if key in data and not _claude_bool(data[key]):
                out.append(
                    problem(
                        doc,
                        (key,),
                        W,
                        "schema-type",
                        f"Field '{key}' must be a boolean: `true`/`false`, `yes`/`no`, `on`/`off` or `1`/`0`, "
                        f"not {_json_type(data[key])} `{data[key]}`.",
                    )
                )
        for key, kinds, word in (
            ("model", (str,), "a string"),
            ("agent", (str,), "a string"),
            ("argument-hint", (str,), "a string"),
            ("when_to_use", (str,), "a string"),
            ("hooks", (dict,), "a mapping"),
            ("arguments", (str, list), "a string or a list of strings"),
            ("disallowed-tools", (str, list), "a string or a list of strings"),
            ("paths", (str, list), "a string or a list of strings"),
        ):
            value = data.get(key)
            if key not in data or value is None:
                continue
            if not isinstance(value, kinds) or (
                isinstance(value, list) and not all(isinstance(v, str) for v in value)
            ):
                out.append(
                    problem(
                        doc,
                        (key,),
                        W,
                        "schema-type",
                        f"Field '{key}' must be {word}, got {_json_type(value)}: Claude Code ignores it.",
                    )
                )
        for key, allowed in (
            ("context", ("fork", "inline")),
            ("shell", ("bash", "powershell")),
            ("effort", EFFORT_LEVELS),
        ):
            value = data.get(key)
            if key not in data or value is None:
                continue
            if key == "effort" and isinstance(value, int) and not isinstance(value, bool):
                continue  # the reader also takes a number
            if value not in allowed:
                near = suggest(str(value), list(allowed)) if isinstance(value, str) else None
                out.append(
                    problem(
                        doc,
                        (key,),
                        E
                        if key == "shell"
                        else W,  # "shell must be 'bash' or 'powershell'": validate's one error
                        "schema-enum",
                        f"`{key}` must be " + " or ".join(f"`{a}`" for a in allowed) + f", not `{value}`.",
                        # a near spelling is the fix; otherwise each value the reader takes, for the author to pick
                        fixes=[replace_fix(doc, (key,), v) for v in ([near] if near else allowed)],
                    )
                )
        return out

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        here = FsPath(ctx.file_path).parent
        if path == ("name",):
            return [ValueChoice(here.name, "the skill's directory name (must match)")]
        if path == ("context",):
            return [
                ValueChoice("fork", "run in a forked sub-agent context"),
                ValueChoice("inline", "run in the conversation (Claude Code's default)"),
            ]
        if path == ("shell",):
            return [ValueChoice(v, "shell for `!` commands in the body") for v in ("bash", "powershell")]
        if path == ("effort",):
            return [ValueChoice(v, "reasoning effort while the skill runs") for v in EFFORT_LEVELS]
        if path[:1] and path[0] in CLAUDE_BOOL_KEYS and len(path) == 1:
            return [ValueChoice(v, "Claude Code boolean") for v in ("true", "false")]
        if path == ("model",):
            return [ValueChoice(v, "model alias") for v in ("sonnet", "opus", "haiku", "inherit")]
        if path == ("license",):
            files = [p.name for p in here.glob("LICENSE*")] if here.is_dir() else []
            return [ValueChoice(f, "bundled licence file") for f in files] + [
                ValueChoice(s, "SPDX id")
                for s in ("MIT", "Apache-2.0", "BSD-3-Clause", "GPL-3.0-only", "Proprietary")
            ]
        return []

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        if path == ("license",) and isinstance(value, str):
            target = FsPath(ctx.file_path).parent / value
            if target.is_file():
                return [Target(str(target))]
        return []

    def hover_value(self, path: Path, value: Any, ctx: RuleContext) -> str | None:
        if path == ("name",):
            found = platform_of(ctx)
            return (
                f"Profile **{found.profile}** ({found.why()}) · directory "
                f"`{FsPath(ctx.file_path).parent.name}/`"
            )
        return None

    def skeleton(self, snippets: bool) -> str | None:
        if snippets:
            return (
                "---\nname: ${1:my-skill}\ndescription: ${2:What the skill does. Use when the user asks to …}\n"
                "---\n\n# ${3:Title}\n\n${4:Instructions.}\n"
            )
        return (
            "---\nname: my-skill\ndescription: What the skill does. Use when the user asks to …\n---\n\n"
            "# Title\n\nInstructions.\n"
        )


registry.register(SkillMd())


class FlatClaudeSkill(Format):
    """A skill written as one file directly in ``.claude/skills/``: Claude Code loads only
    ``.claude/skills/<name>/SKILL.md``, so the file is silently never used."""

    id = "claude-flat-skill"
    title = "Flat file in .claude/skills/"
    language = "markdown"
    globs = ("**/.claude/skills/*.md",)

    def detect(self, path: str, data: Any) -> Match:
        """Only files written as skills (frontmatter with a name or description); READMEs and notes are not."""
        name = FsPath(path).name
        if name in ("SKILL.md", "skill.md") or name.upper().startswith(("README", "CHANGELOG", "LICENSE")):
            return Match.NO
        return Match.YES if isinstance(data, dict) and ("name" in data or "description" in data) else Match.NO

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        return False  # no frontmatter: notes, not a skill

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        stem = FsPath(ctx.file_path).stem
        return [
            Problem(
                Span(0, 0, 0, 3),
                W,
                "flat-skill-file",
                f"Claude Code loads skills only from `.claude/skills/<name>/SKILL.md`; this file directly in "
                f"`.claude/skills/` is never loaded. Move it to `.claude/skills/{stem}/SKILL.md`.",
            )
        ]


registry.register(FlatClaudeSkill())


SAME_KIND_ELSEWHERE = {"tools": "allowed-tools"}
"""Keys of Claude Code's other file kinds written in a skill, with the skill key of the same kind: a subagent's
`tools` lists the tools it may use, which a skill writes as `allowed-tools` (both grant, neither denies)."""


def _near_key(key: str, known: tuple[str, ...]) -> str | None:
    """The known key an unknown one most likely meant: a near spelling (never its opposite, see
    ``schema_check.suggest``), or the skill's key of the same kind for another file kind's key."""
    near = suggest(key, list(known))
    if near is None and SAME_KIND_ELSEWHERE.get(key) in known:
        near = SAME_KIND_ELSEWHERE[key]
    return near


def _claude_bool(value: Any) -> bool:
    """Claude Code's boolean: `true`/`false` and, since v2.1.218, `yes`/`no`/`on`/`off`/`1`/`0` in any letter case
    (a YAML 1.2 reader keeps `on` a string; a quoted `"true"` is read the same)."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return value in (0, 1)
    return isinstance(value, str) and value.strip().lower() in m.CLAUDE_BOOL_WORDS


def _json_type(value: Any) -> str:
    """A value's type in the words of Claude Code's messages ("got number", "got array")."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else "string"


def _claude_code_name(problems: list[Problem], value: Any) -> list[Problem]:
    """Claude Code loads a skill whatever its `name` looks like (`claude plugin validate` 2.1.197 and 2.1.332 report
    nothing for `name: Upper Name`; the command comes from the folder): its docs ask for lowercase letters, digits
    and hyphens, at most 64, so a name outside that is a warning there, and so is an empty one (the folder's name
    is used). A name that is not a string stays an error, in validate's words."""
    out = []
    for p in problems:
        if p.severity is E and not isinstance(value, str):
            p.message = f"name must be a string, got {_json_type(value)}."
        elif p.severity is E and p.message.startswith("Field 'name'"):
            p.severity = W
            p.message = "The name is empty: Claude Code lists the skill under its folder's name."
        elif p.severity is E:
            p.severity = W
            p.message += " (Claude Code loads it, but its docs ask for lowercase letters, digits and hyphens, at most 64.)"
        out.append(p)
    return out


def _slug(name: str) -> str | None:
    """The valid name closest to ``name``: lowercase ASCII letters, digits and single hyphens (``Bad_Name`` →
    ``bad-name``); None when nothing is left."""
    slug = re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]+", "-", name.lower())).strip("-")[:64].rstrip("-")
    return slug or None


def _claude_code_frontmatter(path: str, doc: ParsedDocument) -> None:
    """A SKILL.md with no frontmatter, or one never closed, is no error for a Claude Code skill: `claude plugin
    validate` (2.1.332) passes the plugin and warns "No frontmatter block found" (the skill loads under its
    folder's name, with no description). It stays a warning, since skills-ref and uploads reject the file."""
    found = [
        p
        for p in doc.problems
        if p.code in ("frontmatter-missing", "frontmatter-unclosed") and p.severity is E
    ]
    if not found or infer_platform(FsPath(path), {}).profile != "claude-code":
        return
    for p in found:
        p.severity = W
        p.message += (
            ". Claude Code still loads the skill, under its folder's name and with no description, but skills-ref"
            " and uploads reject it; add `name` and `description` between `---` lines."
        )


def _claude_code_reading(path: str, doc: ParsedDocument) -> None:
    """A YAML error that Claude Code reads through (`claude_code_requoted`) is no error for a Claude Code skill:
    the skill loads with the value as text, and `claude plugin validate` says nothing. It stays a warning, since
    skills-ref and every other YAML reader still fail, with the fix that quotes the value as Claude Code does. The
    path's evidence decides the platform (this runs before a validation's settings exist), and the problem is
    changed once: a second call finds no error left."""
    _claude_code_frontmatter(path, doc)
    syntax = [p for p in doc.problems if p.code == "syntax" and p.severity is E]
    end = doc.body_start_line - 1
    if not syntax or end < 1:
        return
    rewritten = {i + 1: line for i, line in claude_code_requoted(doc.lines[1:end]).items()}
    if not rewritten:
        return
    try:
        data = yaml.safe_load("\n".join(rewritten.get(i, doc.lines[i]) for i in range(1, end)))
    except yaml.YAMLError:
        return
    if not isinstance(data, dict) or infer_platform(FsPath(path), data).profile != "claude-code":
        return
    keys = ", ".join(f"`{line.split(':', 1)[0]}`" for _, line in sorted(rewritten.items()))
    fix = Fix(
        "Quote the value as Claude Code reads it",
        tuple(Edit(Span(i, 0, i, len(doc.lines[i])), line) for i, line in sorted(rewritten.items())),
    )
    for p in syntax:
        p.severity = W
        p.message += (
            f". Claude Code still loads the skill: it quotes the value of {keys} and reads the YAML again, but "
            "skills-ref and other YAML readers fail on it; quote the value."
        )
        p.fixes = [fix]
