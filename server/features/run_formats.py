"""Runs of the formats ``evalens run FILE`` handles (skilljack, skill-creator, writing-skills, trigger sets).

One unit runs through ``runner.cli_run.run_file(file, cases=[name])``; its :class:`CaseVerdict` and the result
file the run wrote (skilljack results JSON, ``grading.json``) become a :class:`UnitResult`, which has the shape
``run_present`` reads, so these verdicts land in the same lens, diagnostic, hover and notification paths as
UAAPS cases. The same readers restore the last verdicts from those files when a document opens.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("evalens.server.run")

CLI_FORMATS = {"skilljack-tasks", "skilljack-task", "skill-creator-evals", "writing-skills-evals", "trigger-evals",
               "trigger-evals-variant"}
ALL = "*"  # the unit that runs a whole file (a tasks.yaml, a trigger set)
MAX_FILES = 30  # result files read per eval file when restoring
SNIPPET = 600


@dataclass(slots=True)
class UnitCheck:
    """One graded statement or check; ``path`` is where it is written, relative to the unit."""

    kind: str
    value: str
    status: str  # PASS | FAIL
    detail: str = ""
    path: tuple | None = None


@dataclass(slots=True)
class UnitResult:
    """A unit's outcome with the attributes ``run_present`` reads from a UAAPS ``CaseResult``."""

    name: str
    verdict: str
    reason: str = ""
    duration_seconds: float = 0.0
    checks: list[UnitCheck] = field(default_factory=list)
    judge_verdict: str | None = None
    judge_reason: str | None = None
    judge_model: str | None = None
    engine: str | None = None
    agent_model: str | None = None
    output_snippet: str | None = None
    error: str | None = None
    sandbox_path: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _snippet(text: Any) -> str | None:
    if not isinstance(text, str) or not text.strip():
        return None
    return text if len(text) <= SNIPPET else text[:SNIPPET] + "…"


def _load_json(path: Path) -> Any:
    """A result file's data, or None (a FIFO is never opened; deep nesting is no crash)."""
    from evalens.server.uris import read_regular

    text = read_regular(path)
    try:
        return json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None


# ============================================================================================ where results live


def skilljack_results_dir(file: Path) -> Path:
    """Where lens runs of a skilljack suite write (and where restoring looks): ``output.dir`` of the
    ``eval.config.yaml`` beside the suite, relative to it, else ``results/`` beside the suite (never the
    server's working directory, which the CLI's ``./results`` default would mean)."""
    suite = file.parent.parent if file.name == "task.md" else file.parent
    for config in (suite / "eval.config.yaml", suite / "eval.config.yml"):
        if config.is_file():
            try:
                from evalens.runner.cli_run import load_config

                out = Path(load_config(config).output_dir)
            except Exception:  # noqa: BLE001 - a broken config falls back to the default folder
                break
            return out if out.is_absolute() else (suite / out)
    return suite / "results"


def skilljack_config(file: Path) -> Path | None:
    suite = file.parent.parent if file.name == "task.md" else file.parent
    return next((c for c in (suite / "eval.config.yaml", suite / "eval.config.yml") if c.is_file()), None)


def display_root(fmt: str, file: Path) -> Path:
    """The folder a unit belongs to, for grouping (the suite for skilljack, the skill otherwise)."""
    if fmt == "skilljack-task":
        return file.parent.parent
    if fmt == "skilljack-tasks":
        return file.parent
    from evalens.runner.cli_run import skill_root_of

    return skill_root_of(file)


def _workspace(file: Path) -> Path:
    from evalens.runner.cli_run import skill_root_of

    root = skill_root_of(file)
    return root.parent / f"{root.name}-workspace"


def result_files(fmt: str, file: Path) -> list[Path]:
    """The result files a format's runs leave on disk for ``file``, newest first (bounded)."""
    try:
        if fmt in ("skilljack-tasks", "skilljack-task"):
            base = skilljack_results_dir(file)
            found = [p for p in base.glob("*.json") if p.is_file()] if base.is_dir() else []
        elif fmt == "skill-creator-evals":
            runs = _workspace(file) / "runs"
            found = [*runs.glob("*/eval-*/grading.json"), *runs.glob("*/eval-*/run-*/grading.json")] \
                if runs.is_dir() else []
        elif fmt == "writing-skills-evals":
            grading = _workspace(file) / "grading"
            found = [p for p in grading.glob("*.json") if p.is_file()] if grading.is_dir() else []
        else:  # trigger sets keep no results unless --json names a file
            found = []
        stamped = [(p.stat().st_mtime_ns, p) for p in found]
    except OSError:
        return []
    stamped.sort(key=lambda t: (t[0], str(t[1])), reverse=True)
    return [p for _, p in stamped[:MAX_FILES]]


def folder_stamp(fmt: str, file: Path) -> tuple:
    """The mtimes of the folders result files are created in (a few stats: cheap enough for every look)."""
    folder = _result_folder(fmt, file)
    if folder is None:
        return ()
    try:
        return (folder.stat().st_mtime_ns,)
    except OSError:
        return (0,)


_FOLDERS: dict[tuple[str, str], tuple[float, Path | None]] = {}
FOLDER_TTL = 5.0  # seconds a file's result folder is trusted (it depends on eval.config.yaml and SKILL.md)


def _result_folder(fmt: str, file: Path) -> Path | None:
    key = (fmt, str(file))
    now = time.monotonic()
    cached = _FOLDERS.get(key)
    if cached is not None and now - cached[0] < FOLDER_TTL:
        return cached[1]
    if fmt.startswith("skilljack"):
        folder: Path | None = skilljack_results_dir(file)
    elif fmt == "skill-creator-evals":
        folder = _workspace(file) / "runs"
    elif fmt == "writing-skills-evals":
        folder = _workspace(file) / "grading"
    else:
        folder = None
    if len(_FOLDERS) > 512:
        _FOLDERS.clear()
    _FOLDERS[key] = (now, folder)
    return folder


def stamp(fmt: str, file: Path) -> tuple:
    """Changes whenever a result file for ``file`` is written (restoring re-reads only then)."""
    out = []
    for p in result_files(fmt, file):
        try:
            out.append((str(p), p.stat().st_mtime_ns))
        except OSError:
            continue
    return tuple(out)


# ============================================================================================ reading results


def _sj_thresholds(file: Path) -> tuple[float, float]:
    from evalens.runner.cli_run import load_config

    try:
        cfg = load_config(skilljack_config(file))
        return float(cfg.discovery_rate), float(cfg.avg_score)
    except Exception:  # noqa: BLE001
        return 0.8, 4.0


_FAILED_DETAIL = ("Missing", "Unexpected", "Wrong skill", "Expected skill activation but", "Forbidden tools were",
                  "Contains forbidden", "Task errored", "File missing")


def _failed_detail(detail: str) -> bool:
    """Whether one of skilljack's deterministic detail lines reports a failure (they carry no status)."""
    return detail.startswith(_FAILED_DETAIL) or " not found: " in detail or detail.endswith(
        ("did not match", "(invalid regex)", "(outside working directory)")) or detail.startswith(
        "javascript failed")


_DETAIL_KEYS = (("Marker not found", "marker"), ("Missing expected tool calls", "tool_calls"),
                ("Forbidden tools were called", "no_tool_calls"), ("Missing: ", "contains"),
                ("Contains forbidden: ", "not_contains"), ("File missing: ", "file_exists"),
                ("javascript failed", "javascript"))


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
        key, value = "regex", detail[1:detail.rindex("/")]
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


def skilljack_unit(entry: dict[str, Any], report: dict[str, Any], thresholds: tuple[float, float],
                   raw: Any = None, task_md: bool = False) -> UnitResult:
    """A task entry of a skilljack results JSON, with the verdict rule of ``cli_run._task_verdict``."""
    task = entry.get("task") or {}
    score = entry.get("score") or {}
    result = entry.get("result") or {}
    runs = entry.get("runDetails") or [{"result": result, "score": score}]
    meta = report.get("metadata") or {}
    det = score.get("deterministic") if isinstance(score.get("deterministic"), dict) else None
    judge = score.get("judge") if isinstance(score.get("judge"), dict) else None
    discovery, adherence, output = (float(score.get(k) or 0) for k in ("discovery", "adherence", "outputQuality"))
    failed_det = next((r["score"]["deterministic"] for r in runs if isinstance(r, dict)
                       and isinstance((r.get("score") or {}).get("deterministic"), dict)
                       and not r["score"]["deterministic"].get("passed")), None)
    shown = failed_det or det  # the run that failed says why; the aggregate may hold another run's checks
    checks = [UnitCheck("deterministic", str(d), "FAIL" if _failed_detail(str(d)) else "PASS", str(d),
                        detail_path(str(d), raw, task_md) if _failed_detail(str(d)) else None)
              for d in shown.get("details") or []] if shown else []
    errors = [_sj_run_error(r) for r in runs if isinstance(r, dict) and _sj_run_error(r)]
    earned = next((r["score"]["deterministic"] for r in runs if isinstance(r, dict) and not _sj_run_error(r)
                   and isinstance((r.get("score") or {}).get("deterministic"), dict)
                   and not r["score"]["deterministic"].get("passed")), None)
    if earned is not None:  # a run that did run failed its checks: FAIL is earned
        verdict, reason = "FAIL", "; ".join(str(d) for d in earned.get("details") or [])
    elif errors:  # any run that did not run (or was not judged) makes the task ERROR, never PASS from the others
        verdict, reason = "ERROR", errors[0] + (f" ({len(errors)} of {len(runs)} runs failed)" if len(runs) > 1 else "")
    elif failed_det is not None:
        verdict, reason = "FAIL", "; ".join(str(d) for d in failed_det.get("details") or [])
    elif discovery < thresholds[0]:
        verdict, reason = "FAIL", f"discovery {discovery:.0%} below {thresholds[0]:.0%}"
    elif judge is not None and min(adherence, output) < thresholds[1]:
        verdict, reason = "FAIL", f"adherence {adherence:.1f} / output {output:.1f} below {thresholds[1]:g}"
    else:
        verdict, reason = "PASS", str(score.get("reasoning") or "")
    return UnitResult(
        name=str(task.get("id")), verdict=verdict, reason=reason,
        duration_seconds=round(sum(float((r.get("result") or {}).get("durationMs") or 0) for r in runs
                                   if isinstance(r, dict)) / 1000, 3),
        checks=checks,
        judge_verdict=(f"discovery {discovery:g} · adherence {adherence:.1f} · output {output:.1f}"
                       if judge is not None else None),
        judge_reason=str(judge.get("reasoning") or "") if judge else None,
        judge_model=meta.get("judgeModel") if judge else None,
        engine=meta.get("runnerType"), agent_model=meta.get("agentModel"),
        output_snippet=_snippet(result.get("output")), error=reason if verdict == "ERROR" else None,
        details={"skills": result.get("skillLoads") or [], "category": score.get("failureCategory")})


def _statement_key(data: Any, fmt: str, name: str) -> tuple[str, int | None]:
    """The list the unit's statements are written in (``assertions`` / ``expectations``) and the unit's index."""
    key = "evals" if fmt == "skill-creator-evals" else "cases"
    items = data.get(key) if isinstance(data, dict) else None
    for i, case in enumerate(items if isinstance(items, list) else []):
        if isinstance(case, dict) and str(case.get("id")) == name:
            return ("assertions" if "assertions" in case else "expectations"), i
    return "expectations", None


def creator_unit(name: str, grading: dict[str, Any], data: Any) -> UnitResult:
    """A skill-creator ``grading.json``: PASS when every statement passed (the runner's rule)."""
    key, _ = _statement_key(data, "skill-creator-evals", name)
    exps = [e for e in grading.get("expectations") or [] if isinstance(e, dict)]
    checks = [UnitCheck("assertion" if key == "assertions" else "expectation", str(e.get("text", "")),
                        "PASS" if e.get("passed") is True else "FAIL", str(e.get("evidence") or ""), (key, j))
              for j, e in enumerate(exps)]
    passed = sum(c.status == "PASS" for c in checks)
    agent_error = grading.get("error") if isinstance(grading.get("error"), str) else \
        next((c.detail for c in checks if c.detail.startswith("agent error: ")), None)
    verdict = "ERROR" if agent_error else "SKIP" if not checks else "PASS" if passed == len(checks) else "FAIL"
    failed = [c for c in checks if c.status == "FAIL"]
    reason = agent_error or ("nothing to grade: the case declares no statements" if not checks else
                             f"{passed}/{len(checks)} {key} passed" + (f"; failed: {failed[0].value}" if failed else ""))
    timing = grading.get("timing") or {}
    return UnitResult(name=name, verdict=verdict, reason=reason,
                      duration_seconds=float(timing.get("total_duration_seconds") or 0.0),
                      checks=checks, error=agent_error)


def writing_unit(name: str, grading: dict[str, Any], data: Any) -> UnitResult:
    """A writing-skills grading file: ``overall`` decides; each criterion's 1-5 score is a check."""
    _, index = _statement_key(data, "writing-skills-evals", name)
    cases = data.get("cases") if isinstance(data, dict) else None
    exps = cases[index].get("expectations") if index is not None and isinstance(cases[index], dict) else None
    where = {str(e.get("criterion")): j for j, e in enumerate(exps if isinstance(exps, list) else [])
             if isinstance(e, dict)}
    required = {str(e.get("criterion")) for e in exps if isinstance(e, dict) and e.get("required") is True} \
        if isinstance(exps, list) else set()
    checks = []
    for r in grading.get("results") or []:
        if not isinstance(r, dict):
            continue
        crit = str(r.get("criterion"))
        j = where.get(crit)
        checks.append(UnitCheck("expectation", crit, "PASS" if r.get("passed") else "FAIL",
                                f"scored {r.get('score')}/5: {r.get('reasoning') or ''}".strip(),
                                ("expectations", j) if j is not None else None))
    agent_error = grading.get("error") if isinstance(grading.get("error"), str) else \
        next((c.detail.split("scored 1/5: ", 1)[-1] for c in checks if "agent error: " in c.detail), None)
    overall = str(grading.get("overall") or "").upper()
    verdict = "ERROR" if agent_error else overall if overall in ("PASS", "FAIL", "SKIP") else "ERROR"
    failed = [c for c in checks if c.status == "FAIL" and c.value in required] or \
             [c for c in checks if c.status == "FAIL"]
    reason = agent_error or ("nothing to grade: the case declares no expectations" if verdict == "SKIP" else
                             f"required `{failed[0].value}` {failed[0].detail.split(':')[0]}" if verdict == "FAIL"
                             and failed else f"overall score {grading.get('overall_score')}")
    return UnitResult(name=name, verdict=verdict, reason=reason, checks=checks, error=agent_error,
                      details={"version": grading.get("version"), "run": grading.get("run")})


def _raw_task(fmt: str, data: Any, task_id: str) -> Any:
    """A task's own mapping: the tasks.yaml entry with that id, or a task.md's frontmatter."""
    if fmt == "skilljack-task":
        return data
    tasks = data.get("tasks") if isinstance(data, dict) else None
    return next((t for t in tasks if isinstance(t, dict) and str(t.get("id")) == task_id), None) \
        if isinstance(tasks, list) else None


def restore(fmt: str, file: Path, data: Any) -> dict[str, tuple[UnitResult, str, float]]:
    """Unit name → (result, result file, its mtime) from the newest result file holding the unit."""
    found: dict[str, tuple[UnitResult, str, float]] = {}
    thresholds = _sj_thresholds(file) if fmt.startswith("skilljack") else (0.8, 4.0)
    names = {str(c.get("id")) for c in (data.get("evals" if fmt == "skill-creator-evals" else "cases") or [])
             if isinstance(c, dict)} if isinstance(data, dict) else set()
    for path in result_files(fmt, file):
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        report = _load_json(path)
        if not isinstance(report, dict):
            continue
        try:
            if fmt.startswith("skilljack"):
                ran = str((report.get("metadata") or {}).get("skillPath") or "")
                if ran and Path(ran).is_absolute() and Path(ran) != file or ran and Path(ran).name != file.name:
                    continue  # another suite's results in a shared folder
                for entry in report.get("tasks") or []:
                    if isinstance(entry, dict):
                        tid = str((entry.get("task") or {}).get("id"))
                        unit = skilljack_unit(entry, report, thresholds, _raw_task(fmt, data, tid),
                                              fmt == "skilljack-task")
                        found.setdefault(unit.name, (unit, str(path), mtime))
            elif fmt == "skill-creator-evals":
                eval_dir = path.parent.parent if path.parent.name.startswith("run-") else path.parent
                name = eval_dir.name[len("eval-"):]
                if name in names and name not in found:
                    found[name] = (creator_unit(name, report, data), str(path), mtime)
            elif fmt == "writing-skills-evals":
                name = str(report.get("case_id"))
                if name in names and name not in found:
                    found[name] = (writing_unit(name, report, data), str(path), mtime)
        except Exception:  # noqa: BLE001 - a foreign or half-written file is skipped
            log.debug("could not read %s", path, exc_info=True)
    return found


# ============================================================================================ running


def _quiet_stdout() -> None:
    """``cli_run`` prints progress; on stdio that would land in the LSP stream (pygls keeps its own handle on
    the real stdout's buffer), so prints go to stderr for the rest of the server's life."""
    if sys.stdout is sys.__stdout__:
        sys.stdout = sys.stderr


async def run_unit(fmt: str, file: Path, name: str, data: Any, settings: Any) -> list[tuple[UnitResult, str | None]]:
    """Run one unit (``*``: the whole file); every unit's result with the file it was read from.

    Cancelling the calling task cancels ``run_file``: the runner's ``run_process`` kills the agent's whole
    process group and removes the sandbox on the way out.
    """
    from evalens.runner.cli_run import UsageError, run_file

    _quiet_stdout()
    started = time.time()
    output_dir = skilljack_results_dir(file) if fmt.startswith("skilljack") else None
    engine = settings.engine or "claude-code"
    if engine not in ("claude-code", "codex"):
        why = f"`evalens run` runs {file.name} with claude-code or codex, not {engine} (setting evalens.engine)"
        return [(UnitResult(name=name, verdict="ERROR", reason=why, error=why), None)]
    names = variant_names(data) if fmt == "trigger-evals-variant" else {}
    runner_name = {v: k for k, v in names.items()}.get(name, name)
    kwargs: dict[str, Any] = {"cases": None if name == ALL else [runner_name], "runs": 1, "engine": engine,
                              "judge_model": settings.judge or None, "output_dir": output_dir,
                              "timeout_ms": float(settings.timeout) * 1000 if settings.timeout else None}
    if fmt.startswith("skilljack"):
        kwargs["config"] = skilljack_config(file)  # the suite's own eval.config.yaml, when it has one
    t0 = time.monotonic()
    try:
        verdicts = await run_file(file, **kwargs)
    except UsageError as exc:
        return [(UnitResult(name=name, verdict="ERROR", reason=str(exc), error=str(exc)), None)]
    elapsed = round(time.monotonic() - t0, 3)
    written = {n: (unit, path) for n, (unit, path, mtime) in restore(fmt, file, data).items()
               if mtime >= started - 1}
    out: list[tuple[UnitResult, str | None]] = []
    for v in verdicts:
        v.name = names.get(v.name, v.name)
        unit, path = written.get(v.name, (None, None))
        if fmt in ("skill-creator-evals", "writing-skills-evals") and v.details.get("grading"):
            path = str(v.details["grading"])
            grading = _load_json(Path(path))
            if isinstance(grading, dict):
                unit = (creator_unit if fmt == "skill-creator-evals" else writing_unit)(v.name, grading, data)
        if unit is None:
            unit = UnitResult(name=v.name, verdict=v.verdict, reason=v.reason, details=dict(v.details))
        if unit.verdict != v.verdict or not unit.reason or fmt.startswith("skilljack"):
            unit.reason = v.reason or unit.reason  # the graded statements say more than "overall score 2.5"
        unit.verdict = v.verdict  # the runner's verdict is the verdict
        if v.verdict == "ERROR":
            unit.error = v.reason
        if fmt.startswith("trigger"):
            unit.details.update(v.details)
        if not unit.duration_seconds:
            unit.duration_seconds = elapsed if len(verdicts) == 1 else 0.0
        unit.engine = unit.engine or engine
        out.append((unit, path))
    if name == ALL:
        out.append((summary(fmt, [u for u, _ in out], elapsed), out[0][1] if out else None))
    elif not any(u.name == name for u, _ in out):
        out.append((UnitResult(name=name, verdict="ERROR", reason=f"the runner returned no verdict for {name}",
                               error="no verdict"), None))
    return out


def variant_names(data: Any) -> dict[str, str]:
    """The runner's names of a variant trigger set's queries (their index in positives + negatives) → the
    names ``Format.cases`` gives them (``should_trigger[j]``, ``should_not_trigger[j]``)."""
    if not isinstance(data, dict):
        return {}
    pos = data.get("should_trigger") if isinstance(data.get("should_trigger"), list) else []
    neg = data.get("should_not_trigger") if isinstance(data.get("should_not_trigger"), list) else []
    out = {str(j): f"should_trigger[{j}]" for j in range(len(pos))}
    out.update({str(len(pos) + j): f"should_not_trigger[{j}]" for j in range(len(neg))})
    return out


def summary(fmt: str, units: list[UnitResult], elapsed: float) -> UnitResult:
    """The ``*`` unit: how the whole file did (precision / recall for a trigger set)."""
    if not units:
        return UnitResult(name=ALL, verdict="ERROR", reason="nothing ran", error="nothing ran")
    passed = sum(u.verdict == "PASS" for u in units)
    verdict = "PASS" if passed == len(units) else "ERROR" if all(u.verdict == "ERROR" for u in units) else "FAIL"
    reason = f"{passed}/{len(units)} passed"
    if fmt.startswith("trigger"):
        from evalens.runner.cli_run import trigger_metrics

        rows = []
        for u in units:
            rate = float(u.details.get("trigger_rate") or 0.0)
            want = (rate >= 0.5) == (u.verdict == "PASS")
            rows.append((str(u.details.get("query", "")), want, rate))
        m = trigger_metrics(rows)
        reason = f"precision {m['precision']}, recall {m['recall']} ({reason})"
    return UnitResult(name=ALL, verdict=verdict, reason=reason, duration_seconds=elapsed)
