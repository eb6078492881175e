"""Run-lens benchmark: click → first agent event → verdict, through the real server, the real CLIs and the
scripted fake model (issue #45 item 9: every run spent ~4 s in "starting: planning" before the agent started).

An editor's click on `▶ Run eval` is a ``workspace/executeCommand`` with the lens's own command and arguments; this
script starts ``evalens lsp`` over stdio as VS Code would (its client capabilities, work-done progress), opens one
UAAPS case of a copy of ``examples/pdf-tools``, asks for its lenses and executes the Run lens, then timestamps on
arrival what the server reports about that run:

* ``planning``: the ``starting: planning`` progress report (the server has the command and begins);
* ``sandbox``: the runner's first ``sandbox`` stage (the plan is made, the sandbox is being built);
* ``agent``: the first ``agent`` stage report (the CLI's process is launched): **the first agent event**;
* ``turn``: the first ``evalens/runTurn`` (the agent's own first event read from its stream);
* ``verdict``: ``evalens/verdictChanged`` for the case (checks and judge included: nothing is skipped).

Each engine gets ``--servers`` fresh servers and ``--runs`` clicks per server, and a probe cache of its own
(``EVALENS_CACHE_DIR``, ``runner/probe_cache.py``), empty at the start: ``first`` is server 1's first click (the
first run ever on this machine: every probe made), ``cold`` the first click of each later server (an editor
restarted: the run machinery's imports included), ``warm`` every later click. The CLI's own
start-up against the same fake model (``claude -p`` / ``codex exec``, no evalens, no sandbox) is measured apart
as the floor evalens cannot cut.

    python benchmarks/run_lens_bench.py [--engines claude-code,codex] [--servers 5] [--runs 2] [--json OUT]
    python benchmarks/run_lens_bench.py --against REV   # REV's servers take turns with this checkout's

``--against`` runs the server from ``git archive REV`` (on ``PYTHONPATH``), so a before/after comparison is made
under the same load, which on a shared machine moves every figure more than most changes do.

Target (issue #45): click → first agent event ≤ 1.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from lsp_bench import machine_load  # noqa: E402 - beside this script

from tests.server.run_fixtures import PASS_CASE, plain  # noqa: E402 - the Run lens tests' own case

EXAMPLE_PKG = ROOT / "examples" / "pdf-tools"
FAKE = ROOT / "tests" / "fakemodel" / "server.py"
TIMEOUT = 120.0
TARGET_FIRST_EVENT_S = 1.5
UNITS = ("greet", "bench-task")  # the one unit of each eval file (not a whole file's `*`)
STAGES = ("planning", "sandbox", "agent", "turn", "verdict")

SKILL_MD = "---\nname: greeting\ndescription: Greets the user.\n---\nSay hi.\n"
TASKS = """\
skill: greeting
tasks:
  - id: bench-task
    prompt: "What is an email? SCENARIO=done"
    expected_skill_load: none
    deterministic: { expect_skill_activation: false }
"""


@dataclass
class Click:
    """What one click's run reported, in seconds after the executeCommand was sent."""

    at: dict[str, float] = field(default_factory=dict)
    messages: list[tuple[float, str]] = field(default_factory=list)
    verdict: str | None = None
    t0: float = 0.0

    def mark(self, stage: str) -> None:
        self.at.setdefault(stage, time.perf_counter() - self.t0)


class BenchClient(LanguageClient):
    """A pygls client that answers the server's requests and timestamps the run's progress and notifications."""

    def __init__(self, settings: dict[str, Any]) -> None:
        super().__init__("evalens-run-bench", "1.0")
        self.settings = settings  # the evalens settings, as initializationOptions and workspace/configuration
        self.click: Click | None = None
        self.verdict_future: asyncio.Future | None = None

        @self.feature(types.PROGRESS)
        def _progress(params: Any) -> None:
            value = plain(getattr(params, "value", None)) or {}
            message = value.get("message") if isinstance(value, dict) else None
            if self.click is None or not message:
                return
            self.click.messages.append((time.perf_counter() - self.click.t0, message))
            stage = message.split(":", 1)[0]
            if message.startswith(("starting: planning", "agent: running the agent")):
                self.click.mark(
                    "planning"
                )  # a file format's run says "agent" before it plans: not an agent event
            elif stage in ("sandbox", "agent"):
                self.click.mark(stage)

        @self.feature("evalens/runTurn")
        def _turn(params: Any) -> None:
            if self.click is not None:
                self.click.mark("turn")

        @self.feature("evalens/verdictChanged")
        def _verdict(params: Any) -> None:
            p = plain(params)
            if self.click is not None and "verdict" not in self.click.at:
                self.click.mark("verdict")
                self.click.verdict = p.get("verdict")
                if self.verdict_future is not None and not self.verdict_future.done():
                    self.verdict_future.set_result(p)

        @self.feature(types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list[Any]:
            return [self.settings if item.section == "evalens" else {} for item in params.items]

        # what the server asks and waits for (progress tokens, watchers, refreshes); its other notifications are
        # dropped by pygls (its "unknown method" warnings are silenced in main)
        for method in (
            types.WINDOW_WORK_DONE_PROGRESS_CREATE,
            types.CLIENT_REGISTER_CAPABILITY,
            types.WORKSPACE_CODE_LENS_REFRESH,
            types.WORKSPACE_DIAGNOSTIC_REFRESH,
        ):
            self.feature(method)(lambda params: None)


def fake_model(work: Path) -> tuple[subprocess.Popen, int]:
    """The scripted model in its own process, so its threads never share the timing client's interpreter."""
    port_file = work / "fake.port"
    proc = subprocess.Popen(
        [sys.executable, str(FAKE), "--port-file", str(port_file), "--idle-timeout", "900"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not (port_file.is_file() and port_file.read_text().strip()):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("the fake model did not start")
        time.sleep(0.05)
    return proc, int(port_file.read_text().strip())


def model_env(port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CODEX_"))}
    env.update(
        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}",
        ANTHROPIC_API_KEY="bench-key-not-real",
        OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1",
        OPENAI_API_KEY="bench-key-not-real",
        EVALENS_AGENT_RETRIES="0",
    )
    return env


def make_package(work: Path, engine: str, fmt: str) -> tuple[Path, Path]:
    """The workspace and the eval file whose Run lens is clicked: a UAAPS case of a copy of the example package,
    or a skilljack ``tasks.yaml`` with one task (the file formats' path: ``run_file`` and the shared session)."""
    if fmt == "skilljack":
        dest = work / f"sj-{engine}" / "suite"
        (dest / "skills" / "greeting").mkdir(parents=True)
        (dest / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
        (dest / "tasks.yaml").write_text(TASKS)
        return dest, dest / "tasks.yaml"
    dest = work / f"pkg-{engine}" / "pdf-tools"
    shutil.copytree(EXAMPLE_PKG, dest, ignore=shutil.ignore_patterns("reports"))
    (dest / "evals" / "reports").mkdir()
    config = json.loads((dest / "evals" / "eval-config.json").read_text())
    config["engine"] = engine
    (dest / "evals" / "eval-config.json").write_text(json.dumps(config, indent=2) + "\n")
    (dest / "evals" / "cases" / "10-bench.yaml").write_text(PASS_CASE)
    return dest, dest / "evals" / "cases" / "10-bench.yaml"


async def one_server(
    pkg: Path, case: Path, engine: str, env: dict[str, str], runs: int, read_seconds: float
) -> list[Click]:
    from pytest_lsp import client_capabilities

    sandboxes = Path(tempfile.mkdtemp(prefix="evb-"))  # short: bridge sockets must fit 108 bytes
    sandboxes.chmod(0o711)
    client = BenchClient({"engine": engine})
    await client.start_io(
        sys.executable,
        "-m",
        "evalens",
        "lsp",
        env={**env, "EVALENS_SANDBOX_DIR": str(sandboxes)},
        cwd=str(pkg),
    )
    clicks: list[Click] = []
    try:
        root_uri = from_fs_path(str(pkg))
        await asyncio.wait_for(
            client.initialize_async(
                types.InitializeParams(
                    capabilities=client_capabilities("visual-studio-code"),
                    process_id=os.getpid(),
                    root_uri=root_uri,
                    workspace_folders=[types.WorkspaceFolder(uri=root_uri, name=pkg.name)],
                    initialization_options={"evalens": client.settings},
                )
            ),
            TIMEOUT,
        )
        client.initialized(types.InitializedParams())
        uri = from_fs_path(str(case))
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="yaml", version=1, text=case.read_text()
                )
            )
        )
        lens = None
        deadline = time.monotonic() + 30
        while lens is None and time.monotonic() < deadline:  # the formats load in a thread after initialize
            found = await client.text_document_code_lens_async(
                types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            lens = next(
                (
                    item
                    for item in found or []
                    if item.command
                    and item.command.command == "evalens.runCase"
                    and not (item.command.arguments or [{}])[0].get("dryRun")
                    and (item.command.arguments or [{}])[0].get("name") in UNITS
                ),
                None,
            )
            if lens is None:
                await asyncio.sleep(0.1)
        if lens is None or lens.command is None:
            raise SystemExit("no Run lens on the case")
        await asyncio.sleep(
            read_seconds
        )  # the start-up scan settles, as a user reads the case before clicking
        for _ in range(runs):
            click = Click()
            client.verdict_future = asyncio.get_running_loop().create_future()
            click.t0 = time.perf_counter()
            client.click = click
            answer = await asyncio.wait_for(
                client.workspace_execute_command_async(
                    types.ExecuteCommandParams(
                        command=lens.command.command, arguments=list(lens.command.arguments)
                    )
                ),
                TIMEOUT,
            )
            click.mark("answer")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(client.verdict_future, 5)
            client.click = None
            verdict = plain(answer).get("verdict") if answer is not None else None
            click.verdict = click.verdict or verdict
            clicks.append(click)
            await asyncio.sleep(0.5)
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_async(None), 10)
            client.exit(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), 10)
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        shutil.rmtree(sandboxes, ignore_errors=True)
    return clicks


def cli_floor(engine: str, env: dict[str, str], work: Path, n: int) -> list[float]:
    """The CLI alone against the fake model, no evalens, no sandbox: spawn → its first model reply in the stream
    (Claude's ``assistant`` message, Codex's first ``item.*``), and spawn → exit; pairs, flattened."""
    from evalens.runner.engines import get_engine

    binary = str(get_engine(engine).binary)
    ws = work / f"floor-{engine}"
    ws.mkdir(exist_ok=True)
    home = work / f"floor-home-{engine}"
    home.mkdir(exist_ok=True)
    prompt = "Say done. SCENARIO=done"
    if engine == "claude-code":
        argv = [binary, "-p", prompt, "--output-format", "stream-json", "--verbose"]
        extra = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    else:
        argv = [binary, "exec", "--json", "--skip-git-repo-check", prompt]  # stdin: /dev/null
        (home / ".codex").mkdir(exist_ok=True)
        (home / ".codex" / "config.toml").write_text(
            'model_provider = "fake"\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{env["OPENAI_BASE_URL"]}"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\n'
        )
        extra = {"CODEX_HOME": str(home / ".codex")}
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            cwd=ws,
            env={**env, "HOME": str(home), **extra},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        assert proc.stdout is not None
        first = None
        for line in proc.stdout:  # the first reply of the model: what evalens forwards as the first turn
            if first is None and (b'"type":"assistant"' in line or b'"type":"item.' in line):
                first = time.perf_counter() - t0
        proc.wait()
        total = time.perf_counter() - t0
        out.append(first if first is not None else float("nan"))
        out.append(total)
    return out


def stats(values: list[float]) -> str:
    vals = [v for v in values if v == v]
    if not vals:
        return "-"
    return f"{statistics.median(vals):.2f} ({min(vals):.2f}-{max(vals):.2f})"


def engine_available(engine: str) -> str | None:
    from evalens.runner.engines import EngineNotFound, get_engine

    try:
        eng = get_engine(engine)
        return eng.version() or "?"
    except EngineNotFound:
        return None


def source_tree(rev: str, work: Path) -> Path:
    """Commit ``rev`` of this repository as an importable tree (``PYTHONPATH``): ``evalens.runner`` and
    ``evalens.server`` are ``runner/`` and ``server/`` (pyproject's package-dir), so they are linked in."""
    dest = work / f"src-{rev}"
    dest.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    for name in ("runner", "server", "schemas"):
        (dest / "evalens" / name).symlink_to(Path("..") / name)
    return dest


def _sides(args: argparse.Namespace, work: Path) -> list[tuple[str, dict[str, str]]]:
    """The trees to measure, each with what its server's environment adds: this checkout, and ``--against``."""
    sides = [("now", {})]
    if args.against:
        tree = source_tree(args.against, work)
        sides.append((args.against, {"PYTHONPATH": str(tree)}))
    return sides


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="evalens-runbench-"))
    fake, port = fake_model(work)
    env = {
        **model_env(port),
        "EVALENS_TOOLS_DIR": str(Path(os.environ.get("EVALENS_TOOLS_DIR", ROOT / ".tools"))),
    }
    results: dict[str, Any] = {"load_before": machine_load(), "format": args.format, "engines": {}}
    try:
        sides = _sides(args, work)
        for engine in args.engines:
            version = engine_available(engine)
            if version is None:
                print(f"{engine}: CLI not installed, skipped", file=sys.stderr)
                continue
            pkg, case = make_package(work, engine, args.format)
            clicks: dict[str, dict[str, list[Click]]] = {}
            for i in range(args.servers):
                for side, extra in sides:  # taking turns: a swing of the machine's load hits both
                    # a cache of its own: the first server's first click is the first ever on this machine
                    cache = {**env, **extra, "EVALENS_CACHE_DIR": str(work / f"cache-{engine}-{side}")}
                    got = await one_server(pkg, case, engine, cache, args.runs, args.read_seconds)
                    kinds = clicks.setdefault(side, {"first": [], "cold": [], "warm": []})
                    kinds["first" if i == 0 else "cold"].append(got[0])
                    kinds["warm"].extend(got[1:])
                    shown = ", ".join(
                        f"{c.verdict} agent {c.at.get('agent', float('nan')):.2f} s verdict "
                        f"{c.at.get('verdict', float('nan')):.2f} s"
                        for c in got
                    )
                    print(f"  {engine} ({side}) server {i + 1}: {shown}", file=sys.stderr)
            floor = cli_floor(engine, env, work, args.floor_runs)
            results["engines"][engine] = {
                "version": version,
                "sides": {
                    side: {
                        **{kind: [c.at for c in found] for kind, found in kinds.items()},
                        "verdicts": [c.verdict for found in kinds.values() for c in found],
                        "messages": [c.messages for c in kinds["cold"][:1] + kinds["warm"][:1]],
                    }
                    for side, kinds in clicks.items()
                },
                "cli_first_event": floor[0::2],
                "cli_total": floor[1::2],
            }
    finally:
        fake.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            fake.wait(5)
        shutil.rmtree(work, ignore_errors=True)
    results["load_after"] = machine_load()
    return results


def report(results: dict[str, Any]) -> bool:
    """The table; False when a click of this checkout missed the target or a verdict was not PASS."""
    ok = True
    print(
        f"machine: {results['load_before']} before, {results['load_after']} after; {results['format']} file"
    )
    header = [
        "engine",
        "tree",
        "clicks",
        "planning",
        "sandbox",
        "agent (first event)",
        "first turn",
        "verdict",
    ]
    header.append("target met")
    rows = []
    for engine, part in results["engines"].items():
        for side, found in part["sides"].items():
            for label in ("first", "cold", "warm"):
                clicks = found[label]
                if not clicks:
                    continue
                agent = [c.get("agent", float("nan")) for c in clicks]
                # a file format's run reports no "agent launched" stage: its first agent event is its first turn
                first = [c.get("agent", c.get("turn", float("nan"))) for c in clicks]
                met = all(a <= TARGET_FIRST_EVENT_S for a in first)
                ok &= met or side != "now"
                rows.append(
                    [
                        f"{engine} {part['version']}",
                        side,
                        f"{label} ×{len(clicks)}",
                        *(stats([c.get(s, float("nan")) for c in clicks]) for s in STAGES[:2]),
                        stats(agent),
                        *(stats([c.get(s, float("nan")) for c in clicks]) for s in STAGES[3:]),
                        "yes" if met else "NO",
                    ]
                )
            bad = [v for v in found["verdicts"] if v != "PASS"]
            if bad:
                ok = False
                print(f"! {engine} ({side}): verdicts other than PASS: {bad}")
        rows.append(
            [
                f"{engine} CLI alone",
                "-",
                f"×{len(part['cli_total'])}",
                "-",
                "-",
                "0 (spawn)",
                stats(part["cli_first_event"]),
                stats(part["cli_total"]) + " (exit)",
                "floor",
            ]
        )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print("seconds after the click: median (min-max)")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="claude-code,codex", type=lambda s: s.split(","))
    parser.add_argument(
        "--servers", type=int, default=5, help="fresh servers per engine (run 1: a first click)"
    )
    parser.add_argument("--runs", type=int, default=2, help="clicks per server")
    parser.add_argument("--floor-runs", type=int, default=5, help="runs of the CLI alone per engine")
    parser.add_argument(
        "--read-seconds", type=float, default=1.0, help="from the Run lens to the first click of a server"
    )
    parser.add_argument(
        "--format",
        choices=("uaaps", "skilljack"),
        default="uaaps",
        help="the eval file: a UAAPS case or tasks.yaml",
    )
    parser.add_argument("--json", type=Path, help="write the raw timings here")
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also measure commit REV, its servers taking turns with this checkout's",
    )
    args = parser.parse_args()
    logging.getLogger("pygls").setLevel(logging.ERROR)  # the server's notifications the client has no use for
    results = asyncio.run(bench(args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if report(results) else 1


if __name__ == "__main__":
    sys.exit(main())
