"""The fuzz test of issue 16: mutated corpus documents and hostile requests against one live server.

Bounded to about 90 s of traffic (``EVALENS_FUZZ_SECONDS`` changes it); ``benchmarks/fuzz_server.py`` runs
the same fuzzer for as long as asked. Marked ``fuzz`` so it can be deselected; a plain ``pytest`` runs it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lsp.fuzz import Fuzzer

SECONDS = float(os.environ.get("EVALENS_FUZZ_SECONDS", "90"))
SEED = int(os.environ.get("EVALENS_FUZZ_SEED", "16"))
RSS_LIMIT_MB = 400
DEADLINE = 15.0


@pytest.mark.fuzz
def test_fuzz_one_live_server(tmp_path: Path):
    report = Fuzzer(SEED, tmp_path, deadline=DEADLINE).run(seconds=SECONDS)
    summary = {k: v for k, v in report.as_dict().items() if k != "problems"}
    assert report.documents >= 50, summary
    assert report.unanswered == 0 and report.late == 0, (summary, report.problems[:5])
    assert report.missing_diagnostics == 0, (summary, report.problems[:5])
    assert report.internal_errors == 0 and report.tracebacks == 0, (summary, report.problems[:3])
    assert report.peak_rss_mb < RSS_LIMIT_MB, summary
    assert report.exit_code == 0, (summary, report.problems[-3:])
    stats = report.stats
    assert stats["openDocuments"] <= 15 and stats["validations"] <= 15 and stats["requestFutures"] <= 2, stats
