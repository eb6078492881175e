"""``evalens run [PATH…]`` is one verb with one option set for every format (issue 41, first step).

What it shows: a path is routed by its detected format (a UAAPS package, its cases, or one eval file); a shared
flag means the same on both kinds of target (``--timeout`` is seconds everywhere, ``--json`` prints the report);
the deprecated spellings still work and map onto the current ones; a flag that one kind of target cannot honour
yet is refused by name instead of being ignored; the modes are verbs (``compare``, ``rejudge``, ``resume``), so a
case named ``diff`` runs by name.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from evalens.cli import eval as uaaps_cli
from evalens.cli import run as run_cli
from evalens.cli import run_options
from tests.in_process import evalens
from tests.runner.runner_helpers import make_package

CREATOR = {"skill_name": "greeter", "evals": [{"id": 1, "prompt": "Greet", "expected_output": "a greeting"}]}


def _skill(root: Path) -> Path:
    """A skill-creator skill folder with one evals.json."""
    (root / "evals").mkdir(parents=True)
    (root / "SKILL.md").write_text("---\nname: greeter\ndescription: Writes greetings.\n---\nGreet.\n")
    (root / "evals" / "evals.json").write_text(json.dumps(CREATOR))
    return root / "evals" / "evals.json"


def _args(*argv: str) -> argparse.Namespace:
    args = run_cli._parser().parse_args(list(argv))
    run_options.deprecations(args, "evalens run")
    return args


def test_the_uaaps_face_and_the_file_face_parse_with_one_option_set() -> None:
    def options(parser: argparse.ArgumentParser) -> dict[str, tuple[object, ...]]:
        return {
            flag: (type(a).__name__, a.dest, a.nargs, a.type, a.const, a.choices, a.help)
            for a in parser._actions
            for flag in a.option_strings
        }

    assert options(uaaps_cli._parser()) == options(run_cli._parser())


@pytest.mark.parametrize(
    ("target", "expected"),
    [("pkg", "uaaps"), ("pkg/evals", "uaaps"), ("pkg/evals/cases", "uaaps"), ("skill", "file")],
)
def test_a_folder_routes_by_what_it_holds(tmp_path: Path, target: str, expected: str) -> None:
    make_package(tmp_path / "pkg", cases={"a": {"input": {"prompt": "hi"}}})
    evals = _skill(tmp_path / "skill")
    args = _args(str(tmp_path / target))
    routed = run_cli.route(args.paths, args)
    if expected == "uaaps":
        assert routed is run_cli.UAAPS and args.package == (tmp_path / "pkg").resolve() and args.paths == []
    else:
        assert routed == evals


def test_case_files_and_names_run_in_their_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = make_package(tmp_path / "pkg", cases={"a": {"input": {"prompt": "hi"}}})
    [case] = sorted((pkg / "evals" / "cases").iterdir())
    args = _args(str(case))
    assert run_cli.route(args.paths, args) is run_cli.UAAPS
    assert args.package == pkg.resolve() and args.paths == [str(case)]
    monkeypatch.chdir(pkg)
    args = _args("a", "diff")  # names of cases: `diff` is a case like any other, no hidden mode
    assert run_cli.route(args.paths, args) is run_cli.UAAPS and args.paths == ["a", "diff"]


def test_paths_that_cannot_run_together_are_refused_with_why(tmp_path: Path) -> None:
    first = _skill(tmp_path / "one")
    second = _skill(tmp_path / "two")
    assert "one eval file per run" in str(run_cli.route([str(first), str(second)]))
    both = tmp_path / "both"
    (both / "evals").mkdir(parents=True)
    (both / "tasks.yaml").write_text("skill: greeter\ntasks:\n  - id: a\n    prompt: hi\n")
    (both / "evals" / "evals.json").write_text(json.dumps(CREATOR))
    assert "holds 2 eval files" in str(run_cli.route([str(both)]))
    (tmp_path / "empty").mkdir()
    assert "no UAAPS package" in str(run_cli.route([str(tmp_path / "empty")]))
    a = make_package(tmp_path / "p1", cases={"a": {"input": {"prompt": "hi"}}})
    b = make_package(tmp_path / "p2", cases={"b": {"input": {"prompt": "hi"}}})
    cases = [str(next((p / "evals" / "cases").iterdir())) for p in (a, b)]
    assert "different packages" in str(run_cli.route(cases, _args(*cases)))
    result = evalens(["run", str(first), str(second)])
    assert result.returncode == 2 and "one eval file per run" in result.stderr


def test_timeout_is_seconds_for_every_format(tmp_path: Path) -> None:
    evals = _skill(tmp_path / "skill")
    args = _args(str(evals), "--timeout", "90")
    run_cli._check_args(run_cli._parser(), args)
    assert run_cli.request_from_args(evals, args).timeout_seconds == 90
    pkg = make_package(tmp_path / "pkg", cases={"a": {"input": {"prompt": "hi"}}})
    parsed = uaaps_cli.parse(["--package", str(pkg), "--timeout", "90"])
    assert isinstance(parsed, argparse.Namespace)
    assert uaaps_cli._request(parsed).timeout == 90
    assert run_options.duration_seconds("1500ms") == 1.5 and run_options.duration_seconds("2m") == 120
    with pytest.raises(argparse.ArgumentTypeError):
        run_options.duration_seconds("soon")


def test_deprecated_spellings_map_onto_the_current_ones_and_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evals = _skill(tmp_path / "skill")
    args = _args(str(evals), "--timeout-ms", "1500", "--json", "out.json", "--report", "r.json")
    assert (args.timeout, args.results_json, args.output, args.json) == (
        1.5,
        "out.json",
        Path("r.json"),
        False,
    )
    err = capsys.readouterr().err
    assert "--timeout-ms is deprecated" in err and "--results-json out.json" in err and "-o r.json" in err
    _args(str(evals), "--timeout", "120000")  # skilljack's milliseconds typed as before: seconds, and said so
    assert "--timeout is in seconds: 120000 s is 33.3 h" in capsys.readouterr().err
    args = _args("--json", str(evals))  # the flag before the target: the target is not eaten by it
    assert (args.paths, args.json, args.results_json) == ([str(evals)], True, None)
    args = _args("--report", "case-a")  # `eval --report CASE`: the case is put back
    assert (args.paths, args.output) == (["case-a"], None)


def test_a_flag_one_kind_of_target_cannot_honour_is_refused_by_name(tmp_path: Path) -> None:
    evals = _skill(tmp_path / "skill")
    out = evalens(["run", str(evals), "--target", "skill:x", "--dry-run"])
    assert out.returncode == 2 and "--target applies to UAAPS packages only" in out.stderr
    pkg = make_package(tmp_path / "pkg", cases={"a": {"input": {"prompt": "hi"}}})
    out = evalens(["run", str(pkg), "--with-installed", str(tmp_path), "--dry-run"])
    assert out.returncode == 2 and "--with-installed applies to eval files only" in out.stderr


def test_one_verb_runs_a_package_and_a_file(tmp_path: Path) -> None:
    pkg = make_package(tmp_path / "pkg", cases={"a": {"input": {"prompt": "hi"}}})
    out = evalens(["run", str(pkg), "--dry-run", "--no-judge"])
    assert out.returncode == 0 and "cases (1):" in out.stdout, out.stderr
    old = evalens(["eval", "--package", str(pkg), "--dry-run", "--no-judge"])
    assert (old.returncode, old.stdout) == (out.returncode, out.stdout)
    _skill(tmp_path / "skill")
    out = evalens(["run", str(tmp_path / "skill"), "--dry-run"])
    assert out.returncode == 0 and out.stdout.startswith("1\t"), out.stderr


def test_the_mode_verbs_need_their_argument() -> None:
    for verb in ("rejudge", "resume"):
        out = evalens([verb])
        assert out.returncode == 2 and f"evalens {verb}: give the" in out.stderr
    out = evalens(["compare"])
    assert out.returncode == 2 and "evalens compare" in out.stderr


def test_changed_since_picks_the_units_of_an_eval_file_whose_inputs_changed(tmp_path: Path) -> None:
    """`--changed-since` was UAAPS-only (the Action ran an eval file whole); now one verb gives it to every
    format: an edited eval and a new one run, an untouched one does not, and a SKILL.md change runs them all."""
    import subprocess

    repo = tmp_path / "repo"
    skill = repo / "greeter"
    evals = _skill(skill)
    data = {
        "skill_name": "greeter",
        "evals": [
            {"id": 1, "prompt": "Greet A", "expected_output": "a greeting"},
            {"id": 2, "prompt": "Greet B", "expected_output": "a greeting"},
        ],
    }
    evals.write_text(json.dumps(data, indent=2))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    argv = ["run", str(evals), "--changed-since", "main", "--dry-run"]
    nothing = evalens(argv)
    assert nothing.returncode == 0 and "no unit changed since main" in nothing.stderr, nothing.stderr
    data["evals"][1]["prompt"] = "Greet B warmly"
    data["evals"].append({"id": 3, "prompt": "Greet C", "expected_output": "a greeting"})
    evals.write_text(json.dumps(data, indent=2))
    out = evalens(argv)
    assert out.returncode == 0, out.stderr
    assert "evalens run: 2: the unit's own text changed" in out.stderr and "3: new since main" in out.stderr
    assert "evalens run: 1:" not in out.stderr
    assert sorted(line.split("\t")[0] for line in out.stdout.splitlines()) == ["2", "3"]
    (skill / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Writes greetings.\n---\nGreet warmly.\n"
    )
    assert "evalens run: 1: skill greeter changed" in evalens(argv).stderr
    bad = evalens(["run", str(evals), "--changed-since", "nope", "--dry-run"])
    assert bad.returncode == 2 and "unknown git ref" in bad.stderr


def test_resume_alone_is_not_refused_for_flags_it_was_not_given(tmp_path: Path) -> None:
    """`resume DIR` once refused itself ("drop --engine, --runs"): the flags had been given their defaults before
    the check that no flag was given. Now the run log is read (here: there is none, so it says that)."""
    for argv in (["resume", str(tmp_path)], ["run", "--resume", str(tmp_path)]):
        out = evalens(argv)
        assert out.returncode == 2 and "drop" not in out.stderr and "cannot resume" in out.stderr, out.stderr
    out = evalens(["run", "--resume", str(tmp_path), "--runs", "2"])
    assert out.returncode == 2 and "drop --runs" in out.stderr, out.stderr
