"""``evalens validate PATH...``: the server's diagnostics on the command line (exit 1 on any error)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalens validate", description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path, help="eval files or folders")
    parser.add_argument("--format", choices=["text", "json"], default="text", dest="output")
    parser.add_argument("--profile", default=None, help="SKILL.md profile: agentskills, claude-code, uaaps")
    args = parser.parse_args(argv)
    from evalens.runner.index import IndexCache
    from evalens.runner.validate import iter_candidate_files, validate_file

    indexes = IndexCache()
    settings = {"skillProfile": args.profile} if args.profile else {}
    missing = [p for p in args.paths if not p.exists()]
    for p in missing:
        print(f"{p}: error: no such file or directory", file=sys.stderr)
    results = [validate_file(p, indexes, settings) for p in iter_candidate_files(x for x in args.paths if x.exists())]
    errors = bool(missing)
    records = []
    for result in results:
        for prob in result.problems:
            errors |= prob.severity == 1
            records.append({
                "path": result.path, "format": result.format.id if result.format else None,
                "line": prob.span.start_line + 1, "column": prob.span.start_col + 1,
                "endLine": prob.span.end_line + 1, "endColumn": prob.span.end_col + 1,
                "severity": prob.severity.label, "code": prob.code, "message": prob.message,
            })
    if args.output == "json":
        json.dump({"files": [{"path": r.path, "format": r.format.id if r.format else None} for r in results],
                   "problems": records}, sys.stdout, indent=2)
        print()
    else:
        for r in records:
            print(f"{r['path']}:{r['line']}:{r['column']}: {r['severity']}: {r['message']} [{r['code']}]")
        n_err = sum(1 for r in records if r["severity"] == "error")
        print(f"{len(results)} file(s) checked, {n_err} error(s), {len(records) - n_err} other problem(s)",
              file=sys.stderr)
    return 1 if errors else 0
