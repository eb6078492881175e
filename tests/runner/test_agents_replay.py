"""Record and replay at the model bridge (issue 24) on the real CLIs against the fake model.

One package, two cases: ``a`` activates the skill (its SKILL.md body reaches the model only in a tool result,
so an edit of the body changes the conversation from the second request on), ``b`` writes a file. Each engine:

1. ``--record`` against a fake model: verdicts, one cassette per case-run;
2. the fake stopped, ``--replay``: the same verdicts, every request answered from the cassettes, none live;
   a second replay gives the same report but for timestamps and durations;
3. a check edited: the replay still needs no model, and the verdict follows the new check;
4. the SKILL.md body edited, ``--replay=new`` against a fresh fake: only ``a``'s diverged tail reaches it;
5. ``b``'s prompt edited, strict replay: ``b`` is ERROR naming the first divergent request and the diff.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalens.runner.replay import cassette_digest
from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available, case, creator_evals, make_package, run_evalens

pytestmark = pytest.mark.agents

MODEL = {"claude-code": [], "codex": ["--model", "gpt-5-codex"]}
TAIL = {
    "claude-code": "claude-code.default",
    "codex": "codex.gpt-5-codex",
}  # a cassette name's engine and model
# what differs between two runs of the same thing: clocks, run ids, and the CLI's own random session id
STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:[-.]\d+)?Z?")
VOLATILE = {"timestamp", "duration_seconds", "id", "agent_seconds", "artifacts", "report_path", "session_id"}


def _env(fake: FakeModelServer | None, port: int) -> dict[str, str]:
    """The agent's and the judge's endpoints: the fake, or (stopped) its old port, where nothing answers."""
    base = f"http://127.0.0.1:{fake.port if fake else port}"
    return {
        "ANTHROPIC_BASE_URL": base,
        "OPENAI_BASE_URL": base + "/v1",
        "ANTHROPIC_API_KEY": "sk-ant-api03-PLANTEDkey0123456789abcdefXYZ",
        "OPENAI_API_KEY": "sk-proj-PLANTEDkey0123456789abcdefXYZ",
        "EVALENS_AGENT_RETRIES": "0",
    }


def _eval(pkg: Path, engine: str, env: dict[str, str], *flags: str) -> dict[str, Any]:
    """``evalens eval`` on the package; the report it wrote (the newest)."""
    proc = run_evalens("eval", "--package", str(pkg), *MODEL[engine], *flags, env=env)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    newest = max((pkg / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    return json.loads(newest.read_text())


def _cases(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["cases"]}


def _stable(node: Any) -> Any:
    """A report without what differs between two runs of the same thing: timestamps (a result file named after
    its run's time too), durations, run ids."""
    if isinstance(node, dict):
        return {k: _stable(v) for k, v in node.items() if k not in VOLATILE}
    if isinstance(node, list):
        return [_stable(v) for v in node]
    if isinstance(node, str):
        return STAMP.sub("<time>", node)
    return node


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two reports differ (dotted paths with both values), for a failure message that says what."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path}: {a!r:.120} != {b!r:.120}"]


def _edit_case(pkg: Path, name: str, edit: Any) -> None:
    [path] = [p for p in (pkg / "evals" / "cases").glob(f"*-{name}.yaml")]
    data = yaml.safe_load(path.read_text())
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_record_then_replay_free_strict_and_new(engine: str, tmp_path: Path, sandbox_dir: Path) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    marker = uuid.uuid4().hex[:8]
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        timeout=120,
        cases={
            "a": case("use-skill", extra=f"NEEDS=greetings MARKER={marker}", contains=["GREETING-OK"]),
            "b": case(
                "pass",
                extra=f"MARKER={marker}",
                contains=["GREETING-OK"],
                files_created=["output/result.txt"],
            ),
        },
    )
    cassettes = pkg / "evals" / "cassettes"

    # 1. record
    with FakeModelServer(log_dir=tmp_path / "log-record") as fake:
        port = fake.port
        recorded = _cases(_eval(pkg, engine, _env(fake, port), "--record"))
        recorded_requests = len(fake.records)
    assert {n: c["verdict"] for n, c in recorded.items()} == {"a": "PASS", "b": "PASS"}, recorded
    assert sorted(p.name for p in cassettes.iterdir()) == [
        f"a-1.{TAIL[engine]}.json",
        f"b-1.{TAIL[engine]}.json",
    ]
    for c in recorded.values():
        assert c["replay"]["mode"] == "record" and not c["replay"]["replayed"]
        assert c["replay"]["live_requests"] == c["replay"]["requests"] > 0
    assert sum(c["replay"]["requests"] for c in recorded.values()) == recorded_requests
    texts = [p.read_text() for p in cassettes.iterdir()]
    for text in texts:  # the planted keys went out as headers and never came back into a cassette
        assert "PLANTEDkey" not in text, "a planted key reached a cassette"
        assert '"x-api-key"' not in text.lower() and '"authorization"' not in text.lower(), (
            "headers are never kept"
        )
    assert any('"judge"' in t for t in texts), "the judge calls are on the tapes too"

    # 2. the fake is gone: replay answers everything, twice the same
    first = _eval(pkg, engine, _env(None, port), "--replay")
    second = _eval(pkg, engine, _env(None, port), "--replay")
    replayed = _cases(first)
    assert {n: c["verdict"] for n, c in replayed.items()} == {"a": "PASS", "b": "PASS"}, replayed
    for name, c in replayed.items():
        assert c["replay"]["replayed"] and c["replay"]["live_requests"] == 0, c["replay"]
        assert c["replay"]["requests"] == recorded[name]["replay"]["requests"]
    assert _differences(_stable(first), _stable(second)) == []
    assert [p.read_text() for p in cassettes.iterdir()] == texts, "strict replay never writes"
    print(f"{engine}: recorded {recorded_requests} requests; replay: 0 live")

    # 3. a check edited: still no model needed, and the verdict follows the new check
    _edit_case(pkg, "b", lambda d: d["expected"].update({"contains": ["NOT-IN-THE-OUTPUT"]}))
    edited = _cases(_eval(pkg, engine, _env(None, port), "--replay"))
    assert edited["b"]["verdict"] == "FAIL" and edited["b"]["replay"]["live_requests"] == 0, edited["b"]
    assert edited["a"]["verdict"] == "PASS"
    _edit_case(pkg, "b", lambda d: d["expected"].update({"contains": ["GREETING-OK"]}))

    # 4. the SKILL.md body edited: --replay=new pays only a's tail
    skill = pkg / "skills" / "greeter" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Write a greeting.", "Write a warm greeting."))
    with FakeModelServer(log_dir=tmp_path / "log-new") as fake:
        renewed = _cases(_eval(pkg, engine, _env(fake, port), "--replay=new"))
        tail = len(fake.records)
    a, b = renewed["a"]["replay"], renewed["b"]["replay"]
    assert renewed["a"]["verdict"] == "PASS" and renewed["b"]["verdict"] == "PASS", renewed
    assert b["live_requests"] == 0 and b["replayed"], b
    assert 0 < a["live_requests"] == tail < a["requests"], (a, tail)
    assert "differs from recorded request" in (a["diverged"] or "")
    print(f"{engine}: SKILL.md edit under --replay=new: {tail} of {a['requests']} requests of a live, b 0")

    # 5. b's prompt edited, strict: ERROR naming the first request that differs
    _edit_case(pkg, "b", lambda d: d["input"].update({"prompt": d["input"]["prompt"] + " please"}))
    # retries allowed: the divergence answers 409, and a divergence is never retried (issue 44)
    retrying = {**_env(None, port), "EVALENS_AGENT_RETRIES": "2", "EVALENS_RETRY_BACKOFF": "0.05"}
    strict_report = _eval(pkg, engine, retrying, "--replay")
    strict = _cases(strict_report)
    assert strict["b"]["verdict"] == "ERROR", strict["b"]
    error = strict["b"]["error"]
    assert "replay diverged: request 1 (agent) differs from recorded request" in error, error
    assert "retr" not in error, error  # no "(after 2 retries)"
    _assert_not_retried(pkg, strict_report, "b")
    assert "please" in error  # the short diff shows the change
    assert strict["a"]["verdict"] == "PASS" and strict["a"]["replay"]["live_requests"] == 0
    print(f"{engine}: strict replay of a changed prompt: {error.splitlines()[0]}")


def _assert_not_retried(pkg: Path, report: dict[str, Any], name: str) -> None:
    """The unit's one run record lists no retry."""
    from evalens.runner.record import records_for

    newest = max((pkg / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    [case] = [c for c in report["cases"] if c["name"] == name]
    [(_, record)] = records_for(newest, case.get("artifacts"))
    assert record is not None and record.retries == [], record


def _run(evals: Path, engine: str, env: dict[str, str], out: Path, *flags: str) -> dict[str, Any]:
    """``evalens run`` on a skill-creator evals.json, two runs per unit; the evalens report it wrote."""
    proc = run_evalens(
        "run", str(evals), "--engine", engine, *MODEL[engine], "--runs", "2", "--output-dir", str(out), *flags,
        env=env,
    )  # fmt: skip
    assert proc.returncode in (0, 1), (proc.stdout + proc.stderr)[-3000:]
    newest = max(evals.parents[1].glob("evals/reports/*.json"), key=lambda p: p.stat().st_mtime_ns)
    return json.loads(newest.read_text())


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_evalens_run_records_and_replays_every_run_and_its_grader(
    engine: str, tmp_path: Path, sandbox_dir: Path
) -> None:
    """The file suites (``evalens run``) go through the same tapes: both runs of a unit and their grader calls
    replay with the model server stopped, the same verdict, the same report twice."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    evals = creator_evals(tmp_path, f"Greet SCENARIO=pass MARKER={uuid.uuid4().hex[:8]} JUDGE=pass")
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        port = fake.port
        recorded = _run(evals, engine, _env(fake, port), tmp_path / "out1", "--record")
        live = len(fake.records)
    [unit] = recorded["cases"]
    assert unit["verdict"] == "PASS" and unit["replay"]["live_requests"] == unit["replay"]["requests"] == live
    assert unit["replay"]["cassettes"] == [  # the file's own folder: unit ids repeat across eval files
        f"evals/cassettes/evals-evals/1-{i}.{TAIL[engine]}.json" for i in (1, 2)
    ]
    first = _run(evals, engine, _env(None, port), tmp_path / "replay", "--replay")
    second = _run(evals, engine, _env(None, port), tmp_path / "replay", "--replay")
    [again] = first["cases"]
    assert again["verdict"] == "PASS" and again["replay"]["replayed"], again
    assert again["replay"]["live_requests"] == 0 and again["replay"]["requests"] == live
    assert _differences(_stable(first), _stable(second)) == []
    print(f"{engine}: evalens run, 2 runs: recorded {live} requests, replayed with 0 live")


def test_the_action_replays_a_pull_request_without_keys(tmp_path: Path, sandbox_dir: Path) -> None:
    """CI without secrets: the Action with ``replay: strict`` and no key gives the recorded verdicts for the
    unchanged cases and names the one whose requests changed (ERROR, listed in the step summary)."""
    if not agents_available("claude-code"):
        pytest.skip("claude-code CLI not installed (run .ci/install-agents.sh)")
    from tests.conftest import REPO
    from tests.runner.actions_emulator import Emulator, base_env

    workspace = tmp_path / "repo"
    pkg = make_package(
        workspace / "pkg",
        timeout=120,
        cases={
            "same": case("pass", contains=["GREETING-OK"]),
            "changed": case("no-file", contains=["GREETING-OK"]),
        },
    )
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        port = fake.port
        _eval(pkg, "claude-code", _env(fake, port), "--record")
    _edit_case(pkg, "changed", lambda d: d["input"].update({"prompt": d["input"]["prompt"] + " now"}))
    env = {k: v for k, v in base_env().items() if not k.endswith(("_API_KEY", "_AUTH_TOKEN"))}
    env.update({k: v for k, v in _env(None, port).items() if not k.endswith("_API_KEY")})
    inputs = {"package": "pkg", "agent": "claude-code", "replay": "strict", "validate": "false"}
    run = Emulator(REPO, workspace, inputs, env).run(tmp_path / "steps")
    assert run.steps["run"].returncode == 1, run.steps["run"].stderr[-3000:]
    assert (run.outputs["passed"], run.outputs["errored"]) == ("1", "1"), run.outputs
    assert "↺ 1 of 2 units replayed from cassettes (strict)" in run.summary, run.summary
    assert "requests changed (ERROR, record again): `changed`" in run.summary


SKILL_MD = "---\nname: greeting\ndescription: Greets new team members warmly.\n---\nSay hello.\n"


def _format_file(root: Path, fmt: str) -> Path:
    """One eval file of ``fmt`` (a skill beside it), with a judged unit where the format has a judge."""
    if fmt == "skilljack":
        (root / "skills" / "greeting").mkdir(parents=True)
        (root / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
        tasks = {
            "skill": "greeting",
            "tasks": [
                {
                    "id": "judged",
                    "prompt": "What is an email? SCENARIO=done JUDGE=pass",
                    "expected_skill_load": "none",
                    "deterministic": {"expect_skill_activation": False},
                    "criteria": {"adherence": {"weight": 1}},
                },
                {
                    "id": "plain",
                    "prompt": "What is a letter? SCENARIO=done",
                    "expected_skill_load": "none",
                    "deterministic": {"expect_skill_activation": False},
                },
            ],
        }
        (root / "tasks.yaml").write_text(yaml.safe_dump(tasks, sort_keys=False))
        return root / "tasks.yaml"
    skill = root / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    if fmt == "writing-skills":
        expectation = {"criterion": "uses-hello", "description": "Uses the word hello", "required": True}
        data: Any = {
            "version": "1.0",
            "skill": str(skill),
            "cases": [
                {"id": "graded", "prompt": "Greet me SCENARIO=done JUDGE=pass", "expectations": [expectation]}
            ],
        }
        file = skill / "evals" / "evals.json"
    else:  # a trigger set: one query that should fire the skill, one that should not
        data = [
            {
                "query": "welcome our new team member warmly SCENARIO=use-skill NEEDS=warmly",
                "should_trigger": True,
            },
            {"query": "what is the weather SCENARIO=done", "should_trigger": False},
        ]
        file = skill / "evals" / "trigger-eval.json"
    file.write_text(json.dumps(data, indent=2))
    return file


def _run_file(
    file: Path, ws: Path, engine: str, env: dict[str, str], out: Path, *flags: str
) -> dict[str, Any]:
    """``evalens run FILE`` once per unit; the evalens report it wrote (the newest under ``ws``)."""
    proc = run_evalens(
        "run", str(file), "--engine", engine, *MODEL[engine], "--runs", "1", "--output-dir", str(out), *flags,
        env=env,
    )  # fmt: skip
    assert proc.returncode in (0, 1), (proc.stdout + proc.stderr)[-3000:]
    newest = max(ws.glob("**/evals/reports/*.json"), key=lambda p: p.stat().st_mtime_ns)
    return json.loads(newest.read_text())


@pytest.mark.parametrize("fmt", ["skilljack", "writing-skills", "trigger-set"])
@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_two_replays_give_the_same_report_for_every_format(
    engine: str, fmt: str, tmp_path: Path, sandbox_dir: Path
) -> None:
    """Issue 24 item 4 for the formats ``evalens run`` runs beyond skill-creator (above) and UAAPS (the first
    test): a recorded file replays with the model server stopped, every unit from its cassette, and two replays
    give the same report but for clocks and run ids."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    ws = tmp_path / "ws"
    file = _format_file(ws, fmt)
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        port = fake.port
        recorded = _run_file(file, ws, engine, _env(fake, port), tmp_path / "rec", "--record")
        live = len(fake.records)
    verdicts = {c["name"]: c["verdict"] for c in recorded["cases"]}
    assert verdicts and all(v == "PASS" for v in verdicts.values()), recorded["cases"]
    assert sum(c["replay"]["requests"] for c in recorded["cases"]) == live
    first = _run_file(file, ws, engine, _env(None, port), tmp_path / "replay", "--replay")
    second = _run_file(file, ws, engine, _env(None, port), tmp_path / "replay", "--replay")
    assert {c["name"]: c["verdict"] for c in first["cases"]} == verdicts, first["cases"]
    for c in first["cases"]:
        assert c["replay"]["replayed"] and c["replay"]["live_requests"] == 0, (c["name"], c["replay"])
    assert _differences(_stable(first), _stable(second)) == []
    print(f"{engine} {fmt}: recorded {live} requests, two replays with 0 live give the same report")


def _git_repo(root: Path) -> str:
    """Make ``root`` a repository with everything committed; its HEAD (the pull request's base). Its files may
    belong to the unprivileged runner, so this git trusts the folder."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", "-c", "safe.directory=*", *args],
            check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "base")
    return git("rev-parse", "HEAD")


@pytest.mark.parametrize("who", ["root", "unprivileged"])
@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_pull_request_that_edits_a_recorded_judge_answer_gets_no_pass(
    engine: str, who: str, runner_work: Path
) -> None:
    """Issue 42, attack 8, as root and as GitHub's unprivileged runner: one word changed in a recorded judge reply
    turned a recorded FAIL into a strict-replay PASS. With the pull request's base named (`--replay-base`, the
    Action's default on a pull request), a cassette the change edited answers nothing: the unit is ERROR naming
    the cassette, never PASS; without the edit the same replay gives the recorded FAIL."""
    import os
    import subprocess

    from tests.runner.test_agents_sandbox import evalens_command

    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    work = runner_work
    repo = work / "repo"
    pkg = make_package(repo / "pkg", engine=engine, timeout=120, cases={"judged": case("pass", judge="fail")})
    runner_env = {
        "EVALENS_SANDBOX_DIR": str(work / "sandboxes"),
        "HOME": str(work / "home"),
        "NO_COLOR": "1",
        # the runner's git trusts the clone it was handed (the checkout action's safe.directory)
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "safe.directory",
        "GIT_CONFIG_VALUE_0": "*",
    }

    def evaluate(env: dict[str, str], *flags: str) -> dict[str, Any]:
        argv = [*evalens_command(who, work), "eval", "--package", str(pkg), *MODEL[engine], *flags]
        proc = subprocess.run(
            argv, env={**os.environ, **runner_env, **env}, capture_output=True, text=True, timeout=600
        )
        assert proc.returncode in (0, 1), proc.stderr[-3000:]
        newest = max((pkg / "evals" / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        return json.loads(newest.read_text())

    with FakeModelServer(log_dir=work / "log") as fake:
        port = fake.port
        recorded = evaluate(_env(fake, port), "--record")
    assert _cases(recorded)["judged"]["verdict"] == "FAIL"
    base = _git_repo(repo)
    env = _env(None, port)  # nothing answers there: only the cassettes can
    same = evaluate(env, "--replay", "--replay-base", base)
    assert _cases(same)["judged"]["verdict"] == "FAIL"  # an untouched cassette replays as recorded
    [cassette] = (pkg / "evals" / "cassettes").glob("*.json")
    text = cassette.read_text()
    forged = text.replace(
        '\\"verdict\\": \\"FAIL\\"', '\\"verdict\\": \\"PASS\\"'
    )  # one word of the judge's reply
    assert forged != text, "the recorded judge reply was not found in the cassette"
    cassette.write_text(forged)
    naive = _cases(evaluate(env, "--replay"))["judged"]  # the edit no longer matches its digest
    assert naive["verdict"] == "ERROR" and "edited after it was recorded" in naive["reason"], naive
    data = json.loads(forged)
    data["digest"] = cassette_digest(data)  # anyone can compute a digest: it is no signature
    cassette.write_text(json.dumps(data, indent=1))
    unguarded = evaluate(env, "--replay")
    assert _cases(unguarded)["judged"]["verdict"] == "PASS"  # what the attack did: why the base is needed
    guarded = evaluate(env, "--replay", "--replay-base", base)
    unit = _cases(guarded)["judged"]
    assert unit["verdict"] == "ERROR", unit
    assert "was added or edited since" in unit["reason"] and cassette.name in unit["reason"], unit["reason"]
    assert unit["replay"]["untrusted"], unit["replay"]
    assert list((work / "sandboxes").iterdir()) == []


def test_matrix_cells_record_and_replay_their_own_cassettes(tmp_path: Path, sandbox_dir: Path) -> None:
    """Issue 44: the cells of a matrix run (here both CLIs) record the same units into the same folder; the
    cassette name was only unit and run, so the second cell's recording overwrote the first's and the first
    cell's replay diverged (ERROR). Each cell now has its own cassettes, and the matrix replays with the model
    gone, every cell as recorded."""
    for engine in ("claude-code", "codex"):
        if not agents_available(engine):
            pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    pkg = make_package(tmp_path / "pkg", timeout=120, cases={"a": case("pass", contains=["GREETING-OK"])})
    argv = ["--engine", "claude-code,codex", "--model", "codex=gpt-5-codex", "--no-judge", "--json"]
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        port = fake.port
        rec = run_evalens("eval", "--package", str(pkg), *argv, "--record", env=_env(fake, port))
    assert rec.returncode == 0, rec.stderr[-3000:]
    names = sorted(p.name for p in (pkg / "evals" / "cassettes").iterdir())
    assert names == [f"a-1.{TAIL['claude-code']}.json", f"a-1.{TAIL['codex']}.json"], names
    again = run_evalens("eval", "--package", str(pkg), *argv, "--replay", env=_env(None, port))
    assert again.returncode == 0, again.stderr[-3000:]
    grid = json.loads(again.stdout)
    assert [c["state"] for c in grid["rows"][0]["cells"]] == ["PASS", "PASS"], grid


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_arms_record_and_replay_their_own_cassettes(engine: str, tmp_path: Path, sandbox_dir: Path) -> None:
    """Issue 44: every arm of an ``--arms`` run is a batch over the same units and folder; with the cassette
    named by unit and run only, the last arm's recording was every arm's, and the other arms' replays
    diverged. Each arm now records its own (the arm in the name) and replays as recorded."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    key = "arm-key-3"
    pkg = make_package(
        tmp_path / "pkg",
        engine=engine,
        timeout=120,
        cases={"a": case("needs-skill", extra=f"NEEDS={key}", contains=["GREETING-OK"])},
    )
    (pkg / "skills" / "greeter" / "SKILL.md").write_text(
        f"---\nname: greeter\ndescription: Writes greetings. Key {key}.\n---\nWrite a greeting.\n"
    )
    argv = [*MODEL[engine], "--no-judge", "--json", "--arms", "no-skill,skill"]
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        port = fake.port
        rec = run_evalens("eval", "--package", str(pkg), *argv, "--record", env=_env(fake, port))
    assert rec.returncode == 0, rec.stderr[-3000:]
    names = sorted(p.name for p in (pkg / "evals" / "cassettes").iterdir())
    assert names == [f"a-1.{TAIL[engine]}.no-skill.json", f"a-1.{TAIL[engine]}.skill.json"], names
    again = run_evalens("eval", "--package", str(pkg), *argv, "--replay", env=_env(None, port))
    assert again.returncode == 0, again.stderr[-3000:]
    report = json.loads(again.stdout)
    assert [c["verdict"] for c in report["cases"]] == ["PASS"], report["cases"]
    (none,) = report["arms"]["comparisons"]
    other = json.loads((pkg / "evals" / "reports" / none["report"]).read_text())
    assert [c["verdict"] for c in other["cases"]] == ["FAIL"], other["cases"]  # as recorded: no ERROR
    assert other["cases"][0]["replay"]["live_requests"] == 0, other["cases"][0]["replay"]
