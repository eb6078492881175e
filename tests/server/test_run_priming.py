"""The first Run lens a server shows has the probes of a first run made ahead, in a child process (issue 45 item
9: a new user's first click proved the judge SDK, 2-3 s, before its agent started): the real server, its own probe
cache, no click. The click itself, and what it then skips, is measured by ``benchmarks/run_lens_bench.py`` and
held by ``tests/runner/test_probe_cache.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.runner import preflight, probe_cache
from evalens.runner.engines.base import cli_key
from tests.server import run_fixtures
from tests.server.run_fixtures import lenses, open_doc, start_run_client, stop_run_client, wait_until

fake_model = run_fixtures.fake_model  # fixtures, re-exported for pytest
run_pkg = run_fixtures.run_pkg


def _recorded(cache: Path, module: str) -> bool:
    try:
        entry = json.loads((cache / "sdk-imports.json").read_text()).get(module)
    except (OSError, ValueError):
        return False
    return bool(entry) and entry["key"] == preflight.sdk_key(module) and entry["value"] is True


@pytest.mark.skipif(preflight.sdk_key("anthropic") is None, reason="the anthropic SDK is not installed")
async def test_the_first_run_lens_proves_the_judge_sdk_in_a_child(
    fake_model: object, run_pkg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("EVALENS_CACHE_DIR", str(cache))  # the server's environment is this one's
    client = await start_run_client(fake_model, run_pkg, "visual-studio-code")  # type: ignore[arg-type]
    try:
        assert not cache.exists()  # the server's start primes nothing: only a Run lens does
        uri = await open_doc(client, run_pkg / "evals" / "cases" / "10-pass.yaml")
        found = await lenses(client, uri)
        assert any(lens.command and lens.command.command == "evalens.runCase" for lens in found)
        await wait_until(lambda: not preflight.unprimed(), timeout=90, interval=0.2)  # every record made
        assert _recorded(cache, "anthropic")
        for binary in preflight._cli_binaries():  # the installed CLIs' versions too
            assert probe_cache.recall("cli-versions", binary, cli_key(binary))
    finally:
        await stop_run_client(client)
