"""``evalens validate --format sarif``: the problems as a SARIF 2.1.0 log for code scanning.

One run, tool ``evalens``; one ``reportingDescriptor`` per rule code that occurs, filled from the rule catalog
(title, what it checks, how to fix it, ``helpUri`` into docs/rules.md); results point at the file relative to
``%SRCROOT%`` (the working directory) with 1-based lines and Unicode-code-point columns; a file outside it gets an
absolute ``file://`` URI and no ``uriBaseId``. The log validates against the OASIS 2.1.0 schema (tests/data/):
``artifacts`` holds each file once (a symlinked SKILL.md resolves to its target), and every result carries
``partialFingerprints`` that survive the problem's line moving.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from evalens import __version__
from evalens.core.rules import rule_for

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note", "information": "note", "hint": "note"}


def _location(path: str, root: Path) -> dict[str, str]:
    """An ``artifactLocation``: relative to ``%SRCROOT%`` when inside ``root``, else an absolute URI alone."""
    p = Path(path).resolve()
    try:
        return {"uri": p.relative_to(root.resolve()).as_posix(), "uriBaseId": "%SRCROOT%"}
    except ValueError:
        return {"uri": p.as_uri()}


def _fingerprint(record: dict[str, Any], uri: str) -> str:
    """Rule, file, message and the text of the problem's line (not its number): stable while lines move."""
    try:
        lines = Path(record["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
        text = lines[record["line"] - 1].strip() if 0 < record["line"] <= len(lines) else ""
    except OSError:
        text = ""
    key = "\0".join([record["code"], uri, record["message"], text])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _descriptor(code: str) -> dict[str, Any]:
    rule = rule_for(code)
    if rule is None:
        return {"id": code, "shortDescription": {"text": code}}
    help_text = f"{rule.checks.strip()}\n\nWhy: {rule.why.strip()}\n\nFix: {rule.fix.strip()}"
    return {
        "id": code,
        "name": "".join(part.capitalize() for part in code.replace("_", "-").split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.checks.strip()},
        "help": {
            "text": help_text,
            "markdown": f"**{rule.title}**\n\n{help_text}\n\n[Rule documentation]({rule.url})",
        },
        "helpUri": rule.url,
        "properties": {"tags": [rule.area]},
    }


def to_sarif(records: list[dict[str, Any]], files: list[str], *, root: Path | None = None) -> dict[str, Any]:
    """``records`` are ``evalens validate``'s JSON problems; ``files`` every file checked."""
    root = root or Path.cwd()
    codes = list(dict.fromkeys(r["code"] for r in records))
    index = {code: i for i, code in enumerate(codes)}
    results = []
    seen: set[tuple[Any, ...]] = set()
    fingerprints: dict[str, int] = {}
    for r in records:
        where = _location(r["path"], root)
        key = (r["code"], where["uri"], r["line"], r["column"], r["message"])
        if key in seen:  # the same file reached twice (a symlink and its target): one result
            continue
        seen.add(key)
        fingerprint = _fingerprint(r, where["uri"])
        fingerprints[fingerprint] = occurrence = fingerprints.get(fingerprint, 0) + 1
        location = {
            "physicalLocation": {
                "artifactLocation": where,
                "region": {
                    "startLine": r["line"],
                    "startColumn": r["column"],
                    "endLine": r["endLine"],
                    "endColumn": max(r["endColumn"], r["column"] if r["endLine"] == r["line"] else 1),
                },
            }
        }
        result: dict[str, Any] = {
            "ruleId": r["code"],
            "ruleIndex": index[r["code"]],
            "level": LEVELS.get(r["severity"], "note"),
            "message": {"text": r["message"]},
            "locations": [location],
            "partialFingerprints": {"evalensProblem/v1": f"{fingerprint}:{occurrence}"},
        }
        related = [
            {
                "id": i + 1,
                "message": {"text": rel["message"]},
                "physicalLocation": {
                    "artifactLocation": where,
                    "region": {"startLine": rel["line"], "startColumn": rel["column"]},
                },
            }
            for i, rel in enumerate(r.get("related", []))
        ]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    artifacts: dict[str, dict[str, Any]] = {}
    for f in files:  # once each: a symlink and its target are one artifact
        where = _location(f, root)
        artifacts.setdefault(where["uri"], {"location": where})
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "evalens",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": "https://evalens.dev/rules",
                        "rules": [_descriptor(code) for code in codes],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "artifacts": list(artifacts.values()),
                "results": results,
            }
        ],
    }
