"""A hostile agent against the real sandbox: a scripted model makes the real `claude` (and `codex`) CLI run escape
attempts (sandbox_attacks.py) under `evalens eval`, run by root and by an unprivileged user.

Each run checks the agent's own report of every attempt *and* the host side: no file written, no connection
accepted, no canary in any model request, a report that stays small, a runner whose memory stays small.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from pathlib import Path

import pytest

from tests.conftest import WORKER
from tests.fakemodel import FakeModelServer
from tests.runner import sandbox_attacks as sa
from tests.runner.runner_helpers import agents_available, case, make_package, surviving

# attacks that write into every reachable /proc/*/fd/1 and floods: no agent test beside them
pytestmark = [pytest.mark.agents, pytest.mark.alone]

UNPRIVILEGED_UID = int(os.environ.get("EVALENS_TEST_UID", "54321"))
CAPTURE_MB = 2  # EVALENS_MAX_OUTPUT_MB for these runs
FLOOD_MB = 20  # printed through the agent's shell tool (and poured at every reachable stdout)
TEXT_MB = 3  # the model's own reply: Claude prints it twice, well past the capture limit
RSS_LIMIT_KB = 250_000


def _reachable(path: Path) -> bool:
    """Any uid can search every folder above ``path`` and read it (mode bits)."""
    for parent in reversed(path.parents):
        if not os.stat(parent).st_mode & 0o001:
            return False
    return bool(os.stat(path).st_mode & 0o004)


def _interpreter() -> str | None:
    """A Python the unprivileged user can execute with this interpreter's version (a venv may point into /root)."""
    if _reachable(Path(sys.executable).resolve()):
        return sys.executable
    found = shutil.which(
        f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/local/bin:/usr/bin"
    )
    return found if found and _reachable(Path(found).resolve()) else None


BOOT = (
    "import site, sys\nfor d in {dirs!r}: site.addsitedir(d)\nsys.path[:0] = {front!r}\n"
    "from evalens.cli import main\nsys.exit(main(sys.argv[1:]))"
)


def _readable_lib(target: Path) -> list[str]:
    """A copy of what ``evalens`` imports from site-packages, in a folder any uid can read.

    Needed when this interpreter's site-packages sits under a private home (pyenv in /root): the unprivileged
    runner could not import its dependencies, nor the editable install's package-dir mapping. The dependencies
    are copied once per machine and appear whole (renamed into place); evalens itself is copied per pytest
    process (``WORKER``), so a parallel worker never replaces it under a running runner.
    """
    if not (target / ".dependencies-copied").exists():  # the dependencies are copied once per machine
        _copy_dependencies(target)
    repo = Path(__file__).resolve().parents[2]
    own = target.with_name(f"{target.name}-evalens-{WORKER}")
    # evalens itself is copied afresh every time: a copy left by an older checkout would test old code
    mapping = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    shutil.rmtree(own, ignore_errors=True)
    shutil.copytree(repo / mapping["evalens"], own / "evalens")
    for package, folder in mapping.items():
        parts = package.split(".")
        if len(parts) == 2:  # evalens.runner -> runner/ (deeper packages follow their parent's folder)
            link = own / "evalens" / parts[1]
            shutil.rmtree(link, ignore_errors=True)
            link.symlink_to(repo / folder, target_is_directory=True)
    _readable_by_all(own)
    return [str(own), str(target)]


def _copy_dependencies(target: Path) -> None:
    """evalens's runtime requirements (transitively, no extras), copied beside ``target`` and renamed into place:
    a worker that loses the race drops its copy and uses the winner's."""
    from importlib import metadata

    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = ["evalens"]
    while todo:
        dist = metadata.distribution(todo.pop())
        for spec in dist.requires or []:
            req = Requirement(spec)
            name = req.name.lower().replace("_", "-")
            if name not in seen and (req.marker is None or req.marker.evaluate({"extra": ""})):
                seen.add(name)
                todo.append(name)
    staging = target.with_name(f"{target.name}.{os.getpid()}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in sorted(seen):
        dist = metadata.distribution(name)
        for file in dist.files or []:
            source = Path(str(dist.locate_file(file)))
            if file.parts[0] == ".." or not source.is_file():
                continue  # console scripts outside site-packages
            (staging / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, staging / file)
    (staging / ".dependencies-copied").touch()
    _readable_by_all(staging)
    if target.exists() and not (target / ".dependencies-copied").exists():
        shutil.rmtree(target, ignore_errors=True)  # a copy an interrupted run left half done
    try:
        staging.rename(target)
    except OSError:  # another worker's copy is already in place
        shutil.rmtree(staging, ignore_errors=True)


def _readable_by_all(root: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full):
                os.chmod(full, os.stat(full).st_mode | 0o444)


def evalens_command(who: str, workdir: Path) -> list[str]:
    """The argv prefix that starts ``evalens`` as root or as an unprivileged user."""
    repo = str(Path(__file__).resolve().parents[2])
    if who == "root":
        if os.geteuid() != 0:
            pytest.skip("the root runner needs root")
        return [sys.executable, "-m", "evalens"]
    if os.geteuid() != 0:
        return [sys.executable, "-m", "evalens"]  # already unprivileged
    interp = _interpreter()
    if interp is None or not shutil.which("setpriv"):
        pytest.skip("no Python interpreter (or setpriv) the unprivileged user can run")
    for dirpath, dirnames, filenames in os.walk(workdir):
        for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
            os.lchown(name, UNPRIVILEGED_UID, UNPRIVILEGED_UID)
    if all(_reachable(Path(d)) for d in site.getsitepackages()):
        boot = BOOT.format(dirs=site.getsitepackages(), front=[repo])
    else:
        boot = BOOT.format(dirs=[], front=_readable_lib(workdir.parent / "pylib"))
    return [
        "setpriv",
        f"--reuid={UNPRIVILEGED_UID}",
        f"--regid={UNPRIVILEGED_UID}",
        "--clear-groups",
        "--",
        interp,
        "-c",
        boot,
    ]


def run_watched(
    argv: list[str], env: dict[str, str], timeout: float
) -> tuple[subprocess.CompletedProcess, int]:
    """Run ``argv`` and sample the runner's peak RSS (VmHWM, kB) until it exits."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            try:
                for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak[0] = max(peak[0], int(line.split()[1]))
            except OSError:
                pass
            time.sleep(0.05)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    out, err = proc.communicate(timeout=timeout)
    watcher.join(timeout=5)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), peak[0]


@pytest.fixture(scope="module")
def arena() -> sa.Arena:
    base = Path("/var/tmp/evalens-tests") / f"attacks-{uuid.uuid4().hex[:8]}"
    base.mkdir(parents=True)
    base.chmod(0o755)
    arena = sa.new_arena(base)
    yield arena
    arena.stop()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def attack_model(arena: sa.Arena) -> FakeModelServer:
    with FakeModelServer(
        log_dir=arena.root.parent / "model-log",
        idle_timeout=600,
        scenarios=sa.scenarios(arena, FLOOD_MB, TEXT_MB),
    ) as fake:
        yield fake


def _package(root: Path, engine: str, arena: sa.Arena, full: bool) -> Path:
    cases = {
        "probe": case(
            "attack-probe",
            contains=["PROBE-END", "REMOUNT=DENIED", "HOSTSOCK=BLOCKED", "ABSSOCK=BLOCKED"],
            not_contains=["=OK", "=OPEN", arena.canary, "HOST-SECRET"],
        ),
        "forge": case("attack-forge", agent_blocked=True),
        "text-flood": case("attack-text-flood", contains=["yyyy"]),
    }
    if full:
        cases["flood"] = case("attack-flood", contains=["flooded"])
        cases["fixture-link"] = {**case("pass"), "input": {"prompt": "SCENARIO=pass", "files": ["linked"]}}
        cases["fixture-dot"] = {**case("pass"), "input": {"prompt": "SCENARIO=pass", "files": ["."]}}
    pkg = make_package(root, engine=engine, cases=cases, timeout=120)
    (pkg / "evals" / "linked").mkdir()
    (pkg / "evals" / "linked" / "ok.txt").write_text("inside\n")
    (pkg / "evals" / "linked" / "leak.txt").symlink_to(arena.root / "outside-secret.txt")
    (pkg / "evals" / "escape").symlink_to(arena.root / "outside-dir")
    return pkg


EXPECTED = {
    "probe": "PASS",
    "forge": "FAIL",
    "text-flood": "ERROR",
    "flood": "PASS",
    "fixture-link": "ERROR",
    "fixture-dot": "ERROR",
}


MATRIX = [("claude-code", "root"), ("claude-code", "unprivileged"), ("codex", "root")]
if os.environ.get("EVALENS_TEST_FULL_MATRIX") == "1":  # the fourth pairing, left out to keep the suite short
    MATRIX.append(("codex", "unprivileged"))


@pytest.mark.parametrize(("engine", "who"), MATRIX)
def test_hostile_agent_is_contained(
    engine: str, who: str, arena: sa.Arena, attack_model: FakeModelServer
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed")
    from evalens.runner.sandbox import bubblewrap_usable

    if not bubblewrap_usable():
        pytest.skip("bubblewrap cannot create user namespaces here")
    work = arena.root.parent / f"{engine}-{who}"
    (work / "sandboxes").mkdir(parents=True)
    (work / "home").mkdir()
    full = engine == "claude-code" and who == "root"
    pkg = _package(work / "pkg", engine, arena, full)
    prefix = evalens_command(who, work)
    env = {
        **os.environ,
        "EVALENS_SANDBOX_DIR": str(work / "sandboxes"),
        "EVALENS_MAX_OUTPUT_MB": str(CAPTURE_MB),
        "HOME": str(work / "home"),
        "ANTHROPIC_BASE_URL": attack_model.anthropic_base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "OPENAI_BASE_URL": attack_model.openai_base_url,
        "OPENAI_API_KEY": "test-key",
    }
    argv = [*prefix, "eval", "--package", str(pkg), "--no-judge", "--json", "--jobs", "3"]
    if engine == "codex":
        argv += ["--model", "gpt-fake"]
    out, peak_kb = run_watched(argv, env, timeout=300)
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    report = json.loads(out.stdout)
    verdicts = {c["name"]: c["verdict"] for c in report["cases"]}
    assert verdicts == {n: v for n, v in EXPECTED.items() if n in verdicts} and len(verdicts) == (
        6 if full else 3
    ), {c["name"]: (c["verdict"], c.get("error")) for c in report["cases"]}
    by_name = {c["name"]: c for c in report["cases"]}
    reports_dir = pkg / "evals" / "reports"
    artifacts = {n: reports_dir / c["artifacts"] for n, c in by_name.items() if c.get("artifacts")}

    # Every escape attempt was refused, as the agent itself saw it.
    probe = json.loads((artifacts["probe"] / "transcript.json").read_text())["transcript"]["output"]
    outcomes = sa.outcomes(probe)
    print(f"\n{engine} as {who}: " + " ".join(f"{k}={v}" for k, v in outcomes.items()))
    assert outcomes["UID"] == "1000" and outcomes["CAPEFF"] == "0000000000000000"
    assert {k: v for k, v in outcomes.items() if k.startswith(("WRITE:", "READ:"))} and all(
        v == "DENIED" for k, v in outcomes.items() if k.startswith(("WRITE:", "READ:", "REMOUNT", "MOUNT"))
    )
    # the bridge is the only socket from outside; Claude Code 2.1.332 and later also listen on their own messaging
    # socket (init's messaging_socket_path, /tmp/cc-socks/<pid>.sock), made in the sandbox's private /tmp
    sockets = [
        s
        for s in outcomes["SOCKETS"].split(",")
        if s and not re.fullmatch(r"/tmp/cc-socks(-\d+)?/\d+\.sock", s)
    ]
    assert sockets == ["/run/evalens/model-0.sock"], outcomes["SOCKETS"]
    assert not {"root", "home"} & set(outcomes["ROOTDIR"].split(","))

    # And the host agrees: nothing written, no connection, no secret sent to the model.
    assert arena.escapes() == [] and arena.accepted == []
    bodies = "".join(
        p.read_text(errors="replace") for p in (arena.root.parent / "model-log").glob("*-body.json")
    )
    assert "HOST-SECRET" not in bodies and f"_authToken={arena.canary}" not in bodies
    assert "outside the package" not in bodies and f"loot {arena.canary}" not in bodies

    # A forged hook_response never reaches the event stream the runner parses.
    events = [
        json.loads(line)
        for line in (artifacts["forge"] / "events.jsonl").read_text().splitlines()
        if line.startswith("{")
    ]
    hooks = [e for e in events if e.get("subtype") == "hook_response"]
    assert not [e for e in hooks if e.get("stderr") == "FORGED" or e.get("exit_code") == 2]
    assert [c["kind"] for c in by_name["forge"]["checks"] if c["status"] == "FAIL"] == ["agent_blocked"]

    # Output is bounded while it streams: an honest ERROR, a small report folder, a small runner.
    flood = by_name["text-flood"]
    assert flood["verdict"] == "ERROR", flood
    flood_record = json.loads((artifacts["text-flood"] / "transcript.json").read_text())
    printed = flood_record["output_bytes"].get("stdout", 0)
    # The capture limit must cut the stream whenever the CLI printed past it. Claude Code has been seen (under
    # load, and in cgroups: bd2da11) to exit without printing the end of its 6 MB reply; then the run is ERROR
    # for the missing result event, and there was nothing past the limit to cut in this run.
    cli_lost_its_reply = printed <= CAPTURE_MB << 20 and "no result event" in flood["error"]
    if not cli_lost_its_reply:
        assert "truncated" in flood["error"], (flood["error"], printed)
    if full:
        assert (
            "link out" in by_name["fixture-link"]["error"] and "link out" in by_name["fixture-dot"]["error"]
        )
    size = sum(p.stat().st_size for p in reports_dir.rglob("*") if p.is_file())
    assert size < 4 * CAPTURE_MB << 20, f"{size} bytes copied into evals/reports/"
    assert peak_kb < RSS_LIMIT_KB, f"runner peak RSS {peak_kb} kB"
    print(f"runner peak RSS {peak_kb} kB, reports {size} bytes")

    # Nothing left behind.
    assert list((work / "sandboxes").iterdir()) == []
    assert surviving(arena.canary) == []
    if cli_lost_its_reply:
        pytest.xfail(
            f"{engine} printed {printed} bytes of its text flood and no result event (the CLI's own loss): "
            "the capture limit was not reached in this run"
        )
