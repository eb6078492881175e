"""``evalens doctor``: the run preflight's checks as a table (or ``--json`` for tools), for both engines.

Exit codes: 0 everything required is there, 1 something required is missing (each row names its fix), 2 usage.
The engine a run would use (``--engine``, else the package's ``eval-config.json``, else claude-code) and its
judge are required; the other engine is listed for information.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from evalens.core.engines import default_engine, engine_names
from evalens.core.index import find_package_root
from evalens.core.regular_files import read_regular
from evalens.runner.engines import get_engine
from evalens.runner.preflight import Check, Preflight, engine_checks, preflight

MARK = {"ok": "[green]ok[/]", "missing": "[red]MISSING[/]", "warn": "[yellow]warn[/]", "skip": "[dim]skip[/]"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="evalens doctor",
        description="Check what running evals needs, with the command that fixes each gap.",
    )
    p.add_argument(
        "--engine",
        choices=engine_names(),
        help=f"engine your runs use (default: the package's eval-config.json, else {default_engine()})",
    )
    p.add_argument(
        "--judge",
        help="judge model, `model` or `provider:model` (default: the package's, else the engine's provider)",
    )
    p.add_argument("--package", type=Path, help="package root holding evals/ (default: found from the cwd)")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    return p


def _package_config(explicit: Path | None) -> dict:
    root = explicit or find_package_root(Path.cwd()) or Path.cwd()
    try:
        # the repository's file: a link to /dev/stdin or /dev/zero is refused, not read (#42)
        data = json.loads(read_regular(root / "evals" / "eval-config.json", 4 << 20).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def collect(engine_name: str, judge: str | None, network: bool = False) -> Preflight:
    """The required checks for ``engine_name`` plus the other engine's, marked optional; every CLI asked for real,
    not read from the probe cache a run uses (the user is checking that it still runs)."""
    result, _spec = preflight(get_engine(engine_name), judge=judge, network=network, fresh=True)
    for other in engine_names():
        if other != engine_name:
            result.checks[2:2] = engine_checks(get_engine(other), required=False, fresh=True)
    return result


def _print_table(result: Preflight, engine: str) -> None:
    table = Table(title=f"evalens doctor — runs with {engine}", title_justify="left")
    for column in ("check", "status", "found", "fix"):
        table.add_column(column, overflow="fold")
    for c in result.checks:
        status = (
            MARK.get(c.status, c.status)
            if c.required or c.status == "ok"
            else f"[dim]{c.status} (optional)[/]"
        )
        table.add_row(c.name, status, c.detail, c.fix)

    console = Console(soft_wrap=False, width=shutil.get_terminal_size((140, 24)).columns)
    console.print(table)
    failures: list[Check] = result.failures
    if failures:
        console.print(
            f"[red]{len(failures)} required check(s) failed[/]: runs would stop before any agent starts."
        )
    else:
        console.print("[green]ready[/]: everything a run needs is here.")


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    config = _package_config(args.package)
    engine = (
        args.engine
        or (config.get("engine") if config.get("engine") in engine_names() else None)
        or default_engine()
    )
    judge = args.judge or (config.get("judge") if isinstance(config.get("judge"), str) else None)
    network = (
        bool((config.get("sandbox") or {}).get("network"))
        if isinstance(config.get("sandbox"), dict)
        else False
    )
    result = collect(engine, judge, network)
    if args.json:
        print(json.dumps({"engine": engine, **result.to_json()}, indent=2))
    else:
        _print_table(result, engine)
    sys.stdout.flush()
    return 0 if result.ok else 1
