"""The event-stream builder (evalens/core/yaml_events.py) must give exactly what the composer-based builder gives:
the same node kinds, spans, key spans, values (with types), styles and problems — or decline (None)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalens.core import documents, yaml_events
from evalens.core.documents import MAX_DEPTH, MAX_NODES, Node, _loader, split_lines
from tests.conftest import CORPUS

ROOT = Path(__file__).resolve().parents[2]

SNIPPETS = [
    "a: 1\nb: 1.5\nc: true\nd: ~\ne:\nf: 'q'\ng: \"dq\"\nh: yes\ni: On\nj: 0x1F\nk: 0o17\nl: .inf\nm: -.NaN\n",
    "t: 2026-01-02\nts: 2026-01-02T10:00:00Z\neq: =\nint_key:\n  1: one\n  true: yes\n  null: x\n  '': empty\n",
    "list:\n  - a\n  - {x: 1, y: [1, 2, {z: null}]}\n  - - nested\n    - seq\n  -\n  - []\n  - {}\n",
    "block: |\n  line one\n  line two\nfolded: >-\n  folded\n  text\n\nkeep: |+\n  kept\n\nafter: 1\n",
    "dup: 1\nother: 2\ndup: 3\nnested:\n  k: 1\n  k: 2\n",
    "# comment only before\nkey: value # trailing\n# end\n",
    "\"quoted key\": 1\n'single': 2\n? explicit\n: value\n",
    "anchor: &a {x: 1}\nalias: *a\n",
    "tagged: !!str 123\n",
    "custom: !thing x\n",
    "? [complex, key]\n: v\n",
    "one: 1\n---\ntwo: 2\n",
    "---\nexplicit: doc\n...\n",
    "",
    "# nothing\n",
    "just a scalar\n",
    "- 1\n- two\n",
    "bad: [1, 2\n",
    "tab:\n\t- x\n",
    "a:\r\n  b: 1\r\n  c: [x, y]\r\n",
    'emoji: "héllo 🌍"\nkey with spaces: v\n',
    "merge:\n  <<: {a: 1}\n  b: 2\n",
    'version: 1.0\nv2: "1.0"\nn: -5\nbig: 12345678901234567890\nexp: 1e3\nsexa: 1:20\n',
    "nulls: [~, null, Null, NULL, '']\nbools: [y, n, Yes, NO, on, OFF, True, false]\n",
]


def _same(a: Node | None, b: Node | None, where: str = "root") -> None:
    if a is None or b is None:
        assert a is b, where
        return
    assert (a.kind, a.span, a.style) == (b.kind, b.span, b.style), where
    if a.kind == "scalar":
        assert type(a.value) is type(b.value), f"{where}: {a.value!r} vs {b.value!r}"
        if isinstance(a.value, float) and math.isnan(a.value):
            assert math.isnan(b.value)
        else:
            assert a.value == b.value, where
    assert [(k, s) for k, s, _ in a.entries] == [(k, s) for k, s, _ in b.entries], where
    for (k, _, x), (_, _, y) in zip(a.entries, b.entries, strict=True):
        _same(x, y, f"{where}.{k}")
    assert len(a.items) == len(b.items), where
    for i, (x, y) in enumerate(zip(a.items, b.items, strict=True)):
        _same(x, y, f"{where}[{i}]")


def _slow(text: str, monkeypatch: pytest.MonkeyPatch, line_offset: int = 0) -> Any:
    with monkeypatch.context() as m:
        m.setattr(yaml_events, "compose", lambda *a, **k: None)
        return documents._compose_yaml(text, split_lines(text), line_offset)


def _texts() -> list[tuple[str, str]]:
    out = [(f"snippet-{i}", t) for i, t in enumerate(SNIPPETS)]
    # the examples, the format corpus, and the real repositories vendored under tests/corpus/field (always in
    # the repository, so a fresh clone compares the two builders on real files too)
    roots = [ROOT / "examples", ROOT / "tests" / "corpus" / "field"] + ([CORPUS] if CORPUS.is_dir() else [])
    for base in roots:
        for p in sorted(base.rglob("*")):
            if not p.is_file() or p.is_symlink():
                continue
            if base.name == "field" and p.suffix == ".md" and p.name != "SKILL.md":
                continue  # the frontmatter that matters in the field: skills'
            if p.suffix in {".yaml", ".yml"}:
                out.append((str(p.relative_to(base)), p.read_text(encoding="utf-8")))
            elif p.suffix == ".md":
                lines = p.read_text(encoding="utf-8").split("\n")
                if lines and lines[0].strip() == "---" and "---" in lines[1:]:
                    end = lines.index("---", 1)
                    out.append((str(p.relative_to(base)), "\n".join(["", *lines[1:end]])))
    data = {
        "skill": "greeting",
        "tasks": [
            {
                "id": f"t-{i}",
                "prompt": f'hello {i}: "quoted"',
                "n": i,
                "f": i / 3,
                "flag": i % 2 == 0,
                "none": None,
                "list": [1, "two", None],
            }
            for i in range(30)
        ],
    }
    out.append(("dump-block", yaml.safe_dump(data, sort_keys=False)))
    out.append(("dump-flow", yaml.safe_dump(data, default_flow_style=True)))
    out.append(("dump-unicode", yaml.safe_dump({"k": "ünïcødé ✓", "long": "x " * 200}, allow_unicode=True)))
    return out


@pytest.mark.parametrize(("name", "text"), _texts(), ids=[n[-60:] for n, _ in _texts()])
def test_event_builder_matches_composer(name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    slow_root, slow_data, slow_problems = _slow(text, monkeypatch)
    fast = yaml_events.compose(text, 0, _loader(), Node, MAX_NODES, MAX_DEPTH)
    if fast is None:
        return  # declined: the composer handles it (anchors, tags, several documents, errors, …)
    root, data, problems = fast
    _same(root, slow_root)
    if not (isinstance(data, float) and math.isnan(data)):
        assert repr(data) == repr(slow_data)
    assert [(p.code, p.span, p.message) for p in problems] == [
        (p.code, p.span, p.message) for p in slow_problems
    ]


def test_declines_what_it_does_not_handle() -> None:
    for text in ("a: &x 1\nb: *x\n", "a: !!str 1\n", "? [a]\n: b\n", "a: 1\n---\nb: 2\n", "a: [1\n", ""):
        assert yaml_events.compose(text, 0, _loader(), Node, MAX_NODES, MAX_DEPTH) is None, text
    deep = "a: " + "[" * 250 + "]" * 250 + "\n"
    assert yaml_events.compose(deep, 0, _loader(), Node, MAX_NODES, MAX_DEPTH) is None


def test_line_offset_for_frontmatter(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "\nname: x\ndescription: y\n"
    fast = yaml_events.compose(text, 0, _loader(), Node, MAX_NODES, MAX_DEPTH)
    assert fast is not None
    _same(fast[0], _slow(text, monkeypatch)[0])
    doc = documents.parse("---\nname: x\ndup: 1\ndup: 2\n---\nbody\n", "markdown")
    assert doc.root is not None and doc.root.key_span("name") is not None
    assert [p.code for p in doc.problems] == ["duplicate-key"]


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    given = None

if given is not None:
    _scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=False, allow_infinity=False, width=32),
        st.text(alphabet="abcyesnoON01.:-#'\" é\n", max_size=12),
    )
    _data = st.recursive(
        _scalars,
        lambda kids: st.one_of(
            st.lists(kids, max_size=4),
            st.dictionaries(st.text(alphabet="abk yn1-_", min_size=1, max_size=5), kids, max_size=4),
        ),
        max_leaves=25,
    )

    @settings(max_examples=150, deadline=None)
    @given(data=_data, flow=st.sampled_from([None, True, False]), width=st.sampled_from([20, 80]))
    def test_event_builder_matches_composer_on_generated_yaml(
        data: Any, flow: bool | None, width: int
    ) -> None:
        text = yaml.safe_dump(data, default_flow_style=flow, width=width, allow_unicode=True, sort_keys=False)
        mp = pytest.MonkeyPatch()
        try:
            slow_root, slow_data, slow_problems = _slow(text, mp)
        finally:
            mp.undo()
        fast = yaml_events.compose(text, 0, _loader(), Node, MAX_NODES, MAX_DEPTH)
        if fast is None:
            return
        _same(fast[0], slow_root)
        assert repr(fast[1]) == repr(slow_data)
        assert [(p.code, p.span) for p in fast[2]] == [(p.code, p.span) for p in slow_problems]
