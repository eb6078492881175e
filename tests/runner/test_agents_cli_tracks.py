"""Replay across the calendar and across CLI versions, on the real CLIs (issue 40 item 3; docs/cli-tracks.md).

* A cassette recorded in one month replays in another: the CLI's own clock is moved with libfaketime (installed by
  ``.ci/install-agents.sh``), through a wrapper given as the engine's binary (``EVALENS_CLAUDE_BIN``), since the
  sandbox strips loader variables from what an eval file sets. Claude Code only: its native binary is dynamically
  linked, while Codex's is a static musl binary that ``LD_PRELOAD`` cannot reach (its date is the ISO
  ``<current_date>`` of its environment block, which the canonical form's unit tests cover).
* The committed cassettes, recorded on the pinned CLIs (``tests/data/cassettes/versions.json``), replay on the CLI
  installed here. On the pinned track that is the committed-cassettes test itself, so this one runs on the canary
  track (``.ci/run`` points ``EVALENS_TOOLS_DIR`` at the newest CLIs): a divergence fails it with the first
  differing request, which is what a CLI release changed in its requests.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from evalens.runner.engines import get_engine
from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available, write_script
from tests.runner.test_agents_committed_cassettes import DATA, VERSIONS, _closed_port, _env, _uaaps

pytestmark = pytest.mark.agents

FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
RECORDED_AT, REPLAYED_AT = "2026-11-20 10:00:00", "2027-01-04 09:00:00"  # two months, and a year, apart


def _clock_wrapper(real: Path, when: str) -> str:
    """The CLI started with its clock at ``when`` (ticking from there), for every process it starts too."""
    return (
        "#!/bin/sh\n"
        f"LD_PRELOAD={FAKETIME} FAKETIME='@{when}' FAKETIME_DONT_RESET=1\n"
        "export LD_PRELOAD FAKETIME FAKETIME_DONT_RESET\n"
        f'exec {real} "$@"\n'
    )


def _wrapper_path(real: Path) -> Path:
    """Beside the real CLI, inside its outermost ``node_modules``: the sandbox shows that folder whole to the agent
    (``bwrap.install_roots``), so the wrapper can run the real binary there."""
    modules = [p for p in real.parents if p.name == "node_modules"]
    if not modules:
        pytest.skip(f"{real} is not an npm install: the sandbox would not show it beside a wrapper")
    return modules[-1] / f".evalens-faketime-{uuid.uuid4().hex[:8]}" / "claude"


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["verdict"] for c in report["cases"]}


def _turn_months(pkg: Path) -> set[str]:
    """The months of the turns' timestamps in the newest report's run records: the CLI's own clock."""
    # lazy: the run-record reader loads the runner's models, which collection must not pay for
    from evalens.runner.record import records_for

    newest = max((pkg / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    months: set[str] = set()
    for case in json.loads(newest.read_text())["cases"]:
        for _, record in records_for(newest, case.get("artifacts")):
            assert record is not None, case["name"]
            months |= {t.started_at[:7] for t in record.turns if t.started_at}
    return months


def test_a_cassette_recorded_in_november_replays_in_january(
    tmp_path: Path, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recorded with the CLI's clock on 20 November 2026 (its system prompt says so), replayed strictly with the
    clock on 4 January 2027 and nothing listening: the recorded verdicts, every request from the cassette, and the
    turns' own timestamps show the CLI really ran in each month."""
    if not agents_available("claude-code"):
        pytest.skip("claude-code CLI not installed (run .ci/install-agents.sh)")
    if not FAKETIME.is_file():
        pytest.fail(f"{FAKETIME} is missing: .ci/install-agents.sh installs it (apt-get install faketime)")
    real = get_engine("claude-code").binary.resolve()
    wrapper = _wrapper_path(real)
    wrapper.parent.mkdir()
    try:
        write_script(wrapper, _clock_wrapper(real, RECORDED_AT))
        monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(wrapper))
        pkg = tmp_path / "package"
        shutil.copytree(DATA / "uaaps" / "package", pkg)
        with FakeModelServer(log_dir=tmp_path / "fake-log") as fake:
            recorded = _uaaps(pkg, "claude-code", _env(fake.port, keys=True), "--record")
        sent = "\n".join(p.read_text() for p in (tmp_path / "fake-log").glob("*-body.json"))
        # the system prompt says the day ("Today's date is 2026-11-20."; some builds also "the current month is
        # November 2026"); the cassette keeps neither, only the placeholder
        assert "Today's date is 2026-11-20" in sent, "the CLI did not run with the moved clock"
        assert _turn_months(pkg) == {"2026-11"}
        cassettes = [p.read_text() for p in (pkg / "evals" / "cassettes").glob("*.json")]
        assert cassettes and all("Today's date is <date>" in c for c in cassettes)
        assert not any("2026-11-20" in c or "November 2026" in c for c in cassettes)

        write_script(wrapper, _clock_wrapper(real, REPLAYED_AT))
        replayed = _uaaps(pkg, "claude-code", _env(_closed_port(), keys=False), "--replay")
        for case in replayed["cases"]:
            r = case["replay"]
            assert r["replayed"] and not r.get("diverged") and r["live_requests"] == 0, (case["name"], r)
        assert _verdicts(replayed) == _verdicts(recorded) == {"greet": "PASS", "no-file": "FAIL"}
        assert _turn_months(pkg) == {"2027-01"}
    finally:
        shutil.rmtree(wrapper.parent, ignore_errors=True)


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_the_committed_cassettes_replay_on_this_cli_version(
    engine: str, tmp_path: Path, sandbox_dir: Path
) -> None:
    """The UAAPS cassettes committed for the pinned CLI, replayed strictly on the CLI installed here: the recorded
    verdicts with no live request, each case saying which versions recorded and replayed it; a divergence fails
    with the first request the newer CLI sends differently and the difference."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    recorded = json.loads(VERSIONS.read_text())[engine]
    installed = get_engine(engine).version()
    if installed == recorded:
        pytest.skip(
            f"{engine} {installed} recorded the committed cassettes (the pinned track, where "
            "test_agents_committed_cassettes replays them); the canary track replays them on the newest CLI"
        )
    pkg = tmp_path / "package"
    shutil.copytree(DATA / "uaaps" / "package", pkg)
    shutil.copytree(DATA / "uaaps" / engine, pkg / "evals" / "cassettes")
    report = _uaaps(pkg, engine, _env(_closed_port(), keys=False), "--replay")
    for case in report["cases"]:
        r = case["replay"]
        assert r.get("cli_changed") == f"recorded with {recorded}, replayed on {installed}", r
        assert not r.get("diverged"), (
            f"{engine}: cassettes recorded on {recorded} do not replay on {installed}: {r['diverged']}"
        )
        assert r["replayed"] and r["live_requests"] == 0, r
    assert _verdicts(report) == {"greet": "PASS", "no-file": "FAIL"}
