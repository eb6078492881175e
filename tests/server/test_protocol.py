"""A hostile client over raw stdio: malformed params, broken framing and lifecycle abuse are all answered,
and the connection survives (issue 16, findings 7-9 and 14)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.raw_client import RawServer, frame

URI = "file:///nonexistent/pkg/evals/cases/a.yaml"
DOC = {"uri": URI}
POS = {"line": 0, "character": 0}
RANGE = {"start": POS, "end": POS}
GOOD_PARAMS = {
    "textDocument/hover": {"textDocument": DOC, "position": POS},
    "textDocument/completion": {"textDocument": DOC, "position": POS},
    "textDocument/definition": {"textDocument": DOC, "position": POS},
    "textDocument/codeAction": {"textDocument": DOC, "range": RANGE, "context": {"diagnostics": []}},
    "textDocument/codeLens": {"textDocument": DOC},
    "textDocument/documentSymbol": {"textDocument": DOC},
    "textDocument/diagnostic": {"textDocument": DOC},
    "workspace/executeCommand": {"command": "evalens.discoverCases", "arguments": []},
}
POSITIONED = {"textDocument/hover", "textDocument/completion", "textDocument/definition"}


def _bad_params(method: str) -> Iterator[tuple[str, object]]:
    yield "42", 42
    yield "[]", []
    yield "null", None
    good = GOOD_PARAMS[method]
    key = "position" if method in POSITIONED else "range" if "range" in good else next(iter(good))
    yield f"missing {key}", {k: v for k, v in good.items() if k != key}
    if method in POSITIONED:
        yield "negative line", {**good, "position": {"line": -1, "character": 0}}
        yield "negative character", {**good, "position": {"line": 0, "character": -3}}
        yield "line beyond 2^31", {**good, "position": {"line": 2**31, "character": 0}}
        yield "line beyond 2^63", {**good, "position": {"line": 2**64, "character": 0}}
    if method == "textDocument/codeAction":
        yield "negative range", {**good, "range": {"start": {"line": -5, "character": 0}, "end": POS}}


CASES = [(m, label, params) for m in GOOD_PARAMS for label, params in _bad_params(m)]


@pytest.fixture(scope="module")
def server() -> Iterator[RawServer]:
    with RawServer() as s:
        s.initialize()
        yield s


@pytest.mark.parametrize(("method", "label", "params"), CASES, ids=[f"{m}-{lbl}" for m, lbl, _ in CASES])
def test_malformed_params_get_invalid_params(server: RawServer, method: str, label: str, params: object):
    reply = server.call(method, params, timeout=10)
    assert reply["error"]["code"] == -32602, reply
    assert method in reply["error"]["message"] and "params" in reply["error"]["message"]


@pytest.mark.parametrize("method", list(GOOD_PARAMS))
def test_missing_params_and_good_params_are_answered(server: RawServer, method: str):
    reply = server.call(method, omit_params=True)
    assert reply["error"]["code"] == -32602, reply
    assert "error" not in server.call(method, GOOD_PARAMS[method]) or method == "workspace/executeCommand"


def test_bad_command_arguments_are_invalid_params(server: RawServer):
    for args in ([42], ["not a uri", 7], [{"uri": 42}], [{"name": "x"}]):
        reply = server.call("workspace/executeCommand", {"command": "evalens.runCase", "arguments": args})
        assert reply["error"]["code"] in (-32602, -32803), (args, reply)
    long_name = "file:///" + "a" * 300 + "/evals/cases/x.yaml"  # ENAMETOOLONG: Path.is_dir raises
    for command in ("evalens.lastReport", "evalens.runAll", "evalens.discoverCases", "evalens.runCase"):
        reply = server.call(
            "workspace/executeCommand", {"command": command, "arguments": [{"uri": long_name}]}
        )
        assert reply["error"]["code"] == -32803, (command, reply)
    reply = server.call("workspace/executeCommand", {"command": "no.such.command", "arguments": []})
    assert reply["error"]["code"] == -32602


def test_request_for_a_notification_method_is_refused(server: RawServer):
    reply = server.call(
        "textDocument/didOpen", {"textDocument": {**DOC, "languageId": "yaml", "version": 1, "text": ""}}
    )
    assert reply["error"]["code"] == -32600


def test_a_fractional_request_id_is_answered_invalid_request(server: RawServer) -> None:
    """Issue 28 B7: a request whose id is a fraction is answered (-32600) instead of left waiting."""
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 1.5,
            "method": "textDocument/hover",
            "params": {
                "textDocument": {"uri": "file:///x/evals/cases/a.yaml"},
                "position": {"line": 0, "character": 0},
            },
        }
    )
    reply = server.response(1.5)  # type: ignore[arg-type]
    assert reply["error"]["code"] == -32600 and reply["id"] == 1.5


def test_stats_show_no_leaked_bookkeeping(server: RawServer):
    """pygls kept one ``_request_futures`` entry per notification for good (303 after 150 files)."""
    for i in range(150):
        uri = f"file:///nonexistent/leak/evals/cases/c{i}.yaml"
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": f"name: c{i}\n"}},
        )
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    stats = server.call("evalens/stats")["result"]
    assert stats["requestFutures"] <= 2, stats
    assert stats["openDocuments"] == 0 and stats["validations"] == 0 and stats["lastGood"] == 0, stats


def test_pygls_still_leaks_bookkeeping():
    """The hook in ``EvalensProtocol._execute_handler`` exists because pygls keeps the entry of every
    finished notification handler. When this fails, pygls fixed it: drop the hook."""
    from pygls.lsp.server import LanguageServer

    from evalens.server.protocol import EvalensProtocol
    from evalens.server.server import EvalensServer

    def handler(*args):
        yield from ()

    plain = LanguageServer("probe", "0").protocol
    plain._execute_handler("n1", handler, callback=plain._check_handler_result)
    assert "n1" in plain._request_futures  # pygls' behaviour our hook corrects

    ours = EvalensServer().protocol
    assert isinstance(ours, EvalensProtocol)
    ours._execute_handler("n1", handler, callback=ours._check_handler_result)
    ours._forget_finished()
    assert "n1" not in ours._request_futures


# ------------------------------------------------------------------------------------------ framing


def _hover(msg_id: int) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": msg_id,
            "method": "textDocument/hover",
            "params": GOOD_PARAMS["textDocument/hover"],
        }
    )


def _still_answers(s: RawServer) -> None:
    assert "result" in s.call("textDocument/hover", GOOD_PARAMS["textDocument/hover"], timeout=10)


def test_framing_errors_are_skipped_and_the_connection_lives(server: RawServer):
    s = server
    s.send_raw(frame(_hover(1)).replace(b"Content-Length", b"content-length"))
    assert "result" in s.response(1)  # header names are case-insensitive

    body = _hover(2)
    s.send_raw(frame(body, length=len(body) - 15))  # too short: truncated JSON, then stray bytes
    assert s.response(2)["error"]["code"] == -32700
    _still_answers(s)

    s.send_raw(frame(_hover(3), length=len(_hover(3)) + 40))  # too long: swallows the next frame's start
    s.send_raw(frame(_hover(4)))
    assert "result" in s.response(3) and "result" in s.response(4)

    s.send_raw(frame(_hover(5), length=-5))  # negative: the header is skipped, the body recovered
    s.send_raw(frame(_hover(6)))
    assert s.response(5) and "result" in s.response(6)

    s.send_raw(b"Content-Length: abc\r\n\r\n" + _hover(7).encode() + frame(_hover(8)))
    assert s.response(7) and "result" in s.response(8)

    s.send_raw(b"Content-Type: application/json\r\n\r\n" + _hover(9).encode())  # no Content-Length at all
    assert s.response(9)

    s.send_raw(frame(_hover(10)[:40]))  # truncated JSON with a matching length
    assert s.response(10)["error"]["code"] == -32700

    s.send_raw(frame(b"\xff\xfe not json"))
    s.send_raw(frame("[1, 2, 3]"))
    s.send_raw(frame('{"jsonrpc": "2.0", "id": 11, "method": 5}'))
    assert s.response(11)["error"]["code"] == -32600
    s.send_raw(frame("[" * 100_000 + "]" * 100_000))
    s.send_raw(
        frame(
            '{"jsonrpc": "2.0", "id": 12, "method": "textDocument/hover", "params": {"x": '
            + "9" * 5000
            + "}}"
        )
    )
    assert s.response(12)["error"]["code"] == -32700
    _still_answers(s)
    assert "Traceback" not in s.stderr(), s.stderr()[-3000:]


# ------------------------------------------------------------------------------------------ lifecycle


def test_requests_before_initialize_then_initialize_works():
    with RawServer() as s:
        reply = s.call("textDocument/hover", GOOD_PARAMS["textDocument/hover"])
        assert reply["error"]["code"] == -32002
        s.notify(
            "textDocument/didOpen", {"textDocument": {**DOC, "languageId": "yaml", "version": 1, "text": "x"}}
        )  # dropped
        assert s.call("initialize", 42)["error"]["code"] == -32602
        assert "capabilities" in s.initialize()["result"]
        again = s.call("initialize", {"processId": None, "capabilities": {}})
        assert again["error"]["code"] == -32600
        _still_answers(s)
        assert s.call("shutdown")["result"] is None
        after = s.call("textDocument/hover", GOOD_PARAMS["textDocument/hover"])
        assert after["error"]["code"] == -32600 and "shutting down" in after["error"]["message"]
        s.notify("exit")
        assert s.wait() == 0
        assert "Traceback" not in s.stderr()


def test_exit_without_shutdown_exits_1():
    with RawServer() as s:
        s.initialize()
        s.notify("exit")
        assert s.wait() == 1


def test_exit_before_initialize_exits_1_and_end_of_input_too():
    with RawServer() as s:
        s.notify("exit")
        assert s.wait() == 1
    with RawServer() as s:
        s.initialize()
        s.proc.stdin.close()  # type: ignore[union-attr]
        assert s.wait() == 1


def test_server_exits_when_the_editor_process_dies():
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with RawServer() as s:
        s.initialize(process_id=editor.pid)
        _still_answers(s)
        editor.kill()
        editor.wait()
        started = time.monotonic()
        assert s.wait(timeout=15) == 1
        assert time.monotonic() - started < 10


def test_scan_runs_when_the_client_never_answers_configuration(tmp_path: Path):
    case = tmp_path / "pkg" / "evals" / "cases" / "a.yaml"
    case.parent.mkdir(parents=True)
    case.write_text("name: a\n")
    with RawServer() as s:
        s.call(
            "initialize",
            {
                "processId": None,
                "rootUri": tmp_path.as_uri(),
                "capabilities": {"workspace": {"configuration": True}},
            },
        )
        s.notify("initialized", {})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # never answer the server's requests: read the inbox directly
            message = s.inbox.get(timeout=20)
            s.received.append(message)
            if message.get("method") == "evalens/scanComplete":
                assert message["params"]["files"] == 1
                break
        else:
            raise AssertionError("the start-up scan never ran")
        assert any(m.get("method") == "workspace/configuration" for m in s.received)


def test_changes_to_documents_that_are_not_open_are_ignored(server: RawServer):
    ghost = "file:///nonexistent/ghost/evals/cases/g.yaml"
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": ghost, "version": 2}, "contentChanges": [{"text": "name: g\n"}]},
    )
    server.notify("textDocument/didClose", {"textDocument": {"uri": ghost}})
    assert "result" in server.call("evalens/stats")
    assert not [
        m for m in server.notifications("window/showMessage") if "Error in server" in m["params"]["message"]
    ]
    assert "is not open" in server.stderr()
