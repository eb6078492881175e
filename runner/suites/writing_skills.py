"""writing-skills ``evals.json`` (formats.md §4.4): every case is a unit; each expectation is scored 1-5 by the
grader; each run writes ``<skill>-workspace/grading/<id>_v<version>_run<n>.json``."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from evalens.core.regular_files import write_text_atomic
from evalens.runner.judge import judge_deadline
from evalens.runner.results import UnitCheck, UnitResult
from evalens.runner.session import AgentResult, AgentSession
from evalens.runner.suites.base import Unit, UnitRun, installed_skill, newest_first, read_json
from evalens.runner.suites.graded import GradedSuite, grade, writing_unit
from evalens.runner.verdicts import check_status, graded_verdict

NOT_ASSESSED = {"passed": None, "details": "N/A - not assessed by evalens run"}


class WritingSkillsSuite(GradedSuite):
    format_ids = ("writing-skills-evals",)
    units_key = "cases"
    results_under = "grading"

    def load(self) -> None:
        super().load()
        self.workspace = self.request.output_dir or self.skill_workspace(self.skill_root)
        self.grading_dir = self.workspace / self.results_under
        history = read_json(self.workspace / "history.json")
        self.version = int(history.get("current_version") or 0) if isinstance(history, dict) else 0

    def dry_run(self, units: list[Unit]) -> list[str]:
        return [f"{u.id}\t{len(u.data.get('expectations') or [])} expectation(s)" for u in units]

    def write_files_to(self, folder: Path) -> None:
        self.grading_dir = (
            folder  # the version's own `<id>_v<version>_run<n>.json` stay as the batch wrote them
        )

    def details(self) -> dict[str, Any]:
        return {"version": self.version}

    async def agent_run(self, session: AgentSession, unit: Unit) -> AgentResult:
        files = [f for f in unit.data.get("files") or [] if isinstance(f, str)]
        return await session.run(
            str(unit.data.get("prompt", "")),
            installed_skill(self.skill_root, None),
            self.skill_root / "evals",
            files,
        )

    async def graded_once(self, unit: Unit, run: int, res: AgentResult, executor: float) -> UnitRun:
        case = unit.data
        exps = [(j, e) for j, e in enumerate(case.get("expectations") or []) if isinstance(e, dict)]
        prompt = str(case.get("prompt", ""))
        graded, error, judgements = await grade(
            self.spec,
            prompt,
            res,
            [f"{e.get('criterion')}: {e.get('description')}" for _, e in exps],
            scale=True,
            deadline=judge_deadline(self.timeout, self.request.judge_timeout),
            repeats=self.request.judge_repeats,
        )
        results = [
            {
                "criterion": e.get("criterion"),
                "score": g["score"],
                "passed": g["score"] >= 3,
                "reasoning": g["reasoning"],
            }
            for (_, e), g in zip(exps, graded or [], strict=False)
        ]
        required = [r for r, (_, e) in zip(results, exps, strict=False) if e.get("required") is True]
        mean = round(statistics.fmean(r["score"] for r in results), 1) if results else None
        overall = "pass" if all(r["passed"] for r in required) else "fail"
        failing = [
            r for r, (_, e) in zip(results, exps, strict=False) if not r["passed"] and e.get("required")
        ] or [r for r in results if not r["passed"]]
        verdict, reason = graded_verdict(
            error,
            len(exps),
            overall == "pass",
            f"required `{failing[0]['criterion']}` scored {failing[0]['score']}/5"
            if overall == "fail" and failing
            else f"overall score {mean}",
        )
        grading = self._grading(case, run, results, required, mean, verdict, overall, res, error)
        target = (
            self.grading_dir
            / ("baseline" if self.baseline else "")
            / f"{case.get('id')}_v{self.version}_run{run}.json"
        )  # baseline: never restored as the unit's
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, json.dumps(grading, indent=2))  # never through a committed link (#42)
        checks = [
            UnitCheck(
                kind="expectation",
                value=str(r["criterion"]),
                status=check_status(r["passed"]),
                detail=f"scored {r['score']}/5: {r['reasoning']}".strip(),
                location=[*unit.location, "expectations", j],
            )
            for r, (j, _) in zip(results, exps, strict=False)
        ]
        self.say(unit.id, f"{unit.id} run {run}: {verdict} — {reason} → {target}", outcome=True)
        return self.graded_run(verdict, reason, target, checks, res, res.duration_ms / 1000, judgements)

    def _grading(
        self,
        case: dict[str, Any],
        run: int,
        results: list[dict[str, Any]],
        required: list[dict[str, Any]],
        mean: float | None,
        verdict: str,
        overall: str,
        res: Any,
        error: str | None,
    ) -> dict[str, Any]:
        """writing-skills' grading file for one run."""
        req_mean = round(statistics.fmean(r["score"] for r in required), 1) if required else mean
        grading: dict[str, Any] = {
            "case_id": case.get("id"),
            "version": self.version,
            "run": run,
            "overall_score": mean,
            "required_score": req_mean,
            "results": results,
            "overall": verdict.lower() if verdict in ("ERROR", "SKIP") else overall,  # ungraded: say why
            "convention_compliance": {
                k: dict(NOT_ASSESSED)
                for k in (
                    "frontmatter",
                    "description_field",
                    "token_efficiency",
                    "progressive_disclosure",
                    "type_alignment",
                )
            },
            "claims": [],
            "user_notes_summary": "",
            "eval_feedback": "",
            "execution_metrics": {"total_tool_calls": len(res.tools), "output_chars": len(res.output)},
        }
        if error:
            grading["error"] = error
        return grading

    @classmethod
    def result_files(cls, format_id: str, file: Path) -> list[Path]:
        folder = cls.result_folder(format_id, file)
        return (
            newest_first([p for p in folder.glob("*.json") if p.is_file()])
            if folder and folder.is_dir()
            else []
        )

    @classmethod
    def restored_name(cls, path: Path, grading: Any) -> str:
        return str(grading.get("case_id")) if isinstance(grading, dict) else ""

    @classmethod
    def restored_unit(cls, name: str, grading: dict[str, Any], data: Any) -> UnitResult:
        return writing_unit(name, grading, data)
