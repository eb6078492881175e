"""skill-creator ``evals.json`` (formats.md §5.2): every eval is a unit; each run writes skill-creator's
``grading.json`` under ``<skill>-workspace/runs/<stamp>/eval-<id>/``."""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import UTC, datetime
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
from evalens.runner.suites.graded import creator_unit, grade
from evalens.runner.verdicts import check_status, combine_runs, count_passed, graded_verdict

SNIPPET_CHARS = 500


def statements_of(case: dict[str, Any]) -> tuple[str, list[str]]:
    """The key the statements are written under and their text."""
    key = "assertions" if "assertions" in case else "expectations"
    return key, [
        s if isinstance(s, str) else str(s.get("description") or s.get("name") or json.dumps(s))
        for s in (case.get(key) or [])
    ]


class SkillCreatorSuite(Suite):
    format_ids = ("skill-creator-evals",)
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
        self.timeout = request.timeout_seconds or 300
        self.out_dir = (
            request.output_dir
            or self.skill_root.parent
            / f"{self.skill_root.name}-workspace"
            / "runs"
            / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        )
        self.spec: Any = None

    def units(self) -> list[Unit]:
        evals = self.data.get("evals") if isinstance(self.data, dict) else None
        return [
            Unit(str(c.get("id")), ["evals", i], c) for i, c in enumerate(evals or []) if isinstance(c, dict)
        ]

    def dry_run(self, units: list[Unit]) -> list[str]:
        return [f"{u.id}\t{len(statements_of(u.data)[1])} statement(s)" for u in units]

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
        key, statements = statements_of(case)
        files = [f for f in case.get("files") or [] if isinstance(f, str)]
        prompt = str(case.get("prompt", ""))
        verdicts, reasons, targets, checks_by_run, outputs = [], [], [], [], []
        total_seconds = 0.0
        for run in range(1, self.request.runs + 1):
            t0 = time.monotonic()
            res = await session.run(
                prompt, installed_skill(self.skill_root, self.data.get("skill_name")), self.skill_root, files
            )
            executor = time.monotonic() - t0
            graded, error = await grade(
                self.spec,
                prompt,
                res,
                statements,
                scale=False,
                deadline=judge_deadline(self.timeout, self.request.judge_timeout),
            )
            grader = time.monotonic() - t0 - executor
            total_seconds += executor + grader
            expectations = (
                [{"text": s, **g} for s, g in zip(statements, graded, strict=True)]
                if graded is not None
                else [{"text": s, "passed": False, "evidence": error} for s in statements]
            )
            passed = sum(bool(e["passed"]) for e in expectations) if graded is not None else 0
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
            target = (
                self.out_dir
                / ("baseline" if self.baseline else "")
                / f"eval-{unit.id}"
                / (f"run-{run}" if self.request.runs > 1 else "")
                / "grading.json"
            )  # baseline: never restored
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(grading, indent=2), encoding="utf-8")
            first_failed = next((e["text"] for e in expectations if not e["passed"]), None)
            verdict, reason = graded_verdict(
                error,
                len(statements),
                passed == len(expectations),
                f"{passed}/{len(expectations)} {key} passed"
                + (f"; failed: {first_failed}" if first_failed else ""),
            )
            verdicts.append(verdict)
            reasons.append(reason)
            targets.append(target)
            outputs.append(res)
            checks_by_run.append(
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
            duration_seconds=round(total_seconds, 3),
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
        )

    @classmethod
    def result_folder(cls, format_id: str, file: Path) -> Path | None:
        root = skill_root_of(file)
        return root.parent / f"{root.name}-workspace" / "runs"

    @classmethod
    def result_files(cls, format_id: str, file: Path) -> list[Path]:
        runs = cls.result_folder(format_id, file)
        if runs is None or not runs.is_dir():
            return []
        return newest_first([*runs.glob("*/eval-*/grading.json"), *runs.glob("*/eval-*/run-*/grading.json")])

    @classmethod
    def restore(cls, format_id: str, file: Path, data: Any) -> dict[str, Restored]:
        names = (
            {str(c.get("id")) for c in (data.get("evals") or []) if isinstance(c, dict)}
            if isinstance(data, dict)
            else set()
        )
        found: dict[str, Restored] = {}
        for path in cls.result_files(format_id, file):
            eval_dir = path.parent.parent if path.parent.name.startswith("run-") else path.parent
            name = eval_dir.name[len("eval-") :]
            grading = read_json(path)
            if name in names and name not in found and isinstance(grading, dict):
                try:
                    unit = creator_unit(name, grading, data)
                    unit.case_file, unit.result_file = str(file), str(path)
                    found[name] = Restored(unit, str(path), path.stat().st_mtime)
                except Exception:  # noqa: BLE001 - a foreign or half-written file is skipped
                    continue
        return found
