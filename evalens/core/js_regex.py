"""JavaScript regular expressions (skilljack's ``expect_regex``) on Python's engine: ONE translation, used by
validation (``evalens validate``, the editor) and by the run, so a pattern that validates never fails mid-run.

Only the syntax the two engines spell differently is mapped: named groups ``(?<name>…)`` and their
back-references ``\\k<name>``. Everything else is compiled as written; what Python cannot compile is reported
by validation with the engine's message.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

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
    err = bounded_error(pattern)
    return f"{err} (in the run's time-bounded regex engine)" if err else None


# --------------------------------------------------------------------------- bounded matching (issue 28 B4)

REGEX_TIMEOUT_SECONDS = (
    2.0  # one pattern against one output: far above any sane pattern, far below a case budget
)


class RegexTimeout(Exception):
    """A pattern ran past its time bound (catastrophic backtracking); the message names the pattern."""


@lru_cache(maxsize=1024)
def _compile_bounded(pattern: str) -> object:
    return regex.compile(translate(pattern), flags=regex.V0)  # V0: ``re``'s semantics, with a timeout


def bounded_error(pattern: str) -> str | None:
    """Why the time-bounded engine the run uses cannot compile ``pattern`` (it follows ``re`` closely), or None."""
    try:
        _compile_bounded(pattern)
    except Exception as exc:  # regex.error and the recursion/overflow errors alike
        return str(exc) or type(exc).__name__
    return None


def search_js(pattern: str, text: str, timeout: float = REGEX_TIMEOUT_SECONDS) -> bool:
    """Whether ``pattern`` matches anywhere in ``text``, within ``timeout`` seconds (else :class:`RegexTimeout`).

    Python's ``re`` has no timeout, so an eval file's ``^(a+)+$`` against a hostile agent's output could hang a
    run forever; the ``regex`` engine checks a deadline while it backtracks."""
    compiled = _compile_bounded(pattern)
    try:
        return compiled.search(text, timeout=timeout) is not None  # type: ignore[attr-defined]
    except TimeoutError:
        raise RegexTimeout(f"/{pattern}/ ran longer than {timeout:g} s") from None


_QUANT_AFTER = re.compile(r"[*+]|\{\d*,\d*\}|\{\d{2,}\}")


def nested_quantifier(pattern: str) -> bool:
    """A quantified group that itself holds a quantifier (``(a+)+``, ``(\\w*x)*``, ``(?:a{1,3})+``): the shape
    behind catastrophic backtracking. A heuristic for a validation warning, not a proof either way."""
    stack: list[bool] = []  # per open group: does it hold a repeat?
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            i += 1
            continue
        if ch == "[":
            in_class = True
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1
            continue
        if ch == "(":
            stack.append(False)
        elif ch == ")" and stack:
            inner = stack.pop()
            quant = _QUANT_AFTER.match(pattern, i + 1)
            if inner and quant:
                return True
            if stack and (inner or quant):
                stack[-1] = True
        elif stack and _QUANT_AFTER.match(pattern, i) and ch in "*+{":
            stack[-1] = True
        i += 1
    return False
