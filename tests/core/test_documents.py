"""Positioned parsing: ranges, tolerant JSON, and hostile input that must never raise."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalens.core.documents import parse
from evalens.core.problems import Span
from evalens.core.validate import read_source, validate_text

CASE = "evals/cases/x.yaml"
CONFIG = "evals/eval-config.json"


def test_yaml_ranges_for_keys_and_values():
    doc = parse("name: a\ninput:\n  prompt: hi\n  files:\n    - x.txt\n", "yaml")
    assert doc.key_span_at_path(("input", "prompt")) == Span(2, 2, 2, 8)
    assert doc.node_at_path(("input", "files", 0)).span == Span(4, 6, 4, 11)
    assert doc.path_at(4, 7)[0] == ("input", "files", 0)
    assert doc.path_at(2, 3)[:2] == (("input", "prompt"), True)


def test_json_tolerates_comments_and_trailing_commas():
    doc = parse('{\n  // note\n  "version": 1,\n  "engine": "codex",\n}\n', "json")
    assert doc.data == {"version": 1, "engine": "codex"}
    assert [p.code for p in doc.problems] == ["json-comment", "trailing-comma"]
    assert doc.problems[1].span == Span(3, 19, 3, 20)


def test_json_syntax_error_position():
    doc = parse('{\n  "version": 1\n  "engine": "x"\n}', "json")
    assert not doc.ok and doc.problems[0].span.start_line == 2


def test_duplicate_keys_yaml_and_json():
    for text, lang in (("name: a\nname: b\n", "yaml"), ('{"a": 1, "a": 2}', "json")):
        doc = parse(text, lang)
        assert [p.code for p in doc.problems] == ["duplicate-key"]


def test_multi_document_yaml():
    doc = parse("name: a\n---\nname: b\n", "yaml")
    assert doc.data == {"name": "a"} and doc.problems[0].code == "multi-document"


def test_tabs():
    doc = parse("input:\n\tprompt: x\n", "yaml")
    assert "tab" in doc.problems[0].message.lower() and doc.problems[0].span.start_line == 1


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


def test_alias_bomb_is_bounded():
    validate_text(CASE, "name: warm-up\n")  # first call imports every format module
    started = time.perf_counter()
    result = validate_text(CASE, BOMB)
    assert time.perf_counter() - started < 0.2
    assert [p.code for p in result.problems] == ["alias-bomb"]


def test_huge_file_is_refused_quickly():
    text = "name: a\n" + "# padding padding padding padding\n" * 330_000  # ~11 MB
    validate_text(CASE, "name: warm-up\n")
    started = time.perf_counter()
    result = validate_text(CASE, text)
    assert time.perf_counter() - started < 0.2
    assert result.problems[0].code == "file-too-large" and "MB" in result.problems[0].message


def test_non_utf8_bytes(tmp_path):
    path = tmp_path / "evals" / "cases" / "bad.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"name: a\nprompt: caf\xe9\n")
    text, problem = read_source(path)
    assert text is None and problem.code == "encoding" and problem.span.start_line == 1


def test_frontmatter_line_numbers():
    doc = parse("---\nname: x\ndescription: y\n---\nbody\n", "markdown")
    assert doc.node_at_path(("description",)).span.start_line == 2 and doc.body_start_line == 4


yaml_text = st.text(alphabet=st.sampled_from(list("abc:-[]{}&*!|>'\"#\n\t ,?%@`1.\\é😀")), max_size=200)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_text)
def test_random_yaml_never_raises(text):
    validate_text(CASE, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]:,"\\/*01truefalsn -\n\tx')), max_size=200))
def test_random_json_never_raises(text):
    validate_text(CONFIG, text)


SEED = (
    'name: pdf-case\ntarget: skill:pdf\ninput:\n  prompt: "hi"\n  files: [fixtures/a.pdf, ../x]\n'
    'expected:\n  contains: ["A"]\n  agent-blocked: true\njudge:\n  criteria: >\n    good output\n'
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(SEED)), st.integers(0, 5), st.text(max_size=4)), max_size=6))
def test_mutated_case_never_raises(edits):
    text = SEED
    for pos, cut, insert in edits:
        text = text[:pos] + insert + text[pos + cut :]
    result = validate_text(CASE, text)
    for p in result.problems:
        assert p.span.start_line >= 0 and p.message
