"""Every real file in the corpus (../shared/corpus, else its vendored part tests/corpus/formats) is classified as its MANIFEST says and diagnosed as its notes imply.

Each file is copied into a temporary repository at its ``path_in_repo`` (or the "intended path" a note gives
for examples reconstructed from a spec), so path globs and sibling lookups behave as in the original repo.
"""

from __future__ import annotations

import csv
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from evalens.core.aggregate import related_of
from evalens.core.index import IndexCache
from evalens.core.problems import Severity
from evalens.core.validate import validate_text
from tests.conftest import CORPUS, VENDORED_CORPUS

FORMAT_IDS = {
    "aam-eval-case-yaml": "uaaps-case",
    "aam-eval-config-json": "uaaps-config",
    "aam-eval-report-json": "uaaps-report",
    "skill-creator-evals-json": "skill-creator-evals",
    "skill-creator-grading-json": "skill-creator-grading",
    "skill-creator-trigger-evalset-json": "trigger-evals",
    "skilljack-eval-config-yaml": "skilljack-config",
    "skilljack-results-json": "skilljack-results",
    "skilljack-task-md": "skilljack-task",
    "skilljack-tasks-yaml": "skilljack-tasks",
    "writing-skills-evals-json": "writing-skills-evals",
}


@dataclass
class Expect:
    """What a file's notes imply: codes that must appear (with optional message fragments), codes that must
    not, the format when it differs from the MANIFEST column, and how many runnable cases it has."""

    codes: set[str] = field(default_factory=set)
    absent: set[str] = field(default_factory=set)
    messages: tuple[str, ...] = ()
    format: str | None = None
    cases: int | None = None
    no_problems: bool = False


# Keyed by a distinctive fragment of the corpus file name.
EXPECT: dict[str, Expect] = {
    "SPEC-EXAMPLE__evals__reports": Expect(codes={"summary-mismatch"}),
    # skill-creator's evals.json is open (extra keys such as `prompt_note` are the repository's own) and
    # `expectations` is its schemas.md name: neither is a finding (issue #9; formats.md §5.1).
    "AzureManagedRedis__amr-migration-skill__evals__evals.json": Expect(
        absent={"legacy-expectations", "unknown-key"}, cases=5
    ),
    "kafka-schema-registry": Expect(
        codes={"object-assertion", "path-style"}, absent={"schema-type"}, cases=10
    ),
    "bad-frontmatter": Expect(
        codes={"vague-assertion", "short-prompt"},
        absent={"legacy-expectations"},
        messages=("Does the thing",),
        cases=1,
    ),
    "stale-expectations": Expect(
        codes={"mixed-check-keys", "vague-assertion", "object-assertion", "file-missing", "abstract-prompt"},
        messages=("evals/fixtures/missing-fixture", "Produces output"),
        cases=3,
    ),
    "developing-kafka-python-client": Expect(codes={"schema-type"}, messages=("inline `{path, content}`",)),
    "msk-migration": Expect(
        codes={"object-assertion"},
        absent={"duplicate-id", "schema-type", "unknown-key"},
        messages=("201 assertions are objects",),
        cases=42,
    ),
    "rule-creator__bash-tools": Expect(
        codes={"string-id", "missing-expected-output"},
        absent={"placeholder", "unknown-key", "legacy-expectations"},
        cases=3,
    ),
    "luan__dot-claude__skills__commit__evals": Expect(
        absent={"file-missing", "legacy-expectations"}, cases=3
    ),
    "luan__dot-claude__skills__scope__evals": Expect(
        codes={"file-missing"}, messages=("fixtures/research-findings.md",), cases=20
    ),
    "magnus919__agent-skills__agent-skills__evals": Expect(codes={"string-id"}, absent={"unknown-key"}),
    # grading.json is an open format (issue #20 point 4): the viewer and aggregate_benchmark.py read only their
    # keys, so a run's own bookkeeping (eval_id, variant, pass) beside a real summary is fine, not unknown-key.
    "grading.json": Expect(codes={"suggestion-string"}, absent={"unknown-key"}),
    "gt-workspace__trigger-eval": Expect(no_problems=True, cases=21),
    "cncf-landscape__evals__trigger-queries": Expect(no_problems=True, cases=6),
    "data-cleaning__evals__trigger-cases": Expect(format="trigger-evals-variant", codes={"trigger-variant"}),
    "skilljack-evals__eval.config.yaml": Expect(no_problems=True),
    "baselines__vercel-ai": Expect(absent={"passed-mismatch", "summary-mismatch"}),
    "baselines__claude-sdk": Expect(absent={"passed-mismatch", "summary-mismatch"}),
    "gr-001__task.md": Expect(no_problems=True, cases=1),
    "gr-002__task.md": Expect(no_problems=True),
    "gr-fp-001__task.md": Expect(no_problems=True),
    "skilljack-evals__evals__example-greeting__tasks.yaml": Expect(
        absent={"criteria-weights", "duplicate-id"}, cases=4
    ),
    "rev-017f6cf": Expect(
        codes={"leading-prompt"}, messages=("tasks[1]: the prompt names the skill",), cases=4
    ),
    "rev-c5f9697": Expect(absent={"criteria-weights"}, cases=4),
    "skills__pr-comments__evals": Expect(codes={"skill-mismatch"}, messages=("pr:comments",)),
    "skills__pr-descr__evals": Expect(codes={"skill-mismatch"}, messages=("pr:descr",)),
    "rev-636c905__skills__develop__evals": Expect(
        absent={"skill-mismatch", "no-required-expectation"}, cases=8
    ),
    "rev-b748849": Expect(no_problems=True, cases=5),
}


def _rows() -> list[dict[str, str]]:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        return []
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _expect_for(name: str) -> Expect:
    hits = [e for key, e in EXPECT.items() if key in name]
    assert len(hits) <= 1, f"{name} matches several EXPECT keys"
    return hits[0] if hits else Expect()


def _place(row: dict[str, str], root: Path) -> Path:
    """Copy the file where it lived: the note's intended path for spec examples, else path_in_repo."""
    intended = re.search(r"intended path (\S+?)\)", row["notes"])
    dest = root / (intended.group(1) if intended else row["path_in_repo"])
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(CORPUS / row["file"], dest)
    return dest


ROWS = _rows()
CROSS_FILE = {"unknown-target", "fixture-missing", "file-missing", "unknown-skill", "unknown-case"}
"""Problems about files next to the one under test; the corpus holds single files, not whole packages."""


@pytest.mark.parametrize("row", ROWS, ids=[Path(r["file"]).name[:80] for r in ROWS])
def test_corpus_file(row: dict[str, str], tmp_path: Path) -> None:
    dest = _place(row, tmp_path)
    result = validate_text(str(dest), dest.read_text(encoding="utf-8"), IndexCache())
    notes = row["notes"]
    expect = _expect_for(Path(row["file"]).name)
    codes = {p.code for p in result.problems}
    text = "\n".join(
        f"{p.span.start_line + 1}: {p.severity.label} [{p.code}] {p.message}"
        + "".join(f"\n    related: {r['message']}" for r in related_of(p))
        for p in result.problems
    )
    if "LOOK-ALIKE" in notes:
        assert result.format is None, text
        assert result.lookalike is not None and result.lookalike.id == FORMAT_IDS[row["format"]]
        assert codes == {"lookalike"}, text
        return
    want = expect.format or FORMAT_IDS[row["format"]]
    assert result.format is not None and result.format.id == want, f"classified as {result.format}"
    if "VALID" in notes:
        assert not [
            p for p in result.problems if p.severity == Severity.ERROR and p.code not in CROSS_FILE
        ], text
    if expect.no_problems:
        assert not result.problems, text
    assert expect.codes <= codes, f"missing {expect.codes - codes}:\n{text}"
    assert not expect.absent & codes, f"unexpected {expect.absent & codes}:\n{text}"
    for fragment in expect.messages:
        assert fragment in text, f"no message mentions {fragment!r}:\n{text}"
    if expect.cases is not None:
        assert result.doc is not None
        assert len(result.format.cases(result.doc)) == expect.cases


def test_every_expectation_matches_a_corpus_file() -> None:
    """A key that names no file is a typo; on the vendored subset, files left out for their licence
    (UNVENDORED.tsv) still count, so the test means the same with or without ../shared."""
    names = [Path(r["file"]).name for r in ROWS]
    if CORPUS == VENDORED_CORPUS:
        with open(VENDORED_CORPUS / "UNVENDORED.tsv", encoding="utf-8") as fh:
            names += [Path(r["file"]).name for r in csv.DictReader(fh, delimiter="\t")]
    unused = [key for key in EXPECT if not any(key in n for n in names)]
    assert not unused, f"EXPECT keys that match no corpus file: {unused}"
