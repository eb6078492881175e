"""``evalens.server.features.diagnostics`` in process, with the client side of the wire recorded: what a pushing
client is sent (ranges, severities, the document's version), the one ``internal`` diagnostic when validation
fails, nothing pushed to a pulling client, the pull handlers, re-validation limited to one package (and a lens
refresh only when problems changed), edits coalesced into one validation of the newest version, a closed file
back in the workspace pull, and the start-up scan validated again."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from evalens.server import uris
from evalens.server.features import diagnostics as d
from evalens.server.server import EvalensServer
from tests.server.server_in_process import make_server, open_doc, uri_of

CASE = (
    "name: {name}\ndescription: The agent writes a greeting\ntarget: skill:greeter\ninput:\n"
    '  prompt: "Write a greeting."\nexpected:\n  contains:\n    - "GREETING-OK"\n'
    "judge:\n  criteria: Greets the reader by name.\n"
)
SKILL = "---\nname: greeter\ndescription: Writes greetings. Use when asked to greet.\n---\nGreet.\n"


class Client:
    """What the server sent: published diagnostics, and the refresh requests."""

    def __init__(self, ls: EvalensServer) -> None:
        self.published: list[types.PublishDiagnosticsParams] = []
        self.refreshed: list[str] = []
        ls.text_document_publish_diagnostics = self.published.append  # type: ignore[method-assign]
        ls.workspace_diagnostic_refresh = lambda _p: self.refreshed.append("diagnostics")  # type: ignore[method-assign]
        ls.workspace_code_lens_refresh = lambda _p: self.refreshed.append("lenses")  # type: ignore[method-assign]

    def of(self, uri: str) -> list[types.PublishDiagnosticsParams]:
        return [p for p in self.published if uris.key(p.uri) == uris.key(uri)]


def pulling(refresh: bool = True) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities()),
        workspace=types.WorkspaceClientCapabilities(
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=refresh),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=refresh),
        ),
    )


def pushing_with_lens_refresh() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
        )
    )


def package(root: Path) -> Path:
    (root / "skills" / "greeter").mkdir(parents=True)
    (root / "skills" / "greeter" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (root / "evals" / "cases").mkdir(parents=True)
    return root


def case_file(pkg: Path, file: str) -> Path:
    return pkg / "evals" / "cases" / file


def test_refresh_pushes_the_problems_with_the_version(tmp_path: Path) -> None:
    pkg = package(tmp_path / "pkg")
    ls = make_server(tmp_path)
    client = Client(ls)
    uri = open_doc(ls, case_file(pkg, "a.yaml"), "name: a\ninput:\n  prompt: p\nbogus: 1\n", version=4)
    d.refresh(ls, uri)
    (sent,) = client.published
    assert (sent.uri, sent.version) == (uri, 4)
    found = [
        (x.code, x.severity, x.range.start.line, x.range.start.character, x.range.end.character)
        for x in sent.diagnostics
    ]
    assert found == [
        ("missing-key", types.DiagnosticSeverity.Error, 0, 0, 4),
        ("unknown-key", types.DiagnosticSeverity.Warning, 3, 0, 5),  # `bogus`
    ]
    assert all(x.source == "evalens" for x in sent.diagnostics)
    assert gc.isenabled()


def test_a_failed_validation_is_one_internal_diagnostic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ls = make_server(tmp_path)
    client = Client(ls)
    uri = open_doc(ls, case_file(package(tmp_path / "pkg"), "a.yaml"), CASE.format(name="a"), version=2)

    def broken(_uri: str) -> Any:
        raise RuntimeError("x" * 400)

    monkeypatch.setattr(ls, "validate_uri", broken)
    d.refresh(ls, uri)
    (sent,) = client.published
    (diag,) = sent.diagnostics
    assert (sent.version, diag.code, diag.severity) == (2, "internal", types.DiagnosticSeverity.Error)
    assert diag.message == f"evalens could not validate this file (RuntimeError: {'x' * 300})."
    assert (diag.range.start.line, diag.range.end.character) == (0, 1)
    assert gc.isenabled()  # paused while validating, on again after the failure


def test_nothing_is_pushed_to_a_pulling_client(tmp_path: Path) -> None:
    ls = make_server(tmp_path, pulling())
    client = Client(ls)
    uri = open_doc(ls, case_file(package(tmp_path / "pkg"), "a.yaml"), "name: a\n")
    d.refresh(ls, uri)
    assert client.published == []
    assert ls.cached_validation(uri) is not None  # validated, for the pull to answer from


def test_diagnostics_of_nothing() -> None:
    ls = make_server(None)
    assert d.diagnostics_of(ls, None) == []


def test_pull_answers_open_unopened_and_failing_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = package(tmp_path / "pkg")
    ls = make_server(tmp_path, pulling())
    pull = ls.protocol.fm.features[types.TEXT_DOCUMENT_DIAGNOSTIC]
    uri = open_doc(ls, case_file(pkg, "a.yaml"), "name: a\n")

    def ask(u: str) -> types.FullDocumentDiagnosticReport:
        params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=u))
        return asyncio.run(pull(params))

    assert [x.code for x in ask(uri).items] == ["missing-key", "missing-key"]  # input, judge
    on_disk = case_file(pkg, "b.yaml")
    on_disk.write_text("name: b\nbogus: 1\n", encoding="utf-8")
    assert "unknown-key" in [x.code for x in ask(uri_of(on_disk)).items]  # not open: read from disk
    assert ask(uri_of(tmp_path / "missing.yaml")).items == []

    def broken(_uri: str) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(ls, "validation_for", broken)
    (diag,) = ask(uri).items
    assert diag.code == "internal" and "ValueError: boom" in diag.message


def test_workspace_pull_reports_the_scanned_files_not_the_open_ones(tmp_path: Path) -> None:
    pkg = package(tmp_path / "pkg")
    ls = make_server(tmp_path, pulling())
    scanned = case_file(pkg, "a.yaml")
    scanned.write_text("name: a\n", encoding="utf-8")
    opened = case_file(pkg, "b.yaml")
    opened.write_text(CASE.format(name="b"), encoding="utf-8")
    for path in (scanned, opened):
        ls.disk_validations[uris.key(uri_of(path))] = ls.validate_uri(uri_of(path))
    open_doc(ls, opened, CASE.format(name="b"))  # open since the scan: its own pull answers for it
    report = ls.protocol.fm.features[types.WORKSPACE_DIAGNOSTIC](
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    (item,) = report.items
    assert uris.key(item.uri) == uris.key(uri_of(scanned)) and item.version is None
    assert [x.code for x in item.items] == ["missing-key", "missing-key"]


def test_revalidate_open_one_package_and_lenses_only_on_change(tmp_path: Path) -> None:
    one, two = package(tmp_path / "one"), package(tmp_path / "two")
    ls = make_server(tmp_path, pushing_with_lens_refresh())
    client = Client(ls)
    a = open_doc(ls, case_file(one, "a.yaml"), CASE.format(name="same"))
    b = open_doc(ls, case_file(one, "b.yaml"), CASE.format(name="same"))
    c = open_doc(ls, case_file(two, "c.yaml"), CASE.format(name="same"))
    for uri in (a, b, c):
        d.refresh(ls, uri)
    assert "duplicate-case-name" in [x.code for x in client.of(a)[-1].diagnostics]
    assert "duplicate-case-name" not in [x.code for x in client.of(c)[-1].diagnostics]  # another package
    client.published.clear()
    d.revalidate_open(ls, except_uri=b, root=one)
    assert [uris.key(p.uri) for p in client.published] == [uris.key(a)]
    assert client.refreshed == []  # nothing changed: no lens refresh
    # b renamed in the editor: a's duplicate goes, and the lenses counting its problems are asked again
    ls.workspace.put_text_document(
        types.TextDocumentItem(uri=b, language_id="yaml", version=2, text=CASE.format(name="other"))
    )
    ls.indexes.invalidate(case_file(one, "b.yaml"))
    d.revalidate_open(ls, except_uri=b, root=one)
    assert "duplicate-case-name" not in [x.code for x in client.of(a)[-1].diagnostics]
    assert client.refreshed == ["lenses"]


def test_revalidate_open_asks_a_pulling_client_to_pull_again(tmp_path: Path) -> None:
    ls = make_server(tmp_path, pulling())
    client = Client(ls)
    open_doc(ls, case_file(package(tmp_path / "pkg"), "a.yaml"), CASE.format(name="a"))
    d.revalidate_open(ls)
    assert client.published == [] and client.refreshed == ["diagnostics"]
    quiet = make_server(tmp_path, pulling(refresh=False))
    quiet_client = Client(quiet)
    d.revalidate_open(quiet)
    assert quiet_client.refreshed == []


def test_edits_are_coalesced_into_the_newest_version(tmp_path: Path) -> None:
    ls = make_server(tmp_path)
    client = Client(ls)
    path = case_file(package(tmp_path / "pkg"), "a.yaml")
    uri = open_doc(ls, path, "name: a\n")

    async def edit_twice() -> None:
        d.validate_soon(ls, uri)
        task = ls.pending[uris.key(uri)]
        ls.workspace.put_text_document(
            types.TextDocumentItem(uri=uri, language_id="yaml", version=2, text=CASE.format(name="a"))
        )
        d.validate_soon(ls, uri)  # one is running: it takes the newest version before it ends
        assert ls.pending[uris.key(uri)] is task
        await d.settled(ls, uri)

    asyncio.run(edit_twice())
    (sent,) = client.published
    assert sent.version == 2 and sent.diagnostics == []
    assert uris.key(uri) not in ls.pending


def test_a_closed_eval_file_goes_back_into_the_workspace_pull(tmp_path: Path) -> None:
    pkg = package(tmp_path / "pkg")
    ls = make_server(tmp_path, pulling())
    client = Client(ls)
    path = case_file(pkg, "a.yaml")
    path.write_text("name: a\n", encoding="utf-8")
    d._watch_closed(ls, uri_of(path))
    kept = ls.disk_validations[uris.key(uri_of(path))]
    assert [p.code for p in kept.problems] == ["missing-key", "missing-key"]
    assert client.refreshed == ["diagnostics"]
    other = tmp_path / "notes.txt"
    other.write_text("hello", encoding="utf-8")
    d._watch_closed(ls, uri_of(other))  # not an eval file: not kept
    d._watch_closed(ls, uri_of(tmp_path / "gone.yaml"))
    assert list(ls.disk_validations) == [uris.key(uri_of(path))]
    reopened = case_file(pkg, "b.yaml")
    open_doc(ls, reopened, "name: b\n")
    d._watch_closed(ls, uri_of(reopened))  # opened again: the document pull has it
    assert uris.key(uri_of(reopened)) not in ls.disk_validations


def test_the_start_up_scan_is_validated_again(tmp_path: Path) -> None:
    pkg = package(tmp_path / "pkg")
    ls = make_server(tmp_path)
    client = Client(ls)
    scanned, opened, vanished = (case_file(pkg, f) for f in ("a.yaml", "b.yaml", "c.yaml"))
    for path in (scanned, opened, vanished):
        path.write_text(CASE.format(name=path.stem), encoding="utf-8")
        ls.disk_validations[uris.key(uri_of(path))] = ls.validate_uri(uri_of(path))
    scanned.write_text("name: a\n", encoding="utf-8")  # broken since the scan
    vanished.unlink()
    open_doc(ls, opened, CASE.format(name="b"))
    d._revalidate_disk(ls)
    (sent,) = client.published
    assert uris.key(sent.uri) == uris.key(uri_of(scanned)) and sent.version is None
    assert [x.code for x in sent.diagnostics] == ["missing-key", "missing-key"]
    assert [p.code for p in ls.disk_validations[uris.key(uri_of(scanned))].problems] == [
        "missing-key",
        "missing-key",
    ]
