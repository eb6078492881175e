"""The SKILL.md lens of an ``--arms`` run against the real server: the reference's uplift over each arm from the
package's newest report with the comparison, with the paired interval and the engine."""

from __future__ import annotations

from pathlib import Path

from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.ci_helpers import make_arms_report, make_case, make_report, write
from tests.server.conftest import open_and_diagnose
from tests.server.run_fixtures import lens_titles, lenses

SKILL = "---\nname: greeter\ndescription: Writes greetings. Use when asked to greet.\n---\nGreet.\n"


async def test_skill_md_shows_the_arms_uplift(client: LanguageClient, tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    skill = pkg / "skills" / "greeter" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    reports = pkg / "evals" / "reports"
    plain = make_report([make_case("greet", "PASS")])
    write(plain, reports / "2026-01-01T00-00-00Z.json")  # older, no arms: no lens from it
    report = make_arms_report("greet")
    write(report, reports / "2026-01-02T00-00-00Z-arms.json")
    uri = from_fs_path(str(skill))
    await open_and_diagnose(client, uri, SKILL)
    titles = lens_titles(await lenses(client, uri))
    assert "▲ +40 pts vs no skill [+12, +68] · claude-code" in titles, titles
    assert "▼ −20 pts vs without hooks [−50, +10] · claude-code" in titles, titles
    assert "＋ New eval case" in titles
