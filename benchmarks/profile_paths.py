#!/usr/bin/env python3
"""Where the time goes on the server's hot paths, in-process (no LSP): a phase table, optionally cProfile.

    python benchmarks/profile_paths.py            # phase tables for all three paths
    python benchmarks/profile_paths.py --cprofile # plus the 25 most expensive functions of each

Paths: (1) the 1,000-case start-up scan (what ``scan_workspace`` does per file), (2) one validation of the
500-task skilljack ``tasks.yaml`` when it is valid and when one value is wrong, (3) cold start: importing
the server and the first validation (which loads every format module, pydantic model and jsonschema).
The documents are the ones ``lsp_bench.py`` generates. Numbers are medians of a few repetitions.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lsp_bench as bench  # noqa: E402


def table(title: str, rows: list[tuple[str, float]], total: float | None = None) -> None:
    print(f"\n{title}")
    print("| phase | ms | share |\n|---|---:|---:|")
    total = total if total is not None else sum(v for _, v in rows)
    for name, ms in rows:
        print(f"| {name} | {ms:.1f} | {100 * ms / total:.0f}% |" if total else f"| {name} | {ms:.1f} | - |")
    print(f"| **total** | {total:.1f} | |")


def top(profile: cProfile.Profile, n: int = 25) -> None:
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(n)
    print("\n".join(out.getvalue().splitlines()[: n + 12]))


def scan_phases(ws: Path, use_cprofile: bool) -> None:
    from evalens.core import schema_check
    from evalens.core.formats.base import RuleContext
    from evalens.core.formats.registry import candidates, detect
    from evalens.core.index import IndexCache
    from evalens.core.validate import iter_candidate_files, read_source, validate_file

    validate_file(next(iter_candidate_files([ws])), IndexCache(), {})  # warm: lazy imports, schemas
    runs: dict[str, list[float]] = defaultdict(list)
    totals = []
    for _ in range(3):
        t_all = time.perf_counter()
        acc: dict[str, float] = defaultdict(float)
        indexes = IndexCache()
        t = time.perf_counter()
        paths = list(iter_candidate_files([ws]))
        acc["walk + candidates() per path"] += time.perf_counter() - t
        for path in paths:
            t = time.perf_counter()
            text, _ = read_source(path)
            t1 = time.perf_counter()
            det = detect(str(path), text)
            t2 = time.perf_counter()
            fmt, doc = det.format, det.doc
            if fmt is None or doc is None or not doc.ok:
                acc["read"] += t1 - t
                acc["detect (candidates + parse)"] += t2 - t1
                continue
            index = indexes.for_file(path)
            t3 = time.perf_counter()
            if index is not None:
                _ = index.case_names  # built once per package, on the first file's rules
            t4 = time.perf_counter()
            ctx = RuleContext(str(path), index, {})
            schema = fmt.schema()
            found = schema_check.check(doc, schema) if schema is not None else []
            t5 = time.perf_counter()
            problems = fmt.refine(doc, found, ctx) + fmt.rules(doc, ctx)
            t6 = time.perf_counter()
            del problems
            acc["read"] += t1 - t
            acc["detect (candidates + parse)"] += t2 - t1
            acc["index: for_file"] += t3 - t2
            acc["index: case_names (all cases, once)"] += t4 - t3
            acc["schema check (pydantic fast path / jsonschema)"] += t5 - t4
            acc["format refine + rules"] += t6 - t5
        totals.append((time.perf_counter() - t_all) * 1000)
        for k, v in acc.items():
            runs[k].append(v * 1000)
    # split detect into candidates() and parse
    sample = paths[:200]
    t = time.perf_counter()
    for p in sample:
        candidates(str(p))
    cand_ms = (time.perf_counter() - t) * 1000 * len(paths) / len(sample)
    rows = [(k, statistics.median(v)) for k, v in runs.items()]
    table(
        f"Start-up scan of {len(paths)} files, in-process (median of 3; candidates() alone costs "
        f"~{cand_ms:.0f} ms per pass over the paths and runs twice: walk + detect)",
        rows,
        statistics.median(totals),
    )
    if use_cprofile:
        prof = cProfile.Profile()
        prof.enable()
        indexes = IndexCache()
        for path in iter_candidate_files([ws]):
            validate_file(path, indexes, {})
        prof.disable()
        top(prof)


def skilljack_phases(path: Path, probe: bench.Probe, use_cprofile: bool) -> None:
    from evalens.core import schema_check
    from evalens.core.formats.base import RuleContext
    from evalens.core.formats.registry import detect
    from evalens.core.index import IndexCache
    from evalens.core.validate import validate_text
    from evalens.server.convert import to_diagnostic

    good = path.read_text(encoding="utf-8")
    lines = good.split("\n")
    lines[probe.toggle_line] = (
        lines[probe.toggle_line][: probe.toggle_col] + lines[probe.toggle_line][probe.toggle_col + 1 :]
    )
    bad = "\n".join(lines)
    indexes = IndexCache()
    validate_text(str(path), good, indexes, {})
    for label, text in (("valid", good), ("one wrong value", bad)):
        acc: dict[str, list[float]] = defaultdict(list)
        for _ in range(5):
            gc.disable()  # as validate_text does; the deferred collection is timed on its own below
            t0 = time.perf_counter()
            det = detect(str(path), text)
            t1 = time.perf_counter()
            fmt, doc = det.format, det.doc
            ctx = RuleContext(str(path), indexes.for_file(path), {})
            found = schema_check.check(doc, fmt.schema())
            t2 = time.perf_counter()
            problems = fmt.refine(doc, found, ctx) + fmt.rules(doc, ctx)
            t3 = time.perf_counter()
            diags = [to_diagnostic(p, doc.lines, "utf-16") for p in problems]
            t4 = time.perf_counter()
            del diags, det, doc, found, problems
            gc.enable()
            trigger = [[], {}]  # the first allocations after re-enabling start the automatic collection
            t5 = time.perf_counter()
            del trigger
            acc["detect + parse (libyaml compose + positioned tree)"].append((t1 - t0) * 1000)
            acc["schema check"].append((t2 - t1) * 1000)
            acc["format refine + rules"].append((t3 - t2) * 1000)
            acc["to LSP diagnostics"].append((t4 - t3) * 1000)
            acc["freeing the old tree + the deferred automatic GC (after the publish in the server)"].append(
                (t5 - t4) * 1000
            )
        table(
            f"skilljack tasks.yaml ({len(lines)} lines), {label}: one validate_text (median of 5)",
            [(k, statistics.median(v)) for k, v in acc.items()],
        )
        if use_cprofile:
            prof = cProfile.Profile()
            prof.enable()
            validate_text(str(path), text, indexes, {})
            prof.disable()
            top(prof)


def cold_start() -> None:
    code = (
        "import time; t0=time.perf_counter();"
        "from evalens.server.server import create_server; s=create_server(); t1=time.perf_counter();"
        "from pathlib import Path; from evalens.core.validate import validate_text;"
        "validate_text('/x/evals/cases/a.yaml', 'name: a\\ninput: {prompt: p}\\njudge: {criteria: c}\\n');"
        "t2=time.perf_counter(); print(f'{(t1-t0)*1000:.0f} {(t2-t1)*1000:.0f}')"
    )
    rows: dict[str, list[float]] = defaultdict(list)
    for _ in range(3):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", "pass"], capture_output=True, text=True)
        rows["python start (bare interpreter)"].append((time.perf_counter() - t) * 1000)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        a, b = out.stdout.split()
        rows["import + create_server()"].append(float(a))
        rows["first validation (lazy imports: formats, models, jsonschema)"].append(float(b))
    table("Cold start (median of 3)", [(k, statistics.median(v)) for k, v in rows.items()])
    out = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            "from evalens.server.server import create_server; create_server()",
        ],
        capture_output=True,
        text=True,
    )
    entries = []
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            entries.append((int(parts[0].split(":")[1]), int(parts[1]), parts[2].rstrip()))
    print("\nimport -X importtime, largest self times (us) for `create_server()`:")
    for self_us, cum_us, name in sorted(entries, reverse=True)[:12]:
        print(f"  {self_us:>8} self {cum_us:>9} cumulative  {name.strip()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cprofile", action="store_true", help="also print cProfile's top functions")
    parser.add_argument("--only", choices=["scan", "skilljack", "cold"], help="one path only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalens-prof-") as name:
        tmp = Path(name)
        if args.only in (None, "cold"):
            cold_start()
        if args.only in (None, "scan"):
            ws, _ = bench.make_workspace(tmp, bench.CASE_SCHEMA, 1000)
            scan_phases(ws, args.cprofile)
        if args.only in (None, "skilljack"):
            _, path, probe, _ = bench.make_skilljack(tmp, 500)
            skilljack_phases(path, probe, args.cprofile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
