"""The rule catalog: every diagnostic code evalens emits, with what it checks, why, and how to fix or silence it.

The entries are data (``rules.toml`` beside this module: prose reads better there). ``docs/rules.md`` is
generated from them (``python -m evalens.core.rules --write docs/rules.md``), every diagnostic links to its
entry (LSP ``codeDescription``), and a test fails when the source emits a code the catalog lacks.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from evalens.core.near_names import opposite

#: Where docs/rules.md is published; anchors are the rule codes. Same host as the schemas' ``$id``s.
DOCS_URL = "https://evalens.dev/rules"
#: ``schema-<keyword>`` codes come from any JSON Schema keyword; the ones without an entry of their own
#: share this one.
SCHEMA_FAMILY = "schema"
AREAS = {
    "parse": "Reading and parsing (every file)",
    "schema": "Schema checks (every format with a schema)",
    "skill-md": "SKILL.md frontmatter",
    "uaaps": "UAAPS evals (eval-config.json, cases, reports)",
    "skilljack": "skilljack (tasks.yaml, eval.config.yaml, task.md, results)",
    "skill-creator": "skill-creator (evals.json, grading.json, benchmark.json, trigger sets)",
    "writing-skills": "writing-skills (evals.json, history, grading, comparison, analysis)",
    "plugin-eval": "Claude Code plugin evals (`claude plugin eval`: prompt.md, case.yaml, graders)",
    "plugin": "Plugin metadata (Claude Code plugin.json, marketplace.json, hooks.json; Codex openai.yaml, plugin.json)",
    "runs": "Run results (after Run eval)",
    "evalens": "evalens itself (detection, suppressions)",
}


@dataclass(frozen=True, slots=True)
class Rule:
    """One catalog entry."""

    code: str
    title: str
    area: str
    checks: str
    why: str
    fix: str
    silence: str = ""  # advice beyond the generic config / inline forms
    tunable: bool = True  # False: problems that mean the file cannot be read (no level, no suppression)
    # True: the runner refuses such a case whatever the rule's level (a path escaping the sandbox, a placeholder
    # for the judge), so no "Ignore" quick fix is offered: silencing it would not make the case run.
    enforced: bool = False

    @property
    def url(self) -> str:
        return f"{DOCS_URL}#{self.code}"


@cache
def catalog() -> dict[str, Rule]:
    """Every rule by code, in the catalog's order."""
    raw = tomllib.loads(resources.files("evalens.core").joinpath("rules.toml").read_text(encoding="utf-8"))
    return {code: Rule(code=code, **entry) for code, entry in raw.items()}


def rule_for(code: str) -> Rule | None:
    """The entry documenting ``code`` (``schema-<keyword>`` falls back to the schema family entry)."""
    rules = catalog()
    hit = rules.get(code)
    if hit is None and code.startswith(SCHEMA_FAMILY + "-"):
        hit = rules.get(SCHEMA_FAMILY)
    return hit


def is_known(code: str) -> bool:
    return rule_for(code) is not None


def is_tunable(code: str) -> bool:
    rule = rule_for(code)
    return rule is None or rule.tunable


def is_enforced(code: str) -> bool:
    """Whether the runner refuses what ``code`` flags whatever its level (``enforced = true`` in the catalog)."""
    rule = rule_for(code)
    return rule is not None and rule.enforced


def doc_url(code: str) -> str | None:
    """The documentation link of a code (LSP ``codeDescription.href``)."""
    rule = rule_for(code)
    return rule.url if rule is not None else None


def suggest_code(code: str) -> str | None:
    """The rule code a misspelt one most likely meant; never its opposite (``near_names.opposite``)."""
    match = difflib.get_close_matches(code, [c for c in catalog() if not opposite(code, c)], n=1, cutoff=0.7)
    return match[0] if match else None


# --------------------------------------------------------------------------------------------- docs

_HEAD = """# Rules

Every diagnostic evalens reports has a code; this page has one entry per code (the code in the editor links
here). Each entry says what the rule checks, why it matters and how to fix it. Severities follow the
[severity policy](severity-policy.md): *error* = the format's own tool would reject the file or the run cannot
work, *warning* = a likely mistake according to the format's own documentation, *hint* = advice. The severity shown in the editor is
the one evalens chose for that file and context (some rules depend on the SKILL.md profile, for example).

**Silencing any rule** (unless its entry says it cannot be silenced), see [configuration](configuration.md):

- for a project: `[tool.evalens.rules] code = "off"` in `pyproject.toml`, or `[rules] code = "off"` in
  `evalens.toml` (levels: `error`, `warning`, `info`, `hint`, `off`);
- in your editor: the `evalens.rules` setting (`{"code": "off"}`);
- on one line of YAML or frontmatter: `# evalens: ignore[code]` at the end of the line or alone on the line
  above; for a whole file: `# evalens: ignore-file[code]`, `<!-- evalens: ignore-file[code] -->` in Markdown,
  or a top-level `"$evalens": {"ignore": ["code"]}` member in JSON;
- on the command line: `evalens validate --ignore code`.

<!-- Generated from evalens/core/rules.toml by `python -m evalens.core.rules --write docs/rules.md`; edit the
catalog, not this file. -->
"""


def render_markdown() -> str:
    """docs/rules.md: an index per area, then one anchored entry per code."""
    rules = list(catalog().values())
    out = [_HEAD, "## Index", ""]
    for area, title in AREAS.items():
        codes = [r for r in rules if r.area == area]
        if codes:
            out.append(f"- **{title}**: " + ", ".join(f"[`{r.code}`](#{r.code})" for r in codes))
    for area, title in AREAS.items():
        codes = [r for r in rules if r.area == area]
        if not codes:
            continue
        out += ["", f"## {title}"]
        for r in codes:
            name = "schema-&lt;keyword&gt;" if r.code == SCHEMA_FAMILY else r.code
            out += [
                "",
                f'<a id="{r.code}"></a>',
                "",
                f"### `{name}`: {r.title}",
                "",
                f"**Checks:** {r.checks.strip()}",
                "",
                f"**Why:** {r.why.strip()}",
                "",
                f"**Fix:** {r.fix.strip()}",
                "",
            ]
            if not r.tunable:
                out.append(
                    "**Silence:** "
                    + (
                        r.silence.strip()
                        or "cannot be silenced or re-levelled: the file "
                        "cannot be checked at all until this is fixed."
                    )
                )
            else:
                extra = f" {r.silence.strip()}" if r.silence else ""
                if r.enforced:
                    extra += (
                        " The runner refuses such a case whatever this rule's level, so the editor offers no"
                        " *Ignore* quick fix for it."
                    )
                out.append(
                    f'**Silence:** `{r.code} = "off"` in the config, or `# evalens: ignore[{r.code}]`.'
                    + extra
                )
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalens.core.rules", description=__doc__)
    parser.add_argument("--write", type=Path, help="write the Markdown to this file")
    parser.add_argument("--check", type=Path, help="exit 1 if this file differs from the catalog")
    args = parser.parse_args(argv)
    text = render_markdown()
    if args.check:
        same = args.check.is_file() and args.check.read_text(encoding="utf-8") == text
        if not same:
            print(
                f"{args.check} is out of date: run python -m evalens.core.rules --write {args.check}",
                file=sys.stderr,
            )
        return 0 if same else 1
    if args.write:
        args.write.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
