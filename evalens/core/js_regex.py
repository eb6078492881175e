"""JavaScript regular expressions (skilljack's ``expect_regex``) on Python's engine: ONE translation, used by
validation (``evalens validate``, the editor) and by the run, so a pattern that validates never fails mid-run.

Only the syntax the two engines spell differently is mapped: named groups ``(?<name>…)`` and their
back-references ``\\k<name>``. Everything else is compiled as written; what Python cannot compile is reported
by validation with the engine's message.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NAMED = re.compile(r"\(\?<(?![=!])")
_BACKREF = re.compile(r"\\k<([A-Za-z_]\w*)>")


def translate(pattern: str) -> str:
    """The Python spelling of a JavaScript pattern."""
    return _BACKREF.sub(r"(?P=\1)", _NAMED.sub("(?P<", pattern))


@lru_cache(maxsize=1024)
def compile_js(pattern: str) -> re.Pattern[str]:
    """The compiled pattern; raises :class:`re.error` (or ``RecursionError``/``OverflowError``) as Python does."""
    return re.compile(translate(pattern))


def js_regex_error(pattern: object) -> str | None:
    """Why a JavaScript regex would not compile, or None."""
    if not isinstance(pattern, str):
        return "not a string"
    try:
        compile_js(pattern)
    except re.error as exc:
        return str(exc)
    except (RecursionError, OverflowError):
        return "pattern too complex"
    return None
