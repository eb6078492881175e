"""``server/uris.py``: one identity for every spelling of a document's URI, and files read only when they are
regular (a FIFO at an eval path would block the server's loop), whatever a client or a repository names."""

from __future__ import annotations

import os
from pathlib import Path

from evalens.server import uris


def test_the_quoted_and_unquoted_spellings_are_one_document(tmp_path: Path) -> None:
    path = tmp_path / "space dir ü" / "a.yaml"
    quoted = uris.uri_of(path)
    assert quoted is not None and "%20" in quoted
    assert uris.key(quoted) == uris.key(quoted.replace("%20", " ")) == uris.key(uris.key(quoted))
    assert uris.path_of(quoted) == str(path)


def test_hostile_uris_are_no_path_and_never_raise() -> None:
    assert uris.path_of("untitled:Untitled-1") is None
    assert uris.usable_path("file:///a/" + "x" * 300 + "/b.yaml") is None  # a component over 255 bytes
    assert uris.usable_path("file:///a/%00/b.yaml") is None  # a NUL byte
    assert uris.usable_path("file:///" + "d/" * 2100) is None  # over 4,096 bytes
    assert uris.usable_path("file:///tmp/evals/cases/a.yaml") == "/tmp/evals/cases/a.yaml"


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    regular = tmp_path / "case.yaml"
    regular.write_text("\ufeffname: a\n", encoding="utf-8")
    assert uris.is_regular_file(regular) and uris.read_regular(regular) == "name: a\n"  # the BOM is dropped
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    assert not uris.is_regular_file(fifo) and uris.read_regular(fifo) is None  # returns at once, never blocks
    assert uris.read_regular(tmp_path) is None  # a folder
    assert not uris.is_regular_file("x" * 300)  # a name the file system refuses
    (tmp_path / "latin1.yaml").write_bytes(b"name: \xe9\n")
    assert uris.read_regular(tmp_path / "latin1.yaml") is None  # not UTF-8: not text we read


def test_a_huge_file_is_read_only_up_to_the_bound(tmp_path: Path) -> None:
    """One byte past the bound, so the parser can tell the file is too large and say so, and no more."""
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a" * (uris.MAX_READ * 3))
    text = uris.read_regular(big)
    assert text is not None and len(text) == uris.MAX_READ + 1
