"""Which installed skill a run activated, decided only from the engine's structured events (docs/triggers.md).

Each engine's own trace reader (``Engine.conversation``: ``engines/claude_record.py``, ``engines/codex_record.py``)
turns its events into turns and tool calls, and the engine says what one of its calls shows
(``Engine.skill_evidence``, beside the engine); this module reads those, never text the agent printed:

- Claude Code: a ``Skill`` tool call whose ``skill`` names an installed skill (``tool-call``), or a ``Read`` of an
  installed skill's ``SKILL.md`` (``skill-read``);
- Codex (no Skill tool): a shell command that reads ``<skills_dir>/<name>/SKILL.md`` with a reading program
  (``skill-read``), and a ``$name`` in the prompt that Codex itself resolved into a ``<skill>`` input message
  (``mention``).

A skill that is not installed in the run never counts, whatever the agent names.

A call counts only when its result shows that the skill reached the model (``contents``: each installed
skill's SKILL.md, as the run record gives it): a call the engine marked as an error or a hook blocked never
counts (a ``Skill`` call Claude Code refused for ``disable-model-invocation``), and a read counts only when its
result holds a line of the SKILL.md (issue 44: a ``Read`` at an offset past the end, ``cat SKILL.md >
/dev/null``, ``false && cat …``, ``cd / && cat …`` and a code-mode string that never ran all matched the
command text and counted as fired, although nothing of the skill reached the model).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evalens.core.models.run_record import Activation, Turn

# programs that print a file: a command running one of them on a SKILL.md reads the skill
READERS = frozenset(
    {"cat", "head", "tail", "sed", "less", "more", "nl", "awk", "bat", "batcat", "view", "tac"}
)
SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "\n"})
ARGUMENT_LIMIT = 300
FRONTMATTER_NAME = re.compile(r"^name:[ \t]*(\S[^\n]*)$", re.MULTILINE)
JS_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def skill_names(skills: Mapping[str, Path]) -> dict[str, str]:
    """Every name an engine may call an installed skill by → its folder: the folder, and the SKILL.md
    frontmatter ``name`` (what Claude Code's ``Skill`` tool is told to use). Reads the source files (blocking)."""
    names = {folder: folder for folder in skills}
    for folder, skill_md in skills.items():
        try:
            head = skill_md.read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            continue
        match = FRONTMATTER_NAME.search(head.split("\n---", 1)[0]) if head.startswith("---") else None
        if match:
            names.setdefault(match.group(1).strip().strip("'\""), folder)
    return names


def detect(
    engine: Any,
    turns: Iterable[Turn],
    installed: Mapping[str, str],
    *,
    prompt: str = "",
    injected: Iterable[tuple[str, str]] = (),
    workspace: str | None = None,
    contents: Mapping[str, str] | None = None,
) -> list[Activation]:
    """The activations of installed skills in one run, in order (one per skill: its first activation).

    ``engine`` says what each of its tool calls shows (``Engine.skill_evidence``: a Claude Code ``Skill`` call,
    a Codex shell read), ``turns`` are its reader's turns (workspace paths already relative), ``installed``
    maps each name of a skill the run installed under the engine's ``skills_dir`` to its folder (:func:`skill_names`),
    ``injected`` the (name, path) pairs of skills the engine itself put into the input (Codex resolves ``$name``
    mentions; only such an engine's reader reports any), ``workspace`` the run's workspace (for those paths),
    ``contents`` each installed skill's SKILL.md text by folder: with it, a call counts only when its result
    shows the skill reached the model (:func:`reached`)."""
    folders = set(installed.values())
    found: list[Activation] = []
    seen: set[str] = set()

    def add(skill: str | None, how: str, turn: int | None, argument: Any, shown: str | None = None) -> None:
        skill = installed.get(skill or "")
        if skill is None or skill not in folders or skill in seen:
            return
        seen.add(skill)
        text = argument if isinstance(argument, str) else None
        found.append(
            Activation(
                skill=skill,
                how=how,  # type: ignore[arg-type]
                turn=turn,
                argument=text[:ARGUMENT_LIMIT] if text else None,
                evidence=shown[:ARGUMENT_LIMIT] if shown else None,
            )
        )

    for name, path in injected:
        folder = installed_skill_md(path, engine.skills_dir, workspace)
        if _mentions(prompt, name) and folder is not None and installed.get(name) == folder:
            add(name, "mention", None, f"${name}", f"Codex injected {path}" if contents is not None else None)
    for turn in turns:
        for call in turn.tool_calls:
            evidence = engine.skill_evidence(call, workspace)
            if evidence is not None:
                skill, how, argument = evidence
                named = _skill_name(skill, installed)
                folder = installed.get(named or "") or ""
                shown = reached(call, how, contents.get(folder, "")) if contents is not None else None
                if contents is not None and shown is None:
                    continue
                add(named, how, turn.index, argument, shown)
    return found


def content_lines(skill_md: str) -> list[str]:
    """The lines of a SKILL.md a result must hold one of to show the skill was read: each non-empty line but
    the frontmatter fences, stripped."""
    return [line.strip() for line in skill_md.splitlines() if line.strip() and line.strip() != "---"]


def reached(call: Any, how: str, skill_md: str) -> str | None:
    """What in this call's result shows that the skill reached the model (recorded as the activation's
    ``evidence``), or None. An error result (the engine's own mark) or a blocked call never does, nor a call
    that never returned. A ``Skill`` call the engine ran (``tool-call``) loads the skill itself; a read
    (``skill-read``) only when its result holds a line of the SKILL.md (the command may have read nothing: a
    redirect, a short circuit, another folder, an offset past the end, code that never ran)."""
    if getattr(call, "is_error", False) or getattr(call, "blocked", False):
        return None
    result = getattr(call, "result", None)
    if result is None:
        return None
    if how != "skill-read":
        return "the engine ran the call: " + (result.strip()[:120] or "(empty result)")
    line = next((line for line in content_lines(skill_md) if line in result), None)
    return f"its result holds the SKILL.md line {line!r}" if line is not None else None


def _mentions(prompt: str, name: str) -> bool:
    """``$name`` in the prompt as a word of its own (``$pdf`` is no mention of ``pdf-tools``)."""
    return re.search(rf"(?<![\w$])\${re.escape(name)}(?![\w-])", prompt) is not None


def _skill_name(requested: str, names: Mapping[str, str]) -> str | None:
    """The installed skill a ``Skill`` call names: exactly, or as ``plugin:name``."""
    if requested in names:
        return requested
    tail = requested.rsplit(":", 1)[-1]
    return tail if tail in names else None


def installed_skill_md(path: str, skills_dir: str, workspace: str | None) -> str | None:
    """The skill whose installed ``SKILL.md`` ``path`` is (relative to the workspace or absolute in it)."""
    path = path.replace("\\", "/").strip()
    if workspace and path.startswith(workspace.rstrip("/") + "/"):
        path = path[len(workspace.rstrip("/")) + 1 :]
    path = path.removeprefix("./")
    prefix = skills_dir.strip("/") + "/"
    if not path.startswith(prefix):
        return None
    parts = path[len(prefix) :].split("/")
    return (
        parts[0] if len(parts) == 2 and parts[1] == "SKILL.md" and parts[0] not in ("", ".", "..") else None
    )


def shell_commands(value: Any) -> list[str]:
    """The shell command strings a call carries: ``{"cmd": s}``, ``{"command": s | argv}``, a code-mode script."""
    if isinstance(value, str):  # a shell string, or a code-mode script: its JSON string literals too
        literals = [_unquote(m) for m in JS_STRING.findall(value)]
        return [value, *(lit for lit in literals if lit)]
    if isinstance(value, list):
        return [shlex.join(str(v) for v in value)]
    if not isinstance(value, dict):
        return []
    out = []
    for key in ("cmd", "command"):
        raw = value.get(key)
        if isinstance(raw, str):
            out.append(raw)
        elif isinstance(raw, list):
            out.append(shlex.join(str(v) for v in raw))
    return out


def _unquote(literal: str) -> str:
    try:
        value = json.loads(literal)
    except ValueError:
        return ""
    return value if isinstance(value, str) else ""


def read_skill(command: str, skills_dir: str, workspace: str | None = None) -> str | None:
    """The skill whose installed SKILL.md this shell command reads with a reading program, else None. A shell
    wrapper (``bash -lc '…'``) is looked into; ``ls``, ``grep`` or a write to the file are not reads."""
    words = _words(command)
    if words is None:
        return None
    segment: list[str] = []
    for word in [*words, ";"]:
        if word in SEPARATORS:
            skill = _segment_reads(segment, skills_dir, workspace)
            if skill is not None:
                return skill
            segment = []
        else:
            segment.append(word)
    return None


def _words(command: str) -> list[str] | None:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()\n")
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def _segment_reads(words: list[str], skills_dir: str, workspace: str | None) -> str | None:
    while words and (
        "=" in words[0] and not words[0].startswith("=") or words[0] in ("sudo", "command", "exec")
    ):
        words = words[1:]  # VAR=value prefixes and plain wrappers
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program in ("bash", "sh", "zsh", "dash") and len(words) >= 3 and words[1] in ("-c", "-lc"):
        return read_skill(words[2], skills_dir, workspace)
    if program not in READERS:
        return None
    redirect = False
    for word in words[1:]:
        if word in (">", ">>") or word.startswith((">", "1>", "2>")):
            redirect = True
            continue
        if redirect:
            redirect = False
            continue
        skill = installed_skill_md(re.sub(r"^<", "", word), skills_dir, workspace)
        if skill is not None:
            return skill
    return None
