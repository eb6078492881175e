"""``evalens validate PATH...``: the server's diagnostics on the command line (exit 1 on any error, 2 on an
invalid configuration).

Rule levels come from the nearest ``evalens.toml`` / ``pyproject.toml [tool.evalens]`` of each file; the flags
``--select``, ``--ignore`` and ``--rule CODE=LEVEL`` override them."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from evalens.cli.sarif import to_sarif
from evalens.core.aggregate import related_of
from evalens.core.config import NO_FILE, ConfigCache, Tuning, load_config_file, parse_levels
from evalens.core.index import IndexCache
from evalens.core.rules import doc_url
from evalens.core.validate import iter_candidate_files, validate_file
from evalens.core.workflow_commands import escape, shown


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalens validate", description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path, help="eval files or folders")
    parser.add_argument(
        "--format",
        choices=["text", "json", "sarif", "github"],
        default="text",
        dest="output",
        help="text (path:line:col), json, sarif (SARIF 2.1.0 for code scanning), or "
        "github (workflow-command annotations on the pull request)",
    )
    parser.add_argument(
        "--profile",
        default=None,
        help="SKILL.md profile: agentskills, claude-code, uaaps (default: auto, by the skill's context)",
    )
    parser.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="report only these rule codes (comma-separated; globs such as schema-* work)",
    )
    parser.add_argument("--ignore", action="append", metavar="CODES", help="turn these rule codes off")
    parser.add_argument(
        "--rule",
        action="append",
        metavar="CODE=LEVEL",
        help="set a rule's level: error, warning, info, hint or off (repeatable)",
    )
    parser.add_argument("--config", type=Path, help="use this evalens.toml / pyproject.toml for every file")
    parser.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    args = parser.parse_args(argv)

    indexes = IndexCache()
    settings = {"skillProfile": args.profile} if args.profile else {}
    missing = [p for p in args.paths if not p.exists()]
    for p in missing:
        print(f"{p}: error: no such file or directory", file=sys.stderr)
    files = list(iter_candidate_files(x for x in args.paths if x.exists()))
    tunings, config_errors = _tunings(args, files)
    if config_errors:
        for message in config_errors:
            print(f"error: {message}", file=sys.stderr)
        print("evalens: invalid configuration; nothing validated", file=sys.stderr)
        return 2
    results = [validate_file(p, indexes, settings, t) for p, t in zip(files, tunings, strict=True)]
    errors = bool(missing)
    records = []
    for result in results:
        for prob in result.problems:
            errors |= prob.severity == 1
            records.append(
                {
                    "path": result.path,
                    "format": result.format.id if result.format else None,
                    "line": prob.span.start_line + 1,
                    "column": prob.span.start_col + 1,
                    "endLine": prob.span.end_line + 1,
                    "endColumn": prob.span.end_col + 1,
                    "severity": prob.severity.label,
                    "code": prob.code,
                    "message": prob.message,
                    "related": [
                        {"line": r["span"][0] + 1, "column": r["span"][1] + 1, "message": r["message"]}
                        for r in related_of(prob)
                    ],
                    "url": doc_url(prob.code),
                }
            )
    if args.output == "sarif":
        json.dump(to_sarif(records, [r.path for r in results]), sys.stdout, indent=2)
        print()
    elif args.output == "github":
        for line in github_annotations(records):
            print(line)
        print(summary(results, records), file=sys.stderr)
    elif args.output == "json":
        json.dump(
            {
                "files": [{"path": r.path, "format": r.format.id if r.format else None} for r in results],
                "problems": records,
            },
            sys.stdout,
            indent=2,
        )
        print()
    else:
        for r in records:
            print(
                shown(f"{r['path']}:{r['line']}:{r['column']}: {r['severity']}: {r['message']} [{r['code']}]")
            )
        print(summary(results, records), file=sys.stderr)
    return 1 if errors else 0


def summary(results: list[Any], records: list[dict[str, Any]]) -> str:
    """The closing count. A file no format claimed was not checked, and a look-alike's one hint ("another
    tool's format, so evalens leaves it alone") is not a problem with the file: both are said apart (issue #39)."""
    checked = sum(1 for r in results if r.format is not None)
    n_err = sum(1 for r in records if r["severity"] == "error")
    left = sum(1 for r in records if r["code"] == "lookalike")
    text = f"{checked} file(s) checked, {n_err} error(s), {len(records) - n_err - left} other problem(s)"
    return text + (f"; {left} file(s) left to another tool" if left else "")


GITHUB_LEVELS = {"error": "error", "warning": "warning"}  # info and hint are notices


def github_annotations(records: list[dict[str, Any]], base: Path | None = None) -> list[str]:
    """One ``::error`` / ``::warning`` / ``::notice`` workflow command per problem, at its file (relative to
    ``$GITHUB_WORKSPACE``, else the working directory) and range; every value escaped."""
    root = (base or Path(os.environ.get("GITHUB_WORKSPACE") or Path.cwd())).resolve()
    out = []
    for r in records:
        path = Path(r["path"]).resolve()
        try:
            shown = path.relative_to(root).as_posix()
        except ValueError:
            shown = str(path)
        title = f"evalens {r['code']}"
        props = [
            f"file={escape(shown, prop=True)}",
            f"line={r['line']}",
            f"col={r['column']}",
            f"endLine={r['endLine']}",
            f"endColumn={r['endColumn']}",
            f"title={escape(title, prop=True)}",
        ]
        level = GITHUB_LEVELS.get(r["severity"], "notice")
        out.append(f"::{level} {','.join(props)}::{escape(r['message'])}")
    return out


def _split(values: list[str] | None) -> list[str]:
    return [c.strip() for v in values or [] for c in v.split(",") if c.strip()]


def _tunings(args: argparse.Namespace, files: list[Path]) -> tuple[list[Any], list[str]]:
    """Each file's tuning (config file + flags) and every configuration problem, each said once."""
    errors: list[str] = []
    table: dict[str, str] = {code: "off" for code in _split(args.ignore)}
    for item in args.rule or []:
        code, sep, level = item.partition("=")
        if not sep:
            errors.append(f"--rule {item}: expected CODE=LEVEL")
            continue
        table[code.strip()] = level.strip()
    overrides = parse_levels(table, "command line", errors)
    select = frozenset(_split(args.select)) if args.select else None
    fixed = None
    if args.isolated:
        fixed = NO_FILE
    elif args.config is not None:
        fixed = load_config_file(args.config) if args.config.is_file() else None
        if fixed is None:
            errors.append(f"{args.config}: not a file with evalens settings")
            fixed = NO_FILE
    cache = ConfigCache()
    out = []
    for path in files:
        file = fixed if fixed is not None else cache.for_file(path)
        errors += [e for e in file.errors if e not in errors]
        out.append(Tuning(file, overrides, "editorFirst", select))
    return out, errors
