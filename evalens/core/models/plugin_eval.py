"""Claude Code's own eval cases (`claude plugin eval`, since 2.1.269): `prompt.md`, `case.yaml` and
`graders/<name>.md` under a plugin's eval dir (shared/reference/claude-plugin-evals.md §3–5, checked against the
2.1.332 loader).

The loader is strict where these models are strict: `prompt.md` frontmatter and grader objects refuse an unknown key
(an error here), while `case.yaml`'s top level, `context` and `execution` drop one silently (a warning: the setting
does nothing). Per-kind grader options are one model, so completion and hover list every option with the kinds it
belongs to; which options a kind takes is checked by the format's rules (`formats/plugin_eval.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from evalens.core.models.base import EvalModel, StrictEvalModel, doc

GRADER_TYPES = ("regex", "tool_used", "tool_order", "file_exists", "llm", "baseline")
TARGETS = ("last_message", "trace", "files", "mock_calls")
REGEX_FLAGS = "dgimsuvy"
READ_ONLY_TOOLS = (
    "Read",
    "Glob",
    "Grep",
    "NotebookRead",
    "Skill",
    "AskUserQuestion",
    "Agent",
    "TodoWrite",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
    "TaskStop",
)
"""The tools a case's `allowed_tools` grants by itself (§7); any other needs the operator's `--allow-tools`."""

# The options each grader kind takes besides the common `type`, `name`, `weight`, `arm` (the loader's strict
# objects, 2.1.332). `criteria` / `pattern` may come from a grader file's body instead.
KIND_OPTIONS: dict[str, tuple[str, ...]] = {
    "regex": ("pattern", "target", "flags", "match"),
    "tool_used": ("tool", "input_match", "min", "max"),
    "tool_order": ("before", "after"),
    "file_exists": ("path", "exists"),
    "llm": ("criteria", "focus"),
    "baseline": ("baseline_file", "criteria"),
}
KIND_REQUIRED: dict[str, tuple[str, ...]] = {
    "regex": ("pattern",),
    "tool_used": ("tool",),
    "tool_order": ("before", "after"),
    "file_exists": ("path",),
    "llm": ("criteria",),
    "baseline": ("baseline_file", "criteria"),
}
COMMON_GRADER_KEYS = ("type", "name", "weight", "arm")

_RUN_FIELDS_MD = "In `case.yaml` this goes under `execution:`; in `prompt.md` it is a frontmatter key."


class FileTarget(StrictEvalModel):
    """One workspace file's content after the run."""

    source: Literal["file"] = doc("Always `file`.", required=True, example="file")
    path: str = doc(
        "The file, relative to the run's workspace (must stay inside it).", required=True, example="out/a.md"
    )


GraderTarget = Literal["last_message", "trace", "files", "mock_calls"] | FileTarget
ToolRef = str | dict[str, Any]


class Grader(StrictEvalModel):
    """One grader: a `graders/<name>.md` file's frontmatter (its body fills `criteria` or `pattern`), or an item
    of `case.yaml`'s `graders:` list."""

    type: Literal["regex", "tool_used", "tool_order", "file_exists", "llm", "baseline"] = doc(
        "The grader kind: `regex` (a JavaScript regex over the output), `tool_used` (how often a tool was called), "
        "`tool_order` (one tool before another), `file_exists` (a created file matches a glob) are free; `llm` "
        "(a judge, 2 of 3 votes) and `baseline` (a judge against a reference transcript) are paid.",
        required=True,
        example="regex",
    )
    name: Annotated[str, Field(min_length=1)] | None = doc(
        "Unique within the case. Default: the grader file's name without `.md`.",
        default=None,
        example="says-ok",
    )
    weight: Annotated[float, Field(gt=0)] = doc(
        "Relative weight in the run score (Σ passed weights ÷ Σ weights).", default=1, example=2
    )
    arm: Literal["with-only", "both"] | None = doc(
        "Ablation scoring: `with-only` shows the grader in the with-plugin arm only, unscored; `both` scores it in "
        "both arms even where it would be with-only (a `tool_used: Skill` grader).",
        default=None,
        example="both",
    )
    pattern: str | None = doc(
        "`regex`: the JavaScript pattern (no `(?i)`: use `flags: i`). Default: the grader file's body.",
        default=None,
        example="GREETING-OK",
    )
    target: GraderTarget | None = doc(
        "`regex`: what it searches: `last_message` (default), `trace` (the session as JSON lines: quotes appear as "
        '`\\"`), `files` (paths created during the run, not their content), `mock_calls`, or '
        "`{source: file, path: …}` (one file's content).",
        default=None,
        example="last_message",
    )
    flags: Annotated[str, Field(pattern=r"^[dgimsuvy]*$")] | None = doc(
        "`regex`: JavaScript flags, only `dgimsuvy`.", default=None, example="i"
    )
    match: Annotated[str, Field(pattern=r"^(contains|not_contains|count:\d+)$")] | None = doc(
        "`regex`: `contains` (default), `not_contains`, or `count:N` (exactly N matches).",
        default=None,
        example="not_contains",
    )
    tool: str | None = doc(
        "`tool_used`: the tool name (`Write`, `Skill`, `mcp__plugin_<plugin>_<server>__<tool>`).",
        default=None,
        example="Write",
    )
    input_match: str | None = doc(
        "`tool_used`: a regex over the JSON-encoded call input; only matching calls count.",
        default=None,
        example='"file_path":"[^"]*\\.md"',
    )
    min: Annotated[int, Field(ge=0)] | None = doc(
        "`tool_used`: fewest matching calls (default 1). `min: 0, max: 0` means never called.",
        default=None,
        example=1,
    )
    max: Annotated[int, Field(ge=0)] | None = doc(
        "`tool_used`: most matching calls (default unbounded).", default=None, example=1
    )
    before: ToolRef | None = doc(
        "`tool_order`: a tool name or `{tool, input_match}` whose first call must come first.",
        default=None,
        example="Read",
    )
    after: ToolRef | None = doc(
        "`tool_order`: a tool name or `{tool, input_match}` whose first call must come after.",
        default=None,
        example="Write",
    )
    path: str | None = doc(
        "`file_exists`: a glob (`*`, `**`, `?`) over the files **created** during the run (not edited ones, not "
        "the scaffold's).",
        default=None,
        example="output/*.txt",
    )
    exists: bool | None = doc(
        "`file_exists`: `false` passes when no created file matches.", default=None, example=False
    )
    criteria: str | None = doc(
        "`llm` / `baseline`: the rubric the judge rules on. Default: the grader file's body.",
        default=None,
        example="The reply names the file it wrote.",
    )
    focus: GraderTarget | None = doc(
        "`llm`: what the judge sees: `last_message` (default), `trace` (first and last 12 messages), `files`, "
        "`mock_calls` or `{source: file, path: …}` (an image is shown as an image).",
        default=None,
        example="last_message",
    )
    baseline_file: str | None = doc(
        "`baseline`: a reference transcript (`.jsonl`) in the case folder.", default=None, example="ref.jsonl"
    )


_SCHEMA_VERSION = doc(
    "Case format version; Claude Code 2.1.332 reads any `1.x` (a `prompt.md` case gets `1.1` by itself).",
    default=None,
    example="1.1",
)


class PromptFrontmatter(StrictEvalModel):
    """The frontmatter of a case's `prompt.md`; its body is the prompt. An unknown key fails the case's load."""

    schema_version: Annotated[str, Field(pattern=r"^1(\.\d+)*$")] | None = _SCHEMA_VERSION
    name: Annotated[str, Field(min_length=1)] | None = doc(
        "The case's name (`--case` globs match it). Default: the case folder's name.",
        default=None,
        example="greet",
    )
    description: str | None = doc(
        "For people reading the suite.", default=None, example="Greets in one line."
    )
    tags: list[str] = doc("`--tag` keeps the cases with any matching tag.", default=[], example=["smoke"])
    plugins: list[str] = doc(
        "Plugin folders under test, relative to the case folder. Default: the nearest enclosing plugin.",
        default=[],
        example=["../.."],
    )
    runs: Annotated[int, Field(ge=1, le=50)] = doc(
        "Runs per arm (1–50); `--runs` overrides.", default=3, example=3
    )
    expected_outcome: str | None = doc(
        "For people reading the suite.", default=None, example="A greeting file."
    )
    model: str | None = doc(
        "The agent's model; `--model` overrides. " + _RUN_FIELDS_MD, default=None, example="sonnet"
    )
    max_turns: Annotated[int, Field(ge=1, le=200)] = doc(
        "Turn cap (1–200); hitting it is a run error. " + _RUN_FIELDS_MD, default=10, example=15
    )
    timeout_seconds: Annotated[int, Field(ge=1, le=3600)] = doc(
        "Wall clock per run (1–3600 s). " + _RUN_FIELDS_MD, default=300, example=600
    )
    allowed_tools: list[str] = doc(
        "Tools the case wants. Only the read-only set (`Read`, `Glob`, `Grep`, `Skill`, `Agent`, `TodoWrite`, the "
        "Task tools …) is granted from here; `Bash`, `Write`, `Edit`, web and MCP tools also need the operator's "
        "`--allow-tools`. " + _RUN_FIELDS_MD,
        default=[],
        example=["Read", "Glob", "Grep", "Skill"],
    )
    disallowed_tools: list[str] = doc(
        "Built-in tools removed in this case (added to `case.yaml`'s list). " + _RUN_FIELDS_MD,
        default=[],
        example=["WebFetch"],
    )
    append_system_prompt: str | None = doc(
        "Text appended to the agent's system prompt. " + _RUN_FIELDS_MD,
        default=None,
        example="Answer briefly.",
    )
    env: dict[str, str] = doc(
        "Variables for the run; only `EVAL_*` names are allowed (anything else errors every run). "
        + _RUN_FIELDS_MD,
        default={},
        example={"EVAL_MODE": "strict"},
    )
    artifact_publish: bool | None = doc(
        "Undocumented: asks for artifact publishing, which needs an operator's opt-in.",
        default=None,
        example=False,
    )
    growthbook_overrides: dict[str, Any] | None = doc(
        "Undocumented and internal: feature-flag overrides an operator allow-list must accept.",
        default=None,
        example={},
    )


class CaseContext(EvalModel):
    """What the run starts from."""

    scaffold_script: str | None = doc(
        "A Bash script in the case folder run in the empty workspace, **only with `--scaffold`** (120 s; failing "
        "scores the run 0).",
        default=None,
        example="fixture.sh",
    )
    history_file: str | None = doc(
        "A transcript (`.jsonl` in the case folder) to resume; the prompt becomes the next turn.",
        default=None,
        example="history.jsonl",
    )
    add_dirs: list[str] = doc(
        "Folders inside the case folder the run may read.", default=[], example=["docs"]
    )


class CaseExecution(EvalModel):
    """The run: the prompt and the run fields `prompt.md`'s frontmatter also takes."""

    prompt: str | None = doc(
        "The prompt, when the case has no `prompt.md` body.", default=None, example="Write the file please."
    )
    model: str | None = doc("The agent's model; `--model` overrides.", default=None, example="sonnet")
    max_turns: Annotated[int, Field(ge=1, le=200)] = doc(
        "Turn cap (1–200); hitting it is a run error.", default=10, example=15
    )
    timeout_seconds: Annotated[int, Field(ge=1, le=3600)] = doc(
        "Wall clock per run (1–3600 s).", default=300, example=600
    )
    allowed_tools: list[str] = doc(
        "Tools the case wants (only the read-only set is granted from here; see `prompt.md`'s `allowed_tools`).",
        default=[],
        example=["Read", "Write"],
    )
    disallowed_tools: list[str] = doc(
        "Built-in tools removed in this case.", default=[], example=["WebFetch"]
    )
    append_system_prompt: str | None = doc(
        "Text appended to the agent's system prompt.", default=None, example="Answer briefly."
    )
    env: dict[str, str] = doc(
        "Variables for the run; only `EVAL_*` names are allowed.", default={}, example={"EVAL_MODE": "strict"}
    )
    artifact_publish: bool | None = doc("Undocumented (operator opt-in).", default=None, example=False)
    growthbook_overrides: dict[str, Any] | None = doc("Undocumented and internal.", default=None, example={})


class CaseYaml(EvalModel):
    """A case's `case.yaml`: the whole case, or what `prompt.md` leaves out. Keys Claude Code does not know are
    dropped silently (their settings do nothing)."""

    schema_version: Annotated[str, Field(pattern=r"^1(\.\d+)*$")] = doc(
        "Case format version, required: Claude Code 2.1.332 reads any `1.x`.", required=True, example="1.1"
    )
    name: Annotated[str, Field(min_length=1)] | None = doc(
        "The case's name (`--case` globs match it).", default=None, example="yamlcase"
    )
    description: str | None = doc("For people reading the suite.", default=None, example="Writes a file.")
    tags: list[str] = doc("`--tag` keeps the cases with any matching tag.", default=[], example=["full"])
    plugins: list[str] = doc(
        "Plugin folders under test, relative to the case folder.", default=[], example=["../.."]
    )
    runs: Annotated[int, Field(ge=1, le=50)] = doc("Runs per arm (1–50).", default=3, example=2)
    expected_outcome: str | None = doc("For people reading the suite.", default=None, example="A file.")
    context: CaseContext | None = doc("What the run starts from.", default=None)
    execution: CaseExecution | None = doc("The prompt and the run's settings.", default=None)
    graders: list[Grader] = doc(
        "The graders (with `graders/*.md` appended after them); at least one over both.",
        default=[],
        example=[{"name": "file-made", "type": "file_exists", "path": "output/*.txt"}],
    )
