"""No rule of the authoring formats may crash on odd input: every value of every sample, replaced by every
other JSON type, still validates (and cases / completion / hover / definition still answer)."""

from __future__ import annotations

import copy
import csv
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalens.core.formats.base import RuleContext
from evalens.core.index import IndexCache
from evalens.core.validate import validate_text
from tests.conftest import CORPUS
from tests.format_helpers import replaced, value_paths

ROOT = Path(__file__).resolve().parents[2]
MINE = ("skilljack", "skill-creator", "writing-skills", "trigger")
ODD: list[Any] = [
    None,
    True,
    0,
    -1,
    2.5,
    "",
    "x",
    "../../etc/passwd",
    "(",
    [],
    {},
    ["x", 1, None],
    {"k": [None]},
]


def _samples() -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    if (CORPUS / "MANIFEST.tsv").is_file():
        with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row["format"].startswith(MINE):
                    out.append((CORPUS / row["file"], row["path_in_repo"]))
    return out


def _render(data: Any, where: str, original: str) -> str:
    if where.endswith(".json"):
        return json.dumps(data, indent=2)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if where.endswith(".md"):
        body = original.split("---", 2)[2] if original.count("---") >= 2 else "\nPrompt\n"
        return f"---\n{text}---{body}"
    return text


@pytest.mark.parametrize("sample", _samples(), ids=lambda s: s[0].name[:60])
def test_rules_survive_odd_values(sample: tuple[Path, str], tmp_path: Path) -> None:
    file, where = sample
    dest = tmp_path / where
    dest.parent.mkdir(parents=True, exist_ok=True)
    original = file.read_text(encoding="utf-8")
    if where.endswith(".md"):
        front = original.split("---", 2)[1]
        data = yaml.safe_load(front)
    elif where.endswith(".json"):
        data = json.loads(original)
    else:
        data = yaml.safe_load(original)
    rng = random.Random(file.name)
    indexes = IndexCache()
    for target in rng.sample(value_paths(data, 2), min(12, len(value_paths(data, 2)))):
        for odd in ODD:
            text = _render(replaced(data, target, copy.deepcopy(odd)), where, original)
            result = validate_text(str(dest), text, indexes)
            if result.format is None or result.doc is None or not result.doc.ok:
                continue
            fmt, ctx = result.format, RuleContext(str(dest), indexes.for_file(dest), {}, result.doc)
            fmt.cases(result.doc)
            for path in value_paths(result.doc.data, 2)[:15]:
                value = result.doc.node_at_path(path)
                scalar = value.value if value is not None and value.kind == "scalar" else None
                fmt.value_choices(path, ctx)
                fmt.hover_value(path, scalar, ctx)
                fmt.definition(result.doc, path, scalar, ctx)


def test_skill_md_survives_odd_frontmatter(tmp_path: Path) -> None:
    dest = tmp_path / "skills" / "x" / "SKILL.md"
    dest.parent.mkdir(parents=True)
    base = {
        "name": "x",
        "description": "Does x. Use for x.",
        "license": "MIT",
        "compatibility": "any",
        "metadata": {"a": "b"},
        "allowed-tools": "Read",
        "context": "fork",
    }
    for key in list(base):
        for odd in ODD:
            data = {**base, key: odd}
            text = "---\n" + yaml.safe_dump(data, sort_keys=False) + "---\nbody\n"
            for profile in ("agentskills", "claude-code", "uaaps"):
                result = validate_text(str(dest), text, IndexCache(), {"skillProfile": profile})
                assert result.format is not None and result.format.id == "skill-md"
                assert all(re.match(r"^[a-z-]+$", p.code) for p in result.problems)
