"""Untrusted text (agent output, file names, tool results) made safe to print on a terminal.

A reply holding ``ESC]0;…BEL`` retitles the terminal, ``ESC[2J`` clears it, OSC 52 can write the clipboard; a
C1 ``CSI`` (U+009B) does the same without ESC on some terminals, and bidi overrides reorder what is shown. Every
such character is printed as a visible escape (``\\x1b``, ``\\u202e``) instead; newlines and tabs stay.
"""

from __future__ import annotations

import re

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: object) -> str:
    """``text`` with C0/C1 controls (ESC, BEL, CR, CSI…) and bidi overrides shown as escapes, never sent raw."""
    return _CONTROLS.sub(_visible, str(text))
