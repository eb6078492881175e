"""The optimizer's pure parts (runner/trigger_optimize.py): the split, the paired interval, the description
rewrite of SKILL.md."""

from __future__ import annotations

import pytest
import yaml

from evalens.runner.trigger_optimize import current_description, paired_difference, split, with_description


def test_split_is_per_label_seeded_and_keeps_both_sides() -> None:
    labels = [True] * 6 + [False] * 2
    held = split(labels, 0.6, 0)
    assert held == split(labels, 0.6, 0)  # the same seed, the same split
    assert sum(h for h, w in zip(held, labels, strict=True) if w) == 4
    assert sum(h for h, w in zip(held, labels, strict=True) if not w) == 1
    assert sum(split([True, True], 0.99, 3)) == 1 and sum(split([True, True], 0.01, 3)) == 1
    assert any(split(labels, 0.5, s) != split(labels, 0.5, 0) for s in range(1, 10))


def test_paired_difference_excludes_zero_only_with_enough_paired_wins() -> None:
    d, lo, hi = paired_difference([(True, False)] * 4 + [(True, True)])
    assert d == pytest.approx(0.8) and lo > 0 and hi <= 1
    d, lo, hi = paired_difference([(True, True)] * 3 + [(False, False)] * 2)  # no change
    assert d == 0 and lo < 0 < hi
    d, lo, hi = paired_difference([(True, False), (True, True), (True, True)])  # one win of three
    assert d == pytest.approx(1 / 3) and lo < 0
    d, lo, hi = paired_difference([(False, True)] * 5)
    assert d == -1 and hi < 0
    with pytest.raises(ValueError):
        paired_difference([])


def test_with_description_replaces_only_the_description() -> None:
    text = "---\nname: greeter\ndescription: >\n  Writes\n  greetings.\nlicense: MIT\n---\n# Body: description: x\n"
    new = with_description(text, 'Writes "greetings": for people.')
    assert new.endswith("---\n# Body: description: x\n")
    data = yaml.safe_load(new.split("---\n")[1])
    assert data == {"name": "greeter", "description": 'Writes "greetings": for people.', "license": "MIT"}
    assert current_description(new) == 'Writes "greetings": for people.'
    assert current_description(text) == "Writes greetings.\n"
    with pytest.raises(ValueError):
        with_description("no frontmatter", "x")


def test_pairs_and_what_other_skills_fired() -> None:
    from evalens.runner.trigger_optimize import Measured, pairs_of

    queries = [("greet", True), ("merge pdfs", False), ("weather", False)]
    old = Measured(queries, [["pdf-tools", "greeter"], ["pdf-tools", "pdf-tools"], ["", None]])
    new = Measured(queries, [["greeter", "greeter"], ["greeter", "pdf-tools"], ["", ""]])
    # (new right, old right) per query and run; the run that errored on the old side is dropped
    assert pairs_of(new, old, "greeter") == [
        (True, False),
        (True, True),
        (False, True),
        (True, True),
        (True, True),
    ]
    assert old.others_fired("greeter") == {"pdf-tools": 2} and new.others_fired("greeter") == {"pdf-tools": 1}
    assert old.score("greeter") == (4, 5) and new.score("greeter") == (5, 6)
