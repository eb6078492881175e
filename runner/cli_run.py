"""``evalens run FILE``: run a skilljack suite (``tasks.yaml`` or a ``task.md`` package), a skill-creator or
writing-skills ``evals.json``, or a trigger eval set with the real agent CLIs.

The agent side reuses the runner's engines, sandbox and environment allow-list (one private sandbox per run,
the skill installed where the engine discovers skills, the whole process tree killed on timeout). Scoring
follows formats.md §3.8 (skilljack), §4.4 (writing-skills grading) and §5.2/§5.3 (skill-creator grading,
trigger precision/recall); the original's config bugs (§3.5: thresholds, timeout and truncation read only from
the environment) are not reproduced: file and flags win.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MODEL_ALIASES = {"haiku": "claude-haiku-4-5", "sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1"}
FAILURE_CATEGORIES = ("discovery_failure", "false_positive", "instruction_ambiguity", "missing_guidance",
                      "agent_error", "none")


class UsageError(Exception):
    """The run cannot start; the message is what the user needs."""


@dataclass(slots=True)
class CaseVerdict:
    """One runnable unit's outcome, for code lenses and the Test Explorer (names match ``Format.cases``)."""

    name: str
    verdict: str  # PASS | FAIL | ERROR
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


def _record(args: argparse.Namespace, verdict: CaseVerdict) -> None:
    sink = getattr(args, "verdicts", None)
    if isinstance(sink, list):
        sink.append(verdict)


# ============================================================================================ agent runs


@dataclass(slots=True)
class AgentResult:
    """What one agent run produced, engine-neutral."""

    output: str = ""
    skills: list[str] = field(default_factory=list)  # activated skills, in order
    tools: list[dict[str, Any]] = field(default_factory=list)  # {tool, input}
    error: str | None = None
    duration_ms: float = 0.0
    cost_usd: float = 0.0
    turns: int | None = None
    workspace_files: list[str] = field(default_factory=list)  # files present after the run (relative)
    workspace: Path | None = None  # kept only while checks run


def _tool_calls(engine: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls from the event stream: Claude ``tool_use`` blocks; Codex items mapped onto Claude tool names."""
    calls: list[dict[str, Any]] = []
    for ev in events:
        if engine == "claude-code" and ev.get("type") == "assistant":
            for block in (ev.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    calls.append({"tool": str(block.get("name")), "input": block.get("input") or {}})
        elif engine == "codex" and ev.get("type") == "item.completed":
            item = ev.get("item") or {}
            kind = {"command_execution": "Bash", "file_change": "Write", "web_search": "WebSearch"}.get(
                str(item.get("type")), str(item.get("tool") or "")) if item.get("type") != "agent_message" else ""
            if kind:
                calls.append({"tool": kind, "input": {"command": item.get("command")} if kind == "Bash" else {}})
    return calls


class AgentRunner:
    """Runs one prompt in a fresh sandbox with chosen skills installed (runner engines + sandbox)."""

    def __init__(self, engine: str, model: str | None, timeout: float, *, network: bool = False,
                 keep_sandbox: bool = False, judge: Any = None) -> None:
        """Runs the shared preflight (CLI, keys, judge SDK and provider, sandbox, temp space) for ``engine`` and
        the resolved ``judge`` spec (None: no judge); raises :class:`UsageError` before any agent starts."""
        from evalens.runner.api import BASE_ENV_ALLOW
        from evalens.runner.engines import UnsupportedEngine, get_engine
        from evalens.runner.preflight import preflight
        from evalens.runner.sandbox import plan_sandbox

        try:
            self.engine = get_engine(engine)
        except UnsupportedEngine as exc:
            raise UsageError(str(exc)) from None
        checked, _spec = preflight(self.engine, judge=f"{judge.provider}:{judge.model}" if judge else None,
                                   use_judge=judge is not None, judge_key_env=judge.key_env if judge else None,
                                   network=network)
        if not checked.ok:
            judge_missing = any(c.name.startswith("judge") for c in checked.failures)
            raise UsageError(checked.message() + (" (or pass --no-judge)" if judge_missing else ""))
        self.judge = judge
        provider_vars = {"anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"),
                         "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY")}[self.engine.default_provider]
        self.env = {k: os.environ[k] for k in (*BASE_ENV_ALLOW, *provider_vars) if k in os.environ}
        self.model = model
        self.timeout = timeout
        self.keep_sandbox = keep_sandbox
        self.plan = plan_sandbox(network, None)
        if self.plan.warning:
            print(self.plan.warning, file=sys.stderr)

    async def ready(self) -> None:
        """Import the judge's SDK for real, off the event loop, before the first agent starts."""
        if self.judge is None:
            return
        from evalens.runner.preflight import import_judge_sdk

        problem = await asyncio.to_thread(import_judge_sdk, self.judge.provider)
        if problem:
            raise UsageError(problem)

    async def run(self, prompt: str, skills: dict[str, Path], files_base: Path | None = None,
                  files: list[str] | tuple[str, ...] = (), check=None) -> AgentResult:  # type: ignore[no-untyped-def]
        """Run ``prompt``; ``check(result)`` runs while the workspace still exists (file checks)."""
        from evalens.runner.sandbox import (
            copy_confined,
            create_sandbox,
            launch_agent,
            populate,
            remove_sandbox,
            snapshot,
            truncation_note,
        )

        result = AgentResult()
        paths = create_sandbox()
        try:
            if files_base is not None and files:
                populate(paths, files_base, list(files), [])
            for name, skill_md in skills.items():
                dest = paths.workspace / self.engine.skills_dir / name
                for entry in sorted(skill_md.parent.iterdir()):
                    if entry.name not in ("evals", ".git") and not entry.name.endswith("-workspace"):
                        copy_confined(entry, dest / entry.name, skill_md.parent, what="skill file")
            run, transcript = await launch_agent(self.engine, self.plan, paths, prompt, model=self.model,
                                                 agent_env=self.env, timeout=self.timeout)
            result.output = transcript.output
            result.tools = _tool_calls(self.engine.name, transcript.events)
            result.skills = list(transcript.skills_activated)
            result.duration_ms = round(run.duration_seconds * 1000)
            usage = transcript.usage or {}
            result.cost_usd = float(usage.get("total_cost_usd") or 0.0)
            result.turns = usage.get("num_turns")
            result.error = f"timed out after {self.timeout:g} s" if run.timed_out else (
                truncation_note(run) or transcript.error)
            result.workspace_files = sorted(snapshot(paths.workspace))  # never follows the agent's links
            result.workspace = paths.workspace
            if check is not None:
                check(result)
        except Exception as exc:  # setup failures are this run's error, not the whole run's
            result.error = result.error or f"{type(exc).__name__}: {exc}"
        finally:
            result.workspace = None
            if self.keep_sandbox:
                print(f"sandbox kept: {paths.root}", file=sys.stderr)
            else:
                remove_sandbox(paths)
        return result


async def start_runner(*args: Any, **kwargs: Any) -> AgentRunner:
    """An :class:`AgentRunner` whose preflight (``--version``, sandbox probe) and judge SDK import ran off the event
    loop: the language server awaits this on its own loop."""
    runner = await asyncio.to_thread(AgentRunner, *args, **kwargs)
    await runner.ready()
    return runner


# ============================================================================================ judge


def _judge_spec(model: str | None, engine_provider: str) -> Any:
    """The judge to use (aliases resolved); whether it can run is the preflight's job (:class:`AgentRunner`)."""
    from evalens.runner.judge import resolve_judge

    return resolve_judge(MODEL_ALIASES.get(model or "", model), default_provider=engine_provider)


async def ask_json(spec: Any, system: str, user: str, deadline: float | None = None) -> dict[str, Any]:
    """Judge calls whose reply must hold a JSON object (the first balanced one is taken): retried once, all
    within ``deadline`` seconds; raises :class:`~evalens.runner.judge.JudgeFailed` with the reason."""
    from evalens.runner.judge import ask_parsed, judge_deadline

    value, _raw = await ask_parsed(spec, system, user, first_json_object, deadline=deadline or judge_deadline(),
                                   max_tokens=2048)
    assert isinstance(value, dict)
    return value


def first_json_object(text: str) -> dict[str, Any]:
    """The first balanced ``{...}`` in ``text`` (a brace-depth scan that respects strings, so nested objects
    parse — unlike a non-greedy regex)."""
    start = text.find("{")
    while start >= 0:
        depth, in_str, escape = 0, False, False
        for i in range(start, len(text)):
            c = text[i]
            if in_str:
                escape = c == "\\" and not escape
                if c == '"' and not escape:
                    in_str = False
                continue
            if c == '"':
                in_str = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start:i + 1])
                    except ValueError:
                        break
                    if isinstance(value, dict):
                        return value
                    break
        start = text.find("{", start + 1)
    raise ValueError("no JSON object in the judge's reply")


# ============================================================================================ skilljack


@dataclass
class SjTask:
    """A task with inheritance resolved (formats.md §3.2)."""

    id: str
    prompt: str
    expected: str  # skill name, "none" or ""
    criteria: dict[str, dict[str, Any]]  # dimension -> {weight, description}
    checklist: list[str]
    det: dict[str, Any] | None  # deterministic block (task.md checks mapped onto expect_* keys)
    skills: dict[str, Path]

    @property
    def negative(self) -> bool:
        return self.expected == "none" or (self.det is not None and self.det.get("expect_skill_activation") is False)


def load_tasks_yaml(path: Path, skills_dir: Path | None) -> tuple[str, list[SjTask]]:
    import yaml

    from evalens.core.formats._shared import skills_in
    from evalens.core.models.skilljack import DEFAULT_WEIGHT, DIMENSIONS

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise UsageError(f"{path}: Missing or invalid 'tasks' array")
    skills = skills_in(skills_dir or path.parent / "skills")
    defaults = data.get("defaults") if isinstance(data.get("defaults"), dict) else {}
    dcrit = defaults.get("criteria") if isinstance(defaults.get("criteria"), dict) else {}
    tasks = []
    for raw in data["tasks"]:
        if not isinstance(raw, dict):
            continue
        tcrit = raw.get("criteria") if isinstance(raw.get("criteria"), dict) else {}
        criteria = {}
        for d in DIMENSIONS:
            if d in tcrit or d in dcrit:
                own = tcrit.get(d) if isinstance(tcrit.get(d), dict) else {}
                inh = dcrit.get(d) if isinstance(dcrit.get(d), dict) else {}
                criteria[d] = {"weight": own.get("weight", inh.get("weight", DEFAULT_WEIGHT)),
                               "description": own.get("description", inh.get("description", ""))}
        det = raw.get("deterministic") if isinstance(raw.get("deterministic"), dict) else None
        if det is not None:
            det = {"expect_skill_activation": True, **det}
        tasks.append(SjTask(str(raw.get("id", "")), str(raw.get("prompt", "")),
                            str(raw.get("expected_skill_load", defaults.get("expected_skill_load", "")) or ""),
                            criteria, [str(x) for x in raw.get("golden_checklist") or []], det, skills))
    return str(data.get("skill", "")), tasks


def load_task_md(path: Path) -> tuple[str, list[SjTask]]:
    """A ``task.md`` package: checks map one-to-one onto ``expect_*``; assertions become the checklist."""
    from evalens.core.documents import parse
    from evalens.core.formats._shared import skills_in

    doc = parse(path.read_text(encoding="utf-8"), "markdown")
    front = doc.data if isinstance(doc.data, dict) else {}
    task_dir = path.parent
    skills = {**skills_in(task_dir.parent / "skills"), **skills_in(task_dir / "environment" / "skills")}
    invoke = front.get("expect_skill_invocation")
    invoke = invoke if isinstance(invoke, bool) else bool(skills)
    expected = front.get("expected_skill") or (next(iter(skills)) if len(skills) == 1 else "")
    checks = front.get("checks") if isinstance(front.get("checks"), dict) else {}
    det: dict[str, Any] = {"expect_skill_activation": invoke}
    for key, value in checks.items():
        det["expect_" + {"files_exist": "file_exists"}.get(key, key)] = value
    body = "\n".join(doc.lines[doc.body_start_line:]).strip()
    criteria = {d: {"weight": w, "description": ""} for d, w in (("discovery", 0.3), ("adherence", 0.4),
                                                                  ("output", 0.3))}
    task = SjTask(str(front.get("id") or task_dir.name), body, "none" if not invoke else str(expected or ""),
                  criteria if front.get("assertions") else {}, [str(a) for a in front.get("assertions") or []],
                  det, skills)
    return str(expected or task_dir.parent.name), [task]


def _activation(task: SjTask, res: AgentResult) -> tuple[str | None, list[str]]:
    """The first skill activation (skilljack's rule: a tool named `Skill`, or containing `skill` but not
    `skill-resource`; name from input.skill / skill_name / name), else the engine's own detection."""
    for call in res.tools:
        name = call["tool"]
        if name == "Skill" or ("skill" in name.lower() and "skill-resource" not in name.lower()):
            inp = call.get("input") or {}
            skill = inp.get("skill") or inp.get("skill_name") or inp.get("name")
            if skill:
                return str(skill).split(":")[-1].split("__")[-1], []
    return (res.skills[0], []) if res.skills else (None, [])


def _js_check(expression: str, output: str) -> tuple[bool, str]:
    node = shutil.which("node")
    if node is None:
        return False, "javascript check skipped: node not found"
    script = ("const vm=require('vm');let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{try{"
              "const r=vm.runInNewContext(process.argv[1],{output:s,JSON,Math,parseInt,parseFloat,String,Number,"
              "Boolean,Array,Object,RegExp,Date,isNaN,isFinite},{timeout:5000});process.stdout.write(r===true?"
              "'true':'false')}catch(e){process.stdout.write('error: '+e.message)}})")
    try:
        out = subprocess.run([node, "-e", script, expression], input=output, capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"javascript check failed: {exc}"
    return out == "true", f"javascript {'passed' if out == 'true' else 'failed'}: {expression}" + \
        (f" ({out})" if out.startswith("error") else "")


def deterministic(task: SjTask, res: AgentResult) -> tuple[bool, list[str], bool]:
    """(passed, details, discovery) with skilljack's detail strings (formats.md §3.8)."""
    from evalens.core.formats._shared import js_regex_error

    det = task.det or {}
    details: list[str] = []
    if res.error:  # nothing happened that could pass a check, negative tasks included
        return False, [f"Task errored: {res.error}"], False
    skill, _ = _activation(task, res)
    if task.negative:
        ok = skill is None
        details.append("Correctly did not activate any skill" if ok else f"Unexpected skill activation: {skill} "
                       "(false positive)")
        if any(k != "expect_skill_activation" for k in det):
            details.append("Note: non-activation assertions were evaluated but do not affect pass/fail for "
                           "negative tests")
        return ok, details, ok
    if skill is None:
        return False, ["Expected skill activation but no skill was loaded"], False
    if task.expected and skill != task.expected:
        return False, [f"Wrong skill activated: expected '{task.expected}', got '{skill}'"], False
    details.append(f"Skill activated correctly: {skill}")
    ok = True
    out = res.output
    if isinstance(det.get("expect_marker"), str):
        found = det["expect_marker"].lower() in out.lower()
        ok &= found
        details.append(f'Marker {"found" if found else "not found"}: "{det["expect_marker"]}"')
    called = {c["tool"] for c in res.tools}
    if det.get("expect_tool_calls"):
        missing = [t for t in det["expect_tool_calls"] if t not in called]
        ok &= not missing
        details.append(f"Missing expected tool calls: {', '.join(missing)}" if missing else
                       f"All expected tools called: {', '.join(det['expect_tool_calls'])}")
    if det.get("expect_no_tool_calls"):
        bad = [t for t in det["expect_no_tool_calls"] if t in called]
        ok &= not bad
        details.append(f"Forbidden tools were called: {', '.join(bad)}" if bad else "No forbidden tools called")
    for text in det.get("expect_contains") or []:
        hit = text in out
        ok &= hit
        details.append(f'{"Contains" if hit else "Missing"}: "{text}"')
    for text in det.get("expect_not_contains") or []:
        hit = text in out
        ok &= not hit
        details.append(f'{"Contains forbidden" if hit else "Does not contain"}: "{text}"')
    for pattern in det.get("expect_regex") or []:
        err = js_regex_error(pattern)
        if err:
            ok = False
            details.append(f"/{pattern}/ (invalid regex)")
            continue
        translated = re.sub(r"\(\?<(?![=!])", "(?P<", pattern)
        hit = re.search(translated, out) is not None
        ok &= hit
        details.append(f"/{pattern}/ {'matched' if hit else 'did not match'}")
    if isinstance(det.get("expect_javascript"), str):
        hit, detail = _js_check(det["expect_javascript"], out)
        ok &= hit
        details.append(detail)
    for rel in det.get("expect_file_exists") or []:
        norm = os.path.normpath(rel)
        if os.path.isabs(rel) or norm.startswith(".."):
            ok = False
            details.append(f"{rel} (outside working directory)")
            continue
        hit = norm.replace(os.sep, "/") in res.workspace_files or any(
            f.startswith(norm.rstrip("/") + "/") for f in res.workspace_files)
        ok &= hit
        details.append(f"File {'exists' if hit else 'missing'}: {rel}")
    return ok, details, True


@dataclass
class Score:
    discovery: float
    adherence: float
    output_quality: float
    weighted: float
    category: str
    reasoning: str
    deterministic: dict[str, Any] | None = None
    judge: dict[str, Any] | None = None


def weighted_score(weights: dict[str, float], discovery: float, adherence: float, output: float) -> float:
    return round(weights.get("discovery", 0) * discovery + weights.get("adherence", 0) * (adherence - 1) / 4
                 + weights.get("output", 0) * (output - 1) / 4, 4)


JUDGE_SYSTEM = ("You grade how an AI agent used (or correctly avoided) a skill. Score strictly from the evidence "
                "given; give no benefit of the doubt. Reply with one JSON object only.")


def judge_prompt(task: SjTask, res: AgentResult, truncation: int) -> str:
    crit = [f"- {d} (weight {c['weight']}): {c['description'] or '(no description)'}" for d, c in task.criteria.items()]
    output = res.output if len(res.output) <= truncation else res.output[:truncation] + "\n…[truncated]"
    parts = [
        "# Task", f"Prompt given to the agent:\n{task.prompt}",
        f"Expected skill: {task.expected or '(any)'}" + (" — the agent should load NO skill" if task.negative else ""),
        "Criteria:", *(crit or ["(no criteria)"]),
        "Golden checklist:", *([f"- {c}" for c in task.checklist] or ["(no checklist)"]),
        "", "# What the agent did", f"Skills loaded: {', '.join(res.skills) or 'None'}",
        f"Final output:\n{output or '(no output)'}", "",
        "# How to score",
        "discovery: 1 if the expected skill was loaded (for a no-skill task: 1 only if no skill loaded), else 0.",
        "adherence: 1-5, 1 = the skill's instructions were ignored, 5 = every instruction was followed.",
        "output_quality: 1-5, 1 = unusable, 5 = meets every requirement.",
        "failure_category (when any score is below 4): one of " + ", ".join(FAILURE_CATEGORIES) + ".",
        "checklist_results: for each checklist item {item, passed, evidence} with concrete evidence.",
        'Reply: {"discovery": 0|1, "adherence": n, "output_quality": n, "failure_category": "...", '
        '"reasoning": "...", "checklist_results": [...]}',
    ]
    return "\n".join(parts)


def _num(value: Any, fallback: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return fallback
    return number if number == number else fallback  # NaN


async def judge_task(spec: Any, task: SjTask, res: AgentResult, truncation: int,
                     deadline: float | None = None) -> dict[str, Any]:
    """Judge scores with the original's coercion. A judge that fails or answers no JSON gives ``{"error": why}``
    (the run is ERROR), never heuristic scores: skilljack's fallback would grade a run nobody judged."""
    from evalens.runner.judge import JudgeFailed

    try:
        reply = await ask_json(spec, JUDGE_SYSTEM, judge_prompt(task, res, truncation), deadline)
    except JudgeFailed as exc:
        return {"error": str(exc), "discovery": 0, "adherence": 1, "output_quality": 1,
                "failure_category": "agent_error", "reasoning": f"judge error: {exc}"}
    category = reply.get("failure_category") if reply.get("failure_category") in FAILURE_CATEGORIES else "none"
    return {"discovery": _num(reply.get("discovery"), 0) or 0, "adherence": _num(reply.get("adherence"), 1) or 1,
            "output_quality": _num(reply.get("output_quality"), 1) or 1, "failure_category": category,
            "reasoning": str(reply.get("reasoning") or ""), "checklist_results": reply.get("checklist_results") or []}


def score_run(task: SjTask, res: AgentResult, det: tuple[bool, list[str], bool] | None,
              judged: dict[str, Any] | None, config_weights: dict[str, float]) -> Score:
    """Merge deterministic discovery with judge adherence/output (formats.md §3.8 'Merging'). A run whose agent
    or judge failed scores the minimum with category ``agent_error``; its verdict is ERROR (:func:`_task_verdict`)."""
    if res.error or (judged is not None and judged.get("error")):
        why = agent_error(res) if res.error else f"judge error: {judged['error']}"  # type: ignore[index]
        return Score(0, 1, 1, 0, "agent_error", why, {"passed": False, "details": det[1]} if det else None, judged)
    if det is None and judged is None:
        return Score(0, 1, 1, 0, "agent_error", "No scoring method available (no deterministic check or LLM judge "
                     "criteria defined)")
    det_json = {"passed": det[0], "details": det[1]} if det else None
    if judged is not None and det is None:
        weights = {d: float(c["weight"]) for d, c in task.criteria.items()}
        return Score(judged["discovery"], judged["adherence"], judged["output_quality"],
                     weighted_score(weights, judged["discovery"], judged["adherence"], judged["output_quality"]),
                     judged["failure_category"], judged["reasoning"], None, judged)
    assert det is not None
    discovery = 1.0 if det[2] else 0.0
    if judged is not None:
        adherence, output = judged["adherence"], judged["output_quality"]
        reasoning = judged["reasoning"]
        category = judged["failure_category"]
    else:
        adherence = output = 5.0 if det[0] else 1.0
        reasoning = "; ".join(det[1])
        category = "none"
    if not det[0] or discovery == 0:
        category = "agent_error" if res.error else "false_positive" if task.negative and not det[0] else \
            "discovery_failure" if discovery == 0 else category if category != "none" else "missing_guidance"
    return Score(discovery, adherence, output, weighted_score(config_weights, discovery, adherence, output),
                 category, reasoning, det_json, judged)


@dataclass
class SjConfig:
    """eval.config.yaml with defaults (formats.md §3.5); every value is honoured."""

    agent_model: str | None = None
    judge_model: str = "haiku"
    weights: dict[str, float] = field(default_factory=lambda: {"discovery": 0.3, "adherence": 0.4, "output": 0.3})
    discovery_rate: float = 0.8
    avg_score: float = 4.0
    timeout_ms: int = 300000
    output_dir: str = "./results"
    judge_truncation: int = 5000
    report_truncation: int = 2000
    exit_on_failure: bool = True
    github_summary: bool = False


def load_config(path: Path | None) -> SjConfig:
    import yaml

    cfg = SjConfig()
    if path is None or not path.is_file():
        return cfg
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}

    def get(*keys: str) -> Any:
        node: Any = data
        for k in keys:
            node = node.get(k) if isinstance(node, dict) else None
        return node

    cfg.agent_model = get("models", "agent") or None
    cfg.judge_model = get("models", "judge") or cfg.judge_model
    weights = get("scoring", "weights")
    if isinstance(weights, dict):
        cfg.weights.update({k: float(v) for k, v in weights.items() if isinstance(v, int | float)})
    for attr, keys in (("discovery_rate", ("thresholds", "discovery_rate")), ("avg_score", ("thresholds", "avg_score")),
                       ("timeout_ms", ("runner", "timeout_ms")), ("output_dir", ("output", "dir")),
                       ("judge_truncation", ("output", "judge_truncation")),
                       ("report_truncation", ("output", "report_truncation")),
                       ("exit_on_failure", ("ci", "exit_on_failure")), ("github_summary", ("ci", "github_summary"))):
        value = get(*keys)
        if value is not None:
            setattr(cfg, attr, value)
    return cfg


def aggregate(scores: list[Score]) -> tuple[Score, int]:
    """Mean scores, modal category, and the index of the run closest to the mean weighted score."""
    mean = Score(statistics.fmean(s.discovery for s in scores), statistics.fmean(s.adherence for s in scores),
                 statistics.fmean(s.output_quality for s in scores), statistics.fmean(s.weighted for s in scores),
                 Counter(s.category for s in scores).most_common(1)[0][0], "")
    rep = min(range(len(scores)), key=lambda i: abs(scores[i].weighted - mean.weighted))
    disc = sum(1 for s in scores if s.discovery >= 1)
    mean.reasoning = (f"Aggregated over {len(scores)} runs: discovery {disc}/{len(scores)}, mean adherence "
                      f"{mean.adherence:.1f}, mean output {mean.output_quality:.1f}")
    mean.deterministic, mean.judge = scores[rep].deterministic, scores[rep].judge
    return mean, rep


async def run_skilljack(file: Path, fmt: str, args: argparse.Namespace) -> int:
    cfg = load_config(Path(args.config) if args.config else Path.cwd() / "eval.config.yaml")
    if fmt == "skilljack-task":
        skill, tasks = load_task_md(file)
    else:
        skill, tasks = load_tasks_yaml(file, Path(args.skills_dir) if args.skills_dir else None)
    if args.tasks:
        wanted = {t.strip() for t in args.tasks.split(",") if t.strip()}
        tasks = [t for t in tasks if t.id in wanted]
        if not tasks:
            raise UsageError("No tasks to run")
    discovery_threshold = args.threshold_discovery if args.threshold_discovery is not None else cfg.discovery_rate
    score_threshold = args.threshold_score if args.threshold_score is not None else cfg.avg_score
    timeout_s = (args.timeout / 1000 if args.timeout else cfg.timeout_ms / 1000)
    agent_model = args.model or (cfg.agent_model if args.engine == "claude-code" else None)
    judge_spec = None
    if not args.no_judge and any(t.criteria for t in tasks):
        judge_spec = _judge_spec(args.judge_model or cfg.judge_model, "anthropic" if args.engine == "claude-code"
                                 else "openai")
    if args.dry_run:  # skilljack's `parse`: the tasks with inheritance resolved
        for t in tasks:
            print(f"{t.id}\texpected={t.expected or '-'}\tnegative={t.negative}\tjudge={bool(t.criteria and judge_spec)}"
                  f"\tdeterministic={t.det is not None and not args.no_deterministic}")
        if args.json:
            parsed = [{"id": t.id, "prompt": t.prompt, "expectedSkillLoad": t.expected, "negative": t.negative,
                       "criteria": [{"dimension": d, **c} for d, c in t.criteria.items()],
                       "goldenChecklist": t.checklist, "deterministic": t.det,
                       "skills": {n: str(p) for n, p in t.skills.items()}} for t in tasks]
            Path(args.json).write_text(json.dumps({"skill": skill, "tasks": parsed}, indent=2), encoding="utf-8")
        return EXIT_OK
    runner = await start_runner(args.engine, agent_model, timeout_s, keep_sandbox=args.keep_sandbox, judge=judge_spec)
    outcomes = []
    verdicts: list[CaseVerdict] = []
    for task in tasks:
        runs: list[tuple[AgentResult, Score]] = []
        for i in range(args.runs):
            holder: dict[str, Any] = {}
            use_det = task.det is not None and not args.no_deterministic

            def checks(res: AgentResult, task: SjTask = task, holder: dict[str, Any] = holder,
                       use_det: bool = use_det) -> None:
                holder["det"] = deterministic(task, res) if use_det else None

            res = await runner.run(task.prompt, task.skills, check=checks)
            det = holder.get("det") if "det" in holder else (deterministic(task, res) if use_det else None)
            judged = await judge_task(judge_spec, task, res, cfg.judge_truncation, _judge_seconds(args, timeout_s)) \
                if judge_spec is not None and task.criteria and not res.error else None
            score = score_run(task, res, det, judged, cfg.weights)
            runs.append((res, score))
            print(f"{task.id} run {i + 1}/{args.runs}: discovery {score.discovery:g}, adherence {score.adherence:g}, "
                  f"output {score.output_quality:g}, weighted {score.weighted:.2f} ({score.category})"
                  + (f" — ERROR: {score.reasoning}" if score.category == "agent_error" and
                     (res.error or (judged or {}).get("error")) else ""), file=sys.stderr)
        mean, rep = aggregate([s for _, s in runs])
        outcomes.append((task, runs, mean, rep))
        verdicts.append(_task_verdict(task, runs, mean, discovery_threshold, score_threshold))
        _record(args, verdicts[-1])
    report = build_results(skill, file, tasks, outcomes, cfg, args, discovery_threshold, score_threshold)
    out_dir = Path(args.output_dir or cfg.output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = report["timestamp"].replace(":", "-").replace(".", "-")
    json_path = Path(args.json) if args.json else out_dir / f"{skill or 'skill'}-{stamp}.json"
    json_path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    md = markdown_report(report, cfg.report_truncation)
    json_path.with_suffix(".md").write_text(md, encoding="utf-8")
    if args.github_summary or cfg.github_summary:
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(md + "\n")
    s = report["summary"]
    print(f"{'PASSED' if report['passed'] else 'FAILED'}: discovery {s['discoveryAccuracy']:.0%}, adherence "
          f"{s['avgAdherence']:.2f}, output {s['avgOutputQuality']:.2f}, weighted {s['avgWeightedScore']:.2f}")
    for reason in report["failureReasons"]:
        print(f"  - {reason}")
    for v in verdicts:
        print(f"{v.verdict:5} {v.name}" + (f"  {v.reason}" if v.verdict != "PASS" else ""))
    print(f"results: {json_path}")
    if any(v.verdict == "ERROR" for v in verdicts):
        return EXIT_FAILED  # a run that did not happen is never waved through, whatever ci.exit_on_failure says
    exit_on_failure = cfg.exit_on_failure and str(os.environ.get("EVAL_EXIT_ON_FAILURE", "true")) != "false"
    return EXIT_FAILED if not report["passed"] and exit_on_failure else EXIT_OK


def agent_error(res: AgentResult) -> str:
    """The agent's failure, worded once (engines already say ``agent error (API status N): …``)."""
    text = res.error or ""
    return text if text.startswith("agent ") else f"agent error: {text}"


def _run_error(res: AgentResult, score: Score) -> str | None:
    """Why a run produced no gradable result (agent or judge failure), else None."""
    if res.error:
        return agent_error(res)
    if isinstance(score.judge, dict) and score.judge.get("error"):
        return f"judge error: {score.judge['error']}"
    return None


def _task_verdict(task: SjTask, runs: list[tuple[AgentResult, Score]], mean: Score, discovery_threshold: float,
                  score_threshold: float) -> CaseVerdict:
    """A task passes when every run ran and was graded, discovery meets the threshold, every deterministic check
    passed and the judge's mean adherence and output quality meet the score threshold. A deterministic failure in
    a run that did run is FAIL (earned); otherwise any failed run (agent or judge) makes the task ERROR."""
    details = {"discovery": mean.discovery, "adherence": mean.adherence, "output_quality": mean.output_quality,
               "weighted": mean.weighted, "category": mean.category, "runs": len(runs)}
    errors = [(i, why) for i, (r, s) in enumerate(runs, 1) if (why := _run_error(r, s))]
    failed_det = [s for r, s in runs if s.deterministic is not None and not s.deterministic["passed"]
                  and _run_error(r, s) is None]
    if failed_det:
        return CaseVerdict(task.id, "FAIL", "; ".join(failed_det[0].deterministic["details"]), details)
    if errors:
        where = f"run {errors[0][0]}/{len(runs)}: " if len(runs) > 1 else ""
        more = f" ({len(errors)} of {len(runs)} runs failed)" if len(errors) > 1 else ""
        return CaseVerdict(task.id, "ERROR", f"{where}{errors[0][1]}{more}", details)
    if mean.discovery < discovery_threshold:
        return CaseVerdict(task.id, "FAIL", f"discovery {mean.discovery:.0%} below {discovery_threshold:.0%}", details)
    if any(s.judge is not None for _, s in runs) and min(mean.adherence, mean.output_quality) < score_threshold:
        return CaseVerdict(task.id, "FAIL", f"adherence {mean.adherence:.1f} / output {mean.output_quality:.1f} "
                           f"below {score_threshold:g}", details)
    return CaseVerdict(task.id, "PASS", mean.reasoning, details)


def build_results(skill: str, file: Path, tasks: list[SjTask], outcomes: list[Any], cfg: SjConfig,
                  args: argparse.Namespace, discovery_threshold: float, score_threshold: float) -> dict[str, Any]:
    """The results JSON in skilljack's shape (formats.md §3.9), with runDetails per run."""
    task_entries = []
    for task, runs, mean, rep in outcomes:
        res = runs[rep][0]

        def result_json(r: AgentResult, task: SjTask = task) -> dict[str, Any]:
            return {"taskId": task.id, "prompt": task.prompt, "output": r.output, "durationMs": r.duration_ms,
                    "numTurns": r.turns, "costUsd": r.cost_usd, "skillLoads": r.skills,
                    "toolCalls": [{"tool": c["tool"], "input": c.get("input")} for c in r.tools],
                    "isError": r.error is not None, "errorMessage": r.error or ""}

        def score_json(s: Score, task: SjTask = task) -> dict[str, Any]:
            return {"taskId": task.id, "deterministic": s.deterministic, "judge": s.judge,
                    "discovery": s.discovery, "adherence": s.adherence, "outputQuality": s.output_quality,
                    "weightedScore": s.weighted, "failureCategory": s.category, "reasoning": s.reasoning}

        task_entries.append({
            "task": {"id": task.id, "prompt": task.prompt, "expectedSkillLoad": task.expected,
                     "criteria": [{"dimension": d, **c} for d, c in task.criteria.items()],
                     "goldenChecklist": task.checklist,
                     "deterministic": {_camel(k): v for k, v in (task.det or {}).items()} or None},
            "result": result_json(res), "score": score_json(mean),
            "runDetails": [{"result": result_json(r), "score": score_json(s)} for r, s in runs],
        })
    means = [m for _, _, m, _ in outcomes]
    n = len(means) or 1
    summary = {"totalTasks": len(means), "numRuns": sum(len(r) for _, r, _, _ in outcomes),
               "discoveryAccuracy": round(sum(m.discovery for m in means) / n, 4),
               "avgAdherence": round(sum(m.adherence for m in means) / n, 4),
               "avgOutputQuality": round(sum(m.output_quality for m in means) / n, 4),
               "avgWeightedScore": round(sum(m.weighted for m in means) / n, 4),
               "totalDurationMs": sum(r.duration_ms for _, runs, _, _ in outcomes for r, _ in runs),
               "totalCostUsd": round(sum(r.cost_usd for _, runs, _, _ in outcomes for r, _ in runs), 6)}
    reasons = []
    if summary["discoveryAccuracy"] < discovery_threshold:
        reasons.append(f"Discovery rate {summary['discoveryAccuracy'] * 100:.1f}% below threshold "
                       f"{discovery_threshold * 100:g}%")
    if summary["avgAdherence"] < score_threshold:
        reasons.append(f"Avg adherence {summary['avgAdherence']:.2f} below threshold {score_threshold:g}")
    if summary["avgOutputQuality"] < score_threshold:
        reasons.append(f"Avg output quality {summary['avgOutputQuality']:.2f} below threshold {score_threshold:g}")
    errored = [(task.id, why) for task, runs, _, _ in outcomes for r, sc in runs if (why := _run_error(r, sc))]
    if errored:
        summary["erroredRuns"] = len(errored)
        reasons.append(f"{len(errored)} run(s) failed (agent or judge error), first: {errored[0][0]}: "
                       f"{errored[0][1][:200]}")
    cats = Counter(m.category for m in means)
    return {
        "skillName": skill, "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "passed": not reasons, "failureReasons": reasons,
        "metadata": {k: v for k, v in (("skillPath", str(file)), ("agentModel", args.model or cfg.agent_model),
                                       ("judgeModel", None if args.no_judge else args.judge_model or cfg.judge_model),
                                       ("runnerType", args.engine)) if v is not None},
        "summary": summary,
        "failureBreakdown": [{"category": c, "count": k, "percentage": round(100 * k / n, 1)}
                             for c, k in cats.most_common()],
        "tasks": task_entries,
    }


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p.title() for p in rest)


def markdown_report(report: dict[str, Any], truncation: int) -> str:
    s = report["summary"]
    lines = [f"# Skill evaluation: {report['skillName']}", "",
             f"**{'PASSED' if report['passed'] else 'FAILED'}** — {s['totalTasks']} task(s), {s['numRuns']} run(s)", "",
             "| Metric | Value |", "|---|---|",
             f"| Discovery accuracy | {s['discoveryAccuracy']:.0%} |", f"| Avg adherence | {s['avgAdherence']:.2f} |",
             f"| Avg output quality | {s['avgOutputQuality']:.2f} |",
             f"| Avg weighted score | {s['avgWeightedScore']:.2f} |",
             f"| Duration | {s['totalDurationMs'] / 1000:.1f} s |", f"| Cost | ${s['totalCostUsd']:.4f} |", ""]
    if report["failureReasons"]:
        lines += ["## Failure reasons", "", *[f"- {r}" for r in report["failureReasons"]], ""]
    lines += ["## Tasks", "", "| Task | Discovery | Adherence | Output | Weighted | Category |", "|---|---|---|---|---|---|"]
    for t in report["tasks"]:
        sc = t["score"]
        lines.append(f"| {t['task']['id']} | {sc['discovery']:.2f} | {sc['adherence']:.1f} | {sc['outputQuality']:.1f} "
                     f"| {sc['weightedScore']:.2f} | {sc['failureCategory']} |")
    for t in report["tasks"]:
        out = t["result"]["output"] or "(no output)"
        out = out if len(out) <= truncation else out[:truncation] + "…"
        lines += ["", f"### {t['task']['id']}", "", f"Skills loaded: {', '.join(t['result']['skillLoads']) or 'none'}",
                  "", "```", out, "```", "", t["score"]["reasoning"]]
    return "\n".join(lines) + "\n"


# ============================================================================================ skill-creator / writing-skills


def skill_root_of(file: Path) -> Path:
    """The skill an eval file belongs to: nearest ancestor with a SKILL.md, else the parent of ``evals/``."""
    for parent in file.resolve().parents:
        if (parent / "SKILL.md").is_file() or (parent / "skill.md").is_file():
            return parent
    return file.parent.parent if file.parent.name == "evals" else file.parent


def _installed(root: Path, name: str | None) -> dict[str, Path]:
    md = next((root / n for n in ("SKILL.md", "skill.md") if (root / n).is_file()), None)
    return {name or root.name: md} if md else {}


GRADER_SYSTEM = ("You grade an AI agent's work against listed statements. Judge each statement on the evidence "
                 "only; quote the evidence. Reply with one JSON object only.")


async def grade_statements(spec: Any, prompt: str, res: AgentResult, statements: list[str], *,
                           scale: bool, deadline: float | None = None) -> list[dict[str, Any]]:
    """One judge call per run: each statement passed/failed (skill-creator) or scored 1-5 (writing-skills).

    Raises :class:`~evalens.runner.judge.JudgeFailed` when the grader fails or leaves a statement ungraded: an
    ungraded statement is not a failed one."""
    from evalens.runner.judge import JudgeFailed

    how = ("score each 1-5 (1 not addressed, 2 partly with significant gaps, 3 met minimally, 4 met well, "
           "5 exemplary)" if scale else "decide whether each holds")
    shape = '{"index": n, "score": 1-5, "reasoning": "..."}' if scale else \
        '{"index": n, "passed": true|false, "evidence": "..."}'
    user = "\n".join([f"# Task given to the agent\n{prompt}", f"# Agent's final output\n{res.output[:8000] or '(none)'}",
                      f"# Files in the workspace afterwards\n{', '.join(res.workspace_files) or '(none)'}",
                      f"# Statements ({how})", *[f"{i + 1}. {s}" for i, s in enumerate(statements)],
                      f'Reply: {{"results": [{shape}, ...]}} with one entry per statement.'])
    reply = await ask_json(spec, GRADER_SYSTEM, user, deadline)
    items = {int(_num(r.get("index"), 0)): r for r in reply.get("results") or [] if isinstance(r, dict)}
    out = []
    for i, _ in enumerate(statements):
        r = items.get(i + 1)
        if r is None or (scale and _num(r.get("score"), -1) < 0) or (not scale and not isinstance(r.get("passed"), bool)):
            raise JudgeFailed(f"the grader gave no usable result for statement {i + 1}")
        if scale:
            out.append({"score": int(min(5, max(1, _num(r.get("score"), 1)))), "reasoning": str(r.get("reasoning") or "")})
        else:
            out.append({"passed": r["passed"], "evidence": str(r.get("evidence") or "")})
    return out


def _judge_seconds(args: argparse.Namespace, case_timeout: float | None) -> float:
    """The per-unit judge deadline: ``--judge-timeout``, ``$EVALENS_JUDGE_TIMEOUT``, else from the case timeout."""
    from evalens.runner.judge import judge_deadline

    return judge_deadline(case_timeout, getattr(args, "judge_timeout", None))


async def _grade(spec: Any, prompt: str, res: AgentResult, statements: list[str], *, scale: bool,
                 deadline: float) -> tuple[list[dict[str, Any]] | None, str | None]:
    """(graded statements, None), or (None, why) when the agent or the grader failed: then nothing was graded."""
    from evalens.runner.judge import JudgeFailed

    if res.error:
        return None, agent_error(res)
    if not statements:
        return [], None
    try:
        return await grade_statements(spec, prompt, res, statements, scale=scale, deadline=deadline), None
    except JudgeFailed as exc:
        return None, f"grader error: {exc}"


def graded_verdict(error: str | None, total: int, passed: bool, summary: str) -> tuple[str, str]:
    """The one rule for graded units: a failed agent or grader is ERROR, nothing to grade is SKIP, else the
    grade decides."""
    if error:
        return "ERROR", error
    if total == 0:
        return "SKIP", "nothing to grade: the case declares no statements (the agent ran; its output is kept)"
    return ("PASS" if passed else "FAIL"), summary


def _print_unit(label: str, verdict: str, reason: str, target: Path) -> None:
    print(f"{label}: {verdict} — {reason} → {target}")


async def run_skill_creator(file: Path, args: argparse.Namespace) -> int:
    data = json.loads(file.read_text(encoding="utf-8"))
    root = skill_root_of(file)
    spec = _judge_spec(args.judge_model, "anthropic" if args.engine == "claude-code" else "openai")
    cases = [c for c in data.get("evals", []) if isinstance(c, dict)]
    if args.tasks:
        wanted = {t.strip() for t in args.tasks.split(",")}
        cases = [c for c in cases if str(c.get("id")) in wanted]
    if not cases:
        raise UsageError("No evals to run")
    out_dir = Path(args.output_dir) if args.output_dir else \
        root.parent / f"{root.name}-workspace" / "runs" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    if args.dry_run:
        for c in cases:
            print(f"{c.get('id')}\t{len(c.get('assertions') or c.get('expectations') or [])} statement(s)")
        return EXIT_OK
    timeout = args.timeout / 1000 if args.timeout else 300
    runner = await start_runner(args.engine, args.model, timeout, keep_sandbox=args.keep_sandbox, judge=spec)
    bad = 0
    for case in cases:
        statements = [s if isinstance(s, str) else str(s.get("description") or s.get("name") or json.dumps(s))
                      for s in (case.get("assertions") or case.get("expectations") or [])]
        files = [f for f in case.get("files") or [] if isinstance(f, str)]
        for run in range(1, args.runs + 1):
            t0 = time.monotonic()
            res = await runner.run(str(case.get("prompt", "")), _installed(root, data.get("skill_name")), root, files)
            executor = time.monotonic() - t0
            graded, error = await _grade(spec, str(case.get("prompt", "")), res, statements, scale=False,
                                         deadline=_judge_seconds(args, timeout))
            grader = time.monotonic() - t0 - executor
            expectations = [{"text": s, **g} for s, g in zip(statements, graded, strict=True)] if graded is not None \
                else [{"text": s, "passed": False, "evidence": error} for s in statements]
            passed = sum(e["passed"] for e in expectations) if graded is not None else 0
            grading = {"expectations": expectations,
                       "summary": {"passed": passed, "failed": len(expectations) - passed, "total": len(expectations),
                                   "pass_rate": round(passed / len(expectations), 2) if expectations else 0.0},
                       "execution_metrics": {"tool_calls": dict(Counter(c["tool"] for c in res.tools)),
                                             "total_tool_calls": len(res.tools), "errors_encountered": int(bool(res.error)),
                                             "output_chars": len(res.output)},
                       "timing": {"executor_duration_seconds": round(executor, 2),
                                  "grader_duration_seconds": round(grader, 2),
                                  "total_duration_seconds": round(executor + grader, 2)}}
            if error:
                grading["error"] = error  # why nothing was graded (the statements above were not judged)
            target = out_dir / f"eval-{case.get('id')}" / (f"run-{run}" if args.runs > 1 else "") / "grading.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(grading, indent=2), encoding="utf-8")
            verdict, reason = graded_verdict(error, len(statements), passed == len(expectations),
                                             f"{passed}/{len(expectations)} assertions passed")
            bad += verdict in ("FAIL", "ERROR")
            _record(args, CaseVerdict(str(case.get("id")), verdict, reason, {"grading": str(target), "run": run}))
            _print_unit(f"eval {case.get('id')} run {run}", verdict, reason, target)
    return EXIT_FAILED if bad else EXIT_OK


async def run_writing_skills(file: Path, args: argparse.Namespace) -> int:
    data = json.loads(file.read_text(encoding="utf-8"))
    root = skill_root_of(file)
    spec = _judge_spec(args.judge_model, "anthropic" if args.engine == "claude-code" else "openai")
    workspace = Path(args.output_dir) if args.output_dir else root.parent / f"{root.name}-workspace"
    version = 0
    history = workspace / "history.json"
    if history.is_file():
        version = int(json.loads(history.read_text(encoding="utf-8")).get("current_version") or 0)
    cases = [c for c in data.get("cases", []) if isinstance(c, dict)]
    if args.tasks:
        wanted = {t.strip() for t in args.tasks.split(",")}
        cases = [c for c in cases if str(c.get("id")) in wanted]
    if not cases:
        raise UsageError("No cases to run")
    if args.dry_run:
        for c in cases:
            print(f"{c.get('id')}\t{len(c.get('expectations') or [])} expectation(s)")
        return EXIT_OK
    timeout = args.timeout / 1000 if args.timeout else 300
    runner = await start_runner(args.engine, args.model, timeout, keep_sandbox=args.keep_sandbox, judge=spec)
    na = {"passed": None, "details": "N/A - not assessed by evalens run"}
    bad = 0
    for case in cases:
        exps = [e for e in case.get("expectations") or [] if isinstance(e, dict)]
        for run in range(1, args.runs + 1):
            files = [f for f in case.get("files") or [] if isinstance(f, str)]
            res = await runner.run(str(case.get("prompt", "")), _installed(root, None), root / "evals", files)
            graded, error = await _grade(spec, str(case.get("prompt", "")), res,
                                         [f"{e.get('criterion')}: {e.get('description')}" for e in exps], scale=True,
                                         deadline=_judge_seconds(args, timeout))
            results = [{"criterion": e.get("criterion"), "score": g["score"], "passed": g["score"] >= 3,
                        "reasoning": g["reasoning"]} for e, g in zip(exps, graded or [], strict=False)]
            required = [r for r, e in zip(results, exps, strict=False) if e.get("required") is True]
            mean = round(statistics.fmean(r["score"] for r in results), 1) if results else None
            req_mean = round(statistics.fmean(r["score"] for r in required), 1) if required else mean
            overall = "pass" if all(r["passed"] for r in required) else "fail"
            verdict, reason = graded_verdict(error, len(exps), overall == "pass", f"overall score {mean}")
            grading = {"case_id": case.get("id"), "version": version, "run": run, "overall_score": mean,
                       "required_score": req_mean, "results": results,
                       "overall": overall if verdict in ("PASS", "FAIL") else verdict.lower(),
                       "convention_compliance": {k: dict(na) for k in ("frontmatter", "description_field",
                                                                       "token_efficiency", "progressive_disclosure",
                                                                       "type_alignment")},
                       "claims": [], "user_notes_summary": "", "eval_feedback": "",
                       "execution_metrics": {"total_tool_calls": len(res.tools), "output_chars": len(res.output)}}
            if error:
                grading["error"] = error
            target = workspace / "grading" / f"{case.get('id')}_v{version}_run{run}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(grading, indent=2), encoding="utf-8")
            bad += verdict in ("FAIL", "ERROR")
            _record(args, CaseVerdict(str(case.get("id")), verdict, reason, {"grading": str(target), "run": run}))
            _print_unit(f"{case.get('id')} run {run}", verdict, reason, target)
    return EXIT_FAILED if bad else EXIT_OK


# ============================================================================================ trigger sets


def trigger_queries(file: Path) -> tuple[str | None, list[tuple[str, bool]]]:
    data = json.loads(file.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        return data.get("skill_name"), [(q, True) for q in data.get("should_trigger") or []] + \
            [(q, False) for q in data.get("should_not_trigger") or []]
    return None, [(str(d["query"]), bool(d.get("should_trigger"))) for d in data if isinstance(d, dict) and "query" in d]


def trigger_metrics(rows: list[tuple[str, bool, float]], threshold: float = 0.5) -> dict[str, Any]:
    """Precision, recall and accuracy over queries; a query triggers when its trigger rate reaches ``threshold``."""
    tp = sum(1 for _, want, rate in rows if want and rate >= threshold)
    fp = sum(1 for _, want, rate in rows if not want and rate >= threshold)
    fn = sum(1 for _, want, rate in rows if want and rate < threshold)
    tn = len(rows) - tp - fp - fn
    return {"true_positives": tp, "false_positives": fp, "false_negatives": fn, "true_negatives": tn,
            "precision": round(tp / (tp + fp), 4) if tp + fp else None,
            "recall": round(tp / (tp + fn), 4) if tp + fn else None,
            "accuracy": round((tp + tn) / len(rows), 4) if rows else None}


async def run_trigger(file: Path, args: argparse.Namespace) -> int:
    name, queries = trigger_queries(file)
    indexed = list(enumerate(queries))
    if args.tasks:
        wanted = {t.strip() for t in args.tasks.split(",")}
        indexed = [(i, q) for i, q in indexed if str(i) in wanted]
    root = Path(args.skill).resolve() if args.skill else skill_root_of(file)
    skills = _installed(root, None)
    if not skills:
        raise UsageError(f"no SKILL.md found for {file} (pass --skill DIR)")
    skill = next(iter(skills))
    if args.dry_run:
        for q, want in queries:
            print(f"{'+' if want else '-'} {q}")
        return EXIT_OK
    runner = await start_runner(args.engine, args.model, args.timeout / 1000 if args.timeout else 30,
                         keep_sandbox=args.keep_sandbox)
    rows = []
    errored: list[dict[str, Any]] = []
    for index, (q, want) in indexed:
        hits = 0
        errors: list[str] = []
        for _ in range(args.runs):
            res = await runner.run(q, skills)
            if res.error:  # a run that did not happen says nothing about triggering
                errors.append(res.error)
                continue
            hits += bool(res.skills and res.skills[0] == skill) or any(
                c["tool"] == "Skill" and str((c.get("input") or {}).get("skill", "")).endswith(skill)
                for c in res.tools[:1])
        should = f"should {'' if want else 'not '}trigger"
        if errors:
            reason = f"{len(errors)}/{args.runs} run(s) failed: " + agent_error(AgentResult(error=errors[0]))
            errored.append({"query": q, "should_trigger": want, "error": errors[0], "failed_runs": len(errors)})
            _record(args, CaseVerdict(str(index), "ERROR", reason, {"query": q, "trigger_rate": None}))
            print(f"ERROR {should}: {q[:80]}\n      {reason}")
            continue
        rate = hits / args.runs
        rows.append((q, want, rate))
        _record(args, CaseVerdict(str(index), "PASS" if (rate >= 0.5) == want else "FAIL",
                                  f"triggered {hits}/{args.runs} ({should})", {"query": q, "trigger_rate": rate}))
        verdict = "ok" if (rate >= 0.5) == want else "WRONG"
        print(f"{verdict:5} {should}, triggered {hits}/{args.runs}: {q[:80]}")
    metrics = trigger_metrics(rows)
    result = {"skill": name or skill, "runs": args.runs, "threshold": 0.5, **metrics,
              "queries": [{"query": q, "should_trigger": w, "trigger_rate": r} for q, w, r in rows],
              "errors": errored}
    print(f"precision {metrics['precision']}, recall {metrics['recall']}, accuracy {metrics['accuracy']}"
          + (f" over {len(rows)} of {len(rows) + len(errored)} queries; {len(errored)} ERROR (agent failed, not "
             "counted)" if errored else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
    if errored:
        return EXIT_FAILED
    return EXIT_OK if metrics["false_positives"] + metrics["false_negatives"] == 0 else EXIT_FAILED


# ============================================================================================ entry point


def rescore(file: Path, args: argparse.Namespace) -> int:
    """skilljack's `score` and `report`: recompute the summary and thresholds of a results JSON, print (or
    write with ``--output``) its markdown report, exit 1 when thresholds fail."""
    cfg = load_config(Path(args.config) if args.config else Path.cwd() / "eval.config.yaml")
    report = json.loads(file.read_text(encoding="utf-8"))
    scores = [t.get("score") or {} for t in report.get("tasks", []) if isinstance(t, dict)]
    n = len(scores) or 1

    def mean(key: str) -> float:
        return round(sum(float(s.get(key) or 0) for s in scores) / n, 4)

    summary = dict(report.get("summary") or {})
    summary.update(totalTasks=len(scores), discoveryAccuracy=mean("discovery"), avgAdherence=mean("adherence"),
                   avgOutputQuality=mean("outputQuality"), avgWeightedScore=mean("weightedScore"))
    disc = args.threshold_discovery if args.threshold_discovery is not None else cfg.discovery_rate
    score = args.threshold_score if args.threshold_score is not None else cfg.avg_score
    reasons = []
    if summary["discoveryAccuracy"] < disc:
        reasons.append(f"Discovery rate {summary['discoveryAccuracy'] * 100:.1f}% below threshold {disc * 100:g}%")
    if summary["avgAdherence"] < score:
        reasons.append(f"Avg adherence {summary['avgAdherence']:.2f} below threshold {score:g}")
    if summary["avgOutputQuality"] < score:
        reasons.append(f"Avg output quality {summary['avgOutputQuality']:.2f} below threshold {score:g}")
    errored = [t for t in report.get("tasks", []) if isinstance(t, dict) and _entry_errored(t)]
    if errored:  # runs that did not happen (or were not judged) are never re-scored into a pass
        summary["erroredRuns"] = len(errored)
        reasons.append(f"{len(errored)} task(s) with failed runs (agent or judge error), first: "
                       f"{(errored[0].get('task') or {}).get('id')}")
    report.update(summary=summary, passed=not reasons, failureReasons=reasons)
    md = markdown_report(report, cfg.report_truncation)
    if args.output:
        Path(args.output).write_text(md, encoding="utf-8")
    else:
        print(md, end="")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    if args.github_summary and os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as fh:
            fh.write(md + "\n")
    return EXIT_OK if report["passed"] else EXIT_FAILED


def _entry_errored(entry: dict[str, Any]) -> bool:
    """Whether any run of a results-JSON task entry failed to run or to be judged."""
    runs = entry.get("runDetails") or [{"result": entry.get("result"), "score": entry.get("score")}]
    for run in runs:
        if not isinstance(run, dict):
            continue
        judge = (run.get("score") or {}).get("judge")
        if (run.get("result") or {}).get("isError") or (isinstance(judge, dict) and judge.get("error")):
            return True
    return False


def create_eval(skill_dir: Path, count: int) -> str:
    """skilljack's `create-eval`: a tasks.yaml for a skill with ``max(1, n-1)`` positive tasks and one
    false-positive task; prompts are left for the author (they must not name the skill)."""
    from evalens.core.formats._shared import frontmatter_name

    md = next((skill_dir / n for n in ("SKILL.md", "skill.md") if (skill_dir / n).is_file()), None)
    if md is None:
        raise UsageError(f"no SKILL.md in {skill_dir}")
    name = frontmatter_name(md) or skill_dir.name
    prefix = (re.sub(r"[^a-z]", "", name.lower()) or "sk")[:2]
    lines = [f"skill: {name}", 'version: "1.0"', "", "defaults:", f"  expected_skill_load: {name}", "  criteria:",
             "    discovery: { weight: 0.3 }", "    adherence: { weight: 0.4 }", "    output: { weight: 0.3 }", "",
             "tasks:"]
    for i in range(1, max(1, count - 1) + 1):
        lines += [f"  - id: {prefix}-{i:03d}",
                  '    prompt: "TODO: a request this skill should handle, in the user\'s words (do not name it)"',
                  "    deterministic:", "      expect_skill_activation: true",
                  "      # expect_marker: A_MARKER_THE_SKILL_PRINTS", "    golden_checklist:",
                  '      - "TODO: a fact the output must contain"', ""]
    lines += [f"  - id: {prefix}-fp-001", '    prompt: "TODO: a near-miss request this skill must not handle"',
              "    expected_skill_load: none", "    deterministic:", "      expect_skill_activation: false",
              "    golden_checklist:", f'      - "Did not load the {name} skill"']
    return "\n".join(lines) + "\n"


async def run_file(file: Path, *, cases: list[str] | None = None, runs: int = 1, no_judge: bool = False,
                   engine: str = "claude-code", model: str | None = None, judge_model: str | None = None,
                   timeout_ms: float | None = None, output_dir: Path | None = None,
                   config: Path | None = None) -> list[CaseVerdict]:
    """Run the units of one eval file programmatically (for lenses and the Test Explorer); raises
    :class:`UsageError` when the file cannot run. Reports and grading files are written as by the CLI.

    ``config`` is the skilljack ``eval.config.yaml``; by default the one beside the file (an editor's working
    directory says nothing about the suite), then the working directory's."""
    from evalens.core.validate import validate_file

    checked = validate_file(file)
    fmt = checked.format.id if checked.format else None
    args = _parser().parse_args([str(file), "--runs", str(runs), "--engine", engine])
    args.tasks = ",".join(cases) if cases else None
    args.no_judge, args.model, args.judge_model = no_judge, model, judge_model
    args.timeout, args.output_dir = timeout_ms, str(output_dir) if output_dir else None
    beside = file.parent / "eval.config.yaml"
    if config is not None:
        args.config = str(config)
    elif beside.is_file():
        args.config = str(beside)
    args.verdicts = []
    runner = _RUNNERS.get(fmt or "")
    if runner is None:
        raise UsageError(f"{file} is not a runnable eval file (detected: {fmt or 'unknown'})")
    await runner(file, fmt, args)
    return args.verdicts


async def _run_creator(file: Path, fmt: str, args: argparse.Namespace) -> int:
    return await run_skill_creator(file, args)


async def _run_writing(file: Path, fmt: str, args: argparse.Namespace) -> int:
    return await run_writing_skills(file, args)


async def _run_trigger(file: Path, fmt: str, args: argparse.Namespace) -> int:
    return await run_trigger(file, args)


_RUNNERS = {"skilljack-tasks": run_skilljack, "skilljack-task": run_skilljack, "skill-creator-evals": _run_creator,
            "writing-skills-evals": _run_writing, "trigger-evals": _run_trigger, "trigger-evals-variant": _run_trigger}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalens run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path, nargs="?",
                        help="tasks.yaml, task.md, evals.json, a trigger eval set, or a skilljack results JSON "
                             "(re-scored and reported)")
    parser.add_argument("--create-eval", metavar="SKILL_DIR", help="write a tasks.yaml template for a skill")
    parser.add_argument("-n", "--count", type=int, default=10, help="tasks in the --create-eval template")
    parser.add_argument("-o", "--output", help="--create-eval / results report: write here instead of stdout")
    parser.add_argument("--engine", default="claude-code", choices=["claude-code", "codex"])
    parser.add_argument("--model", help="agent model (default: eval.config.yaml models.agent for claude-code)")
    parser.add_argument("--judge-model", help="judge model (default: eval.config.yaml models.judge, haiku)")
    parser.add_argument("--config", help="eval.config.yaml (default: ./eval.config.yaml)")
    parser.add_argument("--runs", type=int, default=3, help="runs per task (default 3)")
    parser.add_argument("--tasks", help="comma-separated task / case ids")
    parser.add_argument("--timeout", type=float, help="per-run timeout in milliseconds")
    parser.add_argument("--judge-timeout", type=float, metavar="SECONDS",
                        help="total seconds the judge may take per run (default: $EVALENS_JUDGE_TIMEOUT, else half "
                             "the run timeout, 10-60 s); then the run is ERROR")
    parser.add_argument("--output-dir", help="where results go (default: output.dir, ./results)")
    parser.add_argument("--json", help="also write the JSON results to this path")
    parser.add_argument("--skills-dir", help="skills folder (default: skills/ next to tasks.yaml)")
    parser.add_argument("--skill", help="skill directory for trigger sets (default: inferred)")
    parser.add_argument("--threshold-discovery", type=float)
    parser.add_argument("--threshold-score", type=float)
    parser.add_argument("--no-judge", action="store_true")
    parser.add_argument("--no-deterministic", action="store_true")
    parser.add_argument("--github-summary", action="store_true")
    parser.add_argument("--keep-sandbox", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="print what would run; start no agent")
    return parser


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    from evalens.core.validate import validate_file

    if args.create_eval:
        try:
            text = create_eval(Path(args.create_eval), args.count)
        except UsageError as exc:
            print(f"evalens run: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if args.output:
            Path(args.output).parent.mkdir(parents=True, exist_ok=True)
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            print(text, end="")
        return EXIT_OK
    file = args.file
    if file is None:
        parser.error("FILE is required (or --create-eval SKILL_DIR)")
    if not file.is_file():
        print(f"evalens run: {file}: no such file", file=sys.stderr)
        return EXIT_USAGE
    checked = validate_file(file)
    errors = [p for p in checked.problems if p.severity == 1]
    for p in errors:
        print(f"{file}:{p.span.start_line + 1}:{p.span.start_col + 1}: error: {p.message} [{p.code}]", file=sys.stderr)
    fmt = checked.format.id if checked.format else None
    if fmt == "skilljack-results":
        return rescore(file, args)
    if fmt not in _RUNNERS:
        print(f"evalens run: {file} is not a runnable eval file (detected: {fmt or 'unknown'}); UAAPS cases run "
              "with `evalens eval`", file=sys.stderr)
        return EXIT_USAGE
    if errors:
        print(f"evalens run: fix the {len(errors)} error(s) above first", file=sys.stderr)
        return EXIT_USAGE
    if args.no_judge and fmt in ("skill-creator-evals", "writing-skills-evals"):
        print("evalens run: grading evals.json needs the judge; --no-judge is not available here", file=sys.stderr)
        return EXIT_USAGE
    from evalens.runner.interrupts import run_interruptibly

    try:
        code, signum = run_interruptibly(_RUNNERS[fmt](file, fmt, args), "evalens run")
    except UsageError as exc:
        print(f"evalens run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if signum is not None:  # the agents are dead and their sandboxes gone
        print("evalens run: interrupted", file=sys.stderr)
        return 128 + signum
    return code
