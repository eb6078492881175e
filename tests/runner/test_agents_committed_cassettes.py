"""The project's own tests replay committed cassettes (issue 24 item 6): no fake model server, no key.

``tests/data/cassettes/`` holds a UAAPS package (``uaaps/package``: ``greet`` passes, ``no-file`` fails its
``files-created`` check) and a skill-creator skill (``skill-creator/greeting``), and for each CLI the cassettes
the scripted fake (``tests/fakemodel``) gave when they were recorded (``uaaps/<engine>/``,
``skill-creator/<engine>/``). A cassette holds the CLI's own system prompt and tool list, so it is good for the
CLI version it was recorded with (``versions.json``; the versions ``.ci/install-agents.sh`` pins).

Re-record (after a CLI upgrade, or a change of the packages or the fake)::

    EVALENS_RECORD_CASSETTES=1 python3 -m pytest tests/runner/test_agents_committed_cassettes.py -m agents

which records each against the fake, writes the cassettes and ``versions.json`` here, then replays them.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available, run_evalens

pytestmark = pytest.mark.agents

DATA = Path(__file__).resolve().parents[1] / "data" / "cassettes"
VERSIONS = DATA / "versions.json"
RECORD = os.environ.get("EVALENS_RECORD_CASSETTES") == "1"
MODEL = {"claude-code": [], "codex": ["--model", "gpt-5-codex"]}
JUDGE = "claude-sonnet-4-6"  # pinned: the judge's request is on the tape, whatever the default judge becomes
# what the runs must not inherit from the developer's shell: endpoints and keys (a replay needs neither)
SCRUBBED = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY")


def _closed_port() -> int:
    """A local port where nothing listens (the endpoints point there: a request that escaped would fail)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(port: int, *, keys: bool) -> dict[str, str]:
    base = f"http://127.0.0.1:{port}"
    env = {"ANTHROPIC_BASE_URL": base, "OPENAI_BASE_URL": base + "/v1", "EVALENS_AGENT_RETRIES": "0"}
    if keys:  # recording against the fake: any key will do
        env.update({"ANTHROPIC_API_KEY": "fake-anthropic-key", "OPENAI_API_KEY": "fake-openai-key"})
    return env


def _run(*args: str, env: dict[str, str]) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    proc = run_evalens(*args, env={**clean, **env})
    assert proc.returncode in (0, 1), (proc.stdout + proc.stderr)[-3000:]


def _newest_report(root: Path) -> dict[str, Any]:
    """The newest evalens report under ``root``; each case's run record must carry the run's replay note (the
    UAAPS driver and the file suites write records on different paths)."""
    from evalens.runner.record import records_for

    newest = max((root / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    report = json.loads(newest.read_text())
    for case in report["cases"]:
        [(_, record)] = records_for(newest, case.get("artifacts"))
        assert record is not None and record.replay is not None, case["name"]
        assert record.replay.model_dump(mode="json", exclude_none=True) == case["replay"], (
            case["name"],
            record.replay,
        )
    return report


def _uaaps(pkg: Path, engine: str, env: dict[str, str], mode: str) -> dict[str, Any]:
    _run("eval", "--package", str(pkg), "--engine", engine, *MODEL[engine], "--judge", f"anthropic:{JUDGE}",
         mode, env=env)  # fmt: skip
    return _newest_report(pkg)


def _creator(skill: Path, engine: str, env: dict[str, str], mode: str, out: Path) -> dict[str, Any]:
    _run("run", str(skill / "evals" / "evals.json"), "--engine", engine, *MODEL[engine], "--judge-model", JUDGE,
         "--runs", "1", "--output-dir", str(out), mode, env=env)  # fmt: skip
    return _newest_report(skill)


def _check_version(engine: str) -> None:
    from evalens.runner.engines import get_engine

    installed = get_engine(engine).version()
    recorded = json.loads(VERSIONS.read_text()).get(engine) if VERSIONS.is_file() else None
    assert installed == recorded, (
        f"the committed {engine} cassettes were recorded with {recorded!r}, this {engine} is {installed!r}: "
        "install the pinned CLI (.ci/install-agents.sh) or record again (EVALENS_RECORD_CASSETTES=1, see "
        "docs/replay.md)"
    )


def _record(engine: str, tmp: Path) -> None:
    """Record both fixtures against the fake and write their cassettes and the CLI's version here."""
    from evalens.runner.engines import get_engine

    pkg, skill = tmp / "rec" / "package", tmp / "rec" / "greeting"
    shutil.copytree(DATA / "uaaps" / "package", pkg)
    shutil.copytree(DATA / "skill-creator" / "greeting", skill)
    with FakeModelServer(log_dir=tmp / "fake-log") as fake:
        env = _env(fake.port, keys=True)
        _uaaps(pkg, engine, env, "--record")
        _creator(skill, engine, env, "--record", tmp / "rec-out")
    for src, dest in (
        (pkg / "evals" / "cassettes", DATA / "uaaps" / engine),
        (skill / "evals" / "cassettes" / "evals-evals", DATA / "skill-creator" / engine),
    ):
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest)
    versions = json.loads(VERSIONS.read_text()) if VERSIONS.is_file() else {}
    versions[engine] = get_engine(engine).version()
    VERSIONS.write_text(json.dumps(versions, indent=1, sort_keys=True) + "\n")


def _replayed(case: dict[str, Any]) -> tuple[str, int, int]:
    r = case["replay"]
    # recorded and replayed on the pinned CLI: a replay never says it ran on another version
    assert r["mode"] == "strict" and r["replayed"] and not r.get("diverged") and not r.get("cli_changed"), r
    return case["verdict"], r["requests"], r["live_requests"]


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_committed_cassettes_replay_with_no_model_server_and_no_key(
    engine: str, tmp_path: Path, sandbox_dir: Path
) -> None:
    """A UAAPS package (one PASS, one FAIL) and a skill-creator eval replay from the committed cassettes with
    nothing listening at the model endpoints and no key: the recorded verdicts, every request from a cassette,
    and each run record saying so as its report case does."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    if RECORD:
        _record(engine, tmp_path)
    _check_version(engine)
    pkg, skill = tmp_path / "package", tmp_path / "greeting"
    shutil.copytree(DATA / "uaaps" / "package", pkg)
    shutil.copytree(DATA / "uaaps" / engine, pkg / "evals" / "cassettes")
    shutil.copytree(DATA / "skill-creator" / "greeting", skill)
    shutil.copytree(DATA / "skill-creator" / engine, skill / "evals" / "cassettes" / "evals-evals")
    env = _env(_closed_port(), keys=False)

    cases = {c["name"]: _replayed(c) for c in _uaaps(pkg, engine, env, "--replay")["cases"]}
    assert {n: v for n, (v, _, _) in cases.items()} == {"greet": "PASS", "no-file": "FAIL"}, cases
    assert all(requests > 0 and live == 0 for _, requests, live in cases.values()), cases
    [unit] = _creator(skill, engine, env, "--replay", tmp_path / "out")["cases"]
    verdict, requests, live = _replayed(unit)
    assert (verdict, live) == ("PASS", 0) and requests > 0, unit
    print(f"{engine}: committed cassettes replayed, {cases} and skill-creator {requests} requests, 0 live")
