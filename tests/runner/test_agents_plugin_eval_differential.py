"""The differential test of issue 38 (item 3): evalens's own grading of `claude plugin eval` cases agrees with the
platform's.

A suite of cases covering every grader kind, every `match` mode and every target runs through the official runner
(`claude plugin eval --json --keep-temp`, Claude Code 2.1.332 against a fake model playing one scripted agent).
For each run the kept transcript (`out/trace.jsonl`) and workspace are graded again by
:mod:`evalens.runner.suites.plugin_eval_grading`, the code the Codex engine's runs are graded by, with evalens's
own judge for `llm` / `baseline`: every grader's outcome (passed, failed, could not grade), whether it is scored,
and the case's score must be the platform's. Then the same cases run on Codex through `evalens run`'s path, the
same scripted agent driving Codex's own tools: the graders that read what the agent produced agree with the
platform; the tool graders read Codex's tools (it writes with its shell, not `Write`), so those differ, and the test
holds them to exactly that. The table this builds (grader kind × engine) is the one in docs/plugin-evals.md, which
must say the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalens.runner.engines import get_engine
from evalens.runner.engines.base import SandboxPaths
from evalens.runner.judge import resolve_judge
from evalens.runner.suites.plugin_eval import outcomes_of
from evalens.runner.suites.plugin_eval_grading import (
    PAID,
    Evidence,
    Outcome,
    case_graders,
    file_targets,
    grade_free,
    grade_paid,
    read_targets,
    run_score,
    with_only,
)
from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available, run_units

pytestmark = pytest.mark.agents

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugin-evals.md"
SKILL_MD = "---\nname: greet\ndescription: Greets the team in one line.\n---\nSay GREETING-OK.\n"

# One scripted agent for every case: two files written, then the answer (Claude: two Write calls; Codex: its shell).
SCRIPT = {
    "diff-script": [
        {"write": {"path": "output/result.txt", "content": "hello from the fake agent\n"}},
        {"write": {"path": "notes/log.md", "content": "log: GREETING written\n"}},
        {"text": "DONE: wrote output/result.txt and notes/log.md. GREETING-OK"},
    ]
}
PROMPT = "SCENARIO=diff-script Write the result and the log."
FREE: list[dict[str, Any]] = [
    {"name": "says", "type": "regex", "pattern": "GREETING-OK"},
    {"name": "nope", "type": "regex", "pattern": "NOT-THERE", "weight": 2},
    {"name": "no-forbidden", "type": "regex", "pattern": "FORBIDDEN", "match": "not_contains"},
    {"name": "not-done", "type": "regex", "pattern": "DONE", "match": "not_contains"},
    {"name": "one-greeting", "type": "regex", "pattern": "GREETING-OK", "match": "count:1"},
    {"name": "two-greetings", "type": "regex", "pattern": "GREETING", "match": "count:2"},
    {"name": "any-case", "type": "regex", "pattern": "greeting-ok", "flags": "i"},
    {"name": "no-flag", "type": "regex", "pattern": "greeting-ok"},
    {"name": "whole", "type": "regex", "pattern": "^DONE.*OK$", "flags": "s"},
    {"name": "trace-log", "type": "regex", "target": "trace", "pattern": "notes/log\\.md"},
    {"name": "trace-none", "type": "regex", "target": "trace", "pattern": "NOT-IN-TRACE"},
    {"name": "files", "type": "regex", "target": "files", "pattern": "^output/result\\.txt$", "flags": "m"},
    {"name": "files-none", "type": "regex", "target": "files", "pattern": "\\.py$", "flags": "m"},
    {
        "name": "content",
        "type": "regex",
        "target": {"source": "file", "path": "output/result.txt"},
        "pattern": "^hello from",
    },  # fmt: skip
    {"name": "mocks", "type": "regex", "target": "mock_calls", "pattern": "anything"},
    {"name": "wrote-twice", "type": "tool_used", "tool": "Write", "min": 2, "max": 2},
    {"name": "wrote-once", "type": "tool_used", "tool": "Write", "max": 1},
    {"name": "wrote-notes", "type": "tool_used", "tool": "Write", "input_match": "notes/log"},
    {"name": "no-bash", "type": "tool_used", "tool": "Bash", "min": 0, "max": 0},
    {"name": "no-skill", "type": "tool_used", "tool": "Skill", "min": 0, "max": 0, "arm": "both"},
    {
        "name": "in-order",
        "type": "tool_order",
        "before": {"tool": "Write", "input_match": "result"},
        "after": {"tool": "Write", "input_match": "notes"},
    },  # fmt: skip
    {
        "name": "out-of-order",
        "type": "tool_order",
        "before": {"tool": "Write", "input_match": "notes"},
        "after": {"tool": "Write", "input_match": "result"},
    },  # fmt: skip
    {"name": "never-read", "type": "tool_order", "before": "Read", "after": "Write"},
    {"name": "made", "type": "file_exists", "path": "output/*.txt"},
    {"name": "made-deep", "type": "file_exists", "path": "**/*.md"},
    {"name": "made-one-char", "type": "file_exists", "path": "notes/lo?.md"},
    {"name": "not-made", "type": "file_exists", "path": "tmp/**", "exists": False},
    {"name": "made-anyway", "type": "file_exists", "path": "notes/**", "exists": False},
]
ABLATED: list[dict[str, Any]] = [
    {"name": "says", "type": "regex", "pattern": "GREETING-OK"},
    {"name": "nope", "type": "regex", "pattern": "NOT-THERE"},
    {"name": "fired", "type": "tool_used", "tool": "Skill"},  # with-only under the ablation
    {"name": "indicator", "type": "regex", "pattern": "GREETING", "arm": "with-only"},
    {"name": "made", "type": "file_exists", "path": "output/*.txt"},
]
PAID_GRADERS = {
    "judged.md": "---\ntype: llm\nweight: 2\n---\n\nThe reply names the files it wrote. JUDGE=pass\n",
    "judged-no.md": "---\ntype: llm\n---\n\nThe reply is a poem. JUDGE=fail\n",
    "judged-file.md": "---\ntype: llm\nfocus: {source: file, path: output/result.txt}\n---\n\nA greeting. JUDGE=pass\n",
    "judged-trace.md": "---\ntype: llm\nfocus: trace\n---\n\nIt wrote two files. JUDGE=pass\n",
    "versus.md": "---\ntype: baseline\nbaseline_file: ref.jsonl\n---\n\nAs complete as the reference. JUDGE=pass\n",
    "versus-no.md": "---\ntype: baseline\nbaseline_file: ref.jsonl\n---\n\nShorter than the reference. JUDGE=fail\n",
}
THROWN: list[dict[str, Any]] = [
    {"name": "says", "type": "regex", "pattern": "GREETING-OK"},
    {
        "name": "gone",
        "type": "regex",
        "target": {"source": "file", "path": "never/written.txt"},
        "pattern": "x",
    },
]
CASES = {"free": "none", "ablated": "with-without", "paid": "none", "thrown": "none"}
# Codex runs the same script with its own tools: it writes with its shell, so what counts Write calls differs
CODEX_DIFFERS = {"wrote-twice", "wrote-notes", "in-order", "no-bash"}


def make_suite(root: Path) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "demo", "version": "0.1.0"}))
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text(SKILL_MD)
    execution = {"prompt": PROMPT, "allowed_tools": ["Read", "Write"], "max_turns": 8}
    for name, graders in (("free", FREE), ("ablated", ABLATED), ("thrown", THROWN)):
        (root / "evals" / name).mkdir(parents=True)
        case = {"schema_version": "1.1", "name": name, "runs": 1, "execution": execution, "graders": graders}
        (root / "evals" / name / "case.yaml").write_text(yaml.safe_dump(case, sort_keys=False))
    paid = root / "evals" / "paid"
    (paid / "graders").mkdir(parents=True)
    (paid / "prompt.md").write_text(f"---\nruns: 1\nallowed_tools: [Read, Write]\n---\n\n{PROMPT}\n")
    for file, text in PAID_GRADERS.items():
        (paid / "graders" / file).write_text(text)
    reference = [
        {"type": "user", "message": {"role": "user", "content": "Write the result."}},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "DONE"}]},
        },
    ]
    (paid / "ref.jsonl").write_text("".join(json.dumps(x) + "\n" for x in reference))
    return root


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
    with FakeModelServer(
        log_dir=tmp_path_factory.mktemp("diff-model"), scenarios=SCRIPT, idle_timeout=900
    ) as s:
        yield s


def _official(plugin: Path, case: str, ablation: str, fake: FakeModelServer, home: Path) -> dict[str, Any]:
    """The platform's runner on one case (the transcript and workspace kept); its result document."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "DISABLE_AUTOUPDATER": "1",
    }
    out = home / f"{case}.json"
    proc = subprocess.run(
        [str(get_engine("claude-code").binary), "plugin", "eval", str(plugin), "--case", case, "--runs", "1",
         "--ablation", ablation, "--trust-plugin", "--no-publish", "--keep-temp", "--allow-tools", "Write",
         "--json", str(out)],
        capture_output=True, text=True, timeout=600, env=env, cwd=plugin, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.is_file(), proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    [found] = [c for c in doc["cases"] if c["name"] == case]
    return found


def _remove_kept(run: dict[str, Any]) -> None:
    root = Path(run["tracePath"]).parents[1]
    if root.name.startswith("claude-eval-"):
        subprocess.run(["chmod", "-R", "u+rwX", str(root)], check=False)
        shutil.rmtree(root, ignore_errors=True)


def _evidence_of(run: dict[str, Any], targets: list[str]) -> Evidence:
    """What the platform's run left, as evalens's graders read a run: the stream read by the Claude Code
    engine's own reader, the trace as the platform keeps it, the workspace's files."""
    trace = Path(run["tracePath"])
    root = trace.parents[1]
    cwd = root / "home" / "cwd"
    paths = SandboxPaths(root, cwd, root / "home", root / "config", trace.parent)
    transcript = get_engine("claude-code").parse(paths, trace, trace.parent / "none.txt", 0)
    created = sorted(
        p.relative_to(cwd).as_posix()
        for p in cwd.rglob("*")
        if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(cwd).parts
    )
    files, errors = read_targets(cwd, targets)
    return Evidence(
        last_message=transcript.output,
        trace=trace.read_text(encoding="utf-8"),
        created=created,
        calls=[(str(c["tool"]), c["input"]) for c in transcript.tool_calls],
        files=files,
        file_errors=errors,
    )


async def _ours(plugin: Path, case: str, ablation: str, ev: Evidence) -> list[Outcome]:
    folder = plugin / "evals" / case
    graders = case_graders(folder)
    excluded = with_only(graders, ablation)
    spec = resolve_judge(None, default_provider="anthropic")
    out = []
    for g in graders:
        scored = g.name not in excluded
        if g.type in PAID:
            out.append(await grade_paid(g, ev, spec, PROMPT, folder, 120, scored))
        else:
            out.append(grade_free(g, ev, scored))
    return out


def _row(outcomes: list[Outcome]) -> dict[str, tuple[bool | None, bool]]:
    return {o.name: (o.passed, o.scored) for o in outcomes}


def _kinds(plugin: Path) -> dict[str, str]:
    return {f"{case}/{g.name}": g.type for case in CASES for g in case_graders(plugin / "evals" / case)}


def table(kinds: dict[str, str], claude: dict[str, bool], codex: dict[str, bool]) -> list[str]:
    """The differential table: per grader kind, how many graders agree on each engine."""
    lines = [
        "| Grader kind | claude-code (evalens's grading of the platform's own run) | codex (evalens's run against the platform's) |",
        "|---|---|---|",
    ]
    for kind in ("regex", "tool_used", "tool_order", "file_exists", "llm", "baseline"):
        names = [n for n, k in kinds.items() if k == kind]
        cells = []
        for column in (claude, codex):
            agree = sum(column[n] for n in names)
            word = "agree" if agree == len(names) else "disagree"
            cells.append(f"{word} ({agree}/{len(names)})")
        lines.append(f"| `{kind}` | {cells[0]} | {cells[1]} |")
    return lines


async def test_evalens_grades_as_the_platform_does(
    tmp_path: Path, scripted: FakeModelServer, monkeypatch: pytest.MonkeyPatch, sandbox_dir: Path
) -> None:
    if not agents_available("claude-code") or not agents_available("codex"):
        pytest.skip("claude and codex CLIs needed (run .ci/install-agents.sh)")
    for var, value in (
        ("ANTHROPIC_BASE_URL", scripted.anthropic_base_url),
        ("ANTHROPIC_API_KEY", "test-key"),
        ("OPENAI_BASE_URL", scripted.openai_base_url),
        ("OPENAI_API_KEY", "test-key"),
        ("EVALENS_AGENT_RETRIES", "0"),
    ):
        monkeypatch.setenv(var, value)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    plugin = make_suite(tmp_path / "demo")
    home = tmp_path / "home"
    home.mkdir()
    official: dict[str, dict[str, tuple[bool | None, bool]]] = {}
    claude_agrees: dict[str, bool] = {}
    for case, ablation in CASES.items():
        found = _official(plugin, case, ablation, scripted, home)
        run = found["arms"]["with"][0]
        try:
            assert run["error"] is None, run["error"]
            graders = case_graders(plugin / "evals" / case)
            theirs = outcomes_of(run, graders)
            ours = await _ours(plugin, case, ablation, _evidence_of(run, file_targets(graders)))
        finally:
            for arm in found["arms"].values():
                for r in arm:
                    _remove_kept(r)
        official[case] = _row(theirs)
        mine = _row(ours)
        assert set(mine) == set(official[case]), case
        claude_agrees.update({f"{case}/{n}": mine[n] == official[case][n] for n in mine})
        assert mine == official[case], (
            case,
            {n: (mine[n], official[case][n]) for n in mine if mine[n] != official[case][n]},
        )
        assert run_score(ours) == pytest.approx(run["score"]), case
        if found["aggregates"].get("score") is not None:
            assert run_score(ours) == pytest.approx(found["aggregates"]["score"]), case
    # every kind, mode and target is covered, and both outcomes of each kind
    kinds = _kinds(plugin)
    assert set(kinds.values()) == {"regex", "tool_used", "tool_order", "file_exists", "llm", "baseline"}
    for kind in set(kinds.values()):
        seen = {official[n.split("/")[0]][n.split("/")[1]][0] for n, k in kinds.items() if k == kind}
        assert {True, False} <= seen, kind
    modes = {g.get("match", "contains").split(":")[0] for g in FREE if g["type"] == "regex"}
    targets = {json.dumps(g.get("target", "last_message"))[:8] for g in FREE if g["type"] == "regex"}
    assert modes == {"contains", "not_contains", "count"} and len(targets) == 5

    codex_agrees: dict[str, bool] = {}
    for case, ablation in CASES.items():
        [result] = await run_units(
            plugin / "evals" / case / ("prompt.md" if case == "paid" else "case.yaml"),
            engine="codex",
            model="gpt-5-codex",
            write_report=False,
            ablation=ablation,
        )
        got = {g["name"]: (g["passed"], g["scored"]) for g in result.details.get("graders") or []}
        assert set(got) == set(official[case]), (case, result.reason)
        for name, outcome in got.items():
            same = outcome == official[case][name]
            codex_agrees[f"{case}/{name}"] = same
    differs = {n.split("/")[1] for n, same in codex_agrees.items() if not same}
    assert differs == CODEX_DIFFERS, {n: same for n, same in codex_agrees.items() if not same}
    lines = table(kinds, claude_agrees, codex_agrees)
    docs = DOCS.read_text(encoding="utf-8")
    missing = [line for line in lines if line not in docs]
    assert not missing, "docs/plugin-evals.md's differential table is not what the test found:\n" + "\n".join(
        lines
    )
