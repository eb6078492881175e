"""skilljack's files: ``eval.config.yaml``, the results JSON and its markdown report (formats.md §3.5, §3.9),
``score``/``report`` (re-scoring a results JSON), ``create-eval``, and reading past results back.

Results JSON written by skilljack itself carry only English detail lines; reading those back is the one place
that maps a detail line to the check it names (:func:`detail_path`). evalens's own runs are restored from the
evalens report instead, whose checks carry their location.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalens.core.formats._shared import frontmatter_name
from evalens.core.units import read_doc
from evalens.runner.api_types import RunRequest
from evalens.runner.git_repo import repository_of
from evalens.runner.results import UnitCheck, UnitResult
from evalens.runner.session import AgentResult, UsageError, agent_error
from evalens.runner.verdicts import check_status, scored_verdict

if TYPE_CHECKING:
    from evalens.runner.suites.skilljack import Score, SjTask

SNIPPET = 600


def _snippet(text: Any) -> str | None:
    if not isinstance(text, str) or not text.strip():
        return None
    return text if len(text) <= SNIPPET else text[:SNIPPET] + "…"


@dataclass
class SjConfig:
    """eval.config.yaml with defaults (formats.md §3.5); every value is honoured."""

    agent_model: str | None = None
    judge_model: str = "haiku"
    weights: dict[str, float] = field(
        default_factory=lambda: {"discovery": 0.3, "adherence": 0.4, "output": 0.3}
    )
    discovery_rate: float = 0.8
    avg_score: float = 4.0
    timeout_ms: int = 300000
    output_dir: str = "./results"
    judge_truncation: int = 5000
    report_truncation: int = 2000
    exit_on_failure: bool = True
    github_summary: bool = False


def load_config(path: Path | None) -> SjConfig:
    """An ``eval.config.yaml`` as core parses it (merge keys and anchors as validation sees them). A missing
    file gives the defaults; one that does not parse raises ``ValueError`` naming it (as skilljack's later
    versions do, formats.md §3.5)."""
    cfg = SjConfig()
    if path is None or not path.is_file():
        return cfg
    try:
        data = read_doc(path, "skilljack-config").data or {}
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None

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
    for attr, keys in (
        ("discovery_rate", ("thresholds", "discovery_rate")),
        ("avg_score", ("thresholds", "avg_score")),
        ("timeout_ms", ("runner", "timeout_ms")),
        ("output_dir", ("output", "dir")),
        ("judge_truncation", ("output", "judge_truncation")),
        ("report_truncation", ("output", "report_truncation")),
        ("exit_on_failure", ("ci", "exit_on_failure")),
        ("github_summary", ("ci", "github_summary")),
    ):
        value = get(*keys)
        if value is not None:
            setattr(cfg, attr, value)
    return cfg


def below_thresholds(
    discovery: float, adherence: float, output: float, judged: bool, thresholds: tuple[float, float]
) -> str | None:
    """skilljack's score rule: which threshold a task's mean scores miss (the judge's only when it judged)."""
    if discovery < thresholds[0]:
        return f"discovery {discovery:.0%} below {thresholds[0]:.0%}"
    if judged and min(adherence, output) < thresholds[1]:
        return f"adherence {adherence:.1f} / output {output:.1f} below {thresholds[1]:g}"
    return None


def run_error(res: AgentResult, score: Score) -> str | None:
    """Why a run produced no gradable result (agent or judge failure), else None."""
    if res.error:
        return agent_error(res)
    if isinstance(score.judge, dict) and score.judge.get("error"):
        return f"judge error: {score.judge['error']}"
    return None


def build_results(
    skill: str,
    file: Path,
    tasks: list[SjTask],
    outcomes: list[Any],
    cfg: SjConfig,
    request: RunRequest,
    discovery_threshold: float,
    score_threshold: float,
) -> dict[str, Any]:
    """The results JSON in skilljack's shape (formats.md §3.9), with runDetails per run."""
    task_entries = []
    for task, runs, mean, rep in outcomes:
        res = runs[rep][0]

        def result_json(r: AgentResult, task: SjTask = task) -> dict[str, Any]:
            return {
                "taskId": task.id,
                "prompt": task.prompt,
                "output": r.output,
                "durationMs": r.duration_ms,
                "numTurns": r.turns,
                "costUsd": r.cost_usd,
                "skillLoads": r.skills,
                "toolCalls": [{"tool": c["tool"], "input": c.get("input")} for c in r.tools],
                "isError": r.error is not None,
                "errorMessage": r.error or "",
            }

        def score_json(s: Score, task: SjTask = task) -> dict[str, Any]:
            return {
                "taskId": task.id,
                "deterministic": s.deterministic,
                "judge": s.judge,
                "discovery": s.discovery,
                "adherence": s.adherence,
                "outputQuality": s.output_quality,
                "weightedScore": s.weighted,
                "failureCategory": s.category,
                "reasoning": s.reasoning,
            }

        task_entries.append(
            {
                "task": {
                    "id": task.id,
                    "prompt": task.prompt,
                    "expectedSkillLoad": task.expected,
                    "criteria": [{"dimension": d, **c} for d, c in task.criteria.items()],
                    "goldenChecklist": task.checklist,
                    "deterministic": {_camel(k): v for k, v in (task.det or {}).items()} or None,
                },
                "result": result_json(res),
                "score": score_json(mean),
                "runDetails": [{"result": result_json(r), "score": score_json(s)} for r, s in runs],
            }
        )
    means = [m for _, _, m, _ in outcomes]
    n = len(means) or 1
    summary = {
        "totalTasks": len(means),
        "numRuns": sum(len(r) for _, r, _, _ in outcomes),
        "discoveryAccuracy": round(sum(m.discovery for m in means) / n, 4),
        "avgAdherence": round(sum(m.adherence for m in means) / n, 4),
        "avgOutputQuality": round(sum(m.output_quality for m in means) / n, 4),
        "avgWeightedScore": round(sum(m.weighted for m in means) / n, 4),
        "totalDurationMs": sum(r.duration_ms for _, runs, _, _ in outcomes for r, _ in runs),
        "totalCostUsd": round(sum(r.cost_usd for _, runs, _, _ in outcomes for r, _ in runs), 6),
    }
    reasons = []
    if summary["discoveryAccuracy"] < discovery_threshold:
        reasons.append(
            f"Discovery rate {summary['discoveryAccuracy'] * 100:.1f}% below threshold "
            f"{discovery_threshold * 100:g}%"
        )
    if summary["avgAdherence"] < score_threshold:
        reasons.append(f"Avg adherence {summary['avgAdherence']:.2f} below threshold {score_threshold:g}")
    if summary["avgOutputQuality"] < score_threshold:
        reasons.append(
            f"Avg output quality {summary['avgOutputQuality']:.2f} below threshold {score_threshold:g}"
        )
    errored = [(task.id, why) for task, runs, _, _ in outcomes for r, sc in runs if (why := run_error(r, sc))]
    if errored:
        summary["erroredRuns"] = len(errored)
        reasons.append(
            f"{len(errored)} run(s) failed (agent or judge error), first: {errored[0][0]}: "
            f"{errored[0][1][:200]}"
        )
    cats = Counter(m.category for m in means)
    return {
        "skillName": skill,
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "passed": not reasons,
        "failureReasons": reasons,
        "metadata": {
            k: v
            for k, v in (
                ("skillPath", str(file)),
                ("agentModel", request.agent_model or cfg.agent_model),
                ("judgeModel", None if request.no_judge else request.judge or cfg.judge_model),
                ("runnerType", request.engine),
            )
            if v is not None
        },
        "summary": summary,
        "failureBreakdown": [
            {"category": c, "count": k, "percentage": round(100 * k / n, 1)} for c, k in cats.most_common()
        ],
        "tasks": task_entries,
    }


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p.title() for p in rest)


def markdown_report(report: dict[str, Any], truncation: int) -> str:
    s = report["summary"]
    lines = [
        f"# Skill evaluation: {report['skillName']}",
        "",
        f"**{'PASSED' if report['passed'] else 'FAILED'}** — {s['totalTasks']} task(s), {s['numRuns']} run(s)",
        "",
        "| Metric | Value |",
        "|---|---|",
        f"| Discovery accuracy | {s['discoveryAccuracy']:.0%} |",
        f"| Avg adherence | {s['avgAdherence']:.2f} |",
        f"| Avg output quality | {s['avgOutputQuality']:.2f} |",
        f"| Avg weighted score | {s['avgWeightedScore']:.2f} |",
        f"| Duration | {s['totalDurationMs'] / 1000:.1f} s |",
        f"| Cost | ${s['totalCostUsd']:.4f} |",
        "",
    ]
    if report["failureReasons"]:
        lines += ["## Failure reasons", "", *[f"- {r}" for r in report["failureReasons"]], ""]
    lines += [
        "## Tasks",
        "",
        "| Task | Discovery | Adherence | Output | Weighted | Category |",
        "|---|---|---|---|---|---|",
    ]
    for t in report["tasks"]:
        sc = t["score"]
        lines.append(
            f"| {t['task']['id']} | {sc['discovery']:.2f} | {sc['adherence']:.1f} | {sc['outputQuality']:.1f} "
            f"| {sc['weightedScore']:.2f} | {sc['failureCategory']} |"
        )
    for t in report["tasks"]:
        out = t["result"]["output"] or "(no output)"
        out = out if len(out) <= truncation else out[:truncation] + "…"
        lines += [
            "",
            f"### {t['task']['id']}",
            "",
            f"Skills loaded: {', '.join(t['result']['skillLoads']) or 'none'}",
            "",
            "```",
            out,
            "```",
            "",
            t["score"]["reasoning"],
        ]
    return "\n".join(lines) + "\n"


def rescore(
    file: Path,
    *,
    config: Path | None,
    threshold_discovery: float | None,
    threshold_score: float | None,
    json_output: Path | None = None,
    github_summary: bool = False,
) -> tuple[dict[str, Any], str]:
    """skilljack's `score` and `report`: recompute the summary and thresholds of a results JSON; returns the
    report (``passed`` says whether the thresholds held) and its markdown."""
    cfg = load_config(config if config else Path.cwd() / "eval.config.yaml")
    report = json.loads(file.read_text(encoding="utf-8"))
    scores = [t.get("score") or {} for t in report.get("tasks", []) if isinstance(t, dict)]
    n = len(scores) or 1

    def mean(key: str) -> float:
        return round(sum(float(s.get(key) or 0) for s in scores) / n, 4)

    summary = dict(report.get("summary") or {})
    summary.update(
        totalTasks=len(scores),
        discoveryAccuracy=mean("discovery"),
        avgAdherence=mean("adherence"),
        avgOutputQuality=mean("outputQuality"),
        avgWeightedScore=mean("weightedScore"),
    )
    disc = threshold_discovery if threshold_discovery is not None else cfg.discovery_rate
    score = threshold_score if threshold_score is not None else cfg.avg_score
    reasons = []
    if summary["discoveryAccuracy"] < disc:
        reasons.append(
            f"Discovery rate {summary['discoveryAccuracy'] * 100:.1f}% below threshold {disc * 100:g}%"
        )
    if summary["avgAdherence"] < score:
        reasons.append(f"Avg adherence {summary['avgAdherence']:.2f} below threshold {score:g}")
    if summary["avgOutputQuality"] < score:
        reasons.append(f"Avg output quality {summary['avgOutputQuality']:.2f} below threshold {score:g}")
    errored = [t for t in report.get("tasks", []) if isinstance(t, dict) and _entry_errored(t)]
    if errored:  # runs that did not happen (or were not judged) are never re-scored into a pass
        summary["erroredRuns"] = len(errored)
        reasons.append(
            f"{len(errored)} task(s) with failed runs (agent or judge error), first: "
            f"{(errored[0].get('task') or {}).get('id')}"
        )
    report.update(summary=summary, passed=not reasons, failureReasons=reasons)
    md = markdown_report(report, cfg.report_truncation)
    if json_output:
        json_output.write_text(json.dumps(report, indent=2), encoding="utf-8")
    if github_summary and os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as fh:
            fh.write(md + "\n")
    return report, md


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
    md = next((skill_dir / n for n in ("SKILL.md", "skill.md") if (skill_dir / n).is_file()), None)
    if md is None:
        raise UsageError(f"no SKILL.md in {skill_dir}")
    name = frontmatter_name(md) or skill_dir.name
    prefix = (re.sub(r"[^a-z]", "", name.lower()) or "sk")[:2]
    lines = [
        f"skill: {name}",
        'version: "1.0"',
        "",
        "defaults:",
        f"  expected_skill_load: {name}",
        "  criteria:",
        "    discovery: { weight: 0.3 }",
        "    adherence: { weight: 0.4 }",
        "    output: { weight: 0.3 }",
        "",
        "tasks:",
    ]
    for i in range(1, max(1, count - 1) + 1):
        lines += [
            f"  - id: {prefix}-{i:03d}",
            '    prompt: "TODO: a request this skill should handle, in the user\'s words (do not name it)"',
            "    deterministic:",
            "      expect_skill_activation: true",
            "      # expect_marker: A_MARKER_THE_SKILL_PRINTS",
            "    golden_checklist:",
            '      - "TODO: a fact the output must contain"',
            "",
        ]
    lines += [
        f"  - id: {prefix}-fp-001",
        '    prompt: "TODO: a near-miss request this skill must not handle"',
        "    expected_skill_load: none",
        "    deterministic:",
        "      expect_skill_activation: false",
        "    golden_checklist:",
        f'      - "Did not load the {name} skill"',
    ]
    return "\n".join(lines) + "\n"


def skilljack_results_dir(file: Path) -> Path:
    """Where lens runs of a skilljack suite write (and where restoring looks): ``output.dir`` of the
    ``eval.config.yaml`` beside the suite, relative to it, else ``results/`` beside the suite (never the
    server's working directory, which the CLI's ``./results`` default would mean)."""
    suite = file.parent.parent if file.name == "task.md" else file.parent
    for config in (suite / "eval.config.yaml", suite / "eval.config.yml"):
        if config.is_file():
            try:
                out = Path(load_config(config).output_dir)
            except Exception:  # noqa: BLE001 - a broken config falls back to the default folder
                break
            out = out if out.is_absolute() else (suite / out)

            top = (repository_of(suite) or suite).resolve()
            if out.resolve() == top or top in out.resolve().parents:
                return out
            break  # the eval file may not choose a folder outside its repository (#42): the default folder
    return suite / "results"


def skilljack_config(file: Path) -> Path | None:
    suite = file.parent.parent if file.name == "task.md" else file.parent
    return next((c for c in (suite / "eval.config.yaml", suite / "eval.config.yml") if c.is_file()), None)


def thresholds_for(file: Path) -> tuple[float, float]:
    try:
        cfg = load_config(skilljack_config(file))
        return float(cfg.discovery_rate), float(cfg.avg_score)
    except Exception:  # noqa: BLE001
        return 0.8, 4.0


_FAILED_DETAIL = (
    "Missing",
    "Unexpected",
    "Wrong skill",
    "Expected skill activation but",
    "Forbidden tools were",
    "Contains forbidden",
    "Task errored",
    "File missing",
)


def _failed_detail(detail: str) -> bool:
    """Whether one of skilljack's deterministic detail lines reports a failure (they carry no status)."""
    return (
        detail.startswith(_FAILED_DETAIL)
        or " not found: " in detail
        or detail.endswith(("did not match", "(invalid regex)", "(outside working directory)"))
        or detail.startswith("javascript failed")
    )


_DETAIL_KEYS = (
    ("Marker not found", "marker"),
    ("Missing expected tool calls", "tool_calls"),
    ("Forbidden tools were called", "no_tool_calls"),
    ("Missing: ", "contains"),
    ("Contains forbidden: ", "not_contains"),
    ("File missing: ", "file_exists"),
    ("javascript failed", "javascript"),
)


def detail_path(detail: str, raw: Any, task_md: bool) -> tuple | None:
    """Where a failed deterministic check is written in the task (relative to it), from skilljack's detail line:
    ``deterministic.expect_<key>[i]`` in a tasks.yaml, ``checks.<key>[i]`` in a task.md."""
    if not isinstance(raw, dict):
        return None
    if detail.startswith(("Expected skill activation but", "Wrong skill activated")):
        return ("expected_skill",) if task_md else ("expected_skill_load",)
    if detail.startswith("Unexpected skill activation"):
        return ("expect_skill_invocation",) if task_md else ("expected_skill_load",)
    key = next((k for prefix, k in _DETAIL_KEYS if detail.startswith(prefix)), None)
    value = None
    if key is None and detail.startswith("/") and detail.endswith(("did not match", "(invalid regex)")):
        key, value = "regex", detail[1 : detail.rindex("/")]
    elif key is None and detail.endswith("(outside working directory)"):
        key, value = "file_exists", detail[: -len(" (outside working directory)")]
    if key is None:
        return None
    if key in ("contains", "not_contains"):
        value = detail.split(": ", 1)[1].strip('"')
    elif key == "file_exists" and value is None:
        value = detail.split(": ", 1)[1]
    if task_md:
        base: tuple = ("checks", "files_exist" if key == "file_exists" else key)
        block = raw.get("checks")
    else:
        base = ("deterministic", f"expect_{key}")
        block = raw.get("deterministic")
    items = block.get(base[1]) if isinstance(block, dict) else None
    if value is not None and isinstance(items, list):
        index = next((i for i, v in enumerate(items) if str(v) == value), None)
        return (*base, index) if index is not None else base
    return base


def _sj_run_error(run: dict[str, Any]) -> str | None:
    """Why one run of a skilljack results entry produced no gradable result (agent or judge failure)."""
    result = run.get("result") or {}
    if result.get("isError"):
        message = str(result.get("errorMessage") or "error")
        return message if message.startswith("agent ") else f"agent error: {message}"
    judge = (run.get("score") or {}).get("judge")
    if isinstance(judge, dict) and judge.get("error"):
        return f"judge error: {judge['error']}"
    return None


def skilljack_unit(
    entry: dict[str, Any],
    report: dict[str, Any],
    thresholds: tuple[float, float],
    raw: Any = None,
    task_md: bool = False,
    base: tuple[str | int, ...] = (),
) -> UnitResult:
    """A task entry of a skilljack results JSON written by skilljack itself or an older evalens (newer runs
    are restored from the evalens report, where check locations are data): its detail lines are all there is."""
    task = entry.get("task") or {}
    score = entry.get("score") or {}
    result = entry.get("result") or {}
    runs = entry.get("runDetails") or [{"result": result, "score": score}]
    meta = report.get("metadata") or {}
    det = score.get("deterministic") if isinstance(score.get("deterministic"), dict) else None
    judge = score.get("judge") if isinstance(score.get("judge"), dict) else None
    discovery, adherence, output = (
        float(score.get(k) or 0) for k in ("discovery", "adherence", "outputQuality")
    )
    failed_det = next(
        (
            r["score"]["deterministic"]
            for r in runs
            if isinstance(r, dict)
            and isinstance((r.get("score") or {}).get("deterministic"), dict)
            and not r["score"]["deterministic"].get("passed")
        ),
        None,
    )
    shown = failed_det or det  # the run that failed says why; the aggregate may hold another run's checks
    checks = []
    for d in (shown.get("details") or []) if shown else []:
        failed = _failed_detail(str(d))
        where = detail_path(str(d), raw, task_md) if failed else None
        checks.append(
            UnitCheck(
                kind="deterministic",
                value=str(d),
                status=check_status(not failed),
                detail=str(d),
                location=[*base, *where] if where is not None else None,
            )
        )
    errors = [_sj_run_error(r) for r in runs if isinstance(r, dict) and _sj_run_error(r)]
    earned = next(
        (
            r["score"]["deterministic"]
            for r in runs
            if isinstance(r, dict)
            and not _sj_run_error(r)
            and isinstance((r.get("score") or {}).get("deterministic"), dict)
            and not r["score"]["deterministic"].get("passed")
        ),
        None,
    )
    # a run that did run and failed its checks earns FAIL; then any run that did not run (or was not judged)
    # makes the task ERROR; a failed aggregate without a run to blame still fails (the one rule: verdicts.py)
    failing = earned if earned is not None else None if errors else failed_det
    verdict, reason = scored_verdict(
        failed_check="; ".join(str(d) for d in failing.get("details") or []) if failing is not None else None,
        run_error=str(errors[0]) + (f" ({len(errors)} of {len(runs)} runs failed)" if len(runs) > 1 else "")
        if errors
        else None,
        below=below_thresholds(discovery, adherence, output, judge is not None, thresholds),
        reason=str(score.get("reasoning") or ""),
    )
    return UnitResult(
        name=str(task.get("id")),
        format="skilljack-task" if task_md else "skilljack-tasks",
        location=list(base),
        verdict=verdict,
        reason=reason,
        duration_seconds=round(
            sum(float((r.get("result") or {}).get("durationMs") or 0) for r in runs if isinstance(r, dict))
            / 1000,
            3,
        ),
        checks=checks,
        judge_verdict=(
            f"discovery {discovery:g} · adherence {adherence:.1f} · output {output:.1f}"
            if judge is not None
            else None
        ),
        judge_reason=str(judge.get("reasoning") or "") if judge else None,
        judge_model=meta.get("judgeModel") if judge else None,
        engine=meta.get("runnerType"),
        agent_model=meta.get("agentModel"),
        output_snippet=_snippet(result.get("output")),
        error=reason if verdict == "ERROR" else None,
        details={"skills": result.get("skillLoads") or [], "category": score.get("failureCategory")},
    )


def raw_task(fmt: str, data: Any, task_id: str) -> tuple[Any, tuple[str | int, ...]]:
    """A task's own mapping and where it is: the tasks.yaml entry with that id, or a task.md's frontmatter."""
    if fmt == "skilljack-task":
        return data, ()
    tasks = data.get("tasks") if isinstance(data, dict) else None
    for i, t in enumerate(tasks if isinstance(tasks, list) else []):
        if isinstance(t, dict) and str(t.get("id")) == task_id:
            return t, ("tasks", i)
    return None, ()
