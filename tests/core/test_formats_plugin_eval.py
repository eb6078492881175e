"""`claude plugin eval` cases (issue 38): evalens reports an error exactly on the fixture cases Claude Code's loader
refuses (`bad-*`; the split is checked against the real CLI by tests/runner/test_agents_plugin_eval_oracle.py), warns
on what it silently ignores, and claims a `prompt.md` / `case.yaml` only on evidence of the format."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evalens.core.formats.registry import detect
from evalens.core.validate import validate_file

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "plugin_eval" / "demo"
CASES = sorted(p.name for p in (DEMO / "evals").iterdir() if p.is_dir())

# the code each refused case is flagged with, and the warnings a loading case gets
EXPECTED = {
    "bad-dup": {"plugin-eval-duplicate-grader"},
    "bad-flags": {"schema-pattern"},
    "bad-grader-key": {"unknown-key"},
    "bad-grader-option": {"plugin-eval-grader-option"},
    "bad-key": {"unknown-key"},
    "bad-match": {"schema-pattern"},
    "bad-missing-option": {"plugin-eval-grader-missing"},
    "bad-no-grader": {"plugin-eval-no-grader"},
    "bad-no-prompt": {"plugin-eval-no-prompt"},
    "bad-no-schema": {"missing-key"},
    "bad-no-type": {"missing-key"},
    "bad-range": {"schema-maximum"},
    "bad-rubric-template": {"plugin-eval-template"},
    "bad-runs": {"schema-minimum"},
    "bad-template": {"plugin-eval-template"},
    "bad-type": {"schema-enum"},
    "bad-version": {"schema-pattern"},
    "bad-weight": {"schema-exclusiveMinimum"},
    "good-env": {"plugin-eval-env"},
    "good-inline-flag": {"plugin-eval-regex"},
    "good-skipped": {"plugin-eval-grader-skipped"},
    "good-yaml-extra": {"unknown-key"},
}


def case_problems(folder: Path) -> list:
    return [
        (path.relative_to(folder).as_posix(), p)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        for p in validate_file(path).problems
    ]


def test_every_fixture_case_has_an_expectation() -> None:
    assert {c for c in CASES if c.startswith("bad-")} <= set(EXPECTED)
    assert set(EXPECTED) <= set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_an_error_exactly_where_claude_code_refuses_the_case(name: str) -> None:
    found = case_problems(DEMO / "evals" / name)
    errors = {p.code for _, p in found if p.severity.name == "ERROR"}
    others = {p.code for _, p in found if p.severity.name != "ERROR"}
    if name.startswith("bad-"):
        assert errors, f"{name}: Claude Code refuses this case, evalens reported no error: {found}"
        assert EXPECTED[name] <= errors, (name, found)
    else:
        assert not errors, f"{name}: Claude Code loads this case, evalens reported errors: {found}"
        assert EXPECTED.get(name, set()) == others, (name, found)


def test_messages_speak_the_loaders_terms() -> None:
    [(_, key)] = case_problems(DEMO / "evals" / "bad-key")
    assert key.message.startswith(
        "`foo` is not a key of prompt.md's frontmatter: Claude Code refuses the case"
    )
    [(_, top), (_, extra)] = sorted(
        case_problems(DEMO / "evals" / "good-yaml-extra"), key=lambda x: x[1].span.start_line
    )
    assert "`max_turns` is not a field of this file" in top.message and "does nothing" in top.message
    assert extra.message.startswith("`retries` is not a field of `execution`: Claude Code drops it silently")


def test_a_prompt_md_or_case_yaml_is_claimed_only_on_the_formats_evidence(tmp_path: Path) -> None:
    notes = tmp_path / "docs" / "prompt.md"  # a prompt file of some other tool, not under evals/
    notes.parent.mkdir()
    notes.write_text("---\nmax_turns: 3\n---\nHello\n")
    assert detect(str(notes), notes.read_text()).format is None
    other = tmp_path / "evals" / "x" / "prompt.md"  # under evals/, but nothing of a case's own
    other.parent.mkdir(parents=True)
    other.write_text("---\ntitle: a prompt\n---\nHello\n")
    assert detect(str(other), other.read_text()).format is None
    other.write_text("---\nmax_turns: 3\n---\nHello\n")
    fmt = detect(str(other), other.read_text()).format
    assert fmt is not None and fmt.id == "plugin-eval-prompt"
    ci = tmp_path / "ci" / "case.yaml"
    ci.parent.mkdir()
    ci.write_text("name: deploy\nsteps: [build]\n")
    assert detect(str(ci), ci.read_text()).format is None
    # a prompt.md with no frontmatter is a valid prompt: claimed in a case folder, where case.yaml reports the
    # case's checks (bad-dup's duplicate grader), and nowhere else
    body_only = DEMO / "evals" / "bad-dup" / "prompt.md"
    fmt = detect(str(body_only), body_only.read_text()).format
    assert fmt is not None and fmt.id == "plugin-eval-prompt"
    assert validate_file(body_only).problems == []
    loose = tmp_path / "evals" / "y" / "prompt.md"
    loose.parent.mkdir(parents=True)
    loose.write_text("Say hi.\n")
    assert detect(str(loose), loose.read_text()).format is None


def test_a_body_only_prompt_md_case_with_no_grader_the_loader_reads_is_an_error(tmp_path: Path) -> None:
    """FakharEAli/book-skills (fresh corpus): prompt.md with no frontmatter and rubric graders without one.
    claude plugin eval 2.1.332 refuses each such case (`invalid case.yaml: graders: Required`), and evalens said
    nothing, as it did not claim a prompt.md without frontmatter; with one typed grader the case loads."""
    case = tmp_path / "evals" / "c1"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("Say hi to the user.\n")
    (case / "graders" / "g.md").write_text("PASS if the reply says hi.\n")
    found = validate_file(case / "prompt.md").problems
    assert [(p.code, p.severity.name, p.span.start_line) for p in found] == [
        ("plugin-eval-no-grader", "ERROR", 0),
        ("plugin-eval-grader-skipped", "WARNING", 0),
    ]
    (case / "graders" / "g.md").write_text("---\ntype: regex\npattern: hi\n---\n")
    assert validate_file(case / "prompt.md").problems == []


def test_the_new_case_skeletons_load_clean(tmp_path: Path) -> None:
    """The skeletons write what `claude plugin eval init --bare` writes, with the prompt and the rubric as text to
    replace instead of the TODO lines the loader refuses: nothing the loader refuses, and only the rubric is
    flagged, as every skeleton's judged text is (``skeleton-placeholder``: evalens will not judge it)."""
    from evalens.core.formats.registry import by_id

    case = tmp_path / "evals" / "fresh"
    (case / "graders").mkdir(parents=True)
    prompt, grader = by_id("plugin-eval-prompt"), by_id("plugin-eval-grader")
    assert prompt is not None and grader is not None
    (case / "prompt.md").write_text(prompt.skeleton(False) or "")
    (case / "graders" / "criteria.md").write_text(grader.skeleton(False) or "")
    assert [(f, p.code) for f, p in case_problems(case)] == [("graders/criteria.md", "skeleton-placeholder")]
    assert "${1:" in (prompt.skeleton(True) or "")


def test_a_missing_grader_file_is_seen_from_the_open_prompt(tmp_path: Path) -> None:
    case = tmp_path / "evals" / "c"
    shutil.copytree(DEMO / "evals" / "good-md", case)
    for g in (case / "graders").iterdir():
        g.unlink()
    assert {p.code for _, p in case_problems(case)} == {"plugin-eval-no-grader"}


def test_a_case_file_outside_the_case_folder_is_flagged_and_never_opened(tmp_path: Path) -> None:
    case = tmp_path / "evals" / "c"
    case.mkdir(parents=True)
    (tmp_path / "secret.sh").write_text("echo secret\n")
    (case / "case.yaml").write_text(
        'schema_version: "1.1"\nname: c\ncontext:\n  scaffold_script: ../../secret.sh\nexecution:\n'
        "  prompt: Hi.\ngraders:\n  - {name: g, type: regex, pattern: x}\n"
    )
    [(_, p)] = case_problems(case)
    assert p.code == "plugin-eval-file-missing" and "escapes its root" in p.message
    from evalens.core.formats.plugin_eval import case_file

    assert case_file(case, "../../secret.sh") is None and case_file(case, "/etc/passwd") is None


_SCAFFOLDED = (
    'schema_version: "1.1"\nname: c\ncontext:\n  scaffold_script: scaffold.sh\nexecution:\n'
    "  prompt: Hi.\ngraders:\n  - {name: g, type: regex, pattern: x}\n"
)


def test_a_missing_scaffold_script_is_flagged_only_in_a_checkout(tmp_path: Path) -> None:
    """As a plugin's component paths (`whole_checkout`): a case copied without its scripts, under a LICENSE but
    no `.git` (a corpus, an archive excerpt), cannot tell a missing file from one not copied."""
    case = tmp_path / "evals" / "c"
    case.mkdir(parents=True)
    (case / "case.yaml").write_text(_SCAFFOLDED)
    (tmp_path / "LICENSE").write_text("MIT\n")
    assert case_problems(case) == []
    (tmp_path / ".git").mkdir()
    [(_, p)] = case_problems(case)
    assert p.code == "plugin-eval-file-missing" and "`scaffold.sh` is not a file" in p.message


def test_a_case_whose_graders_are_all_skill_graders_is_not_warned(tmp_path: Path) -> None:
    """Claude Code 2.1.332 scores every grader when all of them are with-only (`--ablation with-without --json`
    reports `withOnly: false, scored: true` for two `tool_used: Skill` graders, in both arms), as the runner's
    `with_only` does: a routing case measures something."""
    case = tmp_path / "evals" / "c"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("---\nmax_turns: 5\n---\nWhat's running on 203.0.113.5?\n")
    (case / "graders" / "fires.md").write_text("---\ntype: tool_used\ntool: Skill\nmin: 1\n---\nFires.\n")
    assert case_problems(case) == []


def test_an_empty_call_count_range_is_warned(tmp_path: Path) -> None:
    """`max: 0` alone keeps `min` at 1: the loader takes it and reports `Skill called 0x (expected 1..0)`, a grader
    no run passes."""
    case = tmp_path / "evals" / "c"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("---\nmax_turns: 5\n---\nLook up 203.0.113.5.\n")
    (case / "graders" / "never.md").write_text("---\ntype: tool_used\ntool: Skill\nmax: 0\n---\nNot fired.\n")
    (case / "graders" / "ok.md").write_text(
        "---\ntype: tool_used\ntool: Read\nmin: 0\nmax: 0\n---\nNo read.\n"
    )
    [(where, p)] = case_problems(case)
    assert (where, p.code, p.severity.name) == ("graders/never.md", "plugin-eval-count-range", "WARNING")
    assert "expects 1..0" in p.message and "`min: 0`" in p.message
