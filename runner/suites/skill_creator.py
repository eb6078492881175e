"""skill-creator ``evals.json`` (formats.md §5.2): every eval is a unit; each run writes skill-creator's
``grading.json`` under ``<skill>-workspace/runs/<stamp>/eval-<id>/``."""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evalens.core.regular_files import write_text_atomic
from evalens.runner.judge import judge_deadline
from evalens.runner.results import UnitCheck, UnitResult
from evalens.runner.session import AgentResult, AgentSession
from evalens.runner.suites.base import Unit, UnitRun, installed_skill, newest_first
from evalens.runner.suites.graded import GradedSuite, creator_unit, grade
from evalens.runner.verdicts import check_status, graded_verdict


def statements_of(case: dict[str, Any]) -> tuple[str, list[str]]:
    """The key the statements are written under and their text."""
    key = "assertions" if "assertions" in case else "expectations"
    return key, [
        s if isinstance(s, str) else str(s.get("description") or s.get("name") or json.dumps(s))
        for s in (case.get(key) or [])
    ]


def _grading(
    expectations: list[dict[str, Any]],
    passed: int,
    res: Any,
    executor: float,
    grader: float,
    error: str | None,
) -> dict[str, Any]:
    """skill-creator's ``grading.json`` for one run."""
    grading: dict[str, Any] = {
        "expectations": expectations,
        "summary": {
            "passed": passed,
            "failed": len(expectations) - passed,
            "total": len(expectations),
            "pass_rate": round(passed / len(expectations), 2) if expectations else 0.0,
        },
        "execution_metrics": {
            "tool_calls": dict(Counter(c["tool"] for c in res.tools)),
            "total_tool_calls": len(res.tools),
            "errors_encountered": int(bool(res.error)),
            "output_chars": len(res.output),
        },
        "timing": {
            "executor_duration_seconds": round(executor, 2),
            "grader_duration_seconds": round(grader, 2),
            "total_duration_seconds": round(executor + grader, 2),
        },
    }
    if error:
        grading["error"] = error  # why nothing was graded (the statements above were not judged)
    return grading


class SkillCreatorSuite(GradedSuite):
    format_ids = ("skill-creator-evals",)
    units_key = "evals"
    results_under = "runs"

    def load(self) -> None:
        super().load()
        self.out_dir = self.request.output_dir or self.skill_workspace(
            self.skill_root
        ) / self.results_under / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")

    def dry_run(self, units: list[Unit]) -> list[str]:
        return [f"{u.id}\t{len(statements_of(u.data)[1])} statement(s)" for u in units]

    def write_files_to(self, folder: Path) -> None:
        self.out_dir = folder  # `--output-dir` would otherwise take the batch's own grading.json files

    async def agent_run(self, session: AgentSession, unit: Unit) -> AgentResult:
        files = [f for f in unit.data.get("files") or [] if isinstance(f, str)]
        return await session.run(
            str(unit.data.get("prompt", "")),
            installed_skill(self.skill_root, self.data.get("skill_name")),
            self.skill_root,
            files,
        )

    async def graded_once(self, unit: Unit, run: int, res: AgentResult, executor: float) -> UnitRun:
        case = unit.data
        key, statements = statements_of(case)
        prompt = str(case.get("prompt", ""))
        t0 = time.monotonic()
        graded, error, judgements = await grade(
            self.spec,
            prompt,
            res,
            statements,
            scale=False,
            deadline=judge_deadline(self.timeout, self.request.judge_timeout),
            repeats=self.request.judge_repeats,
        )
        grader = time.monotonic() - t0
        expectations = (
            [{"text": s, **g} for s, g in zip(statements, graded, strict=True)]
            if graded is not None
            else [{"text": s, "passed": False, "evidence": error} for s in statements]
        )
        passed = sum(bool(e["passed"]) for e in expectations) if graded is not None else 0
        grading = _grading(expectations, passed, res, executor, grader, error)
        target = (
            self.out_dir
            / ("baseline" if self.baseline else "")
            / f"eval-{unit.id}"
            / (f"run-{run}" if self.request.runs > 1 else "")
            / "grading.json"
        )  # baseline: never restored
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, json.dumps(grading, indent=2))  # never through a committed link (#42)
        first_failed = next((e["text"] for e in expectations if not e["passed"]), None)
        verdict, reason = graded_verdict(
            error,
            len(statements),
            passed == len(expectations),
            f"{passed}/{len(expectations)} {key} passed"
            + (f"; failed: {first_failed}" if first_failed else ""),
        )
        checks = (
            []
            if graded is None
            else [
                UnitCheck(
                    kind="assertion" if key == "assertions" else "expectation",
                    value=e["text"],
                    status=check_status(e["passed"]),
                    detail=str(e.get("evidence") or ""),
                    location=[*unit.location, key, j],
                )
                for j, e in enumerate(expectations)
            ]
        )
        self.say(unit.id, f"eval {unit.id} run {run}: {verdict} — {reason} → {target}", outcome=True)
        return self.graded_run(verdict, reason, target, checks, res, executor + grader, judgements)

    @classmethod
    def result_files(cls, format_id: str, file: Path) -> list[Path]:
        runs = cls.result_folder(format_id, file)
        if runs is None or not runs.is_dir():
            return []
        return newest_first([*runs.glob("*/eval-*/grading.json"), *runs.glob("*/eval-*/run-*/grading.json")])

    @classmethod
    def restored_name(cls, path: Path, grading: Any) -> str:
        eval_dir = path.parent.parent if path.parent.name.startswith("run-") else path.parent
        return eval_dir.name[len("eval-") :]

    @classmethod
    def restored_unit(cls, name: str, grading: dict[str, Any], data: Any) -> UnitResult:
        return creator_unit(name, grading, data)
