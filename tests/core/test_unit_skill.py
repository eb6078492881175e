"""The skill tag of a unit in the Test Explorer (issue 27): a UAAPS case's `target: skill:<name>`, a
skill-creator file's `skill_name`; none for a hook target or a file that names no skill."""

from __future__ import annotations

import json
from pathlib import Path

from evalens.core.index import IndexCache
from evalens.core.labels import unit_skill
from evalens.core.validate import validate_text

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "examples" / "pdf-tools" / "evals" / "cases"


def _skills(path: Path, text: str | None = None) -> list[str | None]:
    v = validate_text(str(path), path.read_text() if text is None else text, IndexCache())
    assert v.format is not None and v.doc is not None, path
    return [unit_skill(v.doc, c) for c in v.format.cases(v.doc) if c.name != "*"]


def test_a_uaaps_case_targeting_a_skill_is_tagged_with_it():
    assert _skills(CASES / "01-extract-text.yaml") == ["pdf-tools"]


def test_a_hook_target_has_no_skill():
    assert _skills(CASES / "02-block-secrets.yaml") == [None]


def test_skill_creator_evals_take_the_files_skill_name(tmp_path: Path):
    evals = {
        "skill_name": "bash-tools",
        "evals": [{"id": 1, "prompt": "List files", "expected_output": "a list"}],
    }
    path = tmp_path / "bash-tools" / "evals" / "evals.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(evals))
    assert _skills(path) == ["bash-tools"]
