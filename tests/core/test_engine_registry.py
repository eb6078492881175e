"""A third engine is one adapter plus one registration (docs/architecture.md, "Adding things"): a toy engine
registered here shows up wherever engines are listed or looked up, with no other edit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalens.core import engines
from evalens.runner.engines.base import AgentCommand, Engine, Invocation, SandboxPaths, Transcript, read_jsonl


class ToyEngine(Engine):
    """A headless CLI that prints JSON lines and ends with ``{"type": "result", "result": ...}``."""

    name = "toy"
    binary_name = "toy-agent"
    binary_env = "EVALENS_TOY_BIN"
    skills_dir = ".toy/skills"
    rules_file = "TOY.md"
    key_env = ("TOY_API_KEY",)
    install_command = "npm install -g toy-agent"

    def command(self, invocation: Invocation) -> AgentCommand:
        model = ["--model", invocation.model] if invocation.model else []
        return AgentCommand(argv=[str(self.binary), "--json", *model, invocation.prompt], env={})

    def install_hooks(self, paths: SandboxPaths, hooks: dict[str, Any]) -> None:
        (paths.workspace / ".toy").mkdir(parents=True, exist_ok=True)
        (paths.workspace / ".toy" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")

    def parse(self, paths: SandboxPaths, stdout: Path, stderr: Path, exit_code: int | None) -> Transcript:
        events = read_jsonl(stdout)
        result = next((e for e in reversed(events) if e.get("type") == "result"), None)
        return Transcript(
            output=str(result.get("result", "")) if result else "",
            events=events,
            error=None if result else "no result event",
            exit_code=exit_code,
        )


@pytest.fixture
def toy() -> Iterator[str]:
    engines.register_engine(
        engines.EngineSpec("toy", "Toy (toy-agent --json)", "openai", f"{__name__}:ToyEngine")
    )
    try:
        yield "toy"
    finally:
        engines.unregister_engine("toy")


def test_the_runner_finds_its_adapter(toy: str) -> None:
    from evalens.runner.engines import UnsupportedEngine, get_engine

    engine = get_engine(toy)
    assert isinstance(engine, ToyEngine)
    assert engine.default_provider == "openai"
    with pytest.raises(UnsupportedEngine, match="supported engines: claude-code, codex, toy"):
        get_engine("toyy")
    with pytest.raises(UnsupportedEngine, match="reserved"):
        get_engine("cursor")


def test_the_sandbox_launches_it(toy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox builds the run's one Invocation and the toy's own ``command`` and ``parse`` do the rest."""
    import asyncio

    from evalens.runner.engines import get_engine
    from evalens.runner.sandbox import SandboxPlan, create_sandbox, launch_agent, remove_sandbox

    binary = tmp_path / "toy-agent"
    binary.write_text('#!/bin/sh\nprintf \'{"type": "result", "result": "%s"}\\n\' "$*"\n', encoding="utf-8")
    binary.chmod(0o755)
    monkeypatch.setenv("EVALENS_TOY_BIN", str(binary))
    monkeypatch.setenv("EVALENS_SANDBOX_DIR", str(tmp_path / "sandboxes"))
    (tmp_path / "sandboxes").mkdir()
    plan = SandboxPlan(enforced=False, method="engine", network=True, writable_paths=None)
    paths = create_sandbox()
    try:
        run, transcript = asyncio.run(
            launch_agent(
                get_engine(toy),
                plan,
                paths,
                "hello",
                model="toy-1",
                agent_env={"PATH": "/usr/bin:/bin"},
                time_limit=30,
            )
        )
    finally:
        remove_sandbox(paths)
    assert (run.exit_code, transcript.error) == (0, None)
    assert transcript.output == "--json --model toy-1 hello"


def test_the_cli_offers_it(toy: str) -> None:
    from evalens.cli import doctor, run

    engine = next(a for a in doctor._parser()._actions if a.dest == "engine")
    assert engine.choices is not None and toy in engine.choices
    # `evalens run --engine` also takes a matrix (a,b), so it is checked after parsing and named in the help
    engine = next(a for a in run._parser()._actions if a.dest == "engine")
    assert engine.help is not None and toy in engine.help
    assert run._parser().parse_args(["x.yaml", "--engine", toy]).engine == toy
    args = run._parser().parse_args(["x.yaml", "--engine", toy])
    run._check_args(run._parser(), args)  # accepted: no SystemExit
    with pytest.raises(SystemExit):
        run._check_args(run._parser(), run._parser().parse_args(["x.yaml", "--engine", "no-such-engine"]))
    from evalens.cli import triggers

    for command in ("optimize", "suggest"):
        assert triggers._parser().parse_args([command, "skill", "--engine", toy]).engine == toy


def test_preflight_and_the_judge_use_it(toy: str) -> None:
    from evalens.runner.engines import get_engine
    from evalens.runner.preflight import engine_checks

    checks = {c.name: c for c in engine_checks(get_engine(toy), env={})}
    assert checks["toy CLI"].failed and checks["toy CLI"].fix == "npm install -g toy-agent"
    assert checks["toy agent key"].failed and "TOY_API_KEY" in checks["toy agent key"].detail
    assert engines.judge_provider(toy) == "openai"


def test_eval_configs_validate_and_complete_it(toy: str, tmp_path: Path) -> None:
    from evalens.core.formats.base import RuleContext
    from evalens.core.formats.uaaps import UaapsConfig
    from evalens.core.models.uaaps import EvalConfig
    from evalens.core.validate import validate_file

    config = tmp_path / "evals" / "eval-config.json"
    config.parent.mkdir()
    config.write_text('{"version": 1, "engine": "toy", "timeout": 60}\n', encoding="utf-8")
    codes = [p.code for p in validate_file(config).problems]
    assert "unknown-engine" not in codes and "schema-enum" not in codes, codes
    assert EvalConfig.model_validate({"version": 1, "engine": toy}).engine == toy
    assert toy in EvalConfig.model_json_schema()["properties"]["engine"]["enum"]
    choices = UaapsConfig().value_choices(("engine",), RuleContext(str(config), None))
    assert ("toy", "Toy (toy-agent --json)") in [(c.value, c.detail) for c in choices]
    config.write_text('{"version": 1, "engine": "toyy"}\n', encoding="utf-8")
    unknown = [p for p in validate_file(config).problems if p.code == "unknown-engine"]
    assert unknown and "`toy`" in unknown[0].message and "Did you mean `toy`?" in unknown[0].message


def test_unregistered_it_is_unknown_again(tmp_path: Path) -> None:
    from evalens.core.validate import validate_file

    assert "toy" not in engines.engine_names()
    config = tmp_path / "evals" / "eval-config.json"
    config.parent.mkdir()
    config.write_text('{"version": 1, "engine": "toy"}\n', encoding="utf-8")
    assert "unknown-engine" in [p.code for p in validate_file(config).problems]


def test_the_server_runs_files_on_it(toy: str) -> None:
    from evalens.server.features.run_formats import engine_refusal

    assert engine_refusal(Path("tasks.yaml"), toy) is None
    why = engine_refusal(Path("tasks.yaml"), "toyy")
    assert why is not None and "claude-code or codex or toy, not toyy" in why


def test_the_vscode_manifest_lists_the_registered_engines() -> None:
    """Regenerate with `python -m evalens.core.engine_manifest --write` when this fails."""
    from evalens.core import engine_manifest

    assert engine_manifest.MANIFEST.read_text(encoding="utf-8") == engine_manifest.manifest_source()
    setting = json.loads(engine_manifest.MANIFEST.read_text(encoding="utf-8"))["contributes"]["configuration"]
    assert setting["properties"]["evalens.engine"]["enum"] == ["auto", *engines.engine_names()]


def test_the_vscode_manifest_would_offer_it(toy: str) -> None:
    from evalens.core import engine_manifest

    manifest = json.loads(engine_manifest.manifest_source())
    setting = manifest["contributes"]["configuration"]["properties"]["evalens.engine"]
    assert setting["enum"][-1] == "toy" and setting["enumDescriptions"][-1] == "Toy (toy-agent --json)"
    assert engine_manifest.main(["--check"]) == 1  # the committed manifest lacks it
