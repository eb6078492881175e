"""``--baseline``: the uplift maths and wording, the argument errors, the worktree's lifetime, and the fake
model's ``needs-skill`` evidence (the agent-CLI runs are in tests/runner/test_agents_baseline.py)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from evalens.cli.changed import ChangedSinceError, changed_units
from evalens.core.models.run_record import Usage
from evalens.runner import baseline as bl
from evalens.runner import uplift_words as words
from evalens.runner.results import UnitResult


def _result(name: str, verdicts: list[str], usage: Usage | None = None) -> UnitResult:
    return UnitResult(
        name=name,
        verdict="PASS" if set(verdicts) == {"PASS"} else "FAIL",
        runs=len(verdicts),
        run_verdicts=verdicts,
        usage=usage,
    )  # type: ignore[arg-type]


def test_uplift_all_against_none_is_plus_100_with_newcombe_interval() -> None:
    up = bl.unit_uplift(_result("a", ["PASS"] * 3), _result("a", ["FAIL"] * 3), "no skill")
    assert (up.passed, up.counted, up.baseline_passed, up.baseline_counted) == (3, 3, 0, 3)
    assert up.difference == 1.0 and up.interval == pytest.approx([0.2059, 1.0], abs=1e-4)
    assert words.uplift_text(up) == "▲ +100 pts vs no skill [+21, +100]"
    assert words.uplift_text(up, interval=False) == "▲ +100 pts vs no skill"
    assert words.rates_text(up) == "with 3/3, without 0/3"


def test_uplift_published_example_and_signs() -> None:
    # Newcombe (1998) example (a): 56/70 vs 48/80 -> +20 pts, 0.0524..0.3339
    up = bl.uplift_of((56, 70), (48, 80, 0), "v1 (abc1234)")
    assert words.uplift_text(up) == "▲ +20 pts vs v1 (abc1234) [+5, +33]"
    down = bl.uplift_of((1, 5), (4, 5, 0), "no skill")
    assert words.uplift_text(down).startswith("▼ \u221260 pts vs no skill [\u2212")
    same = bl.uplift_of((2, 4), (2, 4, 0), "no skill")
    assert words.uplift_text(same).startswith("= 0 pts vs no skill [\u2212")
    assert words.uplift_text(None) == ""


def test_errored_baseline_runs_are_not_counted_and_an_empty_side_has_no_difference() -> None:
    up = bl.unit_uplift(_result("a", ["PASS", "PASS"]), _result("a", ["FAIL", "ERROR"]), "no skill")
    assert (up.baseline_passed, up.baseline_counted, up.baseline_errored) == (0, 1, 1)
    assert words.rates_text(up) == "with 2/2, without 0/1 +1 error"
    none = bl.unit_uplift(_result("a", ["PASS"]), _result("a", ["ERROR", "ERROR"]), "no skill")
    assert none.difference is None and none.interval is None
    assert words.uplift_text(none).startswith("? vs no skill")


def test_cost_difference_in_usd_else_tokens() -> None:
    up = bl.unit_uplift(
        _result("a", ["PASS"], Usage(input_tokens=100, output_tokens=20, cost_usd=0.05)),
        _result("a", ["FAIL"], Usage(input_tokens=60, output_tokens=10, cost_usd=0.02)),
        "no skill",
    )
    assert words.cost_text(up) == "cost +$0.0300 ($0.0500 vs $0.0200)"
    codex = bl.unit_uplift(
        _result("a", ["PASS"], Usage(input_tokens=100, output_tokens=20)),
        _result("a", ["FAIL"], Usage(input_tokens=160, output_tokens=10)),
        "no skill",
    )
    assert words.cost_text(codex) == "tokens \u221250 (120 vs 170)"
    assert words.cost_text(bl.unit_uplift(_result("a", ["PASS"]), _result("a", ["FAIL"]), "no skill")) == ""
    assert "cost +$0.0300" in words.describe(up)


def test_batch_uplift_pools_the_units_and_attach_matches_by_name() -> None:
    results = [_result("a", ["PASS"] * 2), _result("b", ["PASS", "FAIL"])]
    bases = [_result("a", ["FAIL"] * 2), _result("b", ["PASS", "FAIL"])]
    pooled = bl.batch_uplift(results, bases, "no skill")
    assert (pooled.passed, pooled.counted, pooled.baseline_passed, pooled.baseline_counted) == (3, 4, 1, 4)
    assert pooled.difference == 0.5
    bl.attach(results, bases[:1], "no skill")
    assert results[0].uplift is not None and results[0].uplift.difference == 1.0 and results[1].uplift is None


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            "PATH": "/usr/bin:/bin",
        },
    ).stdout.strip()


def test_resolve_errors_are_one_line(tmp_path: Path) -> None:
    assert bl.resolve(None, tmp_path) is None
    assert bl.resolve("no-skill", tmp_path).label == "no skill"  # type: ignore[union-attr]
    with pytest.raises(bl.BaselineError, match=r"^--baseline v1: .* is not inside a git repository$"):
        bl.resolve("v1", tmp_path)
    _git("init", "-q", cwd=tmp_path)
    with pytest.raises(bl.BaselineError, match=r"^--baseline v1: unknown git ref in "):
        bl.resolve("v1", tmp_path)
    with pytest.raises(bl.BaselineError, match="not a git ref"):
        bl.resolve("--upload-pack=x", tmp_path)


def test_changed_since_words_its_git_errors_like_baseline(tmp_path: Path) -> None:
    """--changed-since and --baseline find a ref's commit one way (ref_commit); each error names its own option."""
    with pytest.raises(ChangedSinceError, match=r"^--changed-since main: .* is not inside a git repository$"):
        changed_units(tmp_path, {}, "main")
    _git("init", "-q", cwd=tmp_path)
    with pytest.raises(
        ChangedSinceError, match=r"^--changed-since main: unknown git ref in .*\(fetch it first"
    ):
        changed_units(tmp_path, {}, "main")


def test_worktree_exists_only_while_the_batch_runs_even_when_cancelled(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "skill").mkdir(parents=True)
    (repo / "skill" / "SKILL.md").write_text("---\nname: s\ndescription: old\n---\n")
    _git("init", "-q", cwd=repo)
    _git("add", ".", cwd=repo)
    _git("commit", "-qm", "one", cwd=repo)
    _git("tag", "v1", cwd=repo)
    (repo / "skill" / "SKILL.md").write_text("---\nname: s\ndescription: new\n---\n")
    (repo / "skill" / "extra.md").write_text("new file\n")
    plan = bl.resolve("v1", repo / "skill")
    assert plan is not None and plan.label == f"v1 ({plan.commit[:7]})"  # type: ignore[index]
    seen: list[Path] = []

    async def use() -> None:
        async with bl.checked_out(plan) as opened:
            assert opened is not None and opened.worktree is not None
            seen.append(opened.worktree)
            skills = opened.skills({"s": repo / "skill" / "SKILL.md", "gone": repo / "nowhere" / "SKILL.md"})
            assert list(skills) == ["s"] and "description: old" in skills["s"].read_text()
            assert opened.at_ref(repo / "skill" / "extra.md") is None  # did not exist at v1
            await asyncio.sleep(30)

    async def cancel_it() -> None:
        task = asyncio.create_task(use())
        while not seen:
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_it())
    assert seen and not seen[0].exists() and not seen[0].parent.exists()
    assert _git("worktree", "list", "--porcelain", cwd=repo).count("worktree ") == 1
    assert plan.worktree is None  # type: ignore[union-attr]

    async def fail() -> None:
        async with bl.checked_out(plan) as opened:
            seen.append(opened.worktree)  # type: ignore[union-attr]
            raise RuntimeError("the batch broke")

    with pytest.raises(RuntimeError):
        asyncio.run(fail())
    assert not seen[1].exists() and _git("worktree", "list", "--porcelain", cwd=repo).count("worktree ") == 1


def test_no_skill_installs_nothing() -> None:
    plan = bl.BaselinePlan("no-skill")
    assert plan.skills({"s": Path("/x/SKILL.md")}) == {}


def test_cli_argument_errors_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from evalens.cli.eval import main
    from tests.runner.runner_helpers import make_package

    pkg = make_package(tmp_path / "pkg", cases={"a": {"input": {"prompt": "hi"}}})
    assert main(["--package", str(pkg), "--baseline", "v9", "--no-judge"]) == 2
    err = capsys.readouterr().err
    assert (
        err.strip().count("\n") == 0 and "--baseline v9:" in err and "is not inside a git repository" in err
    )
    _git("init", "-q", cwd=pkg)
    assert main(["--package", str(pkg), "--baseline", "no-such-ref", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("evalens eval: --baseline no-such-ref: unknown git ref in ") and err.count("\n") == 1
    )


def test_fake_model_needs_skill_reads_the_cli_listing_not_the_prompt() -> None:
    from tests.fakemodel.server import SCENARIOS, Conversation, FakeState, _scenario

    state = FakeState()
    assert "needs-skill" in SCENARIOS
    prompt = {"role": "user", "content": "SCENARIO=needs-skill NEEDS=k-1 (- greeter: k-1)"}
    listing = {
        "role": "system",
        "content": "The following skills are available for use with the Skill tool:\n\n"
        "- greeter: Writes greetings. k-1\n- other: x",
    }
    claude = Conversation("anthropic", {"messages": [prompt, listing]})
    assert _scenario(state, claude)[0] == "pass"
    assert _scenario(state, Conversation("anthropic", {"messages": [prompt]}))[0] == "fail-contains"
    codex = Conversation(
        "responses",
        {
            "input": [
                {
                    "type": "message",
                    "role": "developer",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<skills_instructions>\n- greeter: Writes greetings. k-1 (file: r1/greeter/SKILL.md)\n</skills_instructions>",
                        }
                    ],
                },
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": prompt["content"]}],
                },
            ]
        },
    )
    assert _scenario(state, codex)[0] == "pass"
    other_key = Conversation(
        "anthropic", {"messages": [{"role": "user", "content": "SCENARIO=needs-skill NEEDS=k-2"}, listing]}
    )
    assert _scenario(state, other_key)[0] == "fail-contains"


# --------------------------------------------------------------------------- faces, on a real report
# (tests/runner/fixtures/baseline-report: `evalens eval --runs 2 --baseline no-skill --no-judge` on the `claude`
# CLI against the fake model; `greet` needs the skill, `plain` does not)

BASELINE_FIXTURE = Path(__file__).resolve().parents[1] / "runner" / "fixtures" / "baseline-report"


@pytest.fixture
def baseline_package(tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(BASELINE_FIXTURE, tmp_path / "evals" / "reports")
    return tmp_path


def test_report_restores_the_uplift_and_keeps_baseline_units_apart(baseline_package: Path) -> None:
    from evalens.runner.api import load_last_results

    last = load_last_results(baseline_package)
    assert set(last) == {"greet", "plain"}  # baseline units are never a unit's last result
    greet = last["greet"]
    assert greet.verdict == "PASS" and greet.uplift is not None
    assert words.uplift_text(greet.uplift) == "▲ +100 pts vs no skill [+7, +100]"
    assert words.uplift_text(last["plain"].uplift) == "= 0 pts vs no skill [\u221266, +66]"


def test_show_terminal_and_html_show_the_uplift_and_the_baseline_units(
    baseline_package: Path, capsys, monkeypatch
) -> None:
    from evalens.cli.main import main

    monkeypatch.setenv("COLUMNS", "200")
    assert main(["show", str(baseline_package)]) == 0
    out = capsys.readouterr().out
    assert "baseline (no skill): 1 passed, 1 failed, 0 errored of 2; it never decides a verdict" in out
    assert "uplift (all units): ▲ +50 pts vs no skill [\u221210, +85] · with 4/4, without 2/4" in out
    assert "uplift ▲ +100 pts vs no skill [+7, +100] · with 2/2, without 0/2" in out
    assert "FAIL greet baseline: no skill" in out and "output does not contain 'GREETING-OK'" in out
    assert main(["show", str(baseline_package), "--html", "-o", str(baseline_package / "v.html")]) == 0
    page = (baseline_package / "v.html").read_text()
    assert "<b>Uplift (all units)</b> ▲ +50 pts vs no skill" in page
    assert "<b>Uplift</b> ▲ +100 pts vs no skill [+7, +100]" in page
    assert "<h2>Baseline runs (no skill)</h2>" in page and 'id="u-greet-baseline"' in page


def test_lens_and_hover_text() -> None:
    from types import SimpleNamespace

    from evalens.server.features.run_present import hover_markdown, verdict_title

    with_skill = _result("a", ["PASS"] * 3)
    with_skill.state = "PASS"
    bl.attach([with_skill], [_result("a", ["FAIL", "PASS", "FAIL"])], "no skill")
    assert verdict_title(with_skill) == "✓ PASS 3/3 · ▲ +67 pts vs no skill"
    failing = UnitResult(name="a", verdict="FAIL", reason="missing GREETING-OK", run_verdicts=["FAIL"])
    bl.attach([failing], [_result("a", ["PASS"])], "v1 (abc1234)")
    assert verdict_title(failing) == "✗ FAIL: missing GREETING-OK · ▼ \u2212100 pts vs v1 (abc1234)"
    hover = hover_markdown(SimpleNamespace(result=with_skill, report_path=None))
    assert "Uplift: ▲ +67 pts vs no skill [" in hover and "with 3/3, without 1/3" in hover


def test_markdown_run_view_shows_the_uplift(baseline_package: Path, capsys) -> None:
    from evalens.cli.main import main

    assert main(["show", str(baseline_package), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "**Uplift (all units):** ▲ +50 pts vs no skill" in out
    assert (
        "**Uplift:** ▲ +100 pts vs no skill [+7, +100]" in out and "## FAIL greet (baseline: no skill)" in out
    )


def test_a_trigger_query_counts_its_runs_by_its_label() -> None:
    def query(want: bool, rate: float, verdict: str) -> UnitResult:
        return UnitResult(
            name="0",
            format="trigger-evals",
            verdict=verdict,
            runs=3,  # type: ignore[arg-type]
            details={"should_trigger": want, "trigger_rate": rate},
        )

    up = bl.unit_uplift(query(True, 1.0, "PASS"), query(True, 1 / 3, "FAIL"), "no skill")
    assert (up.passed, up.counted, up.baseline_passed, up.baseline_counted) == (3, 3, 1, 3)
    neg = bl.unit_uplift(query(False, 0.0, "PASS"), query(False, 0.0, "PASS"), "no skill")
    assert (neg.passed, neg.baseline_passed, neg.difference) == (3, 3, 0.0)


def test_evalens_run_argument_errors_and_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from evalens.cli.main import main

    skill = tmp_path / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greeter\ndescription: Greets.\n---\nGreet.\n")
    trigger = skill / "evals" / "trigger-eval.json"
    trigger.write_text(json.dumps([{"query": "greet Ann", "should_trigger": True}]))
    assert main(["run", str(trigger), "--baseline", "v1", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "evalens run: --baseline v1: " in err
        and "not inside a git repository" in err
    )
    assert main(["run", str(trigger), "--baseline", "no-skill", "--dry-run", "--runs", "2"]) == 0
    assert "baseline: no skill: every unit runs 2 more time(s)" in capsys.readouterr().out


def test_github_step_summary_has_the_uplift_table(baseline_package: Path) -> None:
    from evalens.runner.ci.github import step_summary
    from evalens.runner.report import load_report

    report = load_report(next((baseline_package / "evals" / "reports").glob("*.json")))
    text = step_summary(report)
    assert (
        "### Does the skill help? (baseline: no skill) · all units: **▲ +50 pts vs no skill [\u221210, +85]**"
        in text
    )
    assert "| greet | with 2/2, without 0/2 | ▲ +100 pts vs no skill [+7, +100] |" in text
