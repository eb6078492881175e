"""What ``evalens lsp`` writes to stderr, which editors show in their log: one line per record as
``LEVEL logger: message`` without a timestamp, and nothing for a late ``$/cancelRequest``."""

from __future__ import annotations

from tests.server.raw_client import RawServer


def test_late_cancel_is_not_a_warning_and_warnings_carry_their_level():
    with RawServer() as s:
        s.initialize()
        answered = s.request(
            "textDocument/documentSymbol", {"textDocument": {"uri": "file:///nowhere/x.yaml"}}
        )
        s.response(answered)
        s.notify(
            "$/cancelRequest", {"id": answered}
        )  # the editor cancels a request that was already answered
        s.notify("$/cancelRequest", {"id": 987654})
        s.call("shutdown")
        s.notify("exit")
        assert s.wait() == 0
        err = s.stderr()
        assert "Cancel notification" not in err
        for line in err.splitlines():
            assert line.split(" ", 1)[0] in {
                "DEBUG",
                "INFO",
                "WARNING",
                "ERROR",
                "CRITICAL",
            } or line.startswith(" "), line
