"""The wording hints (unfalsifiable expectations, bare prompts) leave text in another script alone: English word
lists mean nothing there. ``other_script`` finds such letters with a regex first (issue #22: the character loop it
replaced was a sixth of validating a large evals.json); it must answer exactly as the plain definition does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from evalens.core.formats._shared import is_bare_prompt, is_unfalsifiable, other_script


def _by_definition(text: str) -> bool:
    return any(ord(c) > 0x24F and c.isalpha() for c in text)


@given(st.text(max_size=40))
def test_other_script_is_its_definition(text: str) -> None:
    assert other_script(text) == _by_definition(text)


@given(st.text(alphabet=st.characters(min_codepoint=0x200, max_codepoint=0x3100), max_size=12))
def test_other_script_near_the_latin_boundary(text: str) -> None:
    """Latin Extended-B ends at U+024F; IPA, Greek, Cyrillic, symbols and numerals that are not letters follow."""
    assert other_script(text) == _by_definition(text)


def test_hints_leave_other_scripts_alone() -> None:
    assert other_script("Выводит результат") and not is_unfalsifiable("Выводит результат")
    assert other_script("出力する") and not is_bare_prompt("出力する")
    assert not other_script("Ⅷ ① ²") and not other_script("naïve café Œuvre ǅ")
    assert is_unfalsifiable("Produces output")
