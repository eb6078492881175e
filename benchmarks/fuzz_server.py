"""Long fuzz run of one live ``evalens lsp`` (issue 16): mutated corpus documents and hostile requests.

    python benchmarks/fuzz_server.py --minutes 10 [--seed 7] [--open 15] [--json /tmp/fuzz.json]

Prints progress every 200 documents and a final table: documents, edits, requests (hostile ones and
broken frames among them), unanswered and late requests, documents without diagnostics, internal
errors, tracebacks on stderr, peak and final RSS, and the server's own table sizes (``evalens/stats``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.server.fuzz import Fuzzer, Report  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--documents", type=int, default=None, help="stop after this many documents")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--open", type=int, default=15, help="documents open at a time")
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds a request may take")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()

    def progress(r: Report) -> None:
        print(
            f"  {r.documents:>6} documents  {r.requests:>7} requests  unanswered {r.unanswered}  "
            f"RSS {r.final_rss_mb:.0f} MB (peak {r.peak_rss_mb:.0f})",
            flush=True,
        )

    with tempfile.TemporaryDirectory(prefix="evalens-fuzz-") as tmp:
        report = Fuzzer(args.seed, Path(tmp), open_limit=args.open, deadline=args.deadline).run(
            seconds=args.minutes * 60, documents=args.documents, progress=progress
        )
    data = report.as_dict()
    problems = data.pop("problems")
    stats = data.pop("stats")
    print("\n| figure | value |\n|---|---|")
    for key, value in data.items():
        print(f"| {key} | {round(value, 1) if isinstance(value, float) else value} |")
    print("\nserver tables at the end:", json.dumps(stats))
    for line in problems[:20]:
        print("problem:", line[:2000])
    if args.json:
        args.json.write_text(json.dumps(report.as_dict(), indent=2))
    ok = not (
        report.unanswered
        or report.late
        or report.missing_diagnostics
        or report.tracebacks
        or report.internal_errors
        or report.exit_code != 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
