"""Fixtures for the "Run eval" tests: the fake model server, a package with scripted cases, and a pytest-lsp
client whose server process talks to the fake (the port is only known at run time, so the client is started
here rather than with ``pytest_lsp.fixture``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.conftest import EXAMPLE
from tests.fakemodel.server import FakeModelServer

PROFILES = ["visual-studio-code", "neovim@v0.7.0"]

PASS_CASE = """\
name: greet
description: The agent writes a greeting file
target: skill:pdf-tools
input:
  prompt: "Write a greeting into output/result.txt. SCENARIO=pass"
expected:
  contains:
    - "GREETING-OK"
  files-created:
    - output/result.txt
judge:
  criteria: >
    The reply says that output/result.txt was written. JUDGE=pass
"""

FAIL_CASE = """\
name: greet-missing
description: The reply lacks the greeting marker
target: skill:pdf-tools
input:
  prompt: "Write a greeting into output/result.txt. SCENARIO=fail-contains"
expected:
  contains:
    - "DONE"
    - "GREETING-OK"
  files-created:
    - output/result.txt
judge:
  criteria: >
    The reply says that output/result.txt was written. JUDGE=pass
"""

SLOW_CASE = """\
name: slow
description: The agent runs a long shell command (for cancelling)
target: skill:pdf-tools
input:
  prompt: "Run the long job. SCENARIO=slow MARKER={marker}"
expected:
  contains:
    - "DONE"
judge:
  criteria: >
    The reply says DONE. JUDGE=pass
"""


@pytest.fixture(scope="session")
def fake_model() -> Iterator[FakeModelServer]:
    with FakeModelServer(idle_timeout=900) as fake:
        yield fake


@pytest.fixture
def run_pkg(tmp_path: Path) -> Path:
    """A copy of the example package plus scripted cases (10-pass, 11-fail, 12-slow)."""
    return make_run_pkg(tmp_path)


def make_run_pkg(tmp_path: Path) -> Path:
    """What :func:`run_pkg` gives, for a test that changes it first."""
    dest = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("reports"))
    (dest / "evals" / "reports").mkdir()
    cases = dest / "evals" / "cases"
    (cases / "10-pass.yaml").write_text(PASS_CASE)
    (cases / "11-fail.yaml").write_text(FAIL_CASE)
    marker = f"m{uuid.uuid4().hex[:12]}"
    (cases / "12-slow.yaml").write_text(SLOW_CASE.format(marker=marker))
    (dest / ".slow-marker").write_text(marker)
    return dest


def two_case_pkg(tmp_path: Path) -> Path:
    """:func:`make_run_pkg` with its passing and failing cases only (the example's and the slow case go): a
    whole-package run (a comparison) then runs two quick agents per batch."""
    pkg = make_run_pkg(tmp_path)
    for case in (pkg / "evals" / "cases").iterdir():
        if case.name not in ("10-pass.yaml", "11-fail.yaml"):
            case.unlink()
    return pkg


def plain(value: Any) -> Any:
    """pygls hands unknown notification params over as named tuples: back to plain JSON values."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def server_env(fake: FakeModelServer, sandboxes: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        ANTHROPIC_BASE_URL=fake.anthropic_base_url,
        ANTHROPIC_API_KEY="test-key-not-real",
        EVALENS_SANDBOX_DIR=str(sandboxes),
    )
    return env


async def start_run_client(
    fake: FakeModelServer,
    root: Path,
    profile: str,
    adjust: Callable[[types.ClientCapabilities], None] | None = None,
) -> LanguageClient:
    """The real ``evalens lsp`` under a real client profile, talking to ``fake``; records our notifications.
    ``adjust``: changes the profile's capabilities (what VS Code's extension adds, pull diagnostics)."""
    # Short on purpose: the sandbox's bridge sockets must fit the 108-byte unix socket path limit.
    sandboxes = Path(tempfile.mkdtemp(prefix="evl-"))
    sandboxes.chmod(0o711)  # as root, the agent runs as an unprivileged uid that must reach its own sandbox
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "evalens", "lsp"], server_env=server_env(fake, sandboxes)
    )
    client = await config.start()
    client.verdicts = []  # type: ignore[attr-defined]
    client.run_states = []  # type: ignore[attr-defined]
    client.lens_refreshes = 0  # type: ignore[attr-defined]
    client.sandboxes = sandboxes  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params: Any) -> None:
        client.lens_refreshes += 1  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: Any) -> None:
        return None

    client.timeline = []  # type: ignore[attr-defined]  # (notification, params) of turns and verdicts, in order

    @client.feature("evalens/verdictChanged")
    def _verdict(params: Any) -> None:
        client.verdicts.append(plain(params))  # type: ignore[attr-defined]
        client.timeline.append(("verdictChanged", plain(params)))  # type: ignore[attr-defined]

    @client.feature("evalens/runTurn")
    def _turn(params: Any) -> None:
        client.timeline.append(("runTurn", plain(params)))  # type: ignore[attr-defined]

    @client.feature("evalens/runState")
    def _state(params: Any) -> None:
        client.run_states.append(plain(params))  # type: ignore[attr-defined]

    scanned = asyncio.Event()

    @client.feature("evalens/scanComplete")
    def _scanned(params: Any) -> None:
        scanned.set()

    capabilities = client_capabilities(profile)
    if adjust is not None:
        adjust(capabilities)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=from_fs_path(str(root)),
            initialization_options={"evalens": {"maxParallelRuns": 2}},
        )
    )
    client.profile = profile  # type: ignore[attr-defined]
    # Tests open their documents after the start-up scan, so what the scan publishes (and the verdict memory it
    # primes) never interleaves with what a test checks.
    await asyncio.wait_for(scanned.wait(), 30)
    return client


async def stop_run_client(client: LanguageClient) -> None:
    try:
        if not getattr(client, "shut_down", False):
            await asyncio.wait_for(client.shutdown_async(None), 30)
        client.exit(None)
        await asyncio.wait_for(client.stop(), 30)
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()  # never hang the suite on a server that did not exit
            await client.stop()
        shutil.rmtree(client.sandboxes, ignore_errors=True)  # type: ignore[attr-defined]


@pytest_asyncio.fixture(params=PROFILES)
async def run_client(
    request: Any, fake_model: FakeModelServer, run_pkg: Path
) -> AsyncIterator[LanguageClient]:
    """The real ``evalens lsp`` under a real client profile, in the scripted package."""
    client = await start_run_client(fake_model, run_pkg, request.param)
    yield client
    await stop_run_client(client)


async def open_doc(client: LanguageClient, path: Path) -> str:
    uri = from_fs_path(str(path))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="json" if path.suffix == ".json" else "yaml",
                version=1,
                text=path.read_text(),
            )
        )
    )
    return uri


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    return list(
        await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        or []
    )


def lens_titles(found: list[types.CodeLens]) -> list[str]:
    return [lens.command.title for lens in found if lens.command]


async def run_lens(client: LanguageClient, lens: types.CodeLens, timeout: float = 120) -> Any:
    """Execute a lens's command exactly as an editor does (its one argument, unchanged)."""
    assert lens.command is not None
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command=lens.command.command, arguments=list(lens.command.arguments or [])
            )
        ),
        timeout,
    )


async def wait_until(predicate: Any, timeout: float = 30, interval: float = 0.05) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(interval)


def processes_with(marker: str) -> list[int]:
    """PIDs whose command line mentions ``marker`` (the fake's slow scenario runs ``evalens-slow-<marker>``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and b"pytest" not in cmdline:
            found.append(int(entry.name))
    return found
