"""Placeholders like ``<name>`` in hovers (issue 27 #10): escaped as HTML entities, which VS Code renders and both
Neovims show as ``<`` (0.7 converts them, 0.11 conceals them); a backslash escape showed as ``\\<name\\>``."""

from __future__ import annotations

from evalens.core.models.base import md_escape
from evalens.schemas import load_schema


def test_placeholders_become_entities_outside_code_spans():
    assert (
        md_escape("skills/<name>/SKILL.md or `skill:<name>`")
        == "skills/&lt;name&gt;/SKILL.md or `skill:<name>`"
    )


def test_the_target_hover_has_no_backslash_escape():
    text = load_schema("uaaps-eval-case.schema.json")["properties"]["target"]["markdownDescription"]
    assert "skills/&lt;name&gt;/SKILL.md" in text and "\\<" not in text


def test_checks_are_shown_as_the_case_writes_them():
    """Issue 27 #11: the run view said `agent_blocked True`; the case says `agent-blocked: true`."""
    from evalens.runner.check_words import check_key, yaml_value

    assert (check_key("agent_blocked"), yaml_value(True)) == ("agent-blocked", "true")
    assert (check_key("not_contains"), yaml_value("x"), yaml_value(False)) == ("not-contains", "x", "false")


def test_the_report_in_the_hover_is_a_link():
    """Issue 27 #11: the report path in the hover is a file link, the path its text."""
    from evalens.server.features.run_present import report_link

    assert (
        report_link("/ws/pkg/evals/reports/2026-01-02T00-00-00Z.json")
        == "[/ws/pkg/evals/reports/2026-01-02T00-00-00Z.json](file:///ws/pkg/evals/reports/2026-01-02T00-00-00Z.json)"
    )
    assert report_link("/ws/a b/r.json").endswith("(file:///ws/a%20b/r.json)")


def test_an_editor_that_draws_links_as_written_gets_the_path_alone():
    """Issue 45 #8: Neovim 0.7.2's hover float shows ``[path](file:///…)`` as written; its clientInfo says so,
    and the hover names the report by its path (``gf`` opens it). VS Code and Neovim 0.10+ keep the link."""
    from types import SimpleNamespace

    from evalens.server.features.run_present import report_link
    from evalens.server.server import EvalensServer

    def draws(name: str, version: str) -> bool:
        return EvalensServer.draws_links.fget(SimpleNamespace(editor=(name, version)))  # type: ignore[attr-defined]

    assert not draws("Neovim", "0.7.2") and not draws("Neovim", "0.9.5")
    assert draws("Neovim", "0.10.0") and draws("Neovim", "0.11.4") and draws("Visual Studio Code", "1.93.0")
    assert draws("", "")  # a client that says nothing keeps the link
    assert report_link("/ws/pkg/r.json", link=False) == "`/ws/pkg/r.json`"
