"""The real server against hostile files and workspaces (issue 16, findings 10-16): special files, odd
paths, documents that made validation raise, memory kept per document, work that grew with the workspace."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.conftest import EXAMPLE
from tests.server.conftest import open_and_diagnose
from tests.server.raw_client import RawServer
from tests.server.test_workspace import _start

FIXTURE = 'name: f\ninput:\n  prompt: Summarise it.\n  files: ["{}"]\njudge:\n  criteria: Mentions it.\n'
CASE = "name: {name}\ninput:\n  prompt: Summarise the file.\njudge:\n  criteria: Mentions the title.\n"


def _open(s: RawServer, uri: str, text: str, language: str = "yaml", version: int = 1) -> None:
    s.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}},
    )


def _published(s: RawServer, uri: str, timeout: float = 10) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [m for m in s.notifications("textDocument/publishDiagnostics") if m["params"]["uri"] == uri]
        if found:
            return found
        time.sleep(0.02)
    raise TimeoutError(f"no diagnostics for {uri}")


# ------------------------------------------------------------------------------------------ special files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_at_an_eval_path_never_blocks(tmp_path: Path):
    cases = tmp_path / "pkg" / "evals" / "cases"
    cases.mkdir(parents=True)
    fifo = cases / "fifo.yaml"
    os.mkfifo(fifo)
    os.mkfifo(tmp_path / "pkg" / "evals" / "eval-config.json")
    (cases / "ok.yaml").write_text(CASE.format(name="ok"))
    uri = fifo.as_uri()
    with RawServer() as s:
        s.initialize(root_uri=tmp_path.as_uri())
        for method, params in [
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
            (
                "textDocument/definition",
                {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
            ),
            (
                "textDocument/completion",
                {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
            ),
            ("textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
            ("textDocument/codeLens", {"textDocument": {"uri": uri}}),
            ("textDocument/diagnostic", {"textDocument": {"uri": uri}}),
            ("workspace/executeCommand", {"command": "evalens.discoverCases", "arguments": [{"uri": uri}]}),
            ("workspace/executeCommand", {"command": "evalens.discoverCases", "arguments": []}),
        ]:
            started = time.monotonic()
            reply = s.call(method, params, timeout=10)
            assert time.monotonic() - started < 5, method
            assert "error" not in reply or reply["error"]["code"] != -32603, (method, reply)
        scans = []
        deadline = time.monotonic() + 15
        while not scans and time.monotonic() < deadline:
            scans = s.notifications("evalens/scanComplete")
            time.sleep(0.05)
        assert scans and scans[0]["params"]["files"] >= 1  # the scan skipped the FIFOs and went on


# ------------------------------------------------------------------------------------------ paths


@pytest.fixture
def odd_pkg(tmp_path: Path) -> Path:
    root = tmp_path / "space dir ü" / "pdf tools"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("reports"))
    return root


@pytest.mark.parametrize("profile", ["visual-studio-code", "neovim@v0.7.0"])
async def test_odd_paths_use_the_open_buffer(odd_pkg: Path, profile: str):
    """``space dir ü/``: pull diagnostics and discovery must see the edited buffer, not the file on disk."""
    case = odd_pkg / "evals" / "cases" / "edited.yaml"
    case.write_text(CASE.format(name="on-disk"))
    client: LanguageClient = await _start(profile, odd_pkg)
    try:
        uri = from_fs_path(str(case))
        assert "%20" in uri and "%C3%BC" in uri
        diags = await open_and_diagnose(client, uri, "name: in-buffer\nbogus_key: 1\n")
        assert any("bogus_key" in d.message for d in diags), [d.message for d in diags]
        found = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[])
        )
        names = {c["name"] for c in found}
        assert "in-buffer" in names and "on-disk" not in names, names
        one = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{"uri": uri}])
        )
        assert [c["name"] for c in one] == ["in-buffer"]
    finally:
        await client.shutdown_session()


# ------------------------------------------------------------------------------------------ documents that raised


RAISERS = {
    "lone surrogate in YAML": (
        "pkg/evals/cases/s.yaml",
        "yaml",
        "name: a\ninput:\n  prompt: x \ud800 y\n",
        "surrogate",
    ),
    "lone surrogate in Markdown": (
        "pkg/skills/s/SKILL.md",
        "markdown",
        "---\nname: s\ndescription: x \udc00\n---\nbody\n",
        "surrogate",
    ),
    "JSON integer over 4,300 digits": (
        "pkg/evals/eval-config.json",
        "json",
        '{"version": 1, "timeout": ' + "9" * 5000 + "}",
        "digits",
    ),
    "fixture name over 255 bytes": ("pkg/evals/cases/f.yaml", "yaml", FIXTURE.format("a" * 300), "a" * 40),
}


@pytest.fixture(scope="module")
def raisers_server() -> Iterator[RawServer]:
    """One server for every kind below (#22: a start costs ~2 s of CPU): each kind opens its own document
    under its own ``tmp_path``, closes it, and the server must hold none open and have written no traceback,
    so a kind that broke the server still fails, and so does every kind after it."""
    with RawServer() as s:
        s.initialize()
        yield s


@pytest.mark.parametrize("kind", list(RAISERS))
def test_documents_that_made_validation_raise_get_one_diagnostic(
    tmp_path: Path, kind: str, raisers_server: RawServer
):
    rel, language, text, needle = RAISERS[kind]
    uri = (tmp_path / rel).as_uri()
    s = raisers_server
    _open(s, uri, text, language)
    diags = _published(s, uri)[-1]["params"]["diagnostics"]
    assert diags and any(needle in d["message"] for d in diags), diags
    for method in ("textDocument/hover", "textDocument/documentSymbol", "textDocument/codeLens"):
        params: dict = {"textDocument": {"uri": uri}}
        if method == "textDocument/hover":
            params["position"] = {"line": 0, "character": 1}
        reply = s.call(method, params)
        assert "error" not in reply, (method, reply)
    s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert s.call("evalens/stats")["result"]["openDocuments"] == 0
    assert s.proc.poll() is None and "Traceback" not in s.stderr(), s.stderr()[-2000:]


# ------------------------------------------------------------------------------------------ memory and cost


def test_memory_is_released_after_close(tmp_path: Path):
    with RawServer() as s:
        s.initialize(root_uri=tmp_path.as_uri())
        for i in range(200):
            uri = (tmp_path / f"p{i}" / "evals" / "cases" / "c.yaml").as_uri()
            _open(s, uri, CASE.format(name=f"c{i}"))
            for v in range(2, 5):
                s.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": v},
                        "contentChanges": [{"text": CASE.format(name=f"c{i}-{v}")}],
                    },
                )
            tasks = (tmp_path / f"p{i}" / "tasks.yaml").as_uri()
            _open(
                s,
                tasks,
                "skill: greeting\ntasks:\n  - id: t1\n    prompt: Give the new teammate a warm welcome.\n    deterministic:\n      expect_marker: GREETING_SUCCESS\n",
            )
            s.call("textDocument/codeLens", {"textDocument": {"uri": tasks}})
            s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            s.notify("textDocument/didClose", {"textDocument": {"uri": tasks}})
        stats = s.call("evalens/stats")["result"]
        assert stats["openDocuments"] == 0 and stats["validations"] == 0 and stats["lastGood"] == 0, stats
        assert stats["requestFutures"] <= 2 and stats["runPushed"] == 0, stats
        assert stats["indexes"] <= 256 and stats["caseCache"] <= 64, stats


def test_editing_a_case_name_revalidates_only_its_package(tmp_path: Path):
    with RawServer() as s:
        s.initialize(root_uri=tmp_path.as_uri())
        own = [(tmp_path / "a" / "evals" / "cases" / f"c{i}.yaml").as_uri() for i in range(3)]
        other = [(tmp_path / "b" / "evals" / "cases" / f"c{i}.yaml").as_uri() for i in range(20)]
        for i, uri in enumerate(own + other):
            _open(s, uri, CASE.format(name=f"case-{i}"))
        for uri in own + other:
            _published(s, uri)
        before = {u: len(_published(s, u)) for u in own + other}
        for v in range(2, 6):
            s.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": own[0], "version": v},
                    "contentChanges": [{"text": CASE.format(name=f"renamed-{v}")}],
                },
            )
        deadline = time.monotonic() + 10  # edits validate off the loop: wait for the newest version's
        while time.monotonic() < deadline:
            edited = _published(s, own[0])[before[own[0]] :]
            if any(m["params"].get("version") == 5 for m in edited) and all(
                len(_published(s, u)) > before[u] for u in own[1:]
            ):
                break
            time.sleep(0.05)
        s.call("evalens/stats")
        after = {u: len(_published(s, u)) for u in own + other}
        versions = [m["params"].get("version") for m in _published(s, own[0])[before[own[0]] :]]
        assert versions and versions[-1] == 5 and versions == sorted(versions), (
            versions
        )  # never an older one last
        assert 1 <= len(versions) <= 4, versions  # an edit overtaken by a newer one publishes nothing
        assert all(after[u] > before[u] for u in own[1:])  # siblings: their duplicate-name check may change
        assert all(after[u] == before[u] for u in other), "documents of another package were re-validated"


def test_discover_cases_runs_off_the_loop(tmp_path: Path):
    for i in range(600):
        cases = tmp_path / f"pkg{i:04d}" / "evals" / "cases"
        cases.mkdir(parents=True)
        for j in range(3):
            (cases / f"c{j}.yaml").write_text(CASE.format(name=f"c{i}-{j}"))
    with RawServer() as s:
        s.initialize(root_uri=tmp_path.as_uri())
        big = s.request("workspace/executeCommand", {"command": "evalens.discoverCases", "arguments": []})
        time.sleep(0.05)
        started = time.monotonic()
        reply = s.call(
            "textDocument/hover",
            {
                "textDocument": {"uri": (tmp_path / "x.yaml").as_uri()},
                "position": {"line": 0, "character": 0},
            },
        )
        answered_in = time.monotonic() - started
        assert "error" not in reply
        found = s.response(big, timeout=120)
        assert len(found["result"]) == 1800
        assert not any(m.get("id") == big for m in s.received[: s.received.index(reply)]), (
            "hover waited for the workspace walk"
        )
        assert answered_in < 1.0


def _big_tasks(n: int, marker: str) -> str:
    rows = "".join(
        f"  - id: t{i}\n    prompt: Greet teammate {i} {marker}.\n    deterministic:\n      expect_marker: GREET_{i}\n"
        for i in range(n)
    )
    return "skill: greeting\ntasks:\n" + rows


def test_edits_validate_off_the_loop_and_the_newest_wins(tmp_path: Path):
    """Typing in a big tasks.yaml: each edit is validated on a snapshot off the loop, an edit overtaken by a
    newer one is never published (nor validated, if it had not started), and a request sent right after the
    edits is answered while the newest version validates (issue 23, item 6)."""
    uri = (tmp_path / "evals" / "greeting" / "tasks.yaml").as_uri()
    with RawServer() as s:
        s.initialize(root_uri=tmp_path.as_uri())
        _open(s, uri, _big_tasks(1500, "v1"))
        first = len(_published(s, uri, timeout=30))
        before = s.call("evalens/stats")["result"]["validatedTotal"]
        for v in range(2, 12):
            s.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": v},
                    "contentChanges": [{"text": _big_tasks(1500, f"v{v}")}],
                },
            )
        stats = s.call("evalens/stats")["result"]  # answered: no edit's validation holds the loop
        assert stats["pendingValidations"] <= 1, stats
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            versions = [m["params"].get("version") for m in _published(s, uri)[first:]]
            if 11 in versions:
                break
            time.sleep(0.05)
        assert versions and versions[-1] == 11, versions
        assert versions == sorted(versions) and len(versions) < 10, (
            versions
        )  # overtaken edits publish nothing
        after = s.call("evalens/stats")["result"]
        assert after["validatedTotal"] - before < 10, (before, after)  # and most were never validated
        assert after["validating"] == 0 and after["pendingValidations"] == 0, after
