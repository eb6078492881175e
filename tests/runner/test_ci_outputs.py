"""CI outputs from a report: JUnit (validated against the Jenkins xunit and Ant schemas in tests/data/), the GitHub step summary,
annotations and outputs, SARIF from `evalens validate`, sharding splits, merging and the regression gate."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from evalens.core.models.uaaps import ReportShard
from evalens.runner.ci import github
from evalens.runner.ci.gate import gate
from evalens.runner.ci.junit import junit_xml
from evalens.runner.ci.merge import MergeError, merge_reports
from evalens.runner.ci.shard import ShardError, durations_from, parse_spec, split
from evalens.runner.report import batch_id, load_report
from tests.ci_helpers import make_case, make_report, validate_junit, validate_sarif, write
from tests.conftest import REPO
from tests.in_process import evalens as evalens_cli

CASE_YAML = """name: b
input:
  prompt: say hello
expected:
  contains:
    - hello
    - EXTRACTED
judge:
  criteria: The agent greets.
"""


def _all_verdicts():
    return make_report(
        [
            make_case("a", "PASS", duration=2.5),
            make_case("b", "FAIL", failed_check="EXTRACTED", reason="no greeting", file="evals/cases/b.yaml"),
            make_case("c", "ERROR", error="agent exited 1 <before> any result & more\x00"),
            make_case("d", "FLAKY", run_verdicts=["PASS", "FAIL", "PASS"]),
            make_case("e", "SKIP", error="not run: interrupted"),
        ]
    )


def _validate_junit(text: str):
    return validate_junit(text)


def test_junit_validates_and_tells_every_verdict_apart(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "evals" / "cases").mkdir(parents=True)
    (pkg / "evals" / "cases" / "b.yaml").write_text(CASE_YAML)
    doc = _validate_junit(junit_xml(_all_verdicts(), package_root=pkg, base=tmp_path))
    suite = doc.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "5",
        "2",
        "1",
        "1",
    )
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["a"].get("time") == "2.500" and len(cases["a"]) == 0
    assert all(
        set(c.keys()) == {"name", "classname", "time"} for c in cases.values()
    )  # strict schemas: no extras
    failure = cases["b"].find("failure")
    assert failure.get("type") == "FAIL"
    assert "contains 'EXTRACTED'" in failure.get("message") and "judge: no greeting" in failure.get("message")
    # the place (relative to the base; the line is the failed check's entry) is in the text and the properties
    assert failure.text.startswith("at: pkg/evals/cases/b.yaml:7\n")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["evalens.unit.b"] == "FAIL pkg/evals/cases/b.yaml:7" and props["evalens.unit.a"] == "PASS"
    assert doc.tag == "testsuites" and not doc.attrib and suite.get("package") == "pkg"
    error = cases["c"].find("error")
    assert error.get("type") == "ERROR" and "agent exited 1 <before>" in error.get("message")
    assert "\x00" not in error.text
    flaky = cases["d"].find("failure")
    assert flaky.get("type") == "FLAKY" and "2 of 3 runs passed" in flaky.get("message")
    assert cases["e"].find("skipped").get("message") == "not run: interrupted"


def test_junit_of_an_empty_report_validates() -> None:
    doc = _validate_junit(junit_xml(make_report([])))
    assert doc.find("testsuite").get("tests") == "0"


def test_annotations_point_at_the_failing_line_and_escape(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "evals" / "cases").mkdir(parents=True)
    (pkg / "evals" / "cases" / "b.yaml").write_text(CASE_YAML)
    lines = github.annotation_lines(_all_verdicts(), package_root=pkg, base=tmp_path)
    assert lines[0] == (
        "::error file=pkg/evals/cases/b.yaml,line=7,title=evalens FAIL%3A b::contains 'EXTRACTED': "
        "output does not contain 'EXTRACTED'; judge: no greeting"
    )
    assert lines[1].startswith("::error title=evalens ERROR%3A c::agent exited 1")
    assert lines[2].startswith("::warning title=evalens FLAKY%3A d::flaky: 2 of 3 runs passed")
    assert len(lines) == 3  # PASS and SKIP are not annotated
    judged = make_report([make_case("b", "FAIL", reason="no\ngreeting 100%", file="evals/cases/b.yaml")])
    (line,) = github.annotation_lines(judged, package_root=pkg, base=tmp_path)
    assert line.endswith("::judge: no greeting 100%25") and ",line=9," in line  # judge criteria line
    # an ERROR names the failure of the run, at the unit: not the checks that judged the broken run's output
    broken = make_report(
        [make_case("b", "ERROR", failed_check="hello", error="agent crashed", file="evals/cases/b.yaml")]
    )
    (line,) = github.annotation_lines(broken, package_root=pkg, base=tmp_path)
    assert line == "::error file=pkg/evals/cases/b.yaml,line=1,title=evalens ERROR%3A b::agent crashed"
    # a FAIL whose error repeats its failed check's detail says it once
    repeated = make_report(
        [
            make_case(
                "b",
                "FAIL",
                failed_check="hello",
                reason="x",
                error="output does not contain 'hello'",
                file="evals/cases/b.yaml",
            )
        ]
    )
    (line,) = github.annotation_lines(repeated, package_root=pkg, base=tmp_path)
    assert line.count("output does not contain") == 1 and ",line=6," in line


def test_step_summary_and_outputs(tmp_path: Path) -> None:
    report = _all_verdicts()
    text = github.step_summary(report, report_path=Path("out/report.json"))
    assert text.startswith("## evalens: pkg\n")
    assert "**1/5 passed (20%)**" in text
    assert "| ❌ FAIL | 1 |" in text and "| ⚠️ FLAKY | 1 |" in text and "| 💥 ERROR | 1 |" in text
    assert "| 💥 ERROR | c |   | 1.0 s | agent exited 1 &lt;before&gt; any result & more" in text
    assert text.count("<details>") == 1 and "Report: `out/report.json`" in text
    not_passing = text[text.index("### Not passing") : text.index("<details>")]
    assert "| ⏭️ SKIP | e |" in not_passing and "| ✅ PASS | a |" not in not_passing  # SKIP is not a pass
    budget = make_report([make_case("b", "BUDGET")])  # a state this writer does not know yet
    assert "| ❔ BUDGET | 1 |" in github.step_summary(budget) and "| ❔ BUDGET | b |" in github.step_summary(
        budget
    )
    out = github.outputs(report, report_path=Path("r.json"), junit_path=Path("j.xml"))
    assert out == {
        "pass-rate": "0.2000",
        "total": "5",
        "passed": "1",
        "failed": "1",
        "flaky": "1",
        "errored": "1",
        "skipped": "1",
        "verdict": "fail",
        "report-path": "r.json",
        "junit-path": "j.xml",
    }
    assert github.outputs(make_report([make_case("a", "PASS"), make_case("s", "SKIP")]))["verdict"] == "pass"
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    assert github.append("GITHUB_STEP_SUMMARY", text, {"GITHUB_STEP_SUMMARY": str(summary)}) == summary
    assert summary.read_text().startswith("earlier step\n## evalens")
    assert github.append("GITHUB_STEP_SUMMARY", text, {}) is None


def test_sarif_from_validate(tmp_path: Path) -> None:
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "evals" / "cases" / "a.yaml").write_text("name: a\ninput:\n  promt: hi\n")
    out = evalens_cli(["validate", "--format", "sarif", "evals"], cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    log = json.loads(out.stdout)
    validate_sarif(log)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(dict.fromkeys(r["ruleId"] for r in run["results"]))
    for rule in rules:
        assert rule["helpUri"] == f"https://evalens.dev/rules#{rule['id']}"
        assert rule["shortDescription"]["text"] and rule["help"]["text"]
    assert run["results"], "a misspelt key and a missing prompt must be reported"
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": "evals/cases/a.yaml", "uriBaseId": "%SRCROOT%"}
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert any(
        r["ruleId"] == "unknown-key" and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
        for r in run["results"]
    )


def test_sarif_lists_each_artifact_once_and_uris_follow_the_spec(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "elsewhere"
    (repo / "skills" / "greeter").mkdir(parents=True)
    (repo / "skills" / "greeter" / "SKILL.md").write_text("---\nname: Greeter Bad\n---\nbody\n")
    (repo / "linked").mkdir()
    (repo / "linked" / "SKILL.md").symlink_to(repo / "skills" / "greeter" / "SKILL.md")
    (outside / "evals" / "cases").mkdir(parents=True)
    (outside / "evals" / "cases" / "a.yaml").write_text("name: a\ninput:\n  promt: hi\n")
    out = evalens_cli(["validate", "--format", "sarif", "skills", "linked", str(outside / "evals")], cwd=repo)
    log = json.loads(out.stdout)
    validate_sarif(log)  # the OASIS schema: artifacts are uniqueItems
    (run,) = log["runs"]
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    places = [(r["ruleId"], json.dumps(r["locations"]), r["message"]["text"]) for r in run["results"]]
    assert len(places) == len(set(places))  # the symlinked SKILL.md's problems are listed once
    assert uris.count("skills/greeter/SKILL.md") == 1 and len(uris) == len(set(uris))
    for result in run["results"]:
        where = result["locations"][0]["physicalLocation"]["artifactLocation"]
        if where["uri"].startswith("file://"):
            assert "uriBaseId" not in where  # an absolute URI has no base
        else:
            assert where["uriBaseId"] == "%SRCROOT%" and not where["uri"].startswith("/")
        (fingerprint,) = result["partialFingerprints"].values()
        assert re.fullmatch(r"[0-9a-f]{32}:\d+", fingerprint)
    assert any(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file://")
        for r in run["results"]
    )
    # a fingerprint survives the problem moving down a line, and differs between problems
    before = {r["partialFingerprints"]["evalensProblem/v1"] for r in run["results"]}
    assert len(before) == len(run["results"])
    (outside / "evals" / "cases" / "a.yaml").write_text("# moved\nname: a\ninput:\n  promt: hi\n")
    again = json.loads(
        evalens_cli(
            ["validate", "--format", "sarif", "skills", "linked", str(outside / "evals")], cwd=repo
        ).stdout
    )
    assert {r["partialFingerprints"]["evalensProblem/v1"] for r in again["runs"][0]["results"]} == before


# ----------------------------------------------------------------------------------------------- sharding


def test_shard_spec() -> None:
    assert parse_spec("2/3") == (2, 3) and parse_spec(" 1 / 1 ") == (1, 1)
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", ""):
        with pytest.raises(ShardError):
            parse_spec(bad)


def test_split_by_count_is_even_deterministic_and_complete() -> None:
    units = [f"case-{i:02d}" for i in range(12)]
    cut = split(units, 5)
    assert cut.balanced_by == "count" and sorted(len(s) for s in cut.shards) == [2, 2, 2, 3, 3]
    assert sorted(u for s in cut.shards for u in s) == units
    assert split(list(reversed(units)), 5).fingerprint == cut.fingerprint  # the suite's order does not matter
    assert split(units, 5).shards == cut.shards
    assert split(units[:2], 4).shards[2:] == ((), ())  # more shards than units: some are empty


def test_split_balances_by_prior_durations() -> None:
    units = [f"u{i:02d}" for i in range(12)]
    durations = {"u00": 60.0, "u01": 50.0, "u02": 40.0, **{u: 5.0 for u in units[3:]}}
    by_count = split(units, 3)
    by_time = split(units, 3, durations)
    assert by_time.balanced_by == "durations"

    def makespan(cut):
        return max(sum(durations[u] for u in shard) for shard in cut.shards)

    total = sum(durations.values())
    assert makespan(by_time) == pytest.approx(max(60.0, total / 3), abs=5.0)
    assert makespan(by_time) < makespan(by_count)
    assert [len(s) for s in by_time.shards] != [4, 4, 4]  # the long units sit with fewer short ones
    # a unit with no prior duration counts as the mean, and the split stays a pure function of its inputs
    assert (
        split(units + ["new"], 3, durations).fingerprint == split(["new", *units], 3, durations).fingerprint
    )


def test_durations_from_reports_newest_first(tmp_path: Path) -> None:
    old = write(
        make_report([make_case("a", "PASS", duration=10), make_case("b", "PASS", duration=3)]),
        tmp_path / "1.json",
    )
    new = write(
        make_report([make_case("a", "PASS", duration=20), make_case("s", "SKIP", duration=0)]),
        tmp_path / "2.json",
    )
    import os

    os.utime(old, (1, 1))
    (tmp_path / "junk.json").write_text("{}")
    assert durations_from([tmp_path]) == {"a": 20.0, "b": 3.0}
    assert durations_from([new]) == {"a": 20.0}
    with pytest.raises(ShardError):
        durations_from([tmp_path / "missing"])


def _shard(report, k: int, n: int, fp: str = "abc"):
    report.shard = ReportShard(index=k, count=n, units=6, balanced_by="count", split=fp)
    return report


def test_merge_recomputes_summary_and_keeps_provenance(tmp_path: Path) -> None:
    from evalens.core.models.run_record import Usage

    a = write(
        _shard(
            make_report(
                [
                    make_case(
                        "c1",
                        "PASS",
                        file="evals/cases/01.yaml",
                        artifacts="1/c1",
                        usage=Usage(input_tokens=100, output_tokens=10, model_calls=2),
                    ),
                    make_case(
                        "c4",
                        "FAIL",
                        file="evals/cases/04.yaml",
                        usage=Usage(input_tokens=50, output_tokens=5, model_calls=1),
                    ),
                ],
                timestamp="2026-02-22T14:30:00Z",
                duration=30,
            ),
            1,
            2,
        ),
        tmp_path / "s1" / "r.json",
    )
    b = write(
        _shard(
            make_report(
                [
                    make_case(
                        "c2",
                        "ERROR",
                        file="evals/cases/02.yaml",
                        error="boom",
                        usage=Usage(input_tokens=7, output_tokens=1, model_calls=1),
                    )
                ],
                timestamp="2026-02-22T14:30:10Z",
                duration=40,
            ),
            2,
            2,
        ),
        tmp_path / "s2" / "r.json",
    )
    out = tmp_path / "merged" / "all.json"
    merged, warnings = merge_reports([(a, load_report(a)), (b, load_report(b))], out)
    assert warnings == []
    assert [c.name for c in merged.cases] == ["c1", "c2", "c4"]  # the suite's order
    s = merged.summary
    assert (s.total, s.passed, s.failed, s.errored, s.pass_rate) == (3, 1, 1, 1, 0.3333)
    assert merged.timestamp == "2026-02-22T14:30:00Z" and merged.duration_seconds == 50.0
    # named like every batch's report (report.batch_id), from the first shard's start
    assert merged.id == f"{batch_id(datetime(2026, 2, 22, 14, 30, tzinfo=UTC))}-merged"
    assert merged.id == "eval-run-2026-02-22T14-30-00Z-merged"
    assert (s.usage.input_tokens, s.usage.output_tokens, s.usage.model_calls) == (157, 16, 4)
    assert [(x.shard.index, x.cases) for x in merged.shards] == [(1, ["c1", "c4"]), (2, ["c2"])]
    assert merged.cases[0].artifacts == "../s1/1/c1"
    write(merged, out)  # valid against the model; the schema check below covers the file
    import jsonschema

    jsonschema.validate(
        json.loads(out.read_text()),
        json.loads((REPO / "schemas" / "uaaps-eval-report.schema.json").read_text()),
    )
    assert junit_xml(load_report(out)).count("<testcase") == 3


def test_merge_refuses_what_would_lie(tmp_path: Path) -> None:
    def item(name: str, cases, k=1, n=2, fp="abc", **kw):
        path = tmp_path / f"{name}.json"
        return path, _shard(make_report(cases, **kw), k, n, fp)

    one = item("one", [make_case("x", "PASS")])
    with pytest.raises(MergeError, match="shard.*2/2 missing"):
        merge_reports([one], tmp_path / "m.json")
    merged, warnings = merge_reports([one], tmp_path / "m.json", allow_missing=True)
    assert merged.summary.total == 1 and "missing" in warnings[0]
    with pytest.raises(MergeError, match="both"):
        merge_reports([one, item("dup", [make_case("x", "FAIL")], k=2)], tmp_path / "m.json")
    with pytest.raises(MergeError, match="different splits"):
        merge_reports([one, item("other", [make_case("y", "PASS")], k=2, fp="zzz")], tmp_path / "m.json")
    with pytest.raises(MergeError, match="both shard 1/2"):
        merge_reports([one, item("again", [make_case("y", "PASS")], k=1)], tmp_path / "m.json")
    with pytest.raises(MergeError, match="package"):
        merge_reports([one, item("pkg", [make_case("y", "PASS")], k=2, package="other")], tmp_path / "m.json")


def test_merge_refuses_shards_run_with_other_inputs(tmp_path: Path) -> None:
    """Two jobs at one commit that ran another --model, or a SKILL.md edited between them (a fingerprint part
    other than the unit's own text differs), are two runs: one merged report would name only one of them."""
    from evalens.core.models.uaaps import ReportAgent

    def item(name: str, case_name: str, k: int, *, skill: str = "s1", model: str | None = None):
        fp = {"unit": f"u-{case_name}", "skill:greeter": skill, "engine-version": "9.9.9"}
        report = _shard(make_report([make_case(case_name, "PASS", fingerprint=fp)]), k, 2)
        report.agent = ReportAgent(model=model)
        return tmp_path / f"{name}.json", report

    same = [item("a", "x", 1, model="m1"), item("b", "y", 2, model="m1")]
    merged, _ = merge_reports(same, tmp_path / "m.json")
    assert merged.summary.total == 2
    with pytest.raises(MergeError, match=r"different agent models .*m1.*m2"):
        merge_reports([item("a", "x", 1, model="m1"), item("b", "y", 2, model="m2")], tmp_path / "m.json")
    with pytest.raises(MergeError, match=r"different skill greeter .*s1.*s2"):
        merge_reports([item("a", "x", 1), item("b", "y", 2, skill="s2")], tmp_path / "m.json")


# ---------------------------------------------------------------------------------------- regression gate


def _diff(tmp_path: Path, base, new, *args: str) -> subprocess.CompletedProcess:
    a, b = write(base, tmp_path / "base.json"), write(new, tmp_path / "new.json")
    return evalens_cli(["compare", str(a), str(b), *args])


def test_gate_exit_codes(tmp_path: Path) -> None:
    base = make_report(
        [make_case("a", "PASS"), make_case("b", "PASS"), make_case("c", "FAIL"), make_case("d", "PASS")]
    )
    same = make_report(
        [make_case("a", "PASS"), make_case("b", "PASS"), make_case("c", "PASS"), make_case("d", "PASS")]
    )
    errored = make_report(
        [
            make_case("a", "PASS"),
            make_case("b", "ERROR", error="agent crashed"),
            make_case("c", "PASS"),
            make_case("d", "PASS"),
        ]
    )
    assert _diff(tmp_path, base, same, "--fail-on", "regression").returncode == 0
    out = _diff(tmp_path, base, errored, "--fail-on", "regression")
    assert out.returncode == 1 and "regression: b: PASS → ERROR" in out.stderr
    assert _diff(tmp_path, base, errored).returncode == 0  # without --fail-on diff only reports
    # a pass-rate drop with no single regression (a new failing case): gated by the threshold
    grown = make_report([*same.cases, make_case("e", "FAIL"), make_case("f", "FAIL")])
    assert gate(same, grown).rate_drop == pytest.approx(1 - 4 / 6, abs=1e-3)
    assert _diff(tmp_path, same, grown, "--fail-on", "regression").returncode == 1
    assert _diff(tmp_path, same, grown, "--fail-on", "regression", "--threshold", "0.4").returncode == 0
    # a unit that vanished is noted, not a regression
    vanished = make_report([make_case("a", "PASS"), make_case("b", "PASS"), make_case("c", "FAIL")])
    out = _diff(tmp_path, base, vanished, "--fail-on", "regression", "--threshold", "1")
    assert out.returncode == 0 and "d passed in BASE" in out.stderr
    out = _diff(tmp_path, base, errored, "--fail-on", "regression", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["gate"]["regressions"] == [
        {"name": "b", "before": "PASS", "after": "ERROR"}
    ]
    (tmp_path / "bad.json").write_text("[]")
    bad = evalens_cli(
        ["eval", "diff", str(tmp_path / "bad.json"), str(tmp_path / "new.json"), "--fail-on", "regression"]
    )
    assert bad.returncode == 2 and "not an evalens eval report" in bad.stderr
    assert _diff(tmp_path, base, same, "--fail-on", "regression", "--threshold", "5").returncode == 2
    # the deprecated spelling `eval diff` is the same comparison
    new = _diff(tmp_path, base, errored, "--json")
    old = evalens_cli(["eval", "diff", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "--json"])
    assert (old.returncode, old.stdout) == (new.returncode, new.stdout)


def test_report_ci_and_merge_commands(tmp_path: Path) -> None:
    a = write(_shard(make_report([make_case("c1", "PASS")]), 1, 2), tmp_path / "a.json")
    b = write(_shard(make_report([make_case("c2", "FAIL", failed_check="X")]), 2, 2), tmp_path / "b.json")
    env_files = {"GITHUB_OUTPUT": tmp_path / "out.txt", "GITHUB_STEP_SUMMARY": tmp_path / "summary.md"}
    import os

    env = {**os.environ, **{k: str(v) for k, v in env_files.items()}, "GITHUB_ACTIONS": "true"}
    merged = tmp_path / "all.json"
    out = evalens_cli(
        [
            "report",
            "merge",
            str(a),
            str(b),
            "-o",
            str(merged),
            "--junit",
            str(tmp_path / "j.xml"),
            "--github-summary",
            "--github-output",
        ],
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert "::error title=evalens FAIL%3A c2::" in out.stdout  # auto: GITHUB_ACTIONS=true
    assert load_report(merged).summary.total == 2
    assert "passed=1\n" in env_files["GITHUB_OUTPUT"].read_text()
    assert "Merged from 2 report(s): shard 1/2, shard 2/2" in env_files["GITHUB_STEP_SUMMARY"].read_text()
    _validate_junit((tmp_path / "j.xml").read_text())
    ci = evalens_cli(["report", "ci", str(merged), "--annotations", "off"], env=env)
    assert ci.returncode == 1 and ci.stdout == ""
    refused = evalens_cli(["report", "merge", str(a), "-o", str(merged)])
    assert refused.returncode == 2 and "2/2 missing" in refused.stderr


def test_merge_keeps_the_files_order(tmp_path: Path) -> None:
    """tasks[10] after tasks[2], though "t10" < "t2" as text."""
    one = _shard(make_report([make_case("t10", "PASS", file="tasks.yaml", location=["tasks", 10])]), 1, 2)
    two = _shard(
        make_report(
            [
                make_case("t2", "PASS", file="tasks.yaml", location=["tasks", 2]),
                make_case("a", "PASS", file="a.yaml"),
            ]
        ),
        2,
        2,
    )
    merged, _ = merge_reports([(tmp_path / "1.json", one), (tmp_path / "2.json", two)], tmp_path / "m.json")
    assert [c.name for c in merged.cases] == ["a", "t2", "t10"]


# ------------------------------------------------------------------------------------ like with like (#21)


def test_merge_refuses_shards_that_ran_differently(tmp_path: Path) -> None:
    """A FLAKY of 3 runs must not merge beside a PASS of 1; neither --no-judge nor edited cases nor another
    commit merge silently: the refusal names the difference and each report's value."""

    def shard(k: int, name: str, verdict: str = "PASS", **mark):
        report = _shard(make_report([make_case(name, verdict)]), k, 2)
        report.shard = report.shard.model_copy(
            update={"commit": "c0ffee", "config": "cfg", "cases": "cs", "runs": 1} | mark
        )
        return tmp_path / f"{k}.json", report

    assert merge_reports([shard(1, "x"), shard(2, "y")], tmp_path / "m.json")[0].summary.total == 2
    for field, value, named in (
        ("runs", 3, "runs per unit"),
        ("cases", "edited", "cases"),
        ("commit", "beef", "commit"),
        ("config", "other", "configuration"),
    ):
        with pytest.raises(MergeError, match=named) as refused:
            merge_reports([shard(1, "x"), shard(2, "y", **{field: value})], tmp_path / "m.json")
        assert f"2.json: {value}" in str(refused.value)
    unjudged = shard(2, "y")
    unjudged[1].config.judge = None  # --no-judge
    with pytest.raises(MergeError, match="judged differently.*2.json: no judge"):
        merge_reports([shard(1, "x"), unjudged], tmp_path / "m.json")


def test_shard_mark_records_how_it_ran(tmp_path: Path) -> None:
    from evalens.cli.shard import restrict
    from evalens.runner.api import RunRequest
    from tests.runner.runner_helpers import case, make_package

    pkg = make_package(tmp_path / "pkg", cases={f"c{i}": case("pass") for i in range(3)})
    subprocess.run(["git", "init", "-q", str(pkg)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(pkg),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    request = RunRequest(package_root=pkg, runs=3, no_judge=True)
    _req, mark, _n = restrict(request, "1/2", None)
    head = subprocess.run(["git", "-C", str(pkg), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert mark.commit == head.strip() and mark.runs == 3 and mark.config and mark.cases
    case_file = next((pkg / "evals" / "cases").glob("*.yaml"))
    case_file.write_text(case_file.read_text() + "# edited\n")
    _req, edited, _n = restrict(request, "2/2", None)
    assert edited.cases != mark.cases and edited.config == mark.config and edited.split == mark.split


def test_report_merge_package_and_split_on_a_fresh_checkout(tmp_path: Path) -> None:
    import os

    from tests.runner.runner_helpers import case, make_package

    pkg = make_package(tmp_path / "repo" / "pkg", cases={"c1": case("pass"), "c2": case("pass")})
    assert not (pkg / "evals" / "reports").exists()  # a fresh checkout: no reports yet
    split_out = evalens_cli(["report", "split", "--shards", "2", "--package", str(pkg)])
    assert split_out.returncode == 0, split_out.stderr
    assert "balanced by count" in split_out.stdout
    case_file = next((pkg / "evals" / "cases").glob("*.yaml")).relative_to(pkg).as_posix()
    a = write(
        _shard(make_report([make_case("c1", "FAIL", reason="no", file=case_file)]), 1, 2), tmp_path / "a.json"
    )
    b = write(_shard(make_report([make_case("c2", "PASS", file=case_file)]), 2, 2), tmp_path / "b.json")
    env = {**os.environ, "GITHUB_WORKSPACE": str(tmp_path / "repo")}
    out = evalens_cli(
        [
            "report",
            "merge",
            str(a),
            str(b),
            "-o",
            str(tmp_path / "out" / "all.json"),
            "--package",
            str(pkg),
            "--annotations",
            "on",
        ],
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert f"::error file=pkg/{case_file},line=" in out.stdout  # the case file, found under --package


def test_gate_removing_a_passing_unit_is_a_note(tmp_path: Path) -> None:
    """docs/ci.md: a unit absent from NEW is a note, not a regression, even in a small suite where its
    absence would move the pass rate."""
    base = make_report([make_case("a", "PASS"), make_case("b", "FAIL")])
    new = make_report([make_case("b", "FAIL")])
    result = gate(base, new)
    assert not result.failed and result.vanished == ["a"] and result.rate_drop == 0
    out = _diff(tmp_path, base, new, "--fail-on", "regression")
    assert out.returncode == 0 and "a passed in BASE" in out.stderr
    skipped = make_report([make_case("a", "SKIP"), make_case("b", "FAIL")])
    assert not gate(base, skipped).failed
    # a new failing unit still lowers the rate
    assert gate(
        make_report([make_case("a", "PASS")]), make_report([make_case("a", "PASS"), make_case("c", "FAIL")])
    ).failed


def test_kubernetes_recipe_works_on_its_first_run(tmp_path: Path) -> None:
    """docs/ci.md's Indexed Job: RWX claim, per-index retries, a merge Job, and a first run without durations."""
    import os
    import re as re_

    import yaml

    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text[text.index("### Kubernetes Indexed Job") : text.index("## Regression gate")]
    docs = [
        d for block in re_.findall(r"```yaml\n(.*?)```", section, re_.S) for d in yaml.safe_load_all(block)
    ]
    claim = next(d for d in docs if d["kind"] == "PersistentVolumeClaim")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    jobs = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Job"}
    shard, merge = jobs["evals"]["spec"], jobs["evals-merge"]["spec"]
    assert (
        shard["completionMode"] == "Indexed"
        and shard["backoffLimitPerIndex"] >= 1
        and "backoffLimit" not in shard
    )
    assert "evalens report merge" in merge["template"]["spec"]["containers"][0]["args"][0]
    script = shard["template"]["spec"]["containers"][0]["args"][0].replace(
        "/reports", str(tmp_path / "reports")
    )
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "evalens").write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/calls"\nexit 1\n')
    (bindir / "evalens").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "JOB_COMPLETION_INDEX": "0",
        "N": "4",
    }
    first = subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True, timeout=30)
    assert first.returncode == 0, first.stderr  # failing evals (exit 1) complete the pod
    (call,) = (bindir / "calls").read_text().splitlines()
    assert "--shard 1/4" in call and "--durations" not in call  # the first run has no merged report yet
    (tmp_path / "reports" / "last" / "all.json").write_text("{}")
    subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True, timeout=30)
    assert f"--durations {tmp_path}/reports/last/all.json" in (bindir / "calls").read_text().splitlines()[1]


def test_pr_comment_renders_changes_against_the_base() -> None:
    from evalens.core.models.run_record import Usage
    from evalens.runner.ci.comment import marker, pr_comment

    base = make_report(
        [make_case("a", "PASS"), make_case("b", "FAIL"), make_case("gone", "PASS"), make_case("c", "PASS")]
    )
    new = make_report(
        [
            make_case("a", "PASS"),
            make_case("b", "PASS"),
            make_case("c", "ERROR", error="crash"),
            make_case("n|ew\n::error::x", "FAIL", reason="r"),
        ]
    )
    new.summary.usage = Usage(input_tokens=1000, output_tokens=20, cost_usd=0.5)
    text = pr_comment(new, base=base, key="evalens-shard-1")
    assert text.startswith(marker("evalens-shard-1") + "\n")
    assert "**2/4 passed (50%)**" in text and "· **regression**" in text
    assert "| ❌ regressed | c | PASS → ERROR |" in text and "| ✅ fixed | b | FAIL → PASS |" in text
    assert "| ➖ gone | gone | PASS → absent |" in text
    assert "| ➕ new | n\\|ew ::error::x | FAIL |" in text  # one cell: no table break, no line of its own
    assert "**Cost:** 1,000 in / 20 out tokens · $0.5000" in text
    assert not any(line.startswith("::") for line in text.splitlines())
    assert "No base report" in pr_comment(new)


def test_pr_comment_against_a_base_with_no_unit_in_common_compares_nothing() -> None:
    """Two reports of different units: their pass rates are not a before and after."""
    from evalens.runner.ci.comment import pr_comment

    base = make_report([make_case("old", "FAIL")])
    new = make_report([make_case("fresh", "PASS")])
    text = pr_comment(new, base=base)
    assert "no unit in common (1 here, 1 in the base): nothing to compare" in text
    assert "0% → 100%" not in text and "regression" not in text.split("**Paired test:**")[0]
    assert "| ➕ new | fresh | PASS |" in text


def test_changed_since_runs_only_the_cases_whose_inputs_changed(tmp_path: Path) -> None:
    from tests.runner.runner_helpers import case, make_package

    repo = tmp_path / "repo"
    pkg = make_package(repo / "pkg", cases={"one": case("pass"), "two": case("pass")})
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)

    def changed() -> subprocess.CompletedProcess:
        return evalens_cli(["eval", "--package", str(pkg), "--changed-since", "main", "--dry-run"])

    nothing = changed()
    assert nothing.returncode == 0 and "no case changed since main" in nothing.stderr, nothing.stderr
    two = next(p for p in (pkg / "evals" / "cases").glob("*.yaml") if "two" in p.read_text())
    two.write_text(two.read_text().replace("SCENARIO=pass", "SCENARIO=pass edited"))
    (pkg / "evals" / "cases" / "99-three.yaml").write_text(
        "name: three\ninput:\n  prompt: hi\njudge:\n  criteria: says hi\n"
    )
    out = changed()
    assert out.returncode == 0, out.stderr
    assert "two: " in out.stderr and "three: new since main" in out.stderr and "one: " not in out.stderr
    planned = [line.split()[0] for line in out.stdout.splitlines() if line.startswith("  ")]
    assert sorted(planned) == ["three", "two"], out.stdout
    (pkg / "skills" / "greeter" / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: x\n---\nNew body.\n"
    )
    assert "one: " in changed().stderr  # a skill the cases install changed: they all run
    assert not list(tmp_path.glob("evalens-changed-*"))
    assert subprocess.run([*git, "worktree", "list"], capture_output=True, text=True).stdout.count("\n") == 1
    bad = evalens_cli(["eval", "--package", str(pkg), "--changed-since", "nope", "--dry-run"])
    assert bad.returncode == 2 and "unknown git ref" in bad.stderr


def test_changed_since_under_replay_runs_a_case_whose_cassette_changed(tmp_path: Path) -> None:
    """Issue 44, item 5: under --replay a recording is an input; `--changed-since` said "nothing to run" for
    a pull request that edited only a cassette, so the replayed verdict of the edit was never checked."""
    from tests.runner.runner_helpers import case, make_package

    repo = tmp_path / "repo"
    pkg = make_package(repo / "pkg", cases={"one": case("pass"), "two": case("pass")})
    tapes = pkg / "evals" / "cassettes"
    tapes.mkdir()
    for name in ("one", "two"):
        (tapes / f"{name}-1.claude-code.default.json").write_text(json.dumps({"unit": name, "exchanges": []}))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    (tapes / "two-1.claude-code.default.json").write_text('{"unit": "two", "exchanges": [], "cli": "x"}')
    argv = ["run", "--package", str(pkg), "--changed-since", "main", "--dry-run"]
    live = evalens_cli(argv)
    assert live.returncode == 0 and "no case changed since main" in live.stderr, live.stderr
    replayed = evalens_cli([*argv, "--replay"])
    assert replayed.returncode == 0 and "two: its cassettes changed" in replayed.stderr, replayed.stderr
    assert "one: " not in replayed.stderr


def test_the_pr_comment_says_which_verdicts_were_replayed() -> None:
    """Issue 44, item 5: the comment said "✅ fixed u FAIL → PASS" and never mentioned that the PASS came from a
    cassette; it now says how many verdicts were replayed, marks a replayed fix, and names a cassette that was
    not trusted (it answered nothing)."""
    from evalens.core.models.cassette import CaseReplay
    from evalens.runner.ci.comment import pr_comment

    taped = CaseReplay(mode="strict", replayed=True, requests=2)
    refused = CaseReplay(mode="strict", replayed=False, requests=1, untrusted="edited after it was recorded")
    base = make_report([make_case("u", "FAIL"), make_case("v", "PASS")])
    new = make_report(
        [make_case("u", "PASS", replay=taped), make_case("v", "ERROR", error="x", replay=refused)]
    )
    text = pr_comment(new, base=base)
    assert "↺ 1 of 2 units replayed from cassettes (strict)" in text
    assert "| ✅ fixed (replayed) | u | FAIL → PASS |" in text
    assert "cassette not trusted, not replayed: `v`" in text
    assert "replayed" not in pr_comment(base, base=base)
