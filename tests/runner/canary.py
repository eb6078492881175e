"""The canary track of ``.ci/run`` (docs/cli-tracks.md): chosen agent test modules on the newest ``claude`` and
``codex`` of the registry, beside the pinned track's results, as one table (test module × track: pass / fail / why)
and what changed between the two CLIs' streams.

    python3 -m tests.runner.canary --tools .tools/canary --pinned-junit .ci-out/pinned.xml

The pinned track has already run (the whole suite, ``.ci/run``'s earlier steps) and its JUnit file gives its
column; this runs only the canary's modules, with ``EVALENS_TOOLS_DIR`` at the canary's install. Its exit status is
0 whatever the canary found, unless ``EVALENS_CANARY_STRICT=1``: a release nobody chose must not fail a commit's CI
(docs/cli-tracks.md says why); the table and the "canary:" lines say what failed, on which version, and why.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MODULES = (
    "test_agents_record",  # the stream readers: turns, tool calls, hooks, skills, usage from each CLI's trace
    "test_agents_triggers",  # tools: which skill fired and how each CLI shows it (Skill tool, SKILL.md read)
    "test_agents_verdicts",  # every format's verdict rules on each CLI's output, tools and errors
    "test_agents_sandbox",  # the sandbox against a hostile agent on each CLI
    "test_agents_replay",  # record and replay at the model bridge
    "test_agents_cli_tracks",  # cassettes across months and across CLI versions
)
"""The modules that exercise what a CLI release changes (its stream, its tools, its sandbox needs, its requests);
7.5 minutes on 2 workers, within the CI budget (docs/cli-tracks.md#time)."""
ENGINES = {"claude-code": ("claude", "@anthropic-ai/claude-code"), "codex": ("codex", "@openai/codex")}


def _version(tools: Path | None, engine: str) -> str:
    """The ``--version`` of the CLI the runner would use with ``EVALENS_TOOLS_DIR=tools`` (None: the default)."""
    env = {k: v for k, v in os.environ.items() if k not in ("EVALENS_CLAUDE_BIN", "EVALENS_CODEX_BIN")}
    if tools is not None:
        env["EVALENS_TOOLS_DIR"] = str(tools)
    code = f"from evalens.runner.engines import get_engine; print(get_engine({engine!r}).version())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    return out.stdout.strip() or "not installed"


def _results(junit: Path, modules: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Per module: ``pass`` / ``fail`` / ``skip`` / ``not run`` and, for a failure, its first line of why."""
    out = {m: ("not run", "") for m in modules}
    if not junit.is_file():
        return out
    seen: dict[str, list[tuple[str, str]]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = str(case.get("classname", "")).split(".")[-1]
        if module not in out:
            continue
        failed = case.find("failure") if case.find("failure") is not None else case.find("error")
        if failed is not None:
            why = (failed.get("message") or failed.text or "failed").strip().splitlines()[0][:160]
            seen.setdefault(module, []).append(("fail", f"{case.get('name')}: {why}"))
        elif case.find("skipped") is not None:
            seen.setdefault(module, []).append(("skip", (case.find("skipped").get("message") or "")[:160]))
        else:
            seen.setdefault(module, []).append(("pass", ""))
    for module, states in seen.items():
        fails = [why for state, why in states if state == "fail"]
        if fails:
            out[module] = ("fail", fails[0] + (f" (+{len(fails) - 1} more)" if len(fails) > 1 else ""))
        elif any(state == "pass" for state, _ in states):
            skipped = sum(state == "skip" for state, _ in states)
            out[module] = ("pass", f"{skipped} skipped" if skipped else "")
        else:
            out[module] = ("skip", states[0][1])
    return out


def _kinds(lines: list[dict]) -> dict[str, set[str]]:
    """What a captured stream shows of its CLI: event kinds, init fields, tools, result fields."""
    kinds = {f"{e.get('type')}/{e.get('subtype')}" if e.get("subtype") else str(e.get("type")) for e in lines}
    init = next((e for e in lines if e.get("subtype") == "init"), {})
    result = next((e for e in reversed(lines) if e.get("type") == "result"), {})
    items = {str((e.get("item") or {}).get("type")) for e in lines if isinstance(e.get("item"), dict)}
    return {
        "event kinds": kinds,
        "item types": items,
        "init fields": set(init),
        "tools": set(init.get("tools") or []),
        "result fields": set(result),
    }


def what_changed(pinned: Path | None, canary: Path) -> list[str]:
    """Each CLI's stream for one scripted conversation (tests/runner/capture_streams.py), pinned against canary:
    what the newer CLI added or dropped."""
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as out:
        captured: dict[str, dict[str, Path]] = {}
        for track, tools in (("pinned", pinned), ("canary", canary)):
            env = {
                **os.environ,
                "EVALENS_CAPTURE_DIR": f"{out}/{track}",
            }  # the pinned track: the inherited tools
            for var in ("EVALENS_CLAUDE_BIN", "EVALENS_CODEX_BIN"):
                env.pop(var, None)
            if tools is not None:
                env["EVALENS_TOOLS_DIR"] = str(tools)
            subprocess.run([sys.executable, "-m", "tests.runner.capture_streams"], env=env, cwd=REPO,
                           capture_output=True, text=True, timeout=600)  # fmt: skip
            captured[track] = {p.stem.rpartition("-")[0]: p for p in Path(out, track).glob("*.jsonl")}
        for engine in ENGINES:
            old, new = captured["pinned"].get(engine), captured["canary"].get(engine)
            if old is None or new is None:
                lines.append(f"{engine}: no stream captured ({'pinned' if old is None else 'canary'} CLI)")
                continue
            a = _kinds([json.loads(x) for x in old.read_text().splitlines() if x.strip()])
            b = _kinds([json.loads(x) for x in new.read_text().splitlines() if x.strip()])
            for what in a:
                added, dropped = sorted(b[what] - a[what]), sorted(a[what] - b[what])
                if added or dropped:
                    change = ", ".join([*(f"+{x}" for x in added), *(f"-{x}" for x in dropped)])
                    lines.append(f"{engine} {old.stem.rpartition('-')[2]} -> {new.stem.rpartition('-')[2]}: "
                                 f"{what} {change}")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=Path, required=True, help="the canary's EVALENS_TOOLS_DIR")
    parser.add_argument("--pinned-junit", type=Path, help="the pinned track's JUnit XML (its column)")
    parser.add_argument(
        "--out", type=Path, default=REPO / ".ci-out", help="where the canary's JUnit XML goes"
    )
    parser.add_argument("--modules", nargs="*", default=list(MODULES))
    args = parser.parse_args(argv)
    modules = tuple(args.modules)
    pinned = {e: _version(None, e) for e in ENGINES}
    canary = {e: _version(args.tools, e) for e in ENGINES}
    same = pinned == canary
    strict = os.environ.get("EVALENS_CANARY_STRICT") == "1"
    junit = args.out / "canary.xml"
    args.out.mkdir(parents=True, exist_ok=True)
    if "not installed" in canary.values():
        print(f"canary: not run, the newest CLIs did not install ({canary})")
        return 1 if strict else 0
    if same and os.environ.get("EVALENS_CANARY_FORCE") != "1":
        print(f"canary: the registry's newest CLIs are the pins ({pinned}); the pinned track ran them")
        results = {m: ("= pinned", "same versions") for m in modules}
    else:
        env = {**os.environ, "EVALENS_TOOLS_DIR": str(args.tools)}
        for var in ("EVALENS_CLAUDE_BIN", "EVALENS_CODEX_BIN"):
            env.pop(var, None)
        paths = [f"tests/runner/{m}.py" for m in modules]
        pytest = [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "auto",
            "--maxprocesses=2",
            "-q",
            "-p",
            "no:cacheprovider",
        ]
        subprocess.run([*pytest, f"--junit-xml={junit}", *paths], env=env, cwd=REPO)
        results = _results(junit, modules)
    base = (
        _results(args.pinned_junit, modules) if args.pinned_junit else {m: ("not run", "") for m in modules}
    )
    label = {
        t: ", ".join(f"{e} {v}" for e, v in vs.items()) for t, vs in (("pinned", pinned), ("canary", canary))
    }
    print(f"\ncanary table (pinned: {label['pinned']}; canary: {label['canary']})")
    print("| test module | pinned | canary | why |\n|---|---|---|---|")
    for m in modules:
        (ps, pw), (cs, cw) = base[m], results[m]
        why = "; ".join(w for w in (f"pinned: {pw}" if pw and ps == "fail" else "", cw) if w)
        print(f"| {m} | {ps} | {cs} | {why} |")
    failed = [m for m in modules if results[m][0] == "fail"]
    if not same:
        for line in what_changed(None, args.tools):
            print(f"canary: what changed: {line}")
    if failed:
        # a CLI change only where the pinned track passed the module; failing on both is the pinned track's own
        # failure (CI has failed on it already), and without a pinned result nothing can be said either way
        changed = [m for m in failed if base[m][0] == "pass"]
        both = [m for m in failed if base[m][0] == "fail"]
        unknown = [m for m in failed if base[m][0] not in ("pass", "fail")]
        policy = (
            "this fails CI (EVALENS_CANARY_STRICT=1)"
            if strict
            else "reported, CI not failed (docs/cli-tracks.md)"
        )
        if changed:
            print(
                f"canary: FAILED on {label['canary']} and not on the pins: {', '.join(changed)}: a CLI change; {policy}"
            )
        if both:
            print(
                f"canary: failing on both tracks (the pinned track's failure, not a CLI change): {', '.join(both)}"
            )
        if unknown:
            print(f"canary: FAILED on {label['canary']}: {', '.join(unknown)}; no pinned result to compare with "
                  f"(--pinned-junit), so not called a CLI change; {policy}")  # fmt: skip
        return 1 if strict else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
