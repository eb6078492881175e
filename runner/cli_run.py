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
                 keep_sandbox: bool = False) -> None:
        from evalens.runner.api import BASE_ENV_ALLOW
        from evalens.runner.engines import EngineNotFound, UnsupportedEngine, get_engine
        from evalens.runner.judge import MissingKey, require_key
        from evalens.runner.sandbox import plan_sandbox

        try:
            self.engine = get_engine(engine)
            str(self.engine.binary)
        except (UnsupportedEngine, EngineNotFound) as exc:
            raise UsageError(str(exc)) from None
        try:
            require_key(self.engine.key_env, f"the {self.engine.name} agent")
        except MissingKey as exc:
            raise UsageError(str(exc)) from None
        provider_vars = {"anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"),
                         "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY")}[self.engine.default_provider]
        self.env = {k: os.environ[k] for k in (*BASE_ENV_ALLOW, *provider_vars) if k in os.environ}
        self.model = model
        self.timeout = timeout
        self.keep_sandbox = keep_sandbox
        self.plan = plan_sandbox(network, None)
        if self.plan.warning:
            print(self.plan.warning, file=sys.stderr)

    async def run(self, prompt: str, skills: dict[str, Path], files_base: Path | None = None,
                  files: list[str] | tuple[str, ...] = (), check=None) -> AgentResult:  # type: ignore[no-untyped-def]
        """Run ``prompt``; ``check(result)`` runs while the workspace still exists (file checks)."""
        from evalens.runner.sandbox import (
            copy_confined,
            create_sandbox,
            launch_agent,
            populate,
            remove_sandbox,
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
            skip = (".claude", ".agents", ".codex")
            result.workspace_files = sorted(
                p.relative_to(paths.workspace).as_posix() for p in paths.workspace.rglob("*")
                if p.is_file() and p.relative_to(paths.workspace).parts[0] not in skip)
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


# ============================================================================================ judge


def _judge_spec(model: str | None, engine_provider: str) -> Any:
    from evalens.runner.judge import MissingKey, require_key, resolve_judge

    spec = resolve_judge(MODEL_ALIASES.get(model or "", model), default_provider=engine_provider)
    try:
        require_key(spec.key_env, f"the {spec.provider} judge ({spec.model})")
    except MissingKey as exc:
        raise UsageError(str(exc) + " — or pass --no-judge") from None
    return spec


async def ask_json(spec: Any, system: str, user: str) -> dict[str, Any]:
    """One judge call whose reply must hold a JSON object (the first balanced one is taken); raises on failure."""
    from evalens.runner.judge import PROVIDER_BASE_URLS

    key = next((os.environ[k] for k in spec.key_env if os.environ.get(k)), None)
    base_url = os.environ.get(PROVIDER_BASE_URLS[spec.provider]) or None
    if spec.provider == "anthropic":
        import anthropic

        client = anthropic.AsyncAnthropic(api_key=key, base_url=base_url, max_retries=1, timeout=120)
        try:
            message = await client.messages.create(model=spec.model, max_tokens=2048, system=system,
                                                   messages=[{"role": "user", "content": user}])
        finally:
            await client.close()
        text = "".join(getattr(b, "text", "") for b in message.content)
    else:
        import openai

        oclient = openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=1, timeout=120)
        try:
            completion = await oclient.chat.completions.create(
                model=spec.model, response_format={"type": "json_object"},
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])
        finally:
            await oclient.close()
        text = completion.choices[0].message.content or ""
    return first_json_object(text)


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
    from evalens.runner.formats._shared import skills_in
    from evalens.runner.models.skilljack import DEFAULT_WEIGHT, DIMENSIONS

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
    from evalens.runner.documents import parse
    from evalens.runner.formats._shared import skills_in

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
    from evalens.runner.formats._shared import js_regex_error

    det = task.det or {}
    details: list[str] = []
    if res.error:
        return task.negative, ["Task errored — treating as no activation"], task.negative
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


async def judge_task(spec: Any, task: SjTask, res: AgentResult, truncation: int) -> dict[str, Any]:
    """Judge scores with the original's coercion; an unusable judge gives heuristic scores, never a pass."""
    try:
        reply = await ask_json(spec, JUDGE_SYSTEM, judge_prompt(task, res, truncation))
    except ValueError as exc:
        return {"discovery": 0, "adherence": 1, "output_quality": 1, "failure_category": "agent_error",
                "reasoning": f"Failed to parse judge response: {exc}"}
    except Exception as exc:  # SDK errors: heuristic scoring, as skilljack does
        loaded = task.expected in res.skills if not task.negative else not res.skills
        return {"discovery": int(loaded), "adherence": 3, "output_quality": 3, "failure_category": "agent_error",
                "reasoning": f"Heuristic scoring (judge error: {type(exc).__name__}: {str(exc)[:200]})"}
    category = reply.get("failure_category") if reply.get("failure_category") in FAILURE_CATEGORIES else "none"
    return {"discovery": _num(reply.get("discovery"), 0) or 0, "adherence": _num(reply.get("adherence"), 1) or 1,
            "output_quality": _num(reply.get("output_quality"), 1) or 1, "failure_category": category,
            "reasoning": str(reply.get("reasoning") or ""), "checklist_results": reply.get("checklist_results") or []}


def score_run(task: SjTask, res: AgentResult, det: tuple[bool, list[str], bool] | None,
              judged: dict[str, Any] | None, config_weights: dict[str, float]) -> Score:
    """Merge deterministic discovery with judge adherence/output (formats.md §3.8 'Merging')."""
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
    runner = AgentRunner(args.engine, agent_model, timeout_s, keep_sandbox=args.keep_sandbox)
    outcomes = []
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
            judged = await judge_task(judge_spec, task, res, cfg.judge_truncation) \
                if judge_spec is not None and task.criteria else None
            score = score_run(task, res, det, judged, cfg.weights)
            runs.append((res, score))
            print(f"{task.id} run {i + 1}/{args.runs}: discovery {score.discovery:g}, adherence {score.adherence:g}, "
                  f"output {score.output_quality:g}, weighted {score.weighted:.2f} ({score.category})"
                  + (f" — {res.error}" if res.error else ""), file=sys.stderr)
        mean, rep = aggregate([s for _, s in runs])
        outcomes.append((task, runs, mean, rep))
        _record(args, _task_verdict(task, runs, mean, discovery_threshold, score_threshold))
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
    print(f"results: {json_path}")
    exit_on_failure = cfg.exit_on_failure and str(os.environ.get("EVAL_EXIT_ON_FAILURE", "true")) != "false"
    return EXIT_FAILED if not report["passed"] and exit_on_failure else EXIT_OK


def _task_verdict(task: SjTask, runs: list[tuple[AgentResult, Score]], mean: Score, discovery_threshold: float,
                  score_threshold: float) -> CaseVerdict:
    """A task passes when discovery meets the threshold, every deterministic check passed and the judge's mean
    adherence and output quality meet the score threshold."""
    details = {"discovery": mean.discovery, "adherence": mean.adherence, "output_quality": mean.output_quality,
               "weighted": mean.weighted, "category": mean.category, "runs": len(runs)}
    if all(r.error for r, _ in runs):
        return CaseVerdict(task.id, "ERROR", runs[0][0].error or "error", details)
    failed_det = [s for _, s in runs if s.deterministic is not None and not s.deterministic["passed"]]
    if failed_det:
        return CaseVerdict(task.id, "FAIL", "; ".join(failed_det[0].deterministic["details"]), details)
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
                           scale: bool) -> list[dict[str, Any]]:
    """One judge call per run: each statement passed/failed (skill-creator) or scored 1-5 (writing-skills)."""
    how = ("score each 1-5 (1 not addressed, 2 partly with significant gaps, 3 met minimally, 4 met well, "
           "5 exemplary)" if scale else "decide whether each holds")
    shape = '{"index": n, "score": 1-5, "reasoning": "..."}' if scale else \
        '{"index": n, "passed": true|false, "evidence": "..."}'
    user = "\n".join([f"# Task given to the agent\n{prompt}", f"# Agent's final output\n{res.output[:8000] or '(none)'}",
                      f"# Files in the workspace afterwards\n{', '.join(res.workspace_files) or '(none)'}",
                      f"# Statements ({how})", *[f"{i + 1}. {s}" for i, s in enumerate(statements)],
                      f'Reply: {{"results": [{shape}, ...]}} with one entry per statement.'])
    try:
        reply = await ask_json(spec, GRADER_SYSTEM, user)
        items = {int(r.get("index", 0)): r for r in reply.get("results", []) if isinstance(r, dict)}
    except Exception as exc:  # an unusable grader fails every statement, with the reason
        items, why = {}, f"grader error: {type(exc).__name__}: {str(exc)[:200]}"
    else:
        why = "the grader gave no result for this statement"
    out = []
    for i, _ in enumerate(statements):
        r = items.get(i + 1, {})
        if scale:
            score = int(min(5, max(1, _num(r.get("score"), 1))))
            out.append({"score": score, "reasoning": str(r.get("reasoning") or why)})
        else:
            out.append({"passed": r.get("passed") is True, "evidence": str(r.get("evidence") or why)})
    return out


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
    runner = AgentRunner(args.engine, args.model, args.timeout / 1000 if args.timeout else 300,
                         keep_sandbox=args.keep_sandbox)
    failed = 0
    for case in cases:
        statements = [s if isinstance(s, str) else str(s.get("description") or s.get("name") or json.dumps(s))
                      for s in (case.get("assertions") or case.get("expectations") or [])]
        files = [f for f in case.get("files") or [] if isinstance(f, str)]
        for run in range(1, args.runs + 1):
            t0 = time.monotonic()
            res = await runner.run(str(case.get("prompt", "")), _installed(root, data.get("skill_name")), root, files)
            executor = time.monotonic() - t0
            graded = await grade_statements(spec, str(case.get("prompt", "")), res, statements, scale=False) \
                if not res.error else [{"passed": False, "evidence": f"agent error: {res.error}"} for _ in statements]
            grader = time.monotonic() - t0 - executor
            expectations = [{"text": s, **g} for s, g in zip(statements, graded, strict=True)]
            passed = sum(e["passed"] for e in expectations)
            grading = {"expectations": expectations,
                       "summary": {"passed": passed, "failed": len(expectations) - passed, "total": len(expectations),
                                   "pass_rate": round(passed / len(expectations), 2) if expectations else 0.0},
                       "execution_metrics": {"tool_calls": dict(Counter(c["tool"] for c in res.tools)),
                                             "total_tool_calls": len(res.tools), "errors_encountered": int(bool(res.error)),
                                             "output_chars": len(res.output)},
                       "timing": {"executor_duration_seconds": round(executor, 2),
                                  "grader_duration_seconds": round(grader, 2),
                                  "total_duration_seconds": round(executor + grader, 2)}}
            target = out_dir / f"eval-{case.get('id')}" / (f"run-{run}" if args.runs > 1 else "") / "grading.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(grading, indent=2), encoding="utf-8")
            failed += passed < len(expectations)
            _record(args, CaseVerdict(str(case.get("id")), "ERROR" if res.error else
                                      "PASS" if passed == len(expectations) else "FAIL",
                                      res.error or f"{passed}/{len(expectations)} assertions passed",
                                      {"grading": str(target), "run": run}))
            print(f"eval {case.get('id')} run {run}: {passed}/{len(expectations)} passed → {target}")
    return EXIT_FAILED if failed else EXIT_OK


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
    runner = AgentRunner(args.engine, args.model, args.timeout / 1000 if args.timeout else 300,
                         keep_sandbox=args.keep_sandbox)
    na = {"passed": None, "details": "N/A - not assessed by evalens run"}
    failed = 0
    for case in cases:
        exps = [e for e in case.get("expectations") or [] if isinstance(e, dict)]
        for run in range(1, args.runs + 1):
            files = [f for f in case.get("files") or [] if isinstance(f, str)]
            res = await runner.run(str(case.get("prompt", "")), _installed(root, None), root / "evals", files)
            graded = await grade_statements(spec, str(case.get("prompt", "")), res,
                                            [f"{e.get('criterion')}: {e.get('description')}" for e in exps], scale=True) \
                if not res.error else [{"score": 1, "reasoning": f"agent error: {res.error}"} for _ in exps]
            results = [{"criterion": e.get("criterion"), "score": g["score"], "passed": g["score"] >= 3,
                        "reasoning": g["reasoning"]} for e, g in zip(exps, graded, strict=True)]
            required = [r for r, e in zip(results, exps, strict=True) if e.get("required") is True]
            mean = round(statistics.fmean(r["score"] for r in results), 1) if results else 1.0
            req_mean = round(statistics.fmean(r["score"] for r in required), 1) if required else mean
            overall = "pass" if all(r["passed"] for r in required) else "fail"
            grading = {"case_id": case.get("id"), "version": version, "run": run, "overall_score": mean,
                       "required_score": req_mean, "results": results, "overall": overall,
                       "convention_compliance": {k: dict(na) for k in ("frontmatter", "description_field",
                                                                       "token_efficiency", "progressive_disclosure",
                                                                       "type_alignment")},
                       "claims": [], "user_notes_summary": "", "eval_feedback": "",
                       "execution_metrics": {"total_tool_calls": len(res.tools), "output_chars": len(res.output)}}
            target = workspace / "grading" / f"{case.get('id')}_v{version}_run{run}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(grading, indent=2), encoding="utf-8")
            failed += overall == "fail"
            _record(args, CaseVerdict(str(case.get("id")), "ERROR" if res.error else overall.upper(),
                                      res.error or f"overall score {mean}", {"grading": str(target), "run": run}))
            print(f"{case.get('id')} run {run}: {overall} (score {mean}) → {target}")
    return EXIT_FAILED if failed else EXIT_OK


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
    runner = AgentRunner(args.engine, args.model, args.timeout / 1000 if args.timeout else 30,
                         keep_sandbox=args.keep_sandbox)
    rows = []
    for index, (q, want) in indexed:
        hits = 0
        for _ in range(args.runs):
            res = await runner.run(q, skills)
            hits += bool(res.skills and res.skills[0] == skill) or any(
                c["tool"] == "Skill" and str((c.get("input") or {}).get("skill", "")).endswith(skill)
                for c in res.tools[:1])
        rate = hits / args.runs
        rows.append((q, want, rate))
        _record(args, CaseVerdict(str(index), "PASS" if (rate >= 0.5) == want else "FAIL",
                                  f"triggered {hits}/{args.runs} (should {'' if want else 'not '}trigger)",
                                  {"query": q, "trigger_rate": rate}))
        verdict = "ok" if (rate >= 0.5) == want else "WRONG"
        print(f"{verdict:5} {'should' if want else 'should not'} trigger, triggered {hits}/{args.runs}: {q[:80]}")
    metrics = trigger_metrics(rows)
    result = {"skill": name or skill, "runs": args.runs, "threshold": 0.5, **metrics,
              "queries": [{"query": q, "should_trigger": w, "trigger_rate": r} for q, w, r in rows]}
    print(f"precision {metrics['precision']}, recall {metrics['recall']}, accuracy {metrics['accuracy']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
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


def create_eval(skill_dir: Path, count: int) -> str:
    """skilljack's `create-eval`: a tasks.yaml for a skill with ``max(1, n-1)`` positive tasks and one
    false-positive task; prompts are left for the author (they must not name the skill)."""
    from evalens.runner.formats._shared import frontmatter_name

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
    from evalens.runner.validate import validate_file

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
    from evalens.runner.validate import validate_file

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
    try:
        return asyncio.run(_RUNNERS[fmt](file, fmt, args))
    except UsageError as exc:
        print(f"evalens run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("evalens run: interrupted", file=sys.stderr)
        return 130
