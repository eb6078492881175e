"""``evalens eval --engine claude-code,codex --shard K/N`` (issue #25 item 1) on the real CLIs against the fake
model: the matrix is split by cell × unit, each shard writes one report per cell holding its pairs, every pair
runs in exactly one shard, and merging each cell's shard reports (``evalens report merge``) then ``evalens report
matrix`` gives the whole matrix, the same verdicts an unsharded run gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.runner_helpers import agents_available, case, make_package

pytestmark = pytest.mark.agents

ENGINES = ("claude-code", "codex")
UNITS = {"greet": "PASS", "greet-twice": "PASS", "wrong-word": "FAIL"}


def _evalens(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalens", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=900,
    )


def test_matrix_shards_split_by_cell_and_unit_and_merge_back(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    for engine in ENGINES:
        if not agents_available(engine):
            pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(
        tmp_path / "pkg",
        cases={
            "greet": case("pass", contains=["GREETING-OK"]),
            "greet-twice": case("pass", contains=["GREETING-OK"], files_created=["output/result.txt"]),
            "wrong-word": case("pass", contains=["NEVER-SAID"]),
        },
    )
    reports = pkg / "evals" / "reports"
    # the jobs of one split must see the same history: shard 2 must not balance by shard 1's fresh reports
    (tmp_path / "no-history").mkdir()
    flags = [
        "--durations",
        str(tmp_path / "no-history"),
        "--package",
        str(pkg),
        "--engine",
        ",".join(ENGINES),
        "--model",
        "codex=gpt-fake",
        "--no-judge",
    ]
    ran: dict[int, dict[str, list[str]]] = {}  # shard → cell label → units its cell report holds
    for k in (1, 2):
        out = _evalens("eval", *flags, "--shard", f"{k}/2")
        assert out.returncode in (0, 1), out.stderr[-3000:]
        assert f"shard {k}/2: " in out.stderr and "of 6 cell × unit pair(s)" in out.stderr, out.stderr[-2000:]
        cells = sorted(reports.glob(f"*-shard-{k}-of-2-cell-*.json"))
        assert len(cells) == 2, sorted(p.name for p in reports.iterdir())  # one report per cell, empty or not
        for path in cells:
            data = json.loads(path.read_text())
            mark = data["shard"]
            assert (mark["index"], mark["count"], mark["units"]) == (k, 2, 3)
            ran.setdefault(k, {})[mark["cell"]] = [c["name"] for c in data["cases"]]
            engine = mark["cell"].split(" · ")[0]
            assert data["config"]["engine"] == engine
            for c in data["cases"]:  # the pair ran on its cell's engine, with the expected verdict
                assert c["verdict"] == UNITS[c["name"]], (engine, c["name"], c.get("error"), c.get("reason"))
    # every (cell, unit) pair in exactly one shard: the union is the unsharded run's pairs, none twice
    pairs = [(cell, unit) for by_cell in ran.values() for cell, units in by_cell.items() for unit in units]
    everything = {
        (f"{e} · {'gpt-fake' if e == 'codex' else 'default model'}", u) for e in ENGINES for u in UNITS
    }
    assert len(pairs) == len(set(pairs)) == 6 and set(pairs) == everything, ran
    assert all(any(units for units in ran[k].values()) for k in (1, 2))  # both shards ran pairs
    splits = {json.loads(p.read_text())["shard"]["split"] for p in reports.glob("*-shard-*-cell-*.json")}
    assert len(splits) == 1  # every cell report of every shard carries the one split's fingerprint

    # merged per cell, the shards give the full matrix
    merged = []
    for i in (1, 2):
        parts = sorted(reports.glob(f"*-shard-*-of-2-cell-{i}.json"))
        target = tmp_path / f"merged-cell-{i}.json"
        out = _evalens("report", "merge", *map(str, parts), "-o", str(target), "--package", str(pkg))
        assert out.returncode == 0, out.stderr[-2000:]
        merged.append(target)
        assert sorted(c["name"] for c in json.loads(target.read_text())["cases"]) == sorted(UNITS)
    out = _evalens("report", "matrix", *map(str, merged), "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    grid = json.loads(out.stdout)
    assert [c.split(" · ")[0] for c in grid["columns"]] == list(ENGINES)
    rows = {r["unit"]: [c["state"] for c in r["cells"]] for r in grid["rows"]}
    assert rows == {unit: [verdict, verdict] for unit, verdict in UNITS.items()}

    # one cell's shard is never merged with another cell's
    first = sorted(reports.glob("*-shard-1-of-2-cell-1.json"))[0]
    other = sorted(reports.glob("*-shard-2-of-2-cell-2.json"))[0]
    out = _evalens("report", "merge", str(first), str(other), "-o", str(tmp_path / "mixed.json"))
    assert out.returncode == 2 and "ran on" in out.stderr, out.stderr[-2000:]
