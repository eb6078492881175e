"""``replace_fix`` (evalens/core/formats/_shared.py), the quick fix every format uses to change a scalar: it keeps
the scalar's quotes and escapes the new text as they need, so applying it never breaks the file (a Windows path
written raw between JSON quotes turned its backslashes into invalid escapes)."""

from __future__ import annotations

import json

import pytest
import yaml

from evalens.core.documents import parse
from evalens.core.formats._shared import replace_fix
from tests.format_helpers import apply

NEW = 'C:\\sk\\it\'s "new"'


@pytest.mark.parametrize(
    ("language", "text", "load"),
    [
        ("json", '{"skill": "old"}', json.loads),
        ("yaml", 'skill: "old"\n', yaml.safe_load),
        ("yaml", "skill: 'old'\n", yaml.safe_load),
    ],
)
def test_the_new_value_reads_back_as_given(language: str, text: str, load) -> None:
    doc = parse(text, language)
    fixed = apply(text, replace_fix(doc, ("skill",), NEW).edits)
    assert load(fixed) == {"skill": NEW}
    assert fixed.startswith(text[: text.index("old")])  # the key and the opening quote are as they were


def test_a_plain_scalar_is_replaced_as_it_is() -> None:
    doc = parse("skill: old\n", "yaml")
    assert apply("skill: old\n", replace_fix(doc, ("skill",), "new-name").edits) == "skill: new-name\n"
