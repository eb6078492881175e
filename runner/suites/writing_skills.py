"""writing-skills ``evals.json`` (formats.md §4.4): every case is a unit; each expectation is scored 1-5 by the
grader; each run writes ``<skill>-workspace/grading/<id>_v<version>_run<n>.json``."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from evalens.runner.results import UnitCheck, UnitResult
from evalens.runner.session import AgentSession, UsageError, start_session
from evalens.runner.suites.base import (
    FileRunRequest,
    ParsedDocument,
    Progress,
    Restored,
    Suite,
    Unit,
    installed_skill,
    newest_first,
    read_json,
    skill_root_of,
)
from evalens.runner.suites.graded import grade, writing_unit
from evalens.runner.verdicts import check_status, combine_runs, count_passed, graded_verdict

SNIPPET_CHARS = 500
NOT_ASSESSED = {"passed": None, "details": "N/A - not assessed by evalens run"}


class WritingSkillsSuite(Suite):
    format_ids = ("writing-skills-evals",)
    needs_judge = True

    def __init__(
        self,
        request: FileRunRequest,
        format_id: str,
        progress: Progress | None = None,
        doc: ParsedDocument | None = None,
    ) -> None:
        super().__init__(request, format_id, progress, doc)
        self.data = self.doc.data
        self.skill_root = skill_root_of(self.file)
        self.workspace = request.output_dir or self.skill_root.parent / f"{self.skill_root.name}-workspace"
        history = read_json(self.workspace / "history.json")
        self.version = int(history.get("current_version") or 0) if isinstance(history, dict) else 0
        self.timeout = request.timeout_seconds or 300
        self.spec: Any = None

    def units(self) -> list[Unit]:
        cases = self.data.get("cases") if isinstance(self.data, dict) else None
        return [
            Unit(str(c.get("id")), ["cases", i], c) for i, c in enumerate(cases or []) if isinstance(c, dict)
        ]

    def dry_run(self, units: list[Unit]) -> list[str]:
        return [f"{u.id}\t{len(u.data.get('expectations') or [])} expectation(s)" for u in units]

    async def session(self, units: list[Unit] | None = None) -> AgentSession:
        from evalens.runner.judge import resolve_judge

        if self.request.no_judge:
            raise UsageError("grading evals.json needs the judge; --no-judge is not available here")
        self.spec = resolve_judge(
            self.request.judge_model,
            default_provider="anthropic" if self.request.engine == "claude-code" else "openai",
        )
        return await start_session(
            self.request.engine,
            self.request.model,
            self.timeout,
            keep_sandbox=self.request.keep_sandbox,
            judge=self.spec,
            warn=lambda m: self.say("", m),
        )

    async def run_unit(self, session: AgentSession, unit: Unit) -> UnitResult:
        from evalens.runner.judge import judge_deadline

        case = unit.data
        exps = [(j, e) for j, e in enumerate(case.get("expectations") or []) if isinstance(e, dict)]
        files = [f for f in case.get("files") or [] if isinstance(f, str)]
        prompt = str(case.get("prompt", ""))
        verdicts, reasons, targets, checks_by_run, outputs = [], [], [], [], []
        for run in range(1, self.request.runs + 1):
            res = await session.run(
                prompt, installed_skill(self.skill_root, None), self.skill_root / "evals", files
            )
            graded, error = await grade(
                self.spec,
                prompt,
                res,
                [f"{e.get('criterion')}: {e.get('description')}" for _, e in exps],
                scale=True,
                deadline=judge_deadline(self.timeout, self.request.judge_timeout),
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
            req_mean = round(statistics.fmean(r["score"] for r in required), 1) if required else mean
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
            grading = {
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
            target = (
                self.workspace
                / "grading"
                / ("baseline" if self.baseline else "")
                / f"{case.get('id')}_v{self.version}_run{run}.json"
            )  # baseline: never restored as the unit's
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(grading, indent=2), encoding="utf-8")
            verdicts.append(verdict)
            reasons.append(reason)
            targets.append(target)
            outputs.append(res)
            checks_by_run.append(
                [
                    UnitCheck(
                        kind="expectation",
                        value=str(r["criterion"]),
                        status=check_status(r["passed"]),
                        detail=f"scored {r['score']}/5: {r['reasoning']}".strip(),
                        location=[*unit.location, "expectations", j],
                    )
                    for r, (j, _) in zip(results, exps, strict=False)
                ]
            )
            self.say(unit.id, f"{unit.id} run {run}: {verdict} — {reason} → {target}", outcome=True)
        verdict = combine_runs(verdicts)
        i = next((k for k, v in enumerate(verdicts) if v == verdict), 0)
        res = outputs[i]
        return UnitResult(
            name=unit.id,
            format=self.format_id,
            case_file=str(self.file),
            location=unit.location,
            verdict=verdict,
            reason=reasons[i],
            duration_seconds=round(sum(r.duration_ms for r in outputs) / 1000, 3),
            agent_seconds=round(sum(r.duration_ms for r in outputs) / 1000, 3),
            checks=checks_by_run[i],
            judge_verdict=None if verdict == "ERROR" else verdict,
            judge_reason=reasons[i],
            judge_model=self.spec.model if self.spec else None,
            engine=session.engine.name,
            engine_version=session.engine_version,
            agent_model=res.model or self.request.model,
            output_snippet=res.output[:SNIPPET_CHARS] or None,
            error=reasons[i] if verdict == "ERROR" else None,
            exit_code=res.exit_code,
            runs=self.request.runs,
            pass_rate=count_passed(verdicts) / len(verdicts) if len(verdicts) > 1 else None,
            run_verdicts=verdicts if len(verdicts) > 1 else [],
            result_file=str(targets[i]),
            sandbox_path=session.kept[-1] if session.kept else None,
            details={"version": self.version},
        )

    @classmethod
    def result_folder(cls, format_id: str, file: Path) -> Path | None:
        root = skill_root_of(file)
        return root.parent / f"{root.name}-workspace" / "grading"

    @classmethod
    def result_files(cls, format_id: str, file: Path) -> list[Path]:
        folder = cls.result_folder(format_id, file)
        return (
            newest_first([p for p in folder.glob("*.json") if p.is_file()])
            if folder and folder.is_dir()
            else []
        )

    @classmethod
    def restore(cls, format_id: str, file: Path, data: Any) -> dict[str, Restored]:
        names = (
            {str(c.get("id")) for c in (data.get("cases") or []) if isinstance(c, dict)}
            if isinstance(data, dict)
            else set()
        )
        found: dict[str, Restored] = {}
        for path in cls.result_files(format_id, file):
            grading = read_json(path)
            name = str(grading.get("case_id")) if isinstance(grading, dict) else ""
            if name in names and name not in found and isinstance(grading, dict):
                try:
                    unit = writing_unit(name, grading, data)
                    unit.case_file, unit.result_file = str(file), str(path)
                    found[name] = Restored(unit, str(path), path.stat().st_mtime)
                except Exception:  # noqa: BLE001 - a foreign or half-written file is skipped
                    continue
        return found
