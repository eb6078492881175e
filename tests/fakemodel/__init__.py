"""The scripted fake model server as a test helper (see ``server.py`` for scenarios and wire details).

Use in-process::

    from tests.fakemodel import FakeModelServer
    with FakeModelServer(log_dir=tmp_path / "model-log") as fake:
        env = {"ANTHROPIC_BASE_URL": fake.anthropic_base_url, "ANTHROPIC_API_KEY": "test"}

or as a pytest fixture (``tests`` is a package; run pytest from the repo root)::

    from tests.fakemodel import fake_model_fixture
    fake_model = fake_model_fixture(scope="session")

or as a separate process with :func:`spawn_fake_model` (what editor e2e tests use).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .server import JUDGE_REPLIES, SCENARIOS, FakeModelServer

SERVER_SCRIPT = Path(__file__).with_name("server.py")

__all__ = [
    "FakeModelServer",
    "JUDGE_REPLIES",
    "SCENARIOS",
    "SERVER_SCRIPT",
    "fake_model_fixture",
    "spawn_fake_model",
]


def fake_model_fixture(scope: str = "session", **options: Any):
    """Return a pytest fixture that yields a started :class:`FakeModelServer` (stopped at teardown)."""
    import pytest

    @pytest.fixture(scope=scope)
    def _fake_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
        log_dir = tmp_path_factory.mktemp("fakemodel-log")
        with FakeModelServer(log_dir=log_dir, **options) as server:
            yield server

    return _fake_model


@contextmanager
def spawn_fake_model(
    work_dir: Path, *extra_args: str, idle_timeout: float = 300.0, startup_timeout: float = 10.0
) -> Iterator[tuple[int, subprocess.Popen]]:
    """Start ``server.py`` as a subprocess on a free port; yields ``(port, process)`` and stops it on exit."""
    work_dir.mkdir(parents=True, exist_ok=True)
    port_file = work_dir / "fakemodel.port"
    port_file.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [
            sys.executable,
            str(SERVER_SCRIPT),
            "--port-file",
            str(port_file),
            "--log-dir",
            str(work_dir / "log"),
            "--idle-timeout",
            str(idle_timeout),
            *extra_args,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + startup_timeout
        while not port_file.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("fake model server did not start")
            time.sleep(0.05)
        yield int(port_file.read_text()), proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
