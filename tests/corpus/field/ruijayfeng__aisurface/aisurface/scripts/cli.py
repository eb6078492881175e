"""
 * [INPUT]: Depends on `argparse` (stdlib), `scripts.audit.cmd_audit`, `scripts.fix.cmd_fix`, `scripts.verify.cmd_verify`, `scripts.doctor.cmd_doctor`, `scripts.safe_dispatch.safe_dispatch`, `scripts.colors.colorize`.
 * [OUTPUT]: Provides `build_parser()`, `main(argv)`, console-script target `aisurface = scripts.cli:main`.
 * [POS]: Single CLI entry point. Dispatches to audit/fix/verify/doctor subcommands. Imported by `pyproject.toml`'s `[project.scripts]`.
 * [PROTOCOL]: Update this header when changed, then check CLAUDE.md

CLI entry point. Dispatches to audit/fix/verify/doctor subcommands.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from scripts.safe_dispatch import safe_dispatch

_DISPATCH = {
    "audit": "scripts.audit.cmd_audit",
    "fix": "scripts.fix.cmd_fix",
    "verify": "scripts.verify.cmd_verify",
    "doctor": "scripts.doctor.cmd_doctor",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aisurface",
        description="AI-search citation readiness for OSS projects.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="{audit,fix,verify,doctor}")

    # audit subcommand
    audit_p = subparsers.add_parser("audit", help="Run 12-check GEO audit")
    audit_p.add_argument("path", nargs="?", default=".", help="Repo root (default: cwd)")
    audit_p.add_argument("--learn", action="store_true", help="Teacher mode")
    audit_p.add_argument("--json", action="store_true", help="JSON output")
    audit_p.add_argument("--no-color", action="store_true", help="Disable color output")

    # fix subcommand (Task 6 wires the handler)
    fix_p = subparsers.add_parser("fix", help="Generate and apply patches for must-fix items")
    fix_p.add_argument("path", nargs="?", default=".", help="Repo root (default: cwd)")
    fix_p.add_argument("--dry-run", action="store_true", help="Print patches, don't apply")
    fix_p.add_argument("--yes", action="store_true", help="Apply all without confirmation")
    fix_p.add_argument("--only", help="Comma-separated patch types (faq,when_to_use,llms_txt,schema_org)")
    fix_p.add_argument("--no-color", action="store_true", help="Disable color output")

    # verify subcommand (Task 13 wires the handler)
    verify_p = subparsers.add_parser("verify", help="Probe AI platforms for citation rate")
    verify_p.add_argument("path", nargs="?", default=".", help="Repo root (default: cwd)")
    verify_p.add_argument("--platforms", default="perplexity",
                          help="Comma-separated platform names (currently: perplexity)")
    verify_p.add_argument("--baseline", action="store_true", help="Establish/reset baseline")
    verify_p.add_argument("--queries-file", help="Custom queries file (1 query per line)")
    verify_p.add_argument("--max-queries", type=int, default=None,
                          help="Cap the number of queries run (cost control)")

    # doctor subcommand (v1.0.2)
    doctor_p = subparsers.add_parser(
        "doctor", help="Diagnose the local aisurface install"
    )
    doctor_p.add_argument("--json", action="store_true", help="JSON output")
    doctor_p.add_argument("--no-color", action="store_true", help="Disable color output")
    doctor_p.add_argument(
        "--skip-network", action="store_true",
        help="Skip the PyPI version check (offline / CI-no-network)",
    )

    return parser


def main(argv: list[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")

    parser = build_parser()
    args = parser.parse_args(argv)

    target = _DISPATCH.get(args.command)
    if target is None:
        parser.print_help()
        return 1
    module_path, _, attr = target.rpartition(".")
    handler = getattr(importlib.import_module(module_path), attr)
    return safe_dispatch(handler)(args)


if __name__ == "__main__":
    sys.exit(main())
