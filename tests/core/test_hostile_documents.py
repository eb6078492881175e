"""Documents and reports that made evalens raise or slow down (issue 16, findings 13, 14 and 16): the real
CLI and the validation path never traceback, and unknown-key reporting stays linear."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from evalens.core.index import IndexCache
from evalens.core.validate import validate_text
from evalens.runner.replay import load_cassette
from tests.cli.test_cli import run

FIXTURE = 'name: f\ninput:\n  prompt: Summarise it.\n  files: ["{}"]\njudge:\n  criteria: Mentions it.\n'
CASE = "name: a\ninput:\n  prompt: Summarise the file.\njudge:\n  criteria: Mentions the title.\n"


def test_a_validation_that_raises_becomes_one_internal_problem(monkeypatch: pytest.MonkeyPatch):
    from evalens.core import validate

    def boom(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(validate, "_validate_text", boom)
    result = validate.validate_text("/x/evals/cases/a.yaml", "name: a\n")
    assert [p.code for p in result.problems] == ["internal"]
    assert "RecursionError" in result.problems[0].message
    assert result.problems[0].span.end_col > 0


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        ("evals/cases/s.yaml", "name: a\ninput:\n  prompt: x \ud800\n", "surrogate"),
        ("skills/s/SKILL.md", "---\nname: s\ndescription: \udfff\n---\n", "surrogate"),
        ("evals/eval-config.json", '{"version": 1, "timeout": ' + "7" * 4301 + "}", "digits"),
        ("evals/cases/f.yaml", FIXTURE.format("b" * 300), "b" * 50),
    ],
)
def test_documents_that_raised_are_diagnosed(tmp_path: Path, name: str, text: str, needle: str):
    result = validate_text(str(tmp_path / name), text, IndexCache())
    assert any(needle in p.message for p in result.problems), [p.message for p in result.problems]
    assert all(p.code != "internal" for p in result.problems)  # fixed at the cause, not only guarded


def test_validate_cli_never_tracebacks(tmp_path: Path):
    evals = tmp_path / "pkg" / "evals"
    (evals / "cases").mkdir(parents=True)
    (evals / "eval-config.json").write_text(
        '{"version": 1, "engine": "x\\ud800", "timeout": ' + "9" * 5000 + "}"
    )
    (evals / "cases" / "f.yaml").write_text(FIXTURE.format("c" * 300))
    (evals / "cases" / "s.yaml").write_text('name: "\\ud800"\ninput:\n  prompt: x\n')
    (tmp_path / "pkg" / "bad.json").write_bytes(b"\xff\xfe")
    for fmt in ("text", "json"):
        proc = run("validate", "--format", fmt, str(tmp_path / "pkg"))
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr


def test_deeply_nested_report_is_a_clear_error(tmp_path: Path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"version": 1, "cases": ' + "[" * 100_000 + "]" * 100_000 + "}")
    for args in (("eval", "diff", str(deep), str(deep)), ("eval", "--rejudge", str(deep))):
        proc = run(*args, cwd=tmp_path)
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr, proc.stderr
        assert "nested too deeply" in proc.stderr


def test_deeply_nested_cassette_is_unreadable_not_a_crash(tmp_path: Path):
    """A committed cassette is an untrusted file: nested too deeply, it replays nothing (strict replay then says
    every request differs) instead of raising RecursionError out of the run."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert load_cassette(deep) == []


def _best(text: str, path: str, tries: int) -> float:
    best = float("inf")
    for _ in range(tries):
        started = time.perf_counter()
        validate_text(path, text, IndexCache())
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("language", ["yaml", "json"])
def test_unknown_key_reporting_is_linear(tmp_path: Path, language: str):
    """16k keys took 4-6 s and 40k keys 29 s: every unknown key rescanned its whole mapping."""
    path = str(tmp_path / "pkg" / "evals" / ("cases/big.yaml" if language == "yaml" else "eval-config.json"))

    def text(n: int) -> str:
        if language == "yaml":
            return CASE + "".join(f"k{i}: {i}\n" for i in range(n))
        return '{"version": 1, ' + ", ".join(f'"k{i}": {i}' for i in range(n)) + "}"

    _best(text(100), path, 1)  # warm: imports, schema compilation
    small, big = _best(text(4_000), path, 3), _best(text(40_000), path, 2)
    assert big < 20 * small + 0.3, f"4k keys {small:.3f}s, 40k keys {big:.3f}s: not linear"
    assert big < 6, f"40k keys took {big:.1f}s"
    result = validate_text(path, text(40_000), IndexCache())
    assert 1 <= sum(p.code == "unknown-key" for p in result.problems) <= 110  # the rest summarised


def test_result_file_watch_keeps_no_document(tmp_path: Path):
    """The run machinery's watch on result files kept a closure over every parsed ``tasks.yaml``."""
    from evalens.server.server import create_server

    server = create_server()
    path = tmp_path / "tasks.yaml"
    validation = validate_text(
        str(path),
        "skill: greeting\ntasks:\n  - id: t1\n    prompt: Give the new teammate a warm welcome.\n    deterministic:\n      expect_marker: GREETING_SUCCESS\n",
    )
    assert validation.format is not None and validation.format.id == "skilljack-tasks"
    before = sys.getrefcount(validation)
    server.runs._root(path, validation)
    assert sys.getrefcount(validation) == before
    assert server.runs.memory.size() >= 1
