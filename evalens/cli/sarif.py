"""``evalens validate --format sarif``: the problems as a SARIF 2.1.0 log for code scanning.

One run, tool ``evalens``; one ``reportingDescriptor`` per rule code that occurs, filled from the rule catalog
(title, what it checks, how to fix it, ``helpUri`` into docs/rules.md); results point at the file relative to
``%SRCROOT%`` (the working directory) with 1-based lines and Unicode-code-point columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note", "information": "note", "hint": "note"}


def _uri(path: str, root: Path) -> str:
    p = Path(path)
    try:
        return p.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return p.resolve().as_uri()


def _descriptor(code: str) -> dict[str, Any]:
    from evalens.core.rules import rule_for

    rule = rule_for(code)
    if rule is None:
        return {"id": code, "shortDescription": {"text": code}}
    help_text = f"{rule.checks.strip()}\n\nWhy: {rule.why.strip()}\n\nFix: {rule.fix.strip()}"
    return {
        "id": code,
        "name": "".join(part.capitalize() for part in code.replace("_", "-").split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.checks.strip()},
        "help": {"text": help_text, "markdown": f"**{rule.title}**\n\n{help_text}\n\n[Rule documentation]({rule.url})"},
        "helpUri": rule.url,
        "properties": {"tags": [rule.area]},
    }


def to_sarif(records: list[dict[str, Any]], files: list[str], *, root: Path | None = None) -> dict[str, Any]:
    """``records`` are ``evalens validate``'s JSON problems; ``files`` every file checked."""
    from evalens import __version__

    root = root or Path.cwd()
    codes = list(dict.fromkeys(r["code"] for r in records))
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for r in records:
        location = {"physicalLocation": {
            "artifactLocation": {"uri": _uri(r["path"], root), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": r["line"], "startColumn": r["column"], "endLine": r["endLine"],
                       "endColumn": max(r["endColumn"], r["column"] if r["endLine"] == r["line"] else 1)},
        }}
        result: dict[str, Any] = {"ruleId": r["code"], "ruleIndex": index[r["code"]],
                                  "level": LEVELS.get(r["severity"], "note"),
                                  "message": {"text": r["message"]}, "locations": [location]}
        related = [{"id": i + 1, "message": {"text": rel["message"]}, "physicalLocation": {
            "artifactLocation": {"uri": _uri(r["path"], root), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": rel["line"], "startColumn": rel["column"]}}}
            for i, rel in enumerate(r.get("related", []))]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "evalens", "version": __version__, "semanticVersion": __version__,
                                "informationUri": "https://evalens.dev/rules",
                                "rules": [_descriptor(code) for code in codes]}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "artifacts": [{"location": {"uri": _uri(f, root), "uriBaseId": "%SRCROOT%"}} for f in files],
            "results": results,
        }],
    }
