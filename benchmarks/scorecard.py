"""Real-world scorecard (issue #9): run ``evalens validate`` over ``../shared/corpus/realworld/`` and score
what it says against the reviewer's ``VERDICTS.tsv`` and ``MANIFEST.tsv``.

Every diagnostic gets one class:

* correct: on a line the reviewer called ``TP`` / ``TP-strict`` / ``FN`` (same code, or any code for an
  ``FN`` row), the first diagnostic of a ``TP*`` convention in a file, or the one line-1 hint on a file
  that belongs to another tool (``LA``);
* wrong: on an ``FP`` line, anything else on a look-alike file (``MIS``), or every further ``TP*``
  diagnostic of a convention already reported in that file (right, but too loud);
* unreviewed: anywhere else (a new rule, or a changed line). These are never counted as wins: precision is
  printed over reviewed diagnostics and, conservatively, with every unreviewed one counted as wrong.
  ``--list`` prints them for a manual review.

Recall is over the reviewer's real problems: each ``TP``/``FN`` (path, line, code), and each ``TP*``
convention once per file. A diagnostic flags its own line and its related locations (repeated findings
collapsed into one diagnostic list the others there, and editors show them); ``TP-strict`` rows (right only under the strict agentskills profile) are scored
separately. A file is *valid* when the reviewer lists it (not as a supporting file) with no real problem.

    python benchmarks/scorecard.py                 # table
    python benchmarks/scorecard.py --list          # plus every wrong and unreviewed diagnostic
    python benchmarks/scorecard.py --from-json out.json   # score a saved `evalens validate --format json`
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "realworld"
REAL = {"TP", "FN", "TP*", "TP-strict"}
TARGETS = {"precision_ew": 0.95, "precision_all": 0.90, "recall": 0.95}


@dataclass(slots=True)
class Diagnostic:
    path: str  # relative to the corpus
    line: int  # 1-based
    severity: str
    code: str
    message: str
    related: tuple[int, ...] = ()  # 1-based lines of the related locations (collapsed repeats)
    verdict: str = ""  # correct class, see module doc
    why: str = ""


@dataclass
class Score:
    diagnostics: list[Diagnostic]
    counts: dict[str, Counter] = field(default_factory=dict)  # severity group -> class -> n
    recall_hits: int = 0
    recall_total: int = 0
    strict_hits: int = 0
    strict_total: int = 0
    missed: list[str] = field(default_factory=list)
    valid_file_errors: list[Diagnostic] = field(default_factory=list)


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def run_validate(corpus: Path) -> list[dict]:
    """``evalens validate --format json`` over the corpus, as a user would run it."""
    proc = subprocess.run(
        [sys.executable, "-m", "evalens", "validate", "--format", "json", str(corpus)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"evalens validate failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout)["problems"]


def diagnostics_from(problems: list[dict], corpus: Path) -> list[Diagnostic]:
    out = []
    root = str(corpus.resolve())
    for p in problems:
        # both sides resolved: a corpus reached through a symbolic link is scored too
        path = str(Path(p["path"]).resolve())
        rel = path[len(root) + 1 :] if path.startswith(root + "/") else p["path"]
        related = tuple(int(r["line"]) for r in p.get("related") or ())
        out.append(Diagnostic(rel, int(p["line"]), p["severity"], p["code"], p["message"], related))
    return out


def score(
    diagnostics: list[Diagnostic], verdicts: list[dict[str, str]], manifest: list[dict[str, str]]
) -> Score:
    kinds = {row["local_path"]: row["kind"] for row in manifest}
    by_line: dict[tuple[str, int], list[dict[str, str]]] = defaultdict(list)
    for row in verdicts:
        by_line[(row["path"], int(row["line"]))].append(row)
    result = Score(diagnostics)
    _judge_each(diagnostics, by_line, kinds)
    for group, sevs in (
        ("errors+warnings", {"error", "warning"}),
        ("all", {"error", "warning", "info", "hint"}),
        ("errors", {"error"}),
    ):
        result.counts[group] = Counter(d.verdict for d in diagnostics if d.severity in sevs)
    _count_recall(result, diagnostics, verdicts)
    real_files = {row["path"] for row in verdicts if row["verdict"] in REAL}
    valid = {p for p, k in kinds.items() if k != "support" and p not in real_files}
    result.valid_file_errors = [d for d in diagnostics if d.path in valid and d.severity == "error"]
    return result


def _judge_each(
    diagnostics: list[Diagnostic], by_line: dict[tuple[str, int], list[dict[str, str]]], kinds: dict[str, str]
) -> None:
    """Each diagnostic's verdict from the reviewer's row for its line and code (precision)."""
    first_hint: set[str] = set()
    loud_seen: set[tuple[str, str]] = set()
    for d in sorted(diagnostics, key=lambda d: (d.path, d.line)):
        rows = by_line.get((d.path, d.line), [])
        same = [r for r in rows if r["code"] == d.code]
        if kinds.get(d.path, "").startswith("lookalike"):
            if d.line == 1 and d.severity == "hint" and d.path not in first_hint:
                first_hint.add(d.path)
                d.verdict, d.why = "correct", "LA: one look-alike hint"
            else:
                d.verdict, d.why = "wrong", "MIS: file belongs to another tool"
        elif same and same[0]["verdict"] == "TP*":
            key = (d.path, d.code)
            d.verdict = "wrong" if key in loud_seen else "correct"
            d.why = "TP*: too loud (one per file is right)" if key in loud_seen else "TP*: first of its kind"
            loud_seen.add(key)
        elif same:
            v = same[0]["verdict"]
            d.verdict = "correct" if v in REAL or v == "LA" else "wrong"
            d.why = f"{v}: {same[0]['why']}"
        elif any(r["verdict"] == "FN" for r in rows):
            d.verdict, d.why = "correct", "FN caught"
        else:
            d.verdict, d.why = "unreviewed", "no verdict for this line and code"


def _count_recall(result: Score, diagnostics: list[Diagnostic], verdicts: list[dict[str, str]]) -> None:
    """How many of the reviewer's real findings a diagnostic flags (recall; TP-strict counted apart)."""
    flagged = {(d.path, line, d.code) for d in diagnostics for line in (d.line, *d.related)}
    flagged_line = {(d.path, line) for d in diagnostics for line in (d.line, *d.related)}
    flagged_code = {(d.path, d.code) for d in diagnostics}
    real: dict[tuple, str] = {}
    for row in verdicts:
        v = row["verdict"]
        if v == "TP*":
            real[("conv", row["path"], row["code"])] = v
        elif v in REAL:
            real[(row["path"], int(row["line"]), row["code"])] = v
    for key, v in sorted(real.items()):
        if key[0] == "conv":
            hit = (key[1], key[2]) in flagged_code
        elif v == "FN":
            hit = (key[0], key[1]) in flagged_line
        else:
            hit = key in flagged
        if v == "TP-strict":
            result.strict_total += 1
            result.strict_hits += hit
            continue
        result.recall_total += 1
        result.recall_hits += hit
        if not hit:
            result.missed.append(":".join(map(str, key)) + f" ({v})")


def overruled(verdicts: list[dict[str, str]], corpus: Path) -> list[dict[str, str]]:
    """The verdicts with the tests' reasoned exceptions applied (``OVERRULED`` in tests/core/test_realworld.py, one
    table for both), so ``--exceptions`` prints the numbers the tests hold the targets against."""
    repo = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(repo))
    from tests.core.test_realworld import (
        OVERRULED,
    )  # lazy: only --exceptions needs the test module (and pytest)

    name = "shared" if corpus.resolve() == CORPUS.resolve() else corpus.resolve().name
    out = []
    for row in verdicts:
        held = OVERRULED.get((name, row["path"], int(row["line"]), row["code"]))
        out.append({**row, "verdict": held[0], "why": "overruled: " + held[1]} if held else row)
    return out


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "  n/a"


def table(s: Score) -> str:
    lines = [
        "| severities | diagnostics | correct | wrong | unreviewed | precision (reviewed) | "
        "precision (unreviewed = wrong) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for group in ("errors+warnings", "all", "errors"):
        c = s.counts[group]
        total = sum(c.values())
        lines.append(
            f"| {group} | {total} | {c['correct']} | {c['wrong']} | {c['unreviewed']} | "
            f"{_ratio(c['correct'], c['correct'] + c['wrong'])} | {_ratio(c['correct'], total)} |"
        )
    errs = s.counts["errors"]
    lines += [
        "",
        "| measure | value | target |",
        "|---|---:|---:|",
        f"| precision, errors+warnings (reviewed) | "
        f"{_ratio(s.counts['errors+warnings']['correct'], s.counts['errors+warnings']['correct'] + s.counts['errors+warnings']['wrong'])}"
        f" | >= {TARGETS['precision_ew']} |",
        f"| precision, all severities (reviewed) | "
        f"{_ratio(s.counts['all']['correct'], s.counts['all']['correct'] + s.counts['all']['wrong'])}"
        f" | >= {TARGETS['precision_all']} |",
        f"| recall (TP, FN, TP* once per file) | {s.recall_hits}/{s.recall_total} = "
        f"{_ratio(s.recall_hits, s.recall_total)} | >= {TARGETS['recall']} |",
        f"| TP-strict flagged (strict profile only) | {s.strict_hits}/{s.strict_total} | (context) |",
        f"| errors that are noise | {errs['wrong']} of {sum(errs.values())} | 0 |",
        f"| errors on files the reviewer called valid | {len(s.valid_file_errors)} | 0 |",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--from-json", type=Path, help="a saved `evalens validate --format json` output")
    parser.add_argument("--list", action="store_true", help="print wrong and unreviewed diagnostics")
    parser.add_argument(
        "--exceptions",
        action="store_true",
        help="apply the reasoned exceptions of tests/core/test_realworld.py (OVERRULED): reviewer verdicts held "
        "wrong by the format's own documentation or tool, as the tests score them",
    )
    args = parser.parse_args(argv)
    corpus = args.corpus
    problems = json.loads(args.from_json.read_text())["problems"] if args.from_json else run_validate(corpus)
    verdicts = read_tsv(corpus / "VERDICTS.tsv")
    if args.exceptions:
        verdicts = overruled(verdicts, corpus)
    s = score(diagnostics_from(problems, corpus), verdicts, read_tsv(corpus / "MANIFEST.tsv"))
    print(table(s))
    if args.list:
        for kind in ("wrong", "unreviewed"):
            rows = [d for d in s.diagnostics if d.verdict == kind]
            print(f"\n## {kind} ({len(rows)})")
            for d in rows:
                print(f"{d.path}:{d.line}: {d.severity} [{d.code}] {d.message[:160]}  -- {d.why}")
        print(f"\n## missed ({len(s.missed)})")
        print("\n".join(s.missed))
        print(f"\n## errors on valid files ({len(s.valid_file_errors)})")
        for d in s.valid_file_errors:
            print(f"{d.path}:{d.line}: [{d.code}] {d.message[:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
