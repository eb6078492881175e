"""Fixtures for runner tests: the fake model server, scratch packages, and isolated sandbox/env settings."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import install_scripted_claude


@pytest.fixture(scope="session")
def fake_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
    with FakeModelServer(log_dir=tmp_path_factory.mktemp("fakemodel-log"), idle_timeout=900) as server:
        yield server


@pytest.fixture
def sandbox_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private sandbox base (outside /tmp, which Codex and bubblewrap treat specially); must end up empty."""
    base = Path("/var/tmp/evalens-tests") / uuid.uuid4().hex[:10]
    base.mkdir(parents=True)
    monkeypatch.setenv("EVALENS_SANDBOX_DIR", str(base))
    yield base
    import shutil

    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def model_env(fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> FakeModelServer:
    """Point agents and judges at the fake server with dummy keys."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.anthropic_base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_model.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    # Scenarios that answer 5xx test the ERROR verdict of one attempt; retries are tested on their own
    # (test_agents_retries.py), so by default an attempt is not retried here.
    monkeypatch.setenv("EVALENS_AGENT_RETRIES", "0")
    return fake_model


@pytest.fixture
def probe_port() -> Iterator[int]:
    """A host-loopback TCP listener the agent's shell tries to reach in the network tests."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    yield sock.getsockname()[1]
    sock.close()


@pytest.fixture
def runner_work() -> Iterator[Path]:
    """A work folder (``sandboxes/``, ``home/``) outside /tmp that an unprivileged runner user can reach, as the
    tests that run evalens as another user need; removed afterwards."""
    import shutil

    work = Path("/var/tmp/evalens-tests") / f"work-{uuid.uuid4().hex[:10]}"
    (work / "sandboxes").mkdir(parents=True)
    (work / "home").mkdir()
    work.parent.chmod(0o755)
    work.chmod(0o755)
    yield work
    shutil.rmtree(work, ignore_errors=True)


# A `claude` that is a shell script: writes output/result.txt and answers DONE GREETING-OK (or, for a prompt
# holding FAILME, nothing useful) without calling any model: the fast tier's stand-in for the real CLI.
SCRIPTED_CLAUDE = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (scripted)"; exit 0; fi
prompt="$2"
mkdir -p output && echo hello > output/result.txt
case "$prompt" in
  *FAILME*) text="nothing useful" ;;
  *) text="DONE GREETING-OK" ;;
esac
echo '{"type":"system","subtype":"init","model":"scripted-model","session_id":"s-1"}'
echo "{\\"type\\":\\"result\\",\\"subtype\\":\\"success\\",\\"is_error\\":false,\\"result\\":\\"$text\\",\\"session_id\\":\\"s-1\\"}"
"""


@pytest.fixture
def scripted_claude(monkeypatch: pytest.MonkeyPatch, sandbox_dir: Path) -> Iterator[Path]:
    agent = install_scripted_claude(monkeypatch, sandbox_dir, SCRIPTED_CLAUDE)
    yield agent
    agent.unlink(missing_ok=True)
