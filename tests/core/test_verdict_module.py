"""One verdict function (issue 23): only ``runner/verdicts.py`` compares to the literal ``"PASS"`` to decide
anything. Every suite, the server and the CLI ask it (``passed``, ``held``, ``check_status``, ``unit_verdict``,
``scored_verdict`` …); faces that only display a verdict already decided are allow-listed below, each with why."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("runner", "server", "evalens")

_WORDS = r"""["'](?:FAIL|ERROR|SKIP|FLAKY|BUDGET)["']"""
DECIDES = re.compile(
    r"""[=!]=\s*["']PASS["']"""  # x == "PASS"
    r"""|["']PASS["']\s*[=!]="""  # "PASS" == x
    r"""|\bin\s*[(\[{][^)\]}]*["']PASS["']"""  # x in ("PASS", …)
    r"""|["']PASS["']\s+if\b"""  # "PASS" if ok else …
    rf"""|(?:return|=)\s*\(?\s*["']PASS["']\s*,(?!\s*{_WORDS})"""  # return "PASS", why (not a tuple of words)
    r"""|\.count\(\s*["']PASS["']\s*\)"""  # verdicts.count("PASS")
)

ALLOWED = {
    "runner/verdicts.py": "the verdict module itself",
    "runner/report_html.py": "the run page: colour and order of verdicts already decided (display)",
    "server/features/run_present.py": "lens titles, diagnostic severity and hover text of a decided verdict",
    "server/features/run_commands.py": "the message type of a notification about a decided verdict (display)",
    "evalens/cli/progress.py": "which verdict columns the terminal summary shows (display)",
    "evalens/core/formats/uaaps.py": "core may not import the runner; a report's rule re-counts the summary the "
    "report states, to check the file (no verdict is decided)",
}


def offenders() -> list[str]:
    found = []
    for root in SOURCES:
        for path in sorted((REPO / root).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel in ALLOWED:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if DECIDES.search(line.split("#", 1)[0]):
                    found.append(f"{rel}:{n}: {line.strip()}")
    return found


def test_only_the_verdict_module_compares_to_pass() -> None:
    assert offenders() == [], "decide through evalens.runner.verdicts (passed, held, check_status, …)"


def test_the_grep_finds_each_way_of_deciding() -> None:
    caught = [
        'if result.verdict == "PASS":',
        'ok = "PASS" != verdict',
        'bad = verdict not in ("PASS", "SKIP")',
        'status="PASS" if ok else "FAIL",',
        'return ("PASS", reason)',
        'verdict, reason = "PASS", why',
        'n = verdicts.count("PASS")',
    ]
    shown = ['ORDER = ("PASS", "FAIL", "ERROR", "SKIP")', 'ICONS = {"PASS": "✓"}', 'Literal["PASS", "FAIL"]']
    assert [line for line in caught if not DECIDES.search(line)] == []
    assert [line for line in shown if DECIDES.search(line)] == []


def test_allowed_modules_exist_and_still_need_it() -> None:
    """An allow-list entry whose module no longer compares is stale: drop it."""
    for rel in ALLOWED:
        text = (REPO / rel).read_text(encoding="utf-8")
        assert any(DECIDES.search(line.split("#", 1)[0]) for line in text.splitlines()), rel


WORD_SETS = re.compile(r"""Literal\[\s*["'](?:PASS|FAIL)["']\s*,""")
"""A type spelt from the verdict words: ``Literal["PASS", "FAIL", …]``."""

WORD_SETS_ALLOWED = {
    "evalens/core/models/verdict.py": "the one declaration of Verdict, State, CheckStatus and JudgeVerdict",
    "runner/judge.py": "the schema of the judge's own reply (PASS or FAIL; ERROR is ours, when the judge fails)",
}


def test_the_verdict_words_are_declared_once() -> None:
    """Eight modules had each spelt ``Literal["PASS", "FAIL", "SKIP", "ERROR"]`` (issue 23); a fifth word added
    to one would reach one face and not another. They import the types from ``evalens.core.models.verdict``."""
    found = []
    for root in SOURCES:
        for path in sorted((REPO / root).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            text = path.read_text(encoding="utf-8")
            if rel not in WORD_SETS_ALLOWED and WORD_SETS.search(text):
                found += [
                    f"{rel}:{n}" for n, line in enumerate(text.splitlines(), 1) if WORD_SETS.search(line)
                ]
    assert found == [], "import Verdict / State / CheckStatus / JudgeVerdict from evalens.core.models.verdict"
    assert WORD_SETS.search('x: Literal["PASS", "FAIL"]') and not WORD_SETS.search('Literal["text", "tool"]')
