"""``evalens.server.features.arms_lens`` in process: the package of a SKILL.md (the folder above it holding
``evals/reports``), the lens titles of the newest report with an arms comparison (older or plain reports give
none), and the lens cache, which reads a reports folder again only when it changed."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from evalens.server.features import arms_lens
from evalens.server.features.arms_lens import ArmsLens, _package_root, titles_for
from tests.ci_helpers import make_arms_report, make_case, make_report, write
from tests.server.server_in_process import make_server, open_doc

SKILL = "---\nname: greeter\ndescription: Writes greetings. Use when asked to greet.\n---\nGreet.\n"
UP = "▲ +40 pts vs no skill [+12, +68] · claude-code"
DOWN = "▼ −20 pts vs without hooks [−50, +10] · claude-code"


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    skill = root / "skills" / "greeter" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL, encoding="utf-8")
    (root / "evals" / "reports").mkdir(parents=True)
    return root


def _reports(pkg: Path) -> Path:
    return pkg / "evals" / "reports"


def test_package_root_is_the_folder_with_reports(pkg: Path, tmp_path: Path) -> None:
    assert _package_root(pkg / "skills" / "greeter" / "SKILL.md") == pkg
    assert _package_root(pkg / "SKILL.md") == pkg
    lone = tmp_path / "lone" / "SKILL.md"
    assert _package_root(lone) is None
    deep = pkg / "a" / "b" / "c" / "d" / "SKILL.md"  # more than four folders up: not searched
    assert _package_root(deep) is None


def test_titles_of_the_newest_arms_report(pkg: Path) -> None:
    assert titles_for(pkg) == []
    write(make_report([make_case("greet", "PASS")]), _reports(pkg) / "2026-01-01T00-00-00Z.json")
    assert titles_for(pkg) == []  # a plain report has no arms section
    write(make_arms_report("greet"), _reports(pkg) / "2026-01-02T00-00-00Z-arms.json")
    assert titles_for(pkg) == [UP, DOWN]
    write(make_report([make_case("greet", "FAIL")]), _reports(pkg) / "2026-01-03T00-00-00Z.json")
    assert titles_for(pkg) == [UP, DOWN]  # a newer plain report does not hide the comparison


def test_a_file_that_is_not_a_report_is_skipped(pkg: Path) -> None:
    write(make_arms_report("greet"), _reports(pkg) / "2026-01-02T00-00-00Z-arms.json")
    (_reports(pkg) / "2026-01-05T00-00-00Z.json").write_text('{"not": "a report"}', encoding="utf-8")
    assert titles_for(pkg) == [UP, DOWN]


def test_lenses_on_a_skill_md_only(pkg: Path, tmp_path: Path) -> None:
    write(make_arms_report("greet"), _reports(pkg) / "2026-01-02T00-00-00Z-arms.json")
    ls = make_server(tmp_path)
    skill = pkg / "skills" / "greeter" / "SKILL.md"
    uri = open_doc(ls, skill, SKILL, write=False)
    lens = ArmsLens()
    got = asyncio.run(lens.lenses(ls, uri))
    assert [(c.command.title, c.command.command) for c in got if c.command] == [(UP, ""), (DOWN, "")]
    assert all((c.range.start.line, c.range.start.character) == (0, 0) for c in got)
    case = open_doc(
        ls, pkg / "evals" / "cases" / "a.yaml", "name: a\ninput:\n  prompt: p\njudge:\n  criteria: c\n"
    )
    assert asyncio.run(lens.lenses(ls, case)) == []
    solo = open_doc(ls, tmp_path / "solo" / "SKILL.md", SKILL)
    assert asyncio.run(lens.lenses(ls, solo)) == []  # no reports folder above it


def test_lenses_read_a_folder_again_only_when_it_changed(
    pkg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ls = make_server(tmp_path)
    uri = open_doc(ls, pkg / "skills" / "greeter" / "SKILL.md", SKILL, write=False)
    reads: list[Path] = []
    real = arms_lens.titles_for

    def counting(root: Path) -> list[str]:
        reads.append(root)
        return real(root)

    monkeypatch.setattr(arms_lens, "titles_for", counting)
    lens = ArmsLens()
    assert asyncio.run(lens.lenses(ls, uri)) == []
    assert asyncio.run(lens.lenses(ls, uri)) == []
    assert reads == [pkg]  # the folder did not change: no second read
    write(make_arms_report("greet"), _reports(pkg) / "2026-01-02T00-00-00Z-arms.json")
    stamp = _reports(pkg).stat().st_mtime_ns + 1_000_000  # a coarse clock may not have moved
    os.utime(_reports(pkg), ns=(stamp, stamp))
    assert [c.command.title for c in asyncio.run(lens.lenses(ls, uri)) if c.command] == [UP, DOWN]
    assert reads == [pkg, pkg]
