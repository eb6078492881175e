"""``evalens schema [--export DIR] [--check DIR]``: list, write or verify the bundled JSON Schemas."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalens.core.models.catalog import render_all


def render_text(schema: dict) -> str:
    """Canonical text of a schema file (stable key order, trailing newline)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalens schema", description=__doc__)
    parser.add_argument("--export", metavar="DIR", help="write every schema into DIR")
    parser.add_argument("--check", metavar="DIR", help="exit 1 if DIR's schemas differ from the models")
    args = parser.parse_args(argv)

    rendered = render_all()
    if args.export:
        out = Path(args.export)
        out.mkdir(parents=True, exist_ok=True)
        for name, schema in rendered.items():
            (out / name).write_text(render_text(schema), encoding="utf-8")
            print(out / name)
        return 0
    if args.check:
        stale = [
            n
            for n, s in rendered.items()
            if not (Path(args.check) / n).exists() or (Path(args.check) / n).read_text() != render_text(s)
        ]
        for name in stale:
            print(
                f"{name}: out of date with the models (run `evalens schema --export {args.check}`)",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for name, schema in rendered.items():
        print(f"{name}\t{schema['title']}\t{schema['$id']}")
    return 0
