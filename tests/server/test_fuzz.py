"""The fuzz test of issue 16: mutated corpus documents and hostile requests against one live server.

Bounded to 20 s of traffic by default (``EVALENS_FUZZ_SECONDS=90`` or more for a longer run); ``benchmarks/fuzz_server.py`` runs
the same fuzzer for as long as asked. Marked ``fuzz`` so it can be deselected; a plain ``pytest`` runs it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.server.fuzz import Fuzzer, corpus_documents

SECONDS = float(os.environ.get("EVALENS_FUZZ_SECONDS", "20"))
SEED = int(os.environ.get("EVALENS_FUZZ_SEED", "16"))
RSS_LIMIT_MB = 400
DEADLINE = 15.0


def test_fuzz_seeds_need_nothing_outside_the_repository(tmp_path: Path):
    """A fresh clone has no ../shared: the seeds then come from the repository alone (issue #22)."""
    seeds = corpus_documents(tmp_path / "no-shared-corpus")
    kinds = {Path(path).suffix for path, _ in seeds}
    assert len(seeds) >= 30 and {".yaml", ".json", ".md"} <= kinds, (len(seeds), kinds)


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
