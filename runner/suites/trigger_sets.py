"""Trigger eval sets (skill-creator's ``trigger-eval.json`` and its ``should_trigger`` / ``should_not_trigger``
variant, formats.md §5.3): every query is a unit; a query triggers when the skill is the first thing the agent
activates in at least half of its runs. Precision and recall count only queries that really ran, by their own
labels; an ERROR query is left out and said so."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from evalens.core.units import read_doc
from evalens.core.units import trigger_queries as queries
from evalens.runner.results import UnitCheck, UnitResult
from evalens.runner.session import AgentResult, AgentSession, UsageError, agent_error, start_session
from evalens.runner.suites.base import (
    ParsedDocument,
    Ran,
    Suite,
    SuiteSummary,
    Unit,
    UnitRun,
    installed_skill,
    skill_root_of,
)
from evalens.runner.trigger_report import trigger_report
from evalens.runner.verdicts import check_status, decided, unit_verdict

THRESHOLD = 0.5


def trigger_queries(source: Path | ParsedDocument) -> tuple[str | None, list[tuple[str, bool]]]:
    """The skill name and the queries of a trigger eval set, from core's parse of it."""
    doc = read_doc(source) if isinstance(source, Path) else source
    return queries(doc.data)


def trigger_metrics(rows: list[tuple[str, bool, float]], threshold: float = THRESHOLD) -> dict[str, Any]:
    """Precision, recall and accuracy over queries; a query triggers when its trigger rate reaches ``threshold``."""
    tp = sum(1 for _, want, rate in rows if want and rate >= threshold)
    fp = sum(1 for _, want, rate in rows if not want and rate >= threshold)
    fn = sum(1 for _, want, rate in rows if want and rate < threshold)
    tn = len(rows) - tp - fp - fn
    return {
        "true_positives": tp,
        "false_positives": fp,
        "false_negatives": fn,
        "true_negatives": tn,
        "precision": round(tp / (tp + fp), 4) if tp + fp else None,
        "recall": round(tp / (tp + fn), 4) if tp + fn else None,
        "accuracy": round((tp + tn) / len(rows), 4) if rows else None,
    }


def metrics_of(results: list[Any]) -> tuple[dict[str, Any], list[tuple[str, bool, float]], int]:
    """Metrics from the units' own labels (``details.should_trigger``), never from labels guessed from a
    verdict; ERROR units did not run and are left out (their count is returned)."""
    rows = [
        (
            str(r.details.get("query", "")),
            bool(r.details["should_trigger"]),
            float(r.details.get("trigger_rate") or 0.0),
        )
        for r in results
        if r.verdict != "ERROR" and isinstance(r.details.get("should_trigger"), bool)
    ]
    return trigger_metrics(rows), rows, sum(r.verdict == "ERROR" for r in results)


UNDEFINED = {
    "precision": "n/a (the skill fired on no query)",
    "recall": "n/a (no query should trigger)",
    "accuracy": "n/a (no query)",
}


def metric_words(m: dict[str, Any], *names: str) -> str:
    """``precision 0.5, recall 1.0``: the metrics as every face words them; a metric with no denominator says why
    instead of printing ``None`` (issue 45: "precision None, recall 0.0")."""
    return ", ".join(f"{n} {m[n] if m.get(n) is not None else UNDEFINED[n]}" for n in names)


def metrics_line(results: list[Any]) -> str:
    m, rows, errored = metrics_of(results)
    return metric_words(m, "precision", "recall", "accuracy") + (
        f" over {len(rows)} of {len(rows) + errored} queries; {errored} ERROR (agent failed, not counted)"
        if errored
        else ""
    )


def co_installed(dirs: list[Path], under_test: Path) -> dict[str, Path]:
    """``--with-installed``: each folder's skills (name → SKILL.md): a skill folder itself, else the skills in its
    ``skills/`` (a plugin) or directly in it. The skill under test is left out; two skills of one name clash."""
    out: dict[str, Path] = {}
    test_root = under_test.resolve()
    for given in dirs:
        root = given.expanduser().resolve()
        if not root.is_dir():
            raise UsageError(f"--with-installed {given}: no such folder")
        own = installed_skill(root, None)
        if own:
            found = own
        else:
            base = root / "skills" if (root / "skills").is_dir() else root
            found = {}
            for entry in sorted(base.iterdir()):
                if entry.is_dir():
                    found.update(installed_skill(entry, None))
        if not found:
            raise UsageError(f"--with-installed {given}: no SKILL.md in it, its skills/ or its subfolders")
        for name, md in found.items():
            if md.parent.resolve() == test_root:
                continue
            if name in out and out[name] != md:
                raise UsageError(
                    f"--with-installed: two skills named `{name}` ({out[name].parent}, {md.parent})"
                )
            out[name] = md
    return out


def fired_entry(activations: list[Any]) -> dict[str, Any]:
    """One counted run as the report keeps it: the first installed skill that fired (None: none did), how it
    was seen, in which turn, with what argument, and any skill activated after it."""
    first = activations[0] if activations else None
    return {
        "skill": first.skill if first else None,
        "how": first.how if first else None,
        "turn": first.turn if first else None,
        "argument": first.argument if first else None,
        "also": [a.skill for a in activations[1:]],
    }


class TriggerSetSuite(Suite):
    format_ids = ("trigger-evals", "trigger-evals-variant")
    judge_repeats_refusal = (
        "a trigger set has no judge: whether the skill fired is read from the agent's events"
    )

    def load(self) -> None:
        request = self.request
        self.name, self.queries = trigger_queries(self.doc)
        self.skill_root = request.skill.resolve() if request.skill else skill_root_of(self.file)
        self.skills = installed_skill(self.skill_root, None)
        if not self.skills:
            raise UsageError(f"no SKILL.md found for {self.file} (pass --skill DIR)")
        self.skill = next(iter(self.skills))
        self.others = co_installed(request.with_installed, self.skill_root)
        if self.skill in self.others:
            raise UsageError(
                f"--with-installed: a skill named `{self.skill}` ({self.others[self.skill].parent}) "
                "clashes with the skill under test"
            )
        self.installed = {**self.skills, **self.others}

    @property
    def root(self) -> Path:
        return self.skill_root

    def units(self) -> list[Unit]:
        if self.format_id == "trigger-evals":
            return [Unit(str(i), [i], (q, want)) for i, (q, want) in enumerate(self.queries)]
        positives = sum(1 for _, want in self.queries if want)
        out = []
        for i, (q, want) in enumerate(self.queries):
            key, j = ("should_trigger", i) if want else ("should_not_trigger", i - positives)
            out.append(Unit(f"{key}[{j}]", [key, j], (q, want), aliases=[str(i)]))
        return out

    def dry_run(self, units: list[Unit]) -> list[str]:
        return [f"{'+' if u.data[1] else '-'} {u.data[0]}" for u in units]

    async def session(self, units: list[Unit] | None = None) -> AgentSession:
        return await start_session(
            self.request.engine,
            self.request.agent_model,
            self.request.timeout or 30,
            keep_sandbox=self.request.keep_sandbox,
            warn=lambda m: self.say("", m),
        )

    async def run_once(self, session: AgentSession, unit: Unit, run: int) -> UnitRun:
        """One run of the query: which installed skill fired first (``figures["fired"]``); the run alone is
        PASS when that matches whether the skill should trigger, ERROR when the agent failed."""
        query, want = unit.data
        res = await session.run(query, self.skills, beside=self.others)
        if res.error:  # a run that did not happen says nothing about triggering
            why = agent_error(res)
            return UnitRun(
                "ERROR", why, res, seconds=res.duration_ms / 1000, figures={"fired": {"error": why}}
            )
        entry = fired_entry(res.activations)
        ok = (entry["skill"] == self.skill) == want
        why = f"{entry['skill'] or 'no skill'} fired first ({'should' if want else 'should not'} trigger)"
        return UnitRun(decided(ok), why, res, seconds=res.duration_ms / 1000, figures={"fired": entry})

    def combine(self, session: Ran, unit: Unit, done: list[UnitRun]) -> UnitResult:
        """The query's verdict over its runs: it triggers when the skill fired first in at least half of them."""
        query, want = unit.data
        runs = len(done)  # the runs made: --runs auto stops a query once it is decided
        outputs = [r.res for r in done]
        errors = [r.res.error for r in done if r.res.error]
        fired: list[dict[str, Any]] = [dict(r.figures.get("fired") or {}) for r in done]
        hits = sum(
            1 for r, f in zip(done, fired, strict=True) if not r.res.error and f.get("skill") == self.skill
        )
        should = f"should {'' if want else 'not '}trigger"
        details: dict[str, Any] = {
            "query": query,
            "should_trigger": want,
            "trigger_rate": None,
            "skill": self.skill,
            "fired": fired,
        }
        if errors:
            verdict, reason = unit_verdict(
                agent_error=f"{len(errors)}/{runs} run(s) failed: "
                + agent_error(AgentResult(error=errors[0])),
                failed_check=None,
                judged=None,
                checked=False,
                judge_used=False,
            )
            checks: list[UnitCheck] = []
            self.say(unit.id, f"ERROR {should}: {query[:80]}\n      {reason}", outcome=True)
        else:
            rate = hits / runs
            details["trigger_rate"] = rate
            ok = (rate >= THRESHOLD) == want
            thieves = Counter(f["skill"] for f in fired if f.get("skill") not in (None, self.skill))
            reason = f"triggered {hits}/{runs} ({should})" + "".join(
                f"; {name} fired first {n}/{runs}" for name, n in thieves.most_common()
            )
            verdict, reason = unit_verdict(
                agent_error=None,
                failed_check=None if ok else reason,
                judged=None,
                checked=True,
                judge_used=False,
                checks_only=reason,
            )
            checks = [
                UnitCheck(
                    kind="trigger",
                    value=want,
                    status=check_status(ok),
                    detail=reason,
                    location=[*unit.location, "should_trigger"]
                    if self.format_id == "trigger-evals"
                    else list(unit.location),
                )
            ]
            self.say(
                unit.id,
                f"{'ok' if ok else 'WRONG':5} {should}, triggered {hits}/{runs}: {query[:80]}",
                outcome=True,
            )
        last = outputs[-1]
        return UnitResult(
            name=unit.id,
            format=self.format_id,
            case_file=str(self.file),
            location=unit.location,
            verdict=verdict,
            reason=reason,
            duration_seconds=round(sum(r.duration_ms for r in outputs) / 1000, 3),
            agent_seconds=round(sum(r.duration_ms for r in outputs) / 1000, 3),
            checks=checks,
            engine=session.engine.name,
            engine_version=session.engine_version,
            agent_model=last.model or self.request.agent_model,
            output_snippet=last.output[:500] or None,
            error=reason if verdict == "ERROR" else None,
            exit_code=last.exit_code,
            runs=runs,
            details=details,
            sandbox_path=session.kept[-1] if session.kept else None,
        )

    def compare(self, results: list[UnitResult], bases: list[UnitResult], label: str) -> SuiteSummary:
        """Precision and recall with the skill and in the baseline runs."""
        mine, theirs = metrics_of(results)[0], metrics_of(bases)[0]
        keys = ("precision", "recall", "accuracy")
        return SuiteSummary(
            lines=[f"with the skill: {metrics_line(results)}", f"without ({label}): {metrics_line(bases)}"],
            details={"with": {k: mine[k] for k in keys}, "without": {k: theirs[k] for k in keys}},
        )

    def finish(self, results: list[UnitResult]) -> SuiteSummary:
        m, rows, errored = metrics_of(results)
        result = {
            "skill": self.name or self.skill,
            "runs": self.request.runs,
            "threshold": THRESHOLD,
            **m,
            "queries": [{"query": q, "should_trigger": w, "trigger_rate": r} for q, w, r in rows],
            "errors": [
                {
                    "query": r.details.get("query"),
                    "should_trigger": r.details.get("should_trigger"),
                    "error": r.reason,
                }
                for r in results
                if r.verdict == "ERROR"
            ],
        }

        lab = trigger_report((r.name, r.details) for r in results)
        if lab is not None:
            result["installed"] = sorted(self.installed)
            result["trigger_report"] = lab.to_json()
        if self.request.json_output:
            self.request.json_output.write_text(json.dumps(result, indent=2), encoding="utf-8")
        return SuiteSummary(
            lines=[metrics_line(results), *(lab.summary_lines() if lab is not None else [])],
            failed=bool(m["false_positives"] + m["false_negatives"]),
            result_file=self.request.json_output,
            details=m,
        )
