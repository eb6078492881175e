"""When a "did you mean" must not be offered: a name and its opposite (issue #39).

Every suggestion source (``schema_check.suggest`` for keys, values, files and names; ``rules.suggest_code`` for
rule codes) filters its candidates through ``opposite``, so a near spelling is offered and a negation never is:
`disallowed-tools` is not a typo of `allowed-tools`, and renaming one into the other inverts what the file says.
Standard library only: the rule catalog's light path imports it.
"""

from __future__ import annotations

import difflib
import re

_NEGATIONS = ("dis", "un", "non", "no", "not", "in", "de", "anti", "without")
"""Prefixes that turn a name into its opposite (`disallowed-tools`, `unexpected`, `no-fork`, `without_skill`)."""
_OPPOSITES = frozenset(
    frozenset(p)
    for p in (
        ("allow", "deny"),
        ("allowed", "denied"),
        ("allowed", "disallowed"),
        ("allow", "disallow"),
        ("enable", "disable"),
        ("enabled", "disabled"),
        ("include", "exclude"),
        ("included", "excluded"),
        ("with", "without"),
        ("min", "max"),
        ("pass", "fail"),
        ("passed", "failed"),
        ("true", "false"),
        ("yes", "no"),
        ("positive", "negative"),
        ("before", "after"),
        ("input", "output"),
        ("inputs", "outputs"),
        ("start", "end"),
        ("should", "shouldnt"),
        ("must", "mustnt"),
        ("visible", "hidden"),
        ("show", "hide"),
        ("add", "remove"),
        ("required", "optional"),
        ("pre", "post"),  # hook events: PreToolUse runs before the call, PostToolUse after it
    )
)
"""Word pairs of opposite meaning: a name is never "corrected" into its opposite."""


def opposite(a: str, b: str) -> bool:
    """Whether two names differ by a negation or an antonym, so that one is the other's opposite
    (`disallowed-tools` / `allowed-tools`, `with_skill` / `without_skill`, `min_score` / `max_score`): renaming
    one into the other would invert what the file means."""
    sa = [w for w in re.split(r"[-_\s.]+", _camel_split(a).lower()) if w]
    sb = [w for w in re.split(r"[-_\s.]+", _camel_split(b).lower()) if w]
    if len(sa) == len(sb):
        pairs = [(x, y) for x, y in zip(sa, sb, strict=True) if x != y]
        if len(pairs) == 1:
            x, y = pairs[0]
            if frozenset((x, y)) in _OPPOSITES:
                return True
            if _negates(x, y) or _negates(y, x):
                return True
    short, long_ = (sa, sb) if len(sa) < len(sb) else (sb, sa)
    if len(long_) == len(short) + 1:  # `fork` / `no-fork`, `skill` / `not-skill`
        for k in range(len(long_)):
            if long_[:k] + long_[k + 1 :] == short and long_[k] in _NEGATIONS + ("never", "dont", "stop"):
                return True
    return False


def _negates(negated: str, plain: str) -> bool:
    """``negated`` is ``plain`` (or a misspelling of it) behind a negation prefix: `disalowed` / `allowed`."""
    for neg in _NEGATIONS:
        rest = negated[len(neg) :]
        if negated.startswith(neg) and not plain.startswith(neg) and len(rest) >= 3:
            if rest == plain or difflib.SequenceMatcher(None, rest, plain).ratio() >= 0.85:
                return True
    return False


def _camel_split(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name)
