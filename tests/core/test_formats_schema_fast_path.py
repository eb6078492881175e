"""The pydantic fast path of ``schema_check`` must never call a document valid that jsonschema rejects.

Differential test: every corpus and example file of every format, mutated one scalar at a time into other
JSON types; whenever the fast path says "valid", the generated JSON Schema must agree.
"""

from __future__ import annotations

import copy
import csv
import random
import re
from pathlib import Path
from typing import Any

import pytest

from evalens.core import schema_check
from evalens.core.formats.registry import detect
from tests.conftest import CORPUS
from tests.format_helpers import replaced, value_paths

ROOT = Path(__file__).resolve().parents[2]
REPLACEMENTS: list[Any] = [True, False, 0, 1, 1.0, 1.5, -1, "", "x", "1", [], {}, ["x"], {"x": 1}, 10**6]


def _samples() -> list[tuple[Path, str]]:
    """(file, path it lives at) for every corpus row and every example file."""
    out: list[tuple[Path, str]] = []
    if (CORPUS / "MANIFEST.tsv").is_file():
        with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                intended = re.search(r"intended path (\S+?)\)", row["notes"])
                out.append((CORPUS / row["file"], intended.group(1) if intended else row["path_in_repo"]))
    for p in sorted((ROOT / "examples").rglob("*")):
        if p.suffix in {".json", ".yaml", ".md"}:
            out.append((p, str(p.relative_to(ROOT))))
    return out


@pytest.mark.parametrize("sample", _samples(), ids=lambda s: s[0].name[:60])
def test_fast_path_agrees_with_jsonschema(sample: tuple[Path, str]) -> None:
    file, where = sample
    detection = detect(f"/repo/{where}", file.read_text(encoding="utf-8"))
    if (
        detection.format is None
        or detection.doc is None
        or not detection.doc.ok
        or detection.format.schema() is None
    ):
        pytest.skip("not a schema-backed format at this path")
    schema = detection.format.schema()
    validator = schema_check._cached_validator(schema)
    rng = random.Random(file.name)
    paths = value_paths(detection.doc.data, 3)
    original = copy.deepcopy(detection.doc.data)
    for target in rng.sample(paths, min(len(paths), 80)):
        for new in REPLACEMENTS:
            data = replaced(detection.doc.data, target, copy.deepcopy(new))
            if schema_check._quick_valid(schema, data):
                errors = [e.message for e in validator.iter_errors(data)]
                assert not errors, f"fast path accepted {target} = {new!r}: {errors[:2]}"
    assert detection.doc.data == original, "validation changed the document it was given"


@pytest.mark.parametrize("sample", _samples(), ids=lambda s: s[0].name[:60])
def test_pruned_errors_equal_full_errors(sample: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating only the failing items of long lists reports exactly what a full validation reports."""
    monkeypatch.setattr(schema_check, "PRUNE_MIN_ITEMS", 1)
    file, where = sample
    detection = detect(f"/repo/{where}", file.read_text(encoding="utf-8"))
    if (
        detection.format is None
        or detection.doc is None
        or not detection.doc.ok
        or detection.format.schema() is None
    ):
        pytest.skip("not a schema-backed format at this path")
    schema = detection.format.schema()
    validator = schema_check._cached_validator(schema)
    rng = random.Random(file.name + "prune")
    paths = value_paths(detection.doc.data, 3)

    def key(errors: Any) -> list[tuple]:
        return sorted((tuple(map(str, e.absolute_path)), e.message) for e in errors)

    original = copy.deepcopy(detection.doc.data)
    for target in rng.sample(paths, min(len(paths), 25)):
        for new in rng.sample(REPLACEMENTS, 3):
            data = replaced(detection.doc.data, target, copy.deepcopy(new))
            assert key(schema_check.schema_errors(validator, schema, data)) == key(
                validator.iter_errors(data)
            ), f"{target} = {new!r}"
    assert detection.doc.data == original, "validation changed the document it was given"
