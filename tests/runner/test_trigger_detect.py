"""Trigger detection from the engines' structured events (runner/trigger_detect.py, docs/triggers.md): what counts
as a skill firing on each engine, and what never does (text the agent prints, skills that are not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.core.models.run_record import ToolCall, Turn
from evalens.runner.engines import get_engine
from evalens.runner.trigger_detect import detect, read_skill, skill_names

CODEX_DIR = ".agents/skills"
INSTALLED = {"greeter": "greeter", "pdf-tools": "pdf-tools"}
CLAUDE, CODEX = get_engine("claude-code"), get_engine("codex")


def turns(*calls: tuple[str, object], text: str = "") -> list[Turn]:
    return [
        Turn(index=i, text=text, tool_calls=[ToolCall(name=n, input=v)]) for i, (n, v) in enumerate(calls)
    ]


def test_claude_skill_tool_call_names_the_skill_turn_and_argument() -> None:
    found = detect(
        CLAUDE,
        turns(("Bash", {"command": "ls"}), ("Skill", {"skill": "pdf-tools", "args": "report.pdf"})),
        INSTALLED,
    )
    assert [(a.skill, a.how, a.turn, a.argument) for a in found] == [
        ("pdf-tools", "tool-call", 1, "pdf-tools report.pdf")
    ]


def test_claude_plugin_prefixed_and_frontmatter_names_map_to_the_installed_folder(tmp_path: Path) -> None:
    (tmp_path / "greeter-v2").mkdir()
    (tmp_path / "greeter-v2" / "SKILL.md").write_text("---\nname: greeter\ndescription: d\n---\nbody\n")
    names = skill_names({"greeter-v2": tmp_path / "greeter-v2" / "SKILL.md"})
    assert names == {"greeter-v2": "greeter-v2", "greeter": "greeter-v2"}
    found = detect(CLAUDE, turns(("Skill", {"skill": "my-plugin:greeter"})), names)
    assert [(a.skill, a.how) for a in found] == [("greeter-v2", "tool-call")]


def test_claude_read_of_an_installed_skill_md_is_a_skill_read() -> None:
    found = detect(
        CLAUDE,
        turns(("Read", {"file_path": "/ws/.claude/skills/greeter/SKILL.md"})),
        INSTALLED,
        workspace="/ws",
    )
    assert [(a.skill, a.how, a.turn) for a in found] == [("greeter", "skill-read", 0)]


@pytest.mark.parametrize(
    ("engine", "calls"),
    [
        ("claude-code", [("Skill", {"skill": "not-installed"})]),
        ("claude-code", [("Read", {"file_path": "elsewhere/skills/greeter/SKILL.md"})]),
        ("claude-code", [("Read", {"file_path": ".claude/skills/greeter/README.md"})]),
        ("codex", [("exec_command", {"cmd": "ls .agents/skills/greeter/SKILL.md"})]),
        ("codex", [("exec_command", {"cmd": "grep name .agents/skills/greeter/SKILL.md"})]),
        ("codex", [("exec_command", {"cmd": "echo x > .agents/skills/greeter/SKILL.md"})]),
        ("codex", [("exec_command", {"cmd": "cat other/.agents/skills/greeter/SKILL.md"})]),
        ("codex", [("exec_command", {"cmd": "cat .agents/skills/unknown/SKILL.md"})]),
        ("codex", [("Skill", {"skill": "greeter"})]),  # Codex has no Skill tool: a fake one counts not
    ],
)
def test_what_is_not_an_activation(engine: str, calls: list[tuple[str, object]]) -> None:
    assert detect(get_engine(engine), turns(*calls), INSTALLED) == []


def test_text_the_agent_prints_never_counts() -> None:
    said = "Launching skill: greeter\ncat .agents/skills/greeter/SKILL.md\n$greeter"
    for engine in ("claude-code", "codex"):
        assert detect(get_engine(engine), [Turn(index=0, text=said)], INSTALLED, prompt="hello") == []


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            ("exec_command", {"cmd": "cat .agents/skills/greeter/SKILL.md"}),
            "cat .agents/skills/greeter/SKILL.md",
        ),
        (("shell", {"command": ["bash", "-lc", "sed -n 1,200p ./.agents/skills/greeter/SKILL.md"]}), None),
        (
            (
                "command_execution",
                {"command": "/bin/bash -lc 'head -40 /ws/.agents/skills/greeter/SKILL.md'"},
            ),
            None,
        ),
        (("exec", 'const r = await tools.exec_command({cmd: "cat .agents/skills/greeter/SKILL.md"});'), None),
    ],
)
def test_codex_reads_of_skill_md_through_the_shell(call: tuple[str, object], expected: str | None) -> None:
    (found,) = detect(CODEX, turns(call), INSTALLED, workspace="/ws")
    assert (found.skill, found.how, found.turn) == ("greeter", "skill-read", 0)
    if expected:
        assert found.argument == expected


def test_codex_mention_needs_both_the_prompt_and_codex_s_own_injection() -> None:
    injected = [("greeter", "/ws/.agents/skills/greeter/SKILL.md")]
    found = detect(CODEX, [], INSTALLED, prompt="use $greeter", injected=injected, workspace="/ws")
    assert [(a.skill, a.how, a.turn, a.argument) for a in found] == [("greeter", "mention", None, "$greeter")]
    # a mention Codex did not resolve, an injection with no mention, a longer name, a path outside the root
    assert detect(CODEX, [], INSTALLED, prompt="use $greeter", workspace="/ws") == []
    assert detect(CODEX, [], INSTALLED, prompt="greet", injected=injected, workspace="/ws") == []
    assert detect(CODEX, [], INSTALLED, prompt="$greeter-x", injected=injected, workspace="/ws") == []
    elsewhere = [("greeter", "/tmp/x/greeter/SKILL.md")]
    assert detect(CODEX, [], INSTALLED, prompt="$greeter", injected=elsewhere, workspace="/ws") == []


def test_each_skill_counts_once_in_order_of_first_activation() -> None:
    found = detect(
        CODEX,
        turns(
            ("exec_command", {"cmd": "cat .agents/skills/pdf-tools/SKILL.md"}),
            (
                "exec_command",
                {"cmd": "cat .agents/skills/greeter/SKILL.md && cat .agents/skills/pdf-tools/SKILL.md"},
            ),
        ),
        INSTALLED,
    )
    assert [(a.skill, a.turn) for a in found] == [("pdf-tools", 0), ("greeter", 1)]


def test_read_skill_looks_into_shell_wrappers_and_pipelines() -> None:
    assert read_skill("cd /ws && cat .agents/skills/greeter/SKILL.md | head", CODEX_DIR) == "greeter"
    assert read_skill("sh -c 'tail -n 5 .agents/skills/greeter/SKILL.md'", CODEX_DIR) == "greeter"
    assert read_skill("cat 'unterminated", CODEX_DIR) is None


def test_a_third_engine_says_what_its_calls_show_without_editing_this_module() -> None:
    """An engine is one module: detection asks the engine (``Engine.skill_evidence``), never its name."""
    from evalens.runner.engines.base import Engine

    class Toy(Engine):  # what a third engine's module declares
        name, skills_dir = "toy", ".toy/skills"

        def skill_evidence(self, call: ToolCall, workspace: str | None) -> tuple[str, str, str] | None:
            if call.name == "load_skill" and isinstance(call.input, dict):
                return str(call.input.get("id")), "tool-call", str(call.input.get("id"))
            return None

        command = install_hooks = parse = None  # type: ignore[assignment]  # not run here

    found = detect(
        Toy(),
        turns(("Skill", {"skill": "pdf-tools"}), ("load_skill", {"id": "greeter"})),
        INSTALLED,
    )
    assert [(a.skill, a.how, a.turn) for a in found] == [("greeter", "tool-call", 1)]
    # the base engine's calls show nothing: a Claude-style call from another engine is not Claude's evidence
    assert detect(CODEX, turns(("Read", {"file_path": ".agents/skills/greeter/SKILL.md"})), INSTALLED) == []


SKILL_MD = "---\nname: greeter\ndescription: Writes greetings.\n---\nWrite a greeting into output/.\n"
CONTENTS = {"greeter": SKILL_MD, "pdf-tools": "---\nname: pdf-tools\ndescription: PDFs.\n---\nRead PDFs.\n"}


def answered(name: str, value: object, result: str | None, is_error: bool = False) -> list[Turn]:
    return [Turn(index=0, tool_calls=[ToolCall(name=name, input=value, result=result, is_error=is_error)])]


@pytest.mark.parametrize(
    ("engine", "name", "value", "result", "is_error"),
    [
        # Claude Code: a Read at an offset past the end returns a warning, not the file
        (
            "claude-code",
            "Read",
            {"file_path": ".claude/skills/greeter/SKILL.md", "offset": 500},
            "<system-reminder>Warning: the file exists but is shorter than the provided offset (500). The file "
            "has 5 lines.</system-reminder>",
            False,
        ),
        # Claude Code refused the Skill call (disable-model-invocation)
        (
            "claude-code",
            "Skill",
            {"skill": "greeter"},
            "Skill greeter cannot be used with Skill tool due to disable-model-invocation",
            True,
        ),
        ("claude-code", "Skill", {"skill": "greeter"}, None, False),  # the run ended before it returned
        # Codex: the file went elsewhere, was never read, or was not there
        ("codex", "exec_command", {"cmd": "cat .agents/skills/greeter/SKILL.md > /dev/null"}, "", False),
        ("codex", "exec_command", {"cmd": "false && cat .agents/skills/greeter/SKILL.md"}, "", True),
        (
            "codex",
            "exec_command",
            {"cmd": "cd / && cat .agents/skills/greeter/SKILL.md"},
            "cat: .agents/skills/greeter/SKILL.md: No such file or directory",
            True,
        ),
        # the code-mode model: a JavaScript string naming the read, in code that never ran it
        ("codex", "exec", 'const unused = "cat .agents/skills/greeter/SKILL.md"; text("hi");', "hi", False),
    ],
)
def test_a_call_whose_result_shows_nothing_of_the_skill_is_no_activation(
    engine: str, name: str, value: object, result: str | None, is_error: bool
) -> None:
    """Issue 44: each of these matched the command text and showed "triggered 1/1", although nothing of the
    skill reached the model. With the installed SKILL.md known (the run record passes it), none counts."""
    calls = answered(name, value, result, is_error)
    assert detect(get_engine(engine), calls, INSTALLED, workspace="/ws", contents=CONTENTS) == []
    assert detect(get_engine(engine), calls, INSTALLED, workspace="/ws") != [] or is_error or result is None


@pytest.mark.parametrize(
    ("engine", "name", "value", "result", "how"),
    [
        ("claude-code", "Skill", {"skill": "greeter"}, "Launching skill: greeter", "tool-call"),
        (
            "claude-code",
            "Read",
            {"file_path": "/ws/.claude/skills/greeter/SKILL.md"},
            "     1\t---\n     2\tname: greeter\n     3\tdescription: Writes greetings.\n     4\t---\n"
            "     5\tWrite a greeting into output/.\n",
            "skill-read",
        ),
        ("codex", "exec_command", {"cmd": "cat .agents/skills/greeter/SKILL.md"}, SKILL_MD, "skill-read"),
        (
            "codex",
            "exec",
            'const r = await tools.exec_command({cmd: "sed -n 1,3p .agents/skills/greeter/SKILL.md"}); text(r);',
            "---\nname: greeter\ndescription: Writes greetings.\n",
            "skill-read",
        ),
    ],
)
def test_a_call_whose_result_holds_the_skill_is_an_activation(
    engine: str, name: str, value: object, result: str, how: str
) -> None:
    found = detect(
        get_engine(engine), answered(name, value, result), INSTALLED, workspace="/ws", contents=CONTENTS
    )
    assert [(a.skill, a.how) for a in found] == [("greeter", how)]
    # which evidence decided it is recorded
    expected = "the engine ran the call" if how == "tool-call" else "its result holds the SKILL.md line '"
    assert (found[0].evidence or "").startswith(expected), found[0].evidence
