"""Every reader that compares reports pairs units by identity (issue 44 item 6): two cases whose names were swapped
are each compared with themselves. The paired gate always did; now ``compare --fail-on regression``, the PR
comment, ``compare``'s changes and ``--failed`` agree with it, and a case renamed in place keeps its history."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from evalens.runner.ci.comment import pr_comment
from evalens.runner.ci.gate import gate
from evalens.runner.ci.paired import changes, paired_gate
from evalens.runner.report import diff_reports
from evalens.runner.reselect import pick
from evalens.runner.unit_identity import content_hash
from tests.ci_helpers import make_case, make_report, write
from tests.runner.runner_helpers import make_package


def _case(pkg: Path, file: str, name: str, verdict: str) -> object:
    path = pkg / "evals" / "cases" / file
    return make_case(name, verdict, file=f"evals/cases/{file}", fingerprint={"unit": content_hash(path)})


def _swapped(tmp_path: Path) -> tuple[Path, object, object]:
    """A package run once (alpha PASS, beta FAIL), then the two cases' names swapped in their files: the case
    that passed is now called beta, the one that failed alpha; run again, each gives its old verdict."""
    pkg = make_package(
        tmp_path / "pkg",
        cases={"alpha": {"input": {"prompt": "greet A"}}, "beta": {"input": {"prompt": "greet B"}}},
    )
    base = make_report(
        [_case(pkg, "00-alpha.yaml", "alpha", "PASS"), _case(pkg, "01-beta.yaml", "beta", "FAIL")]
    )
    for file, name in (("00-alpha.yaml", "beta"), ("01-beta.yaml", "alpha")):
        path = pkg / "evals" / "cases" / file
        data = yaml.safe_load(path.read_text())
        path.write_text(yaml.safe_dump({**data, "name": name}, sort_keys=False))
    new = make_report(
        [_case(pkg, "00-alpha.yaml", "beta", "PASS"), _case(pkg, "01-beta.yaml", "alpha", "FAIL")],
        timestamp="2026-02-23T14:30:00Z",
    )
    return pkg, base, new


def test_a_swap_of_names_is_no_regression_and_no_fix_for_any_reader(tmp_path: Path) -> None:
    _pkg, base, new = _swapped(tmp_path)
    assert paired_gate(base, new).answer != "REGRESSION"
    assert [(c.name, c.before, c.after) for c in changes(base, new)] == [
        ("alpha (was beta)", "FAIL", "FAIL"),
        ("beta (was alpha)", "PASS", "PASS"),
    ]
    verdict = gate(base, new)
    assert not verdict.failed and verdict.regressions == []
    assert diff_reports(base, new)["changes"] == []  # type: ignore[arg-type]
    comment = pr_comment(new, base=base)
    assert "regressed" not in comment and "fixed" not in comment


def test_failed_reruns_the_case_that_failed_under_its_new_name(tmp_path: Path) -> None:
    pkg, base, _new = _swapped(tmp_path)
    write(base, pkg / "evals" / "reports" / "2026-02-22T14-30-00Z.json")  # type: ignore[arg-type]
    names, why = pick(pkg, "failed", ["alpha", "beta"], [])
    assert names == ["alpha"] and why == {"alpha": "last run: FAIL"}  # the content that failed is alpha now


def test_a_real_regression_is_still_one(tmp_path: Path) -> None:
    pkg, base, _ = _swapped(tmp_path)
    worse = make_report(
        [_case(pkg, "00-alpha.yaml", "beta", "FAIL"), _case(pkg, "01-beta.yaml", "alpha", "FAIL")],
        timestamp="2026-02-23T14:30:00Z",
    )
    verdict = gate(base, worse)
    assert verdict.regressions == [("beta (was alpha)", "PASS", "FAIL")]
    diffs = diff_reports(base, worse)["changes"]  # type: ignore[arg-type]
    assert diffs == [{"name": "beta (was alpha)", "before": "PASS", "after": "FAIL"}]
    assert "beta (was alpha)" in pr_comment(worse, base=base)
    json.dumps(diffs)  # the JSON of `compare --json` stays serialisable
