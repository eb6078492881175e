"""evalens's own grading of `claude plugin eval` cases (runner/suites/plugin_eval_grading.py) and the reading of the
platform's result document (runner/suites/plugin_eval.py), without any CLI: each grader kind and `match` mode on a
hand-made run, the with-only rule of the ablation, the score, and the verdict of a run by the one verdict function.
The agents tier holds the same graders against Claude Code's own runner (test_agents_plugin_eval_run.py)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from evalens.runner.suites.base import FileRunRequest
from evalens.runner.suites.plugin_eval import (
    PluginEvalCli,
    PluginEvalSuite,
    copied_entries,
    eval_dir_of,
    outcomes_of,
    plugin_root_of,
)
from evalens.runner.suites.plugin_eval_grading import (
    Evidence,
    Grader,
    Outcome,
    case_graders,
    glob_match,
    grade_free,
    grader_error,
    js_regex,
    read_targets,
    run_score,
    with_only,
)

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "plugin_eval" / "demo"


def g(type_: str, name: str = "g", weight: float = 1, arm: str | None = None, **options) -> Grader:
    return Grader(name, type_, weight, arm, options, "test")


RUN = Evidence(
    last_message="DONE: wrote output/result.txt. GREETING-OK",
    trace='{"type":"user","text":"SCENARIO=pass"}\n{"type":"assistant","text":"","tool_calls":[]}',
    created=["output/result.txt", "notes/a/b.md"],
    calls=[
        ("Read", {"file_path": "/w/in.txt"}),
        ("Write", {"file_path": "/w/output/result.txt", "content": "hello"}),
        ("Write", {"file_path": "/w/notes/a/b.md", "content": "x"}),
    ],
    files={"output/result.txt": "hello from the fake agent\n"},
)


@pytest.mark.parametrize(
    ("options", "passed"),
    [
        ({"pattern": "GREETING-OK"}, True),
        ({"pattern": "greeting-ok"}, False),
        ({"pattern": "greeting-ok", "flags": "i"}, True),
        ({"pattern": "FORBIDDEN", "match": "not_contains"}, True),
        ({"pattern": "DONE", "match": "not_contains"}, False),
        ({"pattern": "o", "match": "count:3"}, False),
        ({"pattern": "GREETING", "match": "count:1"}, True),
        ({"pattern": "^hello", "target": {"source": "file", "path": "output/result.txt"}}, True),
        ({"pattern": "result\\.txt", "target": "files"}, True),
        ({"pattern": "^notes/", "target": "files", "flags": "m"}, True),
        ({"pattern": '\\"type\\":\\"user\\"', "target": "trace"}, True),
        ({"pattern": "OK$"}, True),
        ({"pattern": "(?<word>DONE):"}, True),
        ({"pattern": "x", "target": "mock_calls"}, False),
    ],
)
def test_regex_kinds_targets_and_match_modes(options: dict, passed: bool) -> None:
    assert grade_free(g("regex", **options), RUN).passed is passed


def test_a_missing_file_target_cannot_be_graded_as_the_platform_throws() -> None:
    out = grade_free(g("regex", pattern="x", target={"source": "file", "path": "nope.txt"}), RUN)
    assert out.passed is None and "nope.txt" in out.explanation
    assert "could not grade" in (grader_error([out]) or "")


def test_javascript_regex_differences_from_python() -> None:
    assert js_regex("a$").search("a\n") is None  # JavaScript's $ is the very end without m
    assert js_regex("a$", "m").search("a\nb")
    assert js_regex("\\d").search("٣") is None  # \d is ASCII in JavaScript
    assert js_regex("[]").search("anything") is None
    assert js_regex("a[^]b").search("a\nb")
    assert js_regex("ab", "y").search("xab") is None
    with pytest.raises(ValueError):
        js_regex("(unclosed")


@pytest.mark.parametrize(
    ("options", "passed", "said"),
    [
        ({"tool": "Write"}, True, "Write called 2x (expected 1..∞)"),
        ({"tool": "Write", "min": 1, "max": 1}, False, "Write called 2x (expected 1..1)"),
        ({"tool": "Write", "input_match": '"file_path":"[^"]*result'}, True, "Write called 1x"),
        ({"tool": "Skill", "min": 0, "max": 0}, True, "Skill called 0x (expected 0..0)"),
        ({"tool": "Bash"}, False, "Bash called 0x"),
    ],
)
def test_tool_used(options: dict, passed: bool, said: str) -> None:
    out = grade_free(g("tool_used", **options), RUN)
    assert out.passed is passed and said in out.explanation


def test_tool_order_is_strict_and_needs_both_calls() -> None:
    assert grade_free(g("tool_order", before="Read", after="Write"), RUN).passed is True
    assert grade_free(g("tool_order", before="Write", after="Read"), RUN).passed is False
    assert grade_free(g("tool_order", before="Write", after="Write"), RUN).passed is False  # the same call
    later = {"tool": "Write", "input_match": "notes"}
    assert grade_free(g("tool_order", before="Write", after=later), RUN).passed is True
    missing = grade_free(g("tool_order", before="Bash", after="Write"), RUN)
    assert missing.passed is False and missing.explanation == '"before" tool Bash never called'


def test_file_exists_globs_created_files_only() -> None:
    assert glob_match("output/*.txt", "output/result.txt")
    assert not glob_match("*.txt", "output/result.txt")
    assert glob_match("**/b.md", "notes/a/b.md") and glob_match("**/*.txt", "output/result.txt")
    assert glob_match("notes/?/b.md", "notes/a/b.md")
    assert grade_free(g("file_exists", path="output/*.txt"), RUN).passed is True
    assert grade_free(g("file_exists", path="tmp/**", exists=False), RUN).passed is True
    assert grade_free(g("file_exists", path="notes/**", exists=False), RUN).passed is False
    absent = grade_free(g("file_exists", path="in.txt"), RUN)  # read, never created
    assert absent.passed is False and absent.explanation == "in.txt missing (expected present)"


def test_a_backtracking_pattern_against_the_agents_output_is_an_error_in_bounded_time() -> None:
    """Issue 42: the pattern is the eval file's and the text the hostile agent's. Python's ``re`` has no
    deadline, so ``^(a|aa)+$`` against a long answer held the Codex run's grading forever; the bounded engine
    stops it after REGEX_TIMEOUT_SECONDS and the grader cannot decide (an ERROR, never a PASS or FAIL)."""
    import dataclasses
    import time

    hostile = dataclasses.replace(
        RUN,
        last_message="a" * 80 + "!",
        calls=[("Write", {"file_path": "a" * 80 + "!"})],
    )
    graders = [
        g("regex", pattern="^(a|aa)+$"),
        g("regex", pattern="^(a|aa)+$", match="count:1"),
        g("tool_used", tool="Write", input_match="(a|aa)+$"),
    ]
    for grader in graders:
        started = time.monotonic()
        out = grade_free(grader, hostile)
        assert out.passed is None and "catastrophic backtracking" in out.explanation, (grader, out)
        assert time.monotonic() - started < 10, grader


def test_with_only_graders_under_the_ablation() -> None:
    graders = [
        g("regex", "says", pattern="x"),
        g("tool_used", "skill", tool="Skill"),
        g("tool_used", "skill-both", arm="both", tool="Skill"),
        g("file_exists", "made", arm="with-only", path="x"),
    ]
    assert with_only(graders, "with-without") == {"skill", "made"}
    assert with_only(graders, "none") == set()
    only_skill = [g("tool_used", "skill", tool="Skill")]
    assert with_only(only_skill, "with-without") == set()  # all left out: all are scored


def test_run_score_weighs_scored_graders() -> None:
    outcomes = [
        Outcome("a", "regex", True, "", 2),
        Outcome("b", "regex", False, "", 1),
        Outcome("c", "tool_used", False, "", 5, scored=False),
    ]
    assert run_score(outcomes) == pytest.approx(2 / 3)
    assert run_score([Outcome("c", "regex", True, "", 1, scored=False)]) == 0.0


def test_targets_are_read_only_inside_the_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "out").mkdir(parents=True)
    (ws / "out" / "a.txt").write_text("A")
    (tmp_path / "secret").write_text("S")
    os.symlink(tmp_path / "secret", ws / "out" / "link.txt")
    os.link(ws / "out" / "a.txt", ws / "out" / "hard.txt")
    (ws / "out" / "b.txt").write_text("B")
    files, errors = read_targets(
        ws, ["out/b.txt", "out/link.txt", "out/hard.txt", "../secret", "/etc/passwd"]
    )
    assert files["out/b.txt"] == "B"
    assert all(files[k] is None for k in ("out/link.txt", "out/hard.txt", "../secret", "/etc/passwd"))
    assert "link" in errors["out/link.txt"] and "hard link" in errors["out/hard.txt"]


def test_case_graders_in_the_loaders_order() -> None:
    graders = case_graders(DEMO / "evals" / "good-yaml")
    assert [x.name for x in graders][:2] == ["file-made", "content"] and graders[0].location == ["graders", 0]
    md = case_graders(DEMO / "evals" / "good-md")
    judge = next(x for x in md if x.name == "judge")
    assert judge.options["criteria"] == "The reply says DONE and nothing else." and judge.weight == 2


def test_the_result_documents_grader_that_threw_is_no_outcome() -> None:
    run = {
        "graders": [
            {
                "name": "j",
                "passed": False,
                "weight": 1,
                "explanation": "grader threw: judge call failed: 500",
            },
            {"name": "s", "passed": True, "weight": 1, "explanation": "matched x", "scored": False},
        ]
    }
    out = outcomes_of(run, [g("llm", "j"), g("regex", "s")])
    assert out[0].passed is None and out[0].type == "llm"
    assert out[1].passed is True and out[1].scored is False


def _cli() -> PluginEvalCli:
    return PluginEvalCli(
        "greet", "evals", ablation="with-without", judge_model=None, allowed_tools=[], threshold=1.0
    )


def _parse(tmp_path: Path, doc: object, exit_code: int, stderr: str = "") -> tuple[PluginEvalCli, object]:
    from evalens.runner.engines.base import SandboxPaths

    out, err = tmp_path / "stdout.jsonl", tmp_path / "stderr.txt"
    out.write_text(json.dumps(doc) if doc is not None else "")
    err.write_text(stderr)
    paths = SandboxPaths(tmp_path, tmp_path, tmp_path, tmp_path, tmp_path)
    cli = _cli()
    return cli, cli.parse(paths, out, err, exit_code)


def _doc(run: dict, partial: bool = False) -> dict:
    return {
        "schemaVersion": 1,
        "partial": partial,
        "costUsd": 0.01,
        "cases": [{"name": "greet", "arms": {"with": [run]}, "aggregates": {"score": run.get("score")}}],
    }


def test_the_result_document_read_back(tmp_path: Path) -> None:
    ok = {
        "score": 1,
        "error": None,
        "turns": 2,
        "graders": [{"name": "s", "passed": True, "explanation": "m"}],
    }
    cli, t = _parse(tmp_path, _doc(ok), 0)
    assert t.error is None and cli.case_result is not None and "✓ s: m" in t.output  # type: ignore[attr-defined]
    _, t = _parse(tmp_path, _doc({**ok, "error": "timed out after 300s"}), 1)
    assert t.error == "agent error: timed out after 300s"  # type: ignore[attr-defined]
    _, t = _parse(tmp_path, {**_doc(ok), "partial": True, "partialReason": "auth_failed"}, 2)
    assert "auth_failed" in t.error  # type: ignore[attr-defined,operator]
    _, t = _parse(tmp_path, {**_doc(ok), "cases": []}, 1, "✗ /p/evals/greet: prompt.md: unknown key\n")
    assert t.error is not None and "did not run the case" in t.error and "unknown key" in t.error  # type: ignore[attr-defined]
    _, t = _parse(tmp_path, None, 1, "Error: not trusted\n")
    assert "no result document" in t.error and "not trusted" in t.error  # type: ignore[attr-defined,operator]


def test_the_cli_command_runs_this_case_only(tmp_path: Path) -> None:
    from evalens.runner.engines.base import Invocation, SandboxPaths

    paths = SandboxPaths(tmp_path, tmp_path / "ws", tmp_path / "home", tmp_path / "cfg", tmp_path / "logs")
    cli = PluginEvalCli(
        "greet",
        "qa",
        ablation="none",
        judge_model="haiku",
        allowed_tools=["Read", "Write", "Bash"],
        threshold=0.5,
    )
    inv = Invocation(paths, "p", "sonnet", {}, outer_sandbox=True, network=False)
    argv = cli.command(inv).argv
    assert argv[1:4] == ["plugin", "eval", str(paths.workspace)] and argv[-1] == "--json"
    assert "--case=greet" in argv and "--eval-dir=qa" in argv
    for pair in (["--runs", "1"], ["--ablation", "none"],
                 ["--model", "sonnet"], ["--judge-model", "haiku"], ["--allow-tools", "Write"]):  # fmt: skip
        assert any(argv[i : i + 2] == pair for i in range(len(argv))), pair
    assert "Bash" not in argv and "--trust-plugin" in argv and "--no-publish" in argv
    bare = Invocation(paths, "p", None, {}, outer_sandbox=False, network=False)
    assert "--allow-tools" not in cli.command(bare).argv  # no grant without evalens's own sandbox


def test_where_a_case_lives(tmp_path: Path) -> None:
    plugin = tmp_path / "demo"
    shutil.copytree(DEMO, plugin)
    folder = plugin / "evals" / "good-md"
    assert plugin_root_of(folder) == plugin.resolve()
    assert eval_dir_of(plugin.resolve(), folder) == "evals"
    entries = copied_entries(plugin.resolve(), "evals", folder)
    assert entries == [".claude-plugin", "skills", "evals/good-md"]  # no other case goes into the sandbox


def _suite(tmp_path: Path, case: str = "good-md", **request) -> PluginEvalSuite:
    plugin = tmp_path / "demo"
    if not plugin.exists():
        shutil.copytree(DEMO, plugin)
    return PluginEvalSuite(
        FileRunRequest(file=plugin / "evals" / case / "prompt.md", **request), "plugin-eval-prompt"
    )


def test_a_runs_verdict_by_the_one_verdict_function(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    assert [u.id for u in suite.units()] == ["good-md"]
    good = [Outcome("a", "regex", True, "m", 2), Outcome("b", "regex", False, "not found", 1)]
    assert suite._verdict(None, good, run_score(good))[0] == "FAIL"
    assert "b: not found" in suite._verdict(None, good, run_score(good))[1]
    assert suite._verdict("agent error: boom", good, 1.0) == ("ERROR", "agent error: boom")
    assert suite._verdict(None, [], None)[0] == "SKIP"
    lenient = _suite(tmp_path, threshold_score=0.5)
    assert lenient._verdict(None, good, run_score(good))[0] == "PASS"
    with pytest.raises(ValueError):
        _suite(tmp_path, threshold_score=3)


def test_the_eval_runners_own_run_folder_is_volatile_in_a_recording() -> None:
    """`claude plugin eval` runs each agent in a fresh /tmp/claude-eval-XXXXXX, named in its children's prompts;
    a replay of the same case must match the recording whatever the folder was called."""
    from evalens.runner.canonical import canonical_request

    def body(folder: str) -> bytes:
        text = f"Primary working directory: /tmp/{folder}/home/cwd; memory at -tmp-{folder}-home/memory/"
        return json.dumps({"messages": [{"role": "user", "content": text}]}).encode()

    assert canonical_request(body("claude-eval-Rd2UJK")) == canonical_request(body("claude-eval-PA1FAC"))
    assert canonical_request(body("claude-eval-Rd2UJK")) != canonical_request(body("claude-other-PA1FAC"))


def test_a_verdict_goes_stale_with_its_graders_and_the_plugin_not_another_case(tmp_path: Path) -> None:
    """The fingerprint of a case holds its whole folder (a grader file is not in prompt.md), the plugin's skills
    and the suite's mocks; another case of the eval dir, and the reports, are not part of it."""
    from evalens.runner.depends import NextRun, fingerprint_of, stale_reasons
    from evalens.runner.results import UnitResult

    plugin = tmp_path / "demo"
    shutil.copytree(DEMO, plugin)
    prompt = plugin / "evals" / "good-md" / "prompt.md"
    result = UnitResult(name="good-md", format="plugin-eval-prompt", case_file=str(prompt), location=[],
                        verdict="PASS")  # fmt: skip
    inputs = NextRun(engine="claude-code")

    def now() -> dict[str, str]:
        fp = fingerprint_of(result, inputs)
        assert fp is not None
        return fp.to_json()

    before = now()
    (plugin / "evals" / "good-yaml" / "case.yaml").write_text("schema_version: '1.1'\n")
    (plugin / "evals" / "reports").mkdir()
    (plugin / "evals" / "reports" / "r.json").write_text("{}")
    assert now() == before
    (plugin / "evals" / "good-md" / "graders" / "says.md").write_text("---\ntype: regex\npattern: X\n---\n")
    graded = now()
    assert graded != before
    (plugin / "skills" / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: Other.\n---\nHi.\n")
    from evalens.runner.fingerprint import Fingerprint

    current = Fingerprint.from_json(now())
    assert current is not None and any("skill" in why for why in stale_reasons(graded, current))


def test_evalens_run_dry_run_names_the_graders_the_ablation_and_who_grades(tmp_path: Path) -> None:
    import subprocess
    import sys

    plugin = tmp_path / "demo"
    shutil.copytree(DEMO, plugin)
    prompt = plugin / "evals" / "good-md" / "prompt.md"

    def dry(*flags: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "evalens", "run", str(prompt), "--dry-run", *flags],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert "good-md\t3 grader(s): llm, regex, tool_used; ablation with-without; claude plugin eval" in dry()
    out = dry("--ablation", "none", "--engine", "codex")
    assert "ablation none; codex + evalens's graders" in out


async def test_the_platforms_judge_is_a_claude_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On claude-code the platform's runner judges: `--judge openai:…` is refused before any agent, and
    `anthropic:MODEL` reaches the runner as its `--judge-model MODEL`."""
    from evalens.runner.session import UsageError
    from evalens.runner.suites import plugin_eval

    def no_session(*_args: object, **_kwargs: object) -> None:
        raise UsageError("no session in this test")

    monkeypatch.setattr(plugin_eval, "PluginEvalSession", no_session)
    with pytest.raises(UsageError, match="Claude model only"):
        await _suite(tmp_path, judge_model="openai:gpt-5-mini").session()
    suite = _suite(tmp_path, judge_model="anthropic:claude-haiku-4-5")
    with pytest.raises(UsageError, match="no session in this test"):  # past the judge's check
        await suite.session()
    assert suite.cli_judge == "claude-haiku-4-5"


def test_a_case_yaml_graders_check_is_located_at_its_list_item(tmp_path: Path) -> None:
    """Run from case.yaml, a grader of its `graders:` list is a check at `graders[i]` (the lens and the
    diagnostics put the verdict there); a graders/*.md file is another file, so its check has no location."""
    plugin = tmp_path / "demo"
    shutil.copytree(DEMO, plugin)
    suite = PluginEvalSuite(
        FileRunRequest(file=plugin / "evals" / "good-yaml" / "case.yaml"), "plugin-eval-case"
    )
    assert [u.id for u in suite.units()] == ["good-yaml"]
    assert suite._location("content") == ["graders", 1]
    assert _suite(tmp_path)._location("says") is None


def _cli_result(plugin: Path, stamp: str, runs: list[dict], without: list[dict] | None = None) -> Path:
    """The result document `claude plugin eval` writes on a run of its own (§11), for good-md and another case."""
    case = {
        "name": "good-md",
        "dir": "evals/good-md",
        "source": "prose",
        "runsPerCase": len(runs),
        "arms": {"with": runs, **({"without": without} if without is not None else {})},
        "aggregates": {"score": sum(r["score"] for r in runs) / len(runs)},
        "unknownField": True,  # read leniently
    }
    other = {**case, "name": "bad-md", "dir": "evals/bad-md"}
    doc = {
        "schemaVersion": 1,
        "claudeVersion": "2.1.332",
        "partial": False,
        "suite": {"root": str(plugin), "ablation": "with-without" if without else "none", "threshold": 1},
        "cases": [other, case],
    }
    path = plugin / "evals" / "results" / stamp / "aggregate-result.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc))
    return path


def _graded(says: bool, judge: bool, error: str | None = None) -> dict:
    return {
        "score": (1 if says else 0) * 0.25 + (1 if judge else 0) * 0.5 + 0.25,
        "error": error,
        "durationSeconds": 2.5,
        "graders": [
            {"name": "says", "passed": says, "weight": 1, "explanation": "1 match" if says else "0 matches"},
            {"name": "judge", "passed": judge, "weight": 2, "explanation": "3/3 votes"},
            {"name": "skill", "passed": True, "weight": 1, "explanation": "0 calls"},
        ],
    }


def test_a_result_document_the_cli_wrote_itself_is_restored(tmp_path: Path) -> None:
    """`claude plugin eval` run outside evalens leaves `<eval dir>/results/<ts>/aggregate-result.json`: after a
    reload the case's lens shows the newest one's verdict, decided by evalens's rules (the threshold, ERROR for
    an agent error), with the graders as checks and the without arm as the delta."""
    from evalens.server.features import run_formats

    file = _suite(tmp_path).file
    plugin = tmp_path / "demo"
    assert PluginEvalSuite.restore("plugin-eval-prompt", file, None) == {}  # no result folder yet
    old = _cli_result(plugin, "2026-01-01T00-00-00Z", [_graded(True, True, "timed out after 300s")])
    os.utime(old, (1_000_000, 1_000_000))
    new = _cli_result(plugin, "2026-01-02T00-00-00Z", [_graded(True, False)], without=[_graded(False, False)])
    assert (
        PluginEvalSuite.result_folder("plugin-eval-prompt", file) == (plugin / "evals" / "results").resolve()
    )
    assert [p.resolve() for p in PluginEvalSuite.result_files("plugin-eval-prompt", file)] == [
        new.resolve(),
        old.resolve(),
    ]

    [(name, restored)] = PluginEvalSuite.restore("plugin-eval-prompt", file, None).items()
    result = restored.result
    assert name == result.name == "good-md" and restored.path == str(new)
    assert result.verdict == "FAIL" and result.reason.startswith(
        "score 0.50 below the threshold 1; judge: 3/3"
    )
    assert {c.value: c.status for c in result.checks} == {"says": "PASS", "judge": "FAIL", "skill": "PASS"}
    assert result.details["score"] == 0.5 and result.details["delta"] == 0.25 and result.uplift is not None
    assert (
        result.engine == "claude-code"
        and result.engine_version == "2.1.332"
        and result.result_file == str(new)
    )
    # the server's memory takes it, under the case's name (the lens's)
    assert run_formats.restore("plugin-eval-prompt", file, None)["good-md"][0].verdict == "FAIL"

    new.unlink()  # only the older document: its run's agent error is an ERROR, whatever its graders said
    [(_, restored)] = PluginEvalSuite.restore("plugin-eval-prompt", file, None).items()
    assert restored.result.verdict == "ERROR" and "timed out after 300s" in restored.result.reason
    old.write_text("{not json")  # half-written: skipped, never raised
    assert PluginEvalSuite.restore("plugin-eval-prompt", file, None) == {}
