"""``core/terminal_text.for_terminal``: untrusted text printed on a terminal can neither retitle, clear or write
the clipboard of the terminal (C0/C1 controls), nor reorder what is shown (bidi overrides)."""

from __future__ import annotations

import pytest

from evalens.core.terminal_text import for_terminal


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"),  # OSC: retitle the terminal
        ("\x1b[2J", "\\x1b[2J"),  # clear the screen
        ("\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07"),  # OSC 52: write the clipboard
        ("\x9b2J", "\\x9b2J"),  # C1 CSI without ESC
        ("ok\rFAIL", "ok\\x0dFAIL"),  # a carriage return would overwrite the line
        ("abc\u202edcba", "abc\\u202edcba"),  # right-to-left override
        ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
        ("\x7f", "\\x7f"),
    ],
)
def test_controls_and_bidi_overrides_are_shown_as_escapes(raw: str, shown: str) -> None:
    assert for_terminal(raw) == shown


def test_plain_text_newlines_tabs_and_other_scripts_pass_unchanged() -> None:
    text = "PASS: the table lists\tall four quarters\nnächste Zeile · 日本語 · émoji 🎉"
    assert for_terminal(text) == text
    assert for_terminal(42) == "42"  # anything printable is accepted
