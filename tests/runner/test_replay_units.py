"""Record and replay (issue 24) without agents: the canonical form, redaction, and the cassette proxy between a
real HTTP client and the fake model (recording, strict replay with the upstream gone, divergence, replay=new)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evalens.runner.canonical import canonical_request, env_secrets, redact, short_diff

KEY = "sk-ant-api03-PLANTEDsecretKEY0123456789abcdef"


def _body(prompt: str, **extra: object) -> bytes:
    return json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "system": [{"type": "text", "text": "You are a helper.", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": prompt}],
            "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
            "metadata": {"user_id": "user_abc_account_1234_session_9f0e"},
            "stream": True,
            **extra,
        }
    ).encode()


def test_volatile_fields_are_normalised_and_the_conversation_kept() -> None:
    a = canonical_request(
        _body(
            "write /var/tmp/evalens/eval-abc/ws/x.txt at 2026-11-27T04:11:21Z, id 0b5e7f4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
        ),
        literals={"/var/tmp/evalens/eval-abc": "<sandbox>"},
    )
    b = canonical_request(
        _body(
            "write /var/tmp/evalens/eval-xyz/ws/x.txt at 2026-11-28T09:00:00Z, id 11111111-2222-4333-8444-555555555555",
            prompt_cache_key="pck-1",
        ),
        literals={"/var/tmp/evalens/eval-xyz": "<sandbox>"},
    )
    assert a == b
    assert "metadata" not in a and "prompt_cache_key" not in b
    assert "cache_control" not in json.dumps(a)
    assert a["messages"][0]["content"] == "write <sandbox>/ws/x.txt at <time>, id <uuid>"
    assert a["tools"] == [{"input_schema": {"type": "object"}, "name": "Bash"}]
    changed = canonical_request(_body("write the other file"))
    assert changed != canonical_request(_body("write the file"))
    assert "messages[0].content: write the other file" in short_diff(
        canonical_request(_body("write the file")), changed
    )


def test_a_planted_key_in_a_prompt_never_survives() -> None:
    body = _body(
        f"use the key {KEY} and Authorization: Bearer abcdefghijklmnop.qrs and sk-proj-ABCDEFGHIJKLMNOPQRSTUV"
    )
    text = json.dumps(
        canonical_request(body, secrets=env_secrets({"OPENAI_API_KEY": "plain-key-without-shape"}))
    )
    assert KEY not in text and "abcdefghijklmnop" not in text and "sk-proj-ABC" not in text
    assert text.count("<redacted>") == 3
    assert (
        redact("the key is plain-key-without-shape", ["plain-key-without-shape"]) == "the key is <redacted>"
    )


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


async def _exchange(mode: str, root: Path, upstream: str, bodies: list[bytes]) -> list[tuple[int, bytes]]:
    from evalens.runner.replay import ReplaySettings, cassettes, open_tape

    headers = {"x-api-key": KEY, "Authorization": f"Bearer {KEY}", "anthropic-version": "2023-06-01"}
    async with cassettes(ReplaySettings(mode, root)):  # type: ignore[arg-type]
        tape = await open_tape("unit one", 1, "claude-code", root / "sandbox")
        assert tape is not None
        url = (await tape.proxy(upstream, "agent")).url + "/v1/messages"
        return [await asyncio.to_thread(_post, url, b, headers) for b in bodies]


def test_the_proxy_records_streams_replays_without_upstream_and_names_a_divergence(tmp_path: Path) -> None:
    from tests.fakemodel import FakeModelServer

    first, second = _body("SCENARIO=done hello"), _body("SCENARIO=done again")
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        live = asyncio.run(_exchange("record", tmp_path, fake.anthropic_base_url, [first, second]))
        upstream = fake.anthropic_base_url
        assert len(fake.records) == 2
    cassette = tmp_path / "evals" / "cassettes" / "unit-one-1.claude-code.default.json"
    text = cassette.read_text()
    assert KEY not in text and "x-api-key" not in text.lower() and "authorization" not in text.lower()
    data = json.loads(text)
    assert [e["index"] for e in data["exchanges"]] == [1, 2]
    assert data["exchanges"][0]["response"]["events"][0].startswith("event: message_start")
    # the fake is stopped: replay answers the same bytes from the cassette
    replayed = asyncio.run(_exchange("strict", tmp_path, upstream, [first, second]))
    assert replayed == live and live[0][0] == 200 and b"message_stop" in live[0][1]
    status, body = asyncio.run(
        _exchange("strict", tmp_path, upstream, [first, _body("SCENARIO=done changed")])
    )[1]
    assert status == 409
    message = json.loads(body)["error"]["message"]
    assert "request 2 (agent) differs from recorded request 2" in message
    assert "messages[0].content: SCENARIO=done changed" in message
    assert cassette.read_text() == text  # strict replay never writes
    # --replay=new: the first request is replayed, the changed one goes live and is recorded
    with FakeModelServer(log_dir=tmp_path / "log2") as fake:
        asyncio.run(
            _exchange("new", tmp_path, fake.anthropic_base_url, [first, _body("SCENARIO=done changed")])
        )
        assert len(fake.records) == 1
    again = json.loads(cassette.read_text())
    assert again["exchanges"][1]["request"]["messages"][0]["content"] == "SCENARIO=done changed"


def test_a_path_split_across_streamed_pieces_is_one_placeholder() -> None:
    from evalens.runner.replay import placehold_events

    pieces = ['{"file_path": "/var/tmp/ev', "alens/eval-ab", 'c/ws/out.txt"}']
    events = [
        f'event: content_block_delta\ndata: {{"type": "content_block_delta", "index": 1, '
        f'"delta": {{"type": "input_json_delta", "partial_json": {json.dumps(p)}}}}}'
        for p in pieces
    ] + ['event: message_stop\ndata: {"type": "message_stop"}']
    out = placehold_events(events, lambda t: t.replace("/var/tmp/evalens/eval-abc", "<sandbox>"))
    assert len(out) == 2 and out[1] == events[3]
    data = json.loads(out[0].split("data: ", 1)[1])
    assert data["delta"]["partial_json"] == '{"file_path": "<sandbox>/ws/out.txt"}'
    untouched = placehold_events(events, lambda t: t.replace("/nowhere", "<sandbox>"))
    assert untouched == events  # pieces that hold no sandbox path stay as they were streamed


def test_large_request_parts_are_written_once_and_read_back_whole() -> None:
    from evalens.runner.replay import pack, unpack

    tools = [{"name": f"Tool{i}", "description": "x" * 2000} for i in range(3)]
    one = canonical_request(_body("first", tools=tools))
    two = canonical_request(_body("second", tools=tools))
    shared: dict[str, object] = {}
    packed = [pack(one, shared), pack(two, shared)]
    assert len(shared) == 3  # each tool once, for both requests
    assert packed[0]["tools"] == packed[1]["tools"] and all(set(t) == {"$shared"} for t in packed[0]["tools"])
    assert [unpack(p, shared) for p in packed] == [one, two]


def test_a_replayed_verdict_says_so_in_junit_and_the_lens_and_a_live_one_does_not() -> None:
    from evalens.core.models.cassette import CaseReplay, replay_label
    from evalens.runner.ci.junit import junit_xml
    from evalens.runner.results import result_from_report_case
    from evalens.server.features.run_present import verdict_title
    from tests.ci_helpers import make_case, make_report, validate_junit

    full = CaseReplay(
        mode="new", replayed=True, requests=3, live_requests=0, cassettes=["evals/cassettes/a-1.json"]
    )
    tail = CaseReplay(
        mode="new", replayed=True, requests=3, live_requests=2, diverged="request 2 (agent) ..."
    )
    recorded = CaseReplay(mode="record", replayed=False, requests=3, live_requests=3)
    report = make_report(
        [make_case("a", "PASS", replay=full), make_case("b", "PASS", replay=tail), make_case("c", "PASS")]
        + [make_case("d", "FAIL", replay=recorded)]
    )
    doc = validate_junit(junit_xml(report))
    props = {p.get("name"): p.get("value") for p in doc.iter("property")}
    assert props["evalens.replay.a"] == "↺ replayed (3 of 3 requests)" == replay_label(full)
    assert props["evalens.replay.b"] == "↺ replayed (1 of 3 requests, 2 live)"
    assert "evalens.replay.c" not in props and "evalens.replay.d" not in props  # live runs are not marked
    assert props["evalens.replay.replayed_units"] == "2"
    assert props["evalens.replay.live_units"] == "b, d"
    lens = [verdict_title(result_from_report_case(c, report, Path("/r/x.json"))) for c in report.cases]
    assert lens[0].startswith("✓ PASS") and lens[0].endswith("· ↺ replayed (3 of 3 requests)")
    assert "↺" not in lens[2] and "↺" not in lens[3]


def test_a_run_record_and_the_test_explorer_answer_say_a_verdict_was_replayed(tmp_path: Path) -> None:
    """The run record of each unit-run carries its tape's note (a live recording is `replayed: false`, a
    replay counts its requests), its facts line ends in the lens's words, and ``evalens.runCase`` answers
    ``replayed`` with the same words for the Test Explorer."""
    from types import SimpleNamespace

    from evalens.core.models.cassette import replay_label
    from evalens.core.models.run_record import RunRecord
    from evalens.runner.record import finish
    from evalens.runner.replay import ReplaySettings, cassettes, open_tape
    from evalens.runner.results import result_from_report_case
    from evalens.runner.run_view import record_facts
    from evalens.server.features.run_present import case_result
    from tests.ci_helpers import make_case, make_report
    from tests.fakemodel import FakeModelServer

    bodies = [_body("SCENARIO=done hello"), _body("SCENARIO=done again")]

    async def unit_run(mode: str, upstream: str) -> tuple[RunRecord, RunRecord]:
        async with cassettes(ReplaySettings(mode, tmp_path)):  # type: ignore[arg-type]
            tape = await open_tape("greet", 1, "claude-code", tmp_path / "sandbox")
            assert tape is not None
            url = (await tape.proxy(upstream, "agent")).url + "/v1/messages"
            for body in bodies:
                assert (await asyncio.to_thread(_post, url, body, {}))[0] == 200
            rec = RunRecord(version=1, unit="greet", engine="claude-code")
            other = RunRecord(version=1, unit="greet", engine="claude-code", baseline="no skill")
            for r in (rec, other):
                finish(r, verdict="PASS", reason="ok", error=None, checks=[])
            return rec, other

    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        upstream = fake.anthropic_base_url
        recorded, _ = asyncio.run(unit_run("record", upstream))
    assert recorded.replay is not None and recorded.replay.mode == "record"
    assert (recorded.replay.replayed, recorded.replay.requests, recorded.replay.live_requests) == (
        False,
        2,
        2,
    )
    assert "↺" not in record_facts(recorded)  # a recording is a live run
    replayed, baseline_run = asyncio.run(unit_run("strict", upstream))  # the fake is gone
    assert replayed.replay is not None and replayed.replay.cassettes == [
        "evals/cassettes/greet-1.claude-code.default.json"
    ]
    assert (replayed.replay.mode, replayed.replay.requests, replayed.replay.live_requests) == ("strict", 2, 0)
    assert baseline_run.replay is None  # the `greet [no skill]` run had no tape of its own here
    label = replay_label(replayed.replay)
    assert label == "↺ replayed (2 of 2 requests)" and record_facts(replayed).endswith(f" · {label}")
    assert RunRecord.model_validate(replayed.model_dump(mode="json")).replay == replayed.replay

    report = make_report([make_case("greet", "PASS", replay=replayed.replay), make_case("live", "PASS")])
    answers = [
        case_result(
            "file:///p/evals/cases/x.yaml",
            c.name,
            SimpleNamespace(result=result_from_report_case(c, report, Path("/r/x.json")), report_path=None),
            None,
            (),
            "utf-16",
        ).wire()
        for c in report.cases
    ]
    assert answers[0]["replayed"] == label and "replayed" not in answers[1]  # the declared wire field


def test_the_hosts_facts_in_a_clis_own_prompt_are_normalised() -> None:
    """A cassette recorded on one machine replays on another: Claude Code's system prompt names the kernel,
    Codex's environment context the time zone (tests/data/cassettes are replayed in CI)."""

    def system(os_version: str, tz: str) -> bytes:
        return _body(
            "hi",
            system=[{"type": "text", "text": f"Platform: linux\nOS Version: {os_version}\nShell: bash"}],
            input=[{"type": "input_text", "text": f"<environment_context>\n  <timezone>{tz}</timezone>\n"}],
        )

    here = canonical_request(system("Linux 6.18.44-fc-v782", "Etc/UTC"))
    assert here == canonical_request(system("Linux 5.15.0-1071-azure", "Europe/Berlin"))
    assert "OS Version: <os>\nShell: bash" in json.dumps(here["system"]).replace("\\n", "\n")
    assert "<timezone><tz></timezone>" in json.dumps(here["input"])


def test_the_key_variables_a_run_names_are_redacted_by_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge key in a variable of the user's choosing (``judge_key_env``; ``agent_key_env`` likewise) has no
    key shape: it is redacted because the run names its variable, in the prompt it was planted in."""
    from evalens.runner.api_types import RunRequest
    from evalens.runner.replay import settings_of
    from tests.fakemodel import FakeModelServer

    judge_key, agent_key = "corp-judge-value-7f3a91", "corp-agent-value-2b8c44"
    monkeypatch.setenv("CORP_JUDGE_KEY", judge_key)
    monkeypatch.setenv("CORP_AGENT_KEY", agent_key)
    request = RunRequest(
        package_root=tmp_path, record=True, judge_key_env=["CORP_JUDGE_KEY"], agent_key_env=["CORP_AGENT_KEY"]
    )
    settings = settings_of(request, tmp_path)
    assert settings is not None and settings.key_env == ("CORP_JUDGE_KEY", "CORP_AGENT_KEY")
    unnamed = settings_of(RunRequest(package_root=tmp_path, record=True), tmp_path)
    assert unnamed is not None and unnamed.key_env == ()

    async def record() -> None:
        from evalens.runner.replay import cassettes, open_tape

        async with cassettes(settings):
            tape = await open_tape("keys", 1, "claude-code", tmp_path / "sandbox")
            assert tape is not None
            url = (await tape.proxy(fake.anthropic_base_url, "agent")).url + "/v1/messages"
            body = _body(f"SCENARIO=done judge {judge_key} agent {agent_key}")
            assert (await asyncio.to_thread(_post, url, body, {"x-api-key": judge_key}))[0] == 200

    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        asyncio.run(record())
    text = (tmp_path / "evals" / "cassettes" / "keys-1.claude-code.default.json").read_text()
    assert judge_key not in text and agent_key not in text
    assert "SCENARIO=done judge <redacted> agent <redacted>" in text


@pytest.mark.parametrize(
    ("recorded", "replayed"),
    [
        ("The current month is November 2026 — use this.", "The current month is December 2026 — use this."),
        ("Today is Monday, November 30, 2026.", "Today is Tuesday, December 1, 2026."),
        ("Today's date is 2026-11-30.", "Today's date is 2027-01-01."),
        ("as of 30 Nov 2026", "as of 1st Jan 2027"),
        ("on 11/30/2026", "on 01/01/2027"),
        ("cc_version=2.1.197.4f9; cc_entrypoint=sdk-cli;", "cc_version=2.1.332.a01; cc_entrypoint=sdk-cli;"),
    ],
)
def test_a_request_recorded_in_one_month_matches_its_replay_in_another(recorded: str, replayed: str) -> None:
    """Issue 40: Claude Code's tool list says "the current month is …", so a cassette of November diverged on
    the first of December; every calendar phrase is a placeholder, and a real change still differs."""
    assert canonical_request(_body(recorded)) == canonical_request(_body(replayed))
    assert canonical_request(_body(recorded)) != canonical_request(_body("And " + recorded))


def test_a_cassette_recorded_under_older_rules_is_read_under_todays(tmp_path: Path) -> None:
    """A committed cassette keeps the month its recording saw (rules before issue 40 left it); loading it puts
    its requests through today's rules, so it matches a request of any later month."""
    from evalens.core.models.cassette import Cassette, CassetteExchange, CassetteResponse
    from evalens.runner.replay import load_cassette_cli

    old = json.loads(_body("The current month is November 2026."))
    cassette = Cassette(
        unit="u",
        cli="2.1.197 (Claude Code)",
        exchanges=[
            CassetteExchange(
                index=1,
                source="agent",
                path="/v1/messages",
                request=old,
                response=CassetteResponse(status=200),
            )
        ],
    )
    path = tmp_path / "u-1.json"
    path.write_text(json.dumps(cassette.model_dump(mode="json")))
    [exchange], cli = load_cassette_cli(path)
    assert cli == "2.1.197 (Claude Code)"
    assert exchange.request == canonical_request(_body("The current month is March 2027."))


def _git(repo: Path, *args: str) -> None:
    import subprocess

    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args],
        check=True,
        capture_output=True,
    )


def test_a_cassette_the_change_edited_never_answers_a_replay(tmp_path: Path) -> None:
    """Issue 42, attack 8: one word changed in a recorded judge answer turned a FAIL into a strict-replay PASS.
    With --replay-base, a cassette that differs from the base (edited, added, untracked) answers nothing: the
    request is refused naming why, so the unit is ERROR; an untouched cassette still replays."""
    from evalens.core.models.cassette import Cassette, CassetteExchange, CassetteResponse
    from evalens.runner.replay import CassetteBatch, edited_since

    repo = tmp_path / "repo"
    folder = repo / "evals" / "cassettes"
    folder.mkdir(parents=True)
    body = _body("hello")

    def cassette(unit: str, text: str) -> str:
        exchange = CassetteExchange(
            index=1,
            source="judge",
            path="/v1/messages",
            request=canonical_request(body),
            response=CassetteResponse(status=200, body={"content": [{"type": "text", "text": text}]}),
        )
        return json.dumps(Cassette(unit=unit, exchanges=[exchange]).model_dump(mode="json"))

    (folder / "kept-1.json").write_text(cassette("kept", '{"verdict": "FAIL"}'))
    (folder / "forged-1.json").write_text(cassette("forged", '{"verdict": "FAIL"}'))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    (folder / "forged-1.json").write_text(
        cassette("forged", '{"verdict": "PASS"}')
    )  # the pull request's edit
    (folder / "new-1.json").write_text(cassette("new", '{"verdict": "PASS"}'))  # and one it added

    edited, problem = edited_since(folder, "HEAD")
    assert problem is None and edited == {
        (folder / "forged-1.json").resolve(),
        (folder / "new-1.json").resolve(),
    }

    async def go() -> dict[str, tuple[int, str]]:
        batch = CassetteBatch("strict", folder, repo, base="HEAD", edited=edited)
        out = {}
        for unit in ("kept", "forged", "new"):
            tape = await batch.open(unit, 1, None, {})
            answer = tape.decide("judge", "POST", "/v1/messages", body)
            assert answer is not None
            out[unit] = (answer.status, tape.note().untrusted or "")
        return out

    got = asyncio.run(go())
    assert got["kept"] == (200, "")
    for unit in ("forged", "new"):
        status, why = got[unit]
        assert status == 409 and f"evals/cassettes/{unit}-1.json was added or edited since HEAD" in why

    # a base that cannot be compared trusts nothing, and says why
    _, problem = edited_since(folder, "no-such-ref")
    assert problem is not None and "no-such-ref is unknown" in problem
    batch = CassetteBatch("strict", folder, repo, base="no-such-ref", base_problem=problem)
    assert "no cassette is trusted" in (batch.untrusted(folder / "kept-1.json") or "")


def test_cassette_names_carry_engine_model_and_arm_and_an_old_name_still_replays(tmp_path: Path) -> None:
    """Issue 44: matrix cells and --arms batches run the same units into the same folder, and their cassettes
    overwrote each other (the name was only unit and run), so every cell's replay but the last diverged. The
    name now carries the engine, the agent model and the arm. A cassette under the old name is still read
    when the new one is missing, only for the engine it says it was recorded with and never for an arm."""
    from evalens.core.models.cassette import Cassette, CassetteExchange, CassetteResponse
    from evalens.runner.replay import CassetteBatch, cassette_name

    names = {
        cassette_name("greet", 1, "claude-code"),
        cassette_name("greet", 1, "codex", "gpt-5-codex"),
        cassette_name("greet", 1, "codex", "gpt-5.1-codex"),
        cassette_name("greet", 1, "codex", "gpt-5-codex", "no-skill"),
        cassette_name("greet", 1, "codex", "gpt-5-codex", "ref:v1"),
    }
    assert len(names) == 5 and cassette_name("greet", 1, "claude-code") == "greet-1.claude-code.default.json"
    assert cassette_name("greet", 1) == "greet-1.json"  # the old name
    folder = tmp_path / "evals" / "cassettes"
    folder.mkdir(parents=True)
    body = _body("hello")
    exchange = CassetteExchange(
        index=1,
        source="judge",
        path="/v1/messages",
        request=canonical_request(body),
        response=CassetteResponse(status=200, body={"content": [{"type": "text", "text": "old"}]}),
    )
    old = Cassette(unit="greet", engine="codex", exchanges=[exchange]).model_dump(mode="json")
    (folder / "greet-1.json").write_text(json.dumps(old))

    async def answer(engine: str, model: str | None, arm: str | None) -> tuple[int, list[str]]:
        batch = CassetteBatch("strict", folder, tmp_path, model=model, arm=arm)
        tape = await batch.open("greet", 1, engine, {})
        got = tape.decide("judge", "POST", "/v1/messages", body)
        assert got is not None
        return got.status, tape.note().cassettes

    assert asyncio.run(answer("codex", "gpt-5-codex", None)) == (200, ["evals/cassettes/greet-1.json"])
    status, where = asyncio.run(answer("claude-code", None, None))  # recorded by codex: not claude-code's
    assert status == 409 and where == ["evals/cassettes/greet-1.claude-code.default.json"]
    assert asyncio.run(answer("codex", "gpt-5-codex", "no-skill"))[0] == 409  # an arm never reads an old name
    new = dict(old, exchanges=[dict(old["exchanges"][0], response={"status": 200, "body": {"x": "new"}})])
    (folder / "greet-1.codex.gpt-5-codex.json").write_text(json.dumps(new))
    assert asyncio.run(answer("codex", "gpt-5-codex", None)) == (
        200,
        ["evals/cassettes/greet-1.codex.gpt-5-codex.json"],
    )


def test_a_cassette_edited_after_its_recording_never_answers(tmp_path: Path) -> None:
    """Issue 44, item 5: a recording carries its digest; one word flipped by hand in the judge's recorded reply
    no longer matches, so the cassette answers nothing (the unit is ERROR naming it), with or without
    --replay-base. A cassette from before digests still replays."""
    from tests.fakemodel import FakeModelServer

    first = _body("SCENARIO=done hello")
    with FakeModelServer(log_dir=tmp_path / "log") as fake:
        asyncio.run(_exchange("record", tmp_path, fake.anthropic_base_url, [first]))
        upstream = fake.anthropic_base_url
    cassette = tmp_path / "evals" / "cassettes" / "unit-one-1.claude-code.default.json"
    data = json.loads(cassette.read_text())
    assert isinstance(data["digest"], str) and len(data["digest"]) == 64
    [(status, _)] = asyncio.run(_exchange("strict", tmp_path, upstream, [first]))
    assert status == 200  # the recording as it was replays
    events = data["exchanges"][0]["response"]["events"]
    flipped = [e.replace("DONE", "PASS") for e in events]
    assert flipped != events
    data["exchanges"][0]["response"]["events"] = flipped
    cassette.write_text(json.dumps(data, indent=2))  # the layout changes too: only the content counts
    [(status, body)] = asyncio.run(_exchange("strict", tmp_path, upstream, [first]))
    assert status == 409 and "edited after it was recorded" in json.loads(body)["error"]["message"]
    del data["digest"]  # written before digests: replays, as committed cassettes of earlier releases do
    cassette.write_text(json.dumps(data))
    [(status, _)] = asyncio.run(_exchange("strict", tmp_path, upstream, [first]))
    assert status == 200


# ------------------------------------------------------------------ issue 40: a replay on another CLI version

COMMITTED = Path(__file__).resolve().parents[1] / "data" / "cassettes" / "uaaps"


def _first_request(engine: str) -> tuple[Path, dict[str, Any]]:
    """The committed cassette of ``engine`` (recorded on the pin) and its first request, unpacked."""
    from evalens.runner.replay import read_cassette

    path = COMMITTED / engine / "greet-1.json"
    [first, *_], _cli, edited = read_cassette(path)
    assert edited is None
    return path, first.request


def _reworded(request: dict[str, Any], added: dict[str, Any] | None = None) -> dict[str, Any]:
    """``request`` as another CLI version sends it: every built-in tool's description and schema reworded (what
    2.1.331 → 2.1.332 and 0.169.0 → 0.171.0 did), and ``added`` offered besides when given."""
    import copy

    out = copy.deepcopy(request)
    for tool in out["tools"]:
        for key in ("description", "input_schema", "parameters"):
            if key in tool:
                tool[key] = {"reworded": True} if key != "description" else "Reworded by a newer CLI."
        for member in tool.get("tools", []):
            member["description"] = "Reworded by a newer CLI."
    if added is not None:
        out["tools"].append(added)
    return out


async def _decide(
    tmp_path: Path, engine: str, recorded: dict[str, Any], sent: dict[str, Any], cli: str
) -> int:
    """The status the strict replay answers ``sent`` with, from a cassette holding ``recorded``, on CLI ``cli``."""
    from evalens.core.models.cassette import Cassette, CassetteExchange, CassetteResponse
    from evalens.runner.replay import CassetteBatch, cassette_digest

    folder = tmp_path / "evals" / "cassettes"
    folder.mkdir(parents=True, exist_ok=True)
    exchange = CassetteExchange(
        index=1, source="agent", path="/v1/messages", request=recorded, response=CassetteResponse(status=200)
    )
    data = Cassette(unit="u", engine=engine, cli="pinned 1.0", exchanges=[exchange]).model_dump(mode="json")
    data["digest"] = cassette_digest(data)
    batch = CassetteBatch("strict", folder, tmp_path)
    tape = await batch.open("u", 1, engine, {}, cli)
    tape.path.write_text(json.dumps(data))
    tape = await batch.open("u", 1, engine, {}, cli)
    answer = tape.decide("agent", "POST", "/v1/messages", json.dumps(sent).encode())
    return 200 if answer is None else answer.status


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_a_newer_clis_tool_wording_replays_and_what_the_run_offers_still_differs(
    engine: str, tmp_path: Path
) -> None:
    """Replayed on another CLI version, a request whose built-in tools are only reworded matches the recording
    (their descriptions and schemas are the CLI's); on the same version the same change diverges, and across
    versions a tool added to what is offered, or a package's MCP tool reworded, still diverges."""
    from evalens.runner.canonical import without_cli_tool_wording

    _, request = _first_request(engine)
    newer = _reworded(request)
    assert newer != request and without_cli_tool_wording(newer) == without_cli_tool_wording(request)
    assert asyncio.run(_decide(tmp_path / "a", engine, request, newer, "newer 1.1")) == 200
    assert asyncio.run(_decide(tmp_path / "b", engine, request, newer, "pinned 1.0")) == 409
    added = _reworded(request, {"name": "Monitor", "description": "New.", "input_schema": {}})
    assert asyncio.run(_decide(tmp_path / "c", engine, request, added, "newer 1.1")) == 409
    mcp = {"name": "mcp__pkg__lookup", "description": "Looks up v1.", "input_schema": {}}
    with_mcp = {**request, "tools": [*request["tools"], mcp]}
    reworded_mcp = _reworded(request, {**mcp, "description": "Looks up v2."})
    assert asyncio.run(_decide(tmp_path / "d", engine, with_mcp, reworded_mcp, "newer 1.1")) == 409
    assert asyncio.run(_decide(tmp_path / "e", engine, with_mcp, _reworded(request, mcp), "newer 1.1")) == 200
