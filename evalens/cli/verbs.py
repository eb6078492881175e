"""The modes of a run as verbs of their own (issue 41): ``compare A B``, ``rejudge REPORT``, ``resume DIR``.

Why verbs: ``eval diff`` was a mode hidden in the positionals (a case named ``diff`` could not be run by name),
and ``--rejudge`` / ``--resume`` took every run flag although they may change almost none. Each verb takes its
own argument first and hands the rest to the one option set, which refuses what the mode cannot change.
"""

from __future__ import annotations

import sys


def compare(argv: list[str]) -> int:
    """``evalens compare BASE NEW [--fail-on regression] [--test paired]``: two reports' verdict changes."""
    # lazy: the comparison loads the report models only when this verb runs (evalens/cli/main.py's rule)
    from evalens.cli.eval import diff

    return diff(argv)


def rejudge(argv: list[str]) -> int:
    """``evalens rejudge REPORT [--judge MODEL] [-o PATH] [--json]``: judge a finished batch again."""
    if not argv or argv[0].startswith("-"):
        print("evalens rejudge: give the REPORT to judge again (evalens rejudge REPORT)", file=sys.stderr)
        return 2
    # lazy: the UAAPS face loads the runner only when this verb runs
    from evalens.cli import eval as uaaps

    parsed = uaaps.parse(["--rejudge", argv[0], *argv[1:]], prog="evalens rejudge")
    return parsed if isinstance(parsed, int) else uaaps.execute(parsed)


def resume(argv: list[str]) -> int:
    """``evalens resume DIR``: finish a batch cut short, whatever its format (its run log says which)."""
    if not argv or argv[0].startswith("-"):
        print("evalens resume: give the batch's report folder (evalens resume DIR)", file=sys.stderr)
        return 2
    # lazy: the run face loads the runner only when this verb runs
    from evalens.cli import run

    return run.main(["--resume", argv[0], *argv[1:]])
