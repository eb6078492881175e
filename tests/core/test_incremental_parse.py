"""Incremental YAML parsing (issue 43): an edit inside one sequence item re-parses that item alone, and the
result must be exactly the full parse's. A differential property test holds the two to each other over random
edit sequences on the corpus files (the fixtures, the examples, a generated skilljack ``tasks.yaml`` and, when
``../shared`` is beside the clone, the real-world corpus), chaining each edit's incremental parse into the next
as the server does; and through ``validate_text``, the diagnostics of both agree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalens.core import documents
from evalens.core.documents import parse, reparse_item
from evalens.core.validate import validate_text
from tests.conftest import REPO, SHARED_CORPUS

FIXTURES = REPO / "tests" / "fixtures"
REALWORLD = SHARED_CORPUS / "realworld"


def skilljack_text(n_tasks: int) -> str:
    """A tasks.yaml shaped like the benchmark's (13 lines a task), small enough for many examples."""
    out = ["skill: greeting", 'version: "1.0"', "", "tasks:"]
    for i in range(1, n_tasks + 1):
        out += [
            f"  - id: gr-{i:03d}",
            f'    prompt: "Task {i}: please greet member {i} of the team."',
            "    expected_skill_load: greeting",
            "    deterministic:",
            "      expect_skill_activation: true",
            "    criteria:",
            f'      discovery: {{ weight: 0.3, description: "Loads the skill for task {i}" }}',
            "    golden_checklist:",
            f'      - "Greeted member {i}"',
            "",
        ]
    return "\n".join(out)


def corpus() -> list[tuple[str, str]]:
    """(path, text) of every YAML file the test edits; the real-world part only when ../shared is there."""
    roots = [FIXTURES, REPO / "examples"]
    if REALWORLD.is_dir() and not os.environ.get("EVALENS_NO_SHARED"):
        roots.append(REALWORLD)
    files = sorted(p for root in roots for ext in ("*.yaml", "*.yml") for p in root.rglob(ext) if p.is_file())
    out = [(str(p), p.read_text(encoding="utf-8", errors="replace")) for p in files]
    out.append((str(REPO / "evals" / "greeting" / "tasks.yaml"), skilljack_text(12)))
    return out


CORPUS = corpus()
TASKS = CORPUS[-1]
# half the examples edit the generated tasks.yaml, whose many items make most edits take the incremental path
# (on the other files most edits fall back to a full parse, which the test compares all the same)
FILES = st.one_of(st.just(TASKS), st.sampled_from(CORPUS))
ALPHABET = "ab0 :-#\"'[]{},&*|>!\t.x"

edit = st.tuples(
    st.sampled_from(["insert", "delete", "replace", "newline", "join"]),
    st.floats(0, 1, exclude_max=True),  # which line
    st.floats(0, 1),  # which column
    st.text(alphabet=ALPHABET, min_size=1, max_size=3),
)


def apply(text: str, op: str, where: float, col: float, chars: str) -> str:
    lines = text.split("\n")
    i = int(where * len(lines))
    line = lines[i]
    c = int(col * len(line))
    if op == "insert":
        lines[i] = line[:c] + chars + line[c:]
    elif op == "delete":
        lines[i] = line[:c] + line[c + len(chars) :]
    elif op == "replace":
        lines[i] = line[:c] + chars + line[c + len(chars) :]
    elif op == "newline":  # changes the line count: always a full parse, still compared
        lines[i : i + 1] = [line[:c], line[c:]]
    elif i + 1 < len(lines):  # join
        lines[i : i + 2] = [line + lines[i + 1]]
    return "\n".join(lines)


def same(a: documents.ParsedDocument, b: documents.ParsedDocument) -> None:
    # repr, not ==: a `.nan` value is unequal to itself; every field of Node but its key cache is in its repr
    assert repr(a.root) == repr(b.root)
    assert repr(a.data) == repr(b.data)
    assert a.problems == b.problems
    assert a.yaml_nodes == b.yaml_nodes
    assert a.lines == b.lines


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FILES, st.lists(edit, min_size=1, max_size=8))
def test_incremental_parse_is_the_full_parse(file: tuple[str, str], edits: list) -> None:
    _path, text = file
    previous = parse(text, "yaml")
    for op, where, col, chars in edits:
        text = apply(text, op, where, col, chars)
        incremental = parse(text, "yaml", previous)
        same(incremental, parse(text, "yaml"))
        previous = incremental


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FILES, st.lists(edit, min_size=1, max_size=4))
def test_incremental_validation_gives_the_full_diagnostics(file: tuple[str, str], edits: list) -> None:
    path, text = file
    previous = validate_text(path, text).doc
    for op, where, col, chars in edits:
        text = apply(text, op, where, col, chars)
        incremental = validate_text(path, text, previous=previous)
        full = validate_text(path, text)
        assert incremental.problems == full.problems
        assert (incremental.format.id if incremental.format else None) == (
            full.format.id if full.format else None
        )
        previous = incremental.doc


def test_an_edit_inside_one_task_reparses_that_task_only() -> None:
    """The path the property test compares is taken: the other tasks are the previous parse's own nodes."""
    text = skilljack_text(50)
    before = parse(text, "yaml")
    edited = text.replace("Greeted member 20", "Greeted member 2O", 1)
    after = reparse_item(before, edited, edited.split("\n"))
    assert after is not None
    old_items, new_items = before.root.get("tasks").items, after.root.get("tasks").items
    changed = [i for i, (a, b) in enumerate(zip(old_items, new_items, strict=True)) if a is not b]
    assert changed == [19]
    assert after.data["tasks"][19]["golden_checklist"] == ["Greeted member 2O"]
    same(after, parse(edited, "yaml"))


@pytest.mark.parametrize(
    "old, new",
    [
        ("  - id: gr-003", "  - id: &a gr-003"),  # an anchor: aliases elsewhere could read it
        ('      - "Greeted member 3"', "      - |"),  # a block scalar reads the lines after it
        ("  - id: gr-012", "  - id: gr-012x"),  # the last item: its end is not bounded by a next dash
    ],
)
def test_edits_whose_meaning_reaches_outside_the_item_parse_the_whole(old: str, new: str) -> None:
    text = skilljack_text(12)
    before = parse(text, "yaml")
    edited = text.replace(old, new, 1)
    assert edited != text
    assert reparse_item(before, edited, edited.split("\n")) is None
    same(parse(edited, "yaml", before), parse(edited, "yaml"))


def test_corpus_holds_the_realworld_files_when_shared_is_there() -> None:
    paths = [Path(p) for p, _ in CORPUS]
    assert any(p.is_relative_to(FIXTURES) for p in paths)
    if REALWORLD.is_dir() and not os.environ.get("EVALENS_NO_SHARED"):
        assert any(p.is_relative_to(REALWORLD) for p in paths)
