"""Runner benchmark: per-case overhead of `evalens eval` and the speed-up of `--jobs 4`.

A scripted stand-in for the `claude` binary (selected with ``EVALENS_CLAUDE_BIN``) sleeps a fixed time and prints
a valid stream-json transcript, so the figures measure the runner, not a model. The judge is off (``no_judge``):
overhead is everything but agent and judge time — sandbox creation, fixture copy, package install, workspace
snapshots, bubblewrap set-up outside the agent process, checks, artifacts, cleanup and the report.

    python benchmarks/runner_bench.py [--cases 20] [--agent-seconds 1.0]

Targets (issue #3): median overhead per case <= 50 ms; 20 cases at --jobs 4 <= 0.3x the serial time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

FAKE_AGENT = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "0.0.0 (scripted bench agent)"; exit 0; fi
sleep "${EVALENS_BENCH_AGENT_SECONDS:-0}"
mkdir -p output && echo hello > output/result.txt
echo '{"type":"system","subtype":"init","model":"bench-model","session_id":"bench"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"DONE GREETING-OK","session_id":"bench"}'
"""


def make_package(root: Path, cases: int, network: bool) -> Path:
    (root / "evals" / "cases").mkdir(parents=True)
    (root / "evals" / "fixtures").mkdir()
    (root / "evals" / "fixtures" / "data.txt").write_text("fixture\n" * 100)
    (root / "skills" / "bench").mkdir(parents=True)
    (root / "skills" / "bench" / "SKILL.md").write_text("---\nname: bench\ndescription: bench\n---\nbody\n")
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]
                }
            }
        )
    )
    (root / "evals" / "eval-config.json").write_text(
        json.dumps(
            {
                "version": 1,
                "engine": "claude-code",
                "timeout": 60,
                "sandbox": {"network": network, "writable-paths": ["output/"]},
            }
        )
    )
    for i in range(cases):
        (root / "evals" / "cases" / f"{i:02d}.yaml").write_text(
            f"name: case-{i:02d}\ninput:\n  prompt: bench\n  files: [fixtures/data.txt]\n"
            "expected:\n  contains: [GREETING-OK]\n  files-created: [output/result.txt]\n"
            "judge:\n  criteria: anything\n"
        )
    return root


async def run(pkg: Path, jobs: int) -> tuple[float, list]:
    from evalens.runner.api import RunRequest, run_cases

    start = time.monotonic()
    outcome = await run_cases(
        RunRequest(package_root=pkg, jobs=jobs, no_judge=True, extra_env=["EVALENS_BENCH_AGENT_SECONDS"])
    )
    elapsed = time.monotonic() - start
    bad = [r for r in outcome.results if r.verdict != "PASS"]
    if bad:
        raise SystemExit(f"benchmark case failed: {bad[0].name}: {bad[0].reason}")
    return elapsed, outcome.results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--agent-seconds", type=float, default=1.0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="evalens-bench-"))
    agent = work / "fake-claude"
    agent.write_text(FAKE_AGENT)
    agent.chmod(0o755)
    os.environ["EVALENS_CLAUDE_BIN"] = str(agent)
    os.environ.setdefault("ANTHROPIC_API_KEY", "bench")
    os.environ.setdefault("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    from evalens.runner.sandbox import bubblewrap_usable

    rows = []
    for network in (True, False):
        label = "bubblewrap" if bubblewrap_usable() else "no bubblewrap"
        label += ", network on" if network else ", network off (model bridge)"
        pkg = make_package(work / f"overhead-{network}", args.cases, network)
        os.environ["EVALENS_BENCH_AGENT_SECONDS"] = "0"
        asyncio.run(run(pkg, 1))  # warm-up: caches (bwrap probe, versions, imports)
        _elapsed, results = asyncio.run(run(pkg, 1))
        overheads = [(r.duration_seconds - r.agent_seconds) * 1000 for r in results]
        agent_ms = [r.agent_seconds * 1000 for r in results]
        rows.append(
            (
                f"runner overhead per case, median ({label})",
                f"{statistics.median(overheads):.1f} ms",
                "<= 50 ms",
                statistics.median(overheads) <= 50,
            )
        )
        rows.append(
            (
                f"  agent process incl. sandbox start-up, median ({label})",
                f"{statistics.median(agent_ms):.1f} ms",
                "(not overhead)",
                None,
            )
        )
    pkg = make_package(work / "jobs", args.cases, False)
    os.environ["EVALENS_BENCH_AGENT_SECONDS"] = str(args.agent_seconds)
    serial, _ = asyncio.run(run(pkg, 1))
    parallel, _ = asyncio.run(run(pkg, 4))
    ratio = parallel / serial
    rows.append((f"{args.cases} cases x {args.agent_seconds:g} s agent, serial", f"{serial:.2f} s", "", None))
    rows.append(
        (f"{args.cases} cases x {args.agent_seconds:g} s agent, --jobs 4", f"{parallel:.2f} s", "", None)
    )
    rows.append(("--jobs 4 / serial", f"{ratio:.3f}x", "<= 0.3x", ratio <= 0.3))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>10}  {'target':>14}  ok")
    for name, value, target, ok in rows:
        mark = "" if ok is None else ("yes" if ok else "NO")
        print(f"{name:<{width}}  {value:>10}  {target:>14}  {mark}")
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r[3] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
