"""writing-skills evals (formats.md §4): ``evals.json``, ``history.json``, ``grading.json``, ``comparison.json``,
``analysis.json``.

``evals.json`` shares its path with skill-creator's; content decides (``version`` + ``skill`` + ``cases`` here,
``skill_name`` + ``evals`` there). Grading rules follow ``schemas.md``: ``passed`` is always ``score >= 3``,
``overall`` passes only when every required expectation passed, ``overall_score`` is the mean.
"""

from __future__ import annotations

import json
import re
from pathlib import Path as FsPath
from pathlib import PurePosixPath
from typing import Any

from evalens.core.documents import ParsedDocument, Path, parse, sub_dict, sub_list
from evalens.core.formats import registry
from evalens.core.formats._shared import (
    document_data,
    frontmatter_name,
    is_unfalsifiable,
    problem,
    replace_fix,
)
from evalens.core.formats.base import CaseInfo, Format, Match, RuleContext, Target, ValueChoice
from evalens.core.formats.uaaps import kebab
from evalens.core.models import writing_skills as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.problems import Fix, Problem, Severity
from evalens.core.schema_check import suggest

register(
    SchemaSpec(
        "writing-skills-evals.schema.json",
        m.EvalsFile,
        "writing-skills evals.json",
        "Eval cases of a skill in the writing-skills format: prompts with graded, required or "
        "optional expectations.",
    )
)
register(
    SchemaSpec(
        "writing-skills-history.schema.json",
        m.HistoryFile,
        "writing-skills history.json",
        "Versions of a skill in a writing-skills workspace.",
    )
)
register(
    SchemaSpec(
        "writing-skills-grading.schema.json",
        m.GradingFile,
        "writing-skills grading.json",
        "The grader's 1–5 verdict on one run of one case (`grading/<case>_v<N>_run<M>.json`).",
    )
)
register(
    SchemaSpec(
        "writing-skills-comparison.schema.json",
        m.ComparisonFile,
        "writing-skills comparison.json",
        "The blind comparator's verdict between two versions' outputs.",
    )
)
register(
    SchemaSpec(
        "writing-skills-analysis.schema.json",
        m.AnalysisFile,
        "writing-skills analysis.json",
        "The analyzer's unblinded explanation of why a version won.",
    )
)

_GRADING_NAME = re.compile(r"^(?P<case>.+)_v(?P<version>\d+)_run(?P<run>\d+)\.json$")


def skill_dir_of(evals_file: str) -> FsPath:
    """``<skill>/evals/evals.json`` → ``<skill>``; any other place → the file's folder. Absolute: validating
    ``evals/evals.json`` from inside the skill gives ``.``, whose name is empty (the skill's SKILL.md "is named
    ``"), and roots found elsewhere are absolute."""
    parent = FsPath(evals_file).absolute().parent
    return parent.parent if parent.name == "evals" else parent


def _dicts(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


_WS_CASE_KEYS = frozenset(("expectations", "files"))
"""Keys only a writing-skills case has; `id` and `prompt` are every eval tool's."""


def _skill_creator_cases(cases: list[dict[str, Any]]) -> bool:
    """Cases shaped as skill-creator's (issue #39, noise class 5): `expectations` / `assertions` as strings, or an
    `expected_output`, and not one writing-skills `{criterion, …}` expectation. `expectations` and `files` are
    both formats' names, so the shape of the checks decides."""
    checks = [e for c in cases for k in ("expectations", "assertions") for e in sub_list(c, k)]
    if any(isinstance(e, dict) and "criterion" in e for e in checks):
        return False
    strings = bool(checks) and all(isinstance(e, str) for e in checks)
    return strings or any("expected_output" in c or "assertions" in c for c in cases)


class WritingSkillsEvals(Format):
    id = "writing-skills-evals"
    title = "writing-skills evals.json"
    language = "json"
    globs = ("**/evals.json",)
    schema_file = "writing-skills-evals.schema.json"
    runnable = True
    lookalike_hint = (
        "Eval cases under `skill` + `cases`, but none has writing-skills' `expectations` or `files`: "
        "another tool's format, so evalens leaves it alone."
    )

    def detect(self, path: str, data: Any) -> Match:
        """Claimed on the writing-skills shape: a `skill` path next to `cases`, or cases whose expectations are
        `{criterion, …}` objects. A bare `cases` list is every other tool's too, so it is left alone."""
        if not isinstance(data, dict) or not data or "evals" in data or "skill_name" in data:
            return Match.NO
        cases = data.get("cases")
        if isinstance(data.get("skill"), str) and ("cases" in data or "version" in data):
            case_dicts = [c for _, c in _dicts(cases[:50])] if isinstance(cases, list) else []
            if case_dicts and not any(_WS_CASE_KEYS & set(c) for c in case_dicts):
                # cases of another tool under the same top-level names (own keys, no expectations or files)
                return Match.LOOKALIKE if any("prompt" in c for c in case_dicts) else Match.NO
            if case_dicts and _skill_creator_cases(case_dicts):
                return Match.LOOKALIKE  # skill-creator's cases under another wrapper: not this format's
            return Match.YES
        if isinstance(cases, list) and any(
            isinstance(e, dict) and "criterion" in e
            for _, c in _dicts(cases[:50])
            for e in sub_list(c, "expectations")
        ):
            return Match.YES
        return Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            if p.code == "schema-pattern" and len(path) == 3 and path[0] == "cases" and path[2] == "id":
                value = str(doc.data["cases"][path[1]]["id"])
                fixed = kebab(value)
                p.message = f"`{value}` is not a valid case id: use kebab-case (e.g. `{fixed}`)."
                p.fixes.append(replace_fix(doc, path, fixed))
        return problems

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data: Any = doc.data if isinstance(doc.data, dict) else {}
        out: list[Problem] = []
        skill = data.get("skill")
        if isinstance(skill, str) and skill:
            out += self._skill_rules(doc, skill, ctx)
        cases = data.get("cases")
        if isinstance(cases, list) and not cases:
            out.append(
                problem(
                    doc,
                    ("cases",),
                    Severity.WARNING,
                    "no-cases",
                    "`cases` is empty: nothing to run.",
                    on_key=True,
                )
            )
        seen: dict[str, int] = {}
        for i, case in _dicts(cases):
            cid = case.get("id")
            if isinstance(cid, str) and cid:
                if cid in seen:
                    line = doc.span_for(("cases", seen[cid], "id")).start_line + 1
                    out.append(
                        problem(
                            doc,
                            ("cases", i, "id"),
                            Severity.ERROR,
                            "duplicate-id",
                            f"Duplicate case id `{cid}` (first used on line {line}); ids must be unique.",
                        )
                    )
                else:
                    seen[cid] = i
            exps = case.get("expectations")
            if not isinstance(exps, list):
                continue
            label = f"`{cid}`" if isinstance(cid, str) else f"cases[{i}]"
            if not any(isinstance(e, dict) and e.get("required") is True for e in exps):
                fixes = []
                first = next((j for j, e in _dicts(exps) if e.get("required") is False), None)
                if first is not None:
                    fixes.append(
                        replace_fix(
                            doc,
                            ("cases", i, "expectations", first, "required"),
                            "true",
                            "Make the first expectation required",
                        )
                    )
                out.append(
                    problem(
                        doc,
                        ("cases", i, "expectations"),
                        Severity.ERROR,
                        "no-required-expectation",
                        f"Case {label} has no `required: true` expectation, so it can never fail; mark "
                        "the criterion that defines success as required.",
                        on_key=True,
                        fixes=fixes,
                    )
                )
            criteria: dict[str, int] = {}
            for j, exp in _dicts(exps):
                crit = exp.get("criterion")
                if isinstance(crit, str) and crit:
                    if crit in criteria:
                        out.append(
                            problem(
                                doc,
                                ("cases", i, "expectations", j, "criterion"),
                                Severity.ERROR,
                                "duplicate-criterion",
                                f"Criterion `{crit}` appears twice in case "
                                f"{label}; grading results are matched by criterion.",
                            )
                        )
                    criteria.setdefault(crit, j)
                desc = exp.get("description")
                if isinstance(desc, str) and desc.strip() and is_unfalsifiable(desc):
                    out.append(
                        problem(
                            doc,
                            ("cases", i, "expectations", j, "description"),
                            Severity.HINT,
                            "vague-expectation",  # a text heuristic: advice, never a verdict
                            "Vague expectation: nothing here a grader could find false. Name the file, "
                            "command, value or behaviour that must (not) appear.",
                        )
                    )
        return out

    def _skill_rules(self, doc: ParsedDocument, skill: str, ctx: RuleContext) -> list[Problem]:
        out: list[Problem] = []
        here = skill_dir_of(ctx.file_path)
        declared = PurePosixPath(skill.replace("\\", "/")).name
        own = next(
            (frontmatter_name(here / n) for n in ("SKILL.md", "skill.md") if (here / n).is_file()), None
        )
        if FsPath(ctx.file_path).parent.name == "evals" and declared and declared not in (here.name, own):
            base = skill.rstrip("/\\")  # a trailing slash stays where it was
            fixed = base[: len(base) - len(declared)] + here.name + skill[len(base) :]
            out.append(
                problem(
                    doc,
                    ("skill",),
                    Severity.WARNING,
                    "skill-mismatch",
                    f"`skill` names `{declared}` but this file belongs to skill `{here.name}` "
                    f"(`{here.name}/evals/evals.json`); the value looks stale.",
                    fixes=[replace_fix(doc, ("skill",), fixed)],
                )
            )
        if not skill.startswith("/") and not re.match(r"^[A-Za-z]:[\\/]", skill):
            out.append(
                problem(
                    doc,
                    ("skill",),
                    Severity.HINT,
                    "skill-path-relative",
                    f"`skill` is documented as the absolute path of the skill under test "
                    f"(`init_workspace.py` writes the resolved path); `{skill}` is relative.",
                )
            )
        return out

    def cases(self, doc: ParsedDocument) -> list[CaseInfo]:
        return _id_cases(doc, "cases")

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        if len(path) >= 3 and path[0] == "cases" and path[2] == "files":
            base = skill_dir_of(ctx.file_path) / "evals"
            return [ValueChoice(f, "fixture") for f in _files_under(base, skip={"evals.json"})]
        return []

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        if not isinstance(value, str):
            return []
        here = skill_dir_of(ctx.file_path)
        if path == ("skill",):
            for candidate in (FsPath(value) / "SKILL.md", here / "SKILL.md"):
                if candidate.is_file():
                    return [Target(str(candidate))]
        if len(path) == 4 and path[0] == "cases" and path[2] == "files":
            for candidate in (here / "evals" / value, here / value):
                if candidate.exists():
                    return [Target(str(candidate))]
        return []

    def skeleton(self, snippets: bool) -> str | None:
        return (
            json.dumps(
                {
                    "version": "1.0",
                    "skill": "/absolute/path/to/skills/my-skill",
                    "cases": [
                        {
                            "id": "first-case",
                            "prompt": "A realistic request the skill should handle",
                            "files": [],
                            "expectations": [
                                {
                                    "criterion": "names-the-file",
                                    "description": "Names output/report.md as the file it wrote",
                                    "required": True,
                                }
                            ],
                        }
                    ],
                },
                indent=2,
            )
            + "\n"
        )


def _id_cases(doc: ParsedDocument, key: str) -> list[CaseInfo]:
    root = doc.root
    seq = root.get(key) if root is not None and root.kind == "map" else None
    if seq is None or seq.kind != "seq":
        return []
    out: list[CaseInfo] = []
    for i, item in enumerate(seq.items):
        node = item.get("id") if item.kind == "map" else None
        if node is not None and node.kind == "scalar" and node.value not in (None, ""):
            out.append(CaseInfo(str(node.value), item.key_span("id") or node.span, node.span, (key, i)))
    return out


def _files_under(base: FsPath, skip: set[str], limit: int = 500) -> list[str]:
    """Files under ``base`` relative to it (hidden folders skipped; bounded for huge trees)."""
    out: list[str] = []
    if not base.is_dir():
        return out
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base).as_posix()
        if path.is_file() and path.name not in skip and not any(p.startswith(".") for p in rel.split("/")):
            out.append(rel)
            if len(out) >= limit:
                break
    return out


# ------------------------------------------------------------------------------------------- history.json


class WritingSkillsHistory(Format):
    id = "writing-skills-history"
    title = "writing-skills history.json"
    language = "json"
    globs = ("**/history.json",)
    schema_file = "writing-skills-history.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """Claimed on the workspace's shape: `current_version` next to `versions`, or versions carrying
        `git_hash` / `average_score` (a bare `versions` list is every changelog's)."""
        if not isinstance(data, dict):
            return Match.NO
        versions = data.get("versions")
        if "current_version" in data and "versions" in data:
            return Match.YES
        return (
            Match.YES
            if isinstance(versions, list)
            and any(isinstance(v, dict) and {"git_hash", "average_score"} & set(v) for v in versions[:50])
            else Match.NO
        )

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data: Any = doc.data if isinstance(doc.data, dict) else {}
        out: list[Problem] = []
        versions = _dicts(data.get("versions"))
        workspace = FsPath(ctx.file_path).parent
        numbers = []
        for i, v in versions:
            n = v.get("version")
            if not isinstance(n, int) or isinstance(n, bool):
                continue
            numbers.append(n)
            if n != i:
                out.append(
                    problem(
                        doc,
                        ("versions", i, "version"),
                        Severity.WARNING,
                        "version-sequence",
                        f"versions[{i}] has version {n}; versions are numbered 0, 1, 2, … in order.",
                    )
                )
            path = v.get("path")
            if isinstance(path, str) and path != f"v{n}/skill":
                out.append(
                    problem(
                        doc,
                        ("versions", i, "path"),
                        Severity.WARNING,
                        "version-path",
                        f"`path` of version {n} is `{path}`; copy_version.py writes `v{n}/skill`.",
                        fixes=[replace_fix(doc, ("versions", i, "path"), f"v{n}/skill")],
                    )
                )
            elif isinstance(path, str) and not (workspace / path).is_dir():
                out.append(
                    problem(
                        doc,
                        ("versions", i, "path"),
                        Severity.WARNING,
                        "version-missing",
                        f"`{path}` does not exist in this workspace.",
                    )
                )
            if n == 0 and isinstance(v.get("description"), str) and v["description"] != "baseline":
                out.append(
                    problem(
                        doc,
                        ("versions", i, "description"),
                        Severity.HINT,
                        "baseline-description",
                        'Version 0 is the baseline; init_workspace.py describes it as "baseline".',
                    )
                )
            score = v.get("average_score")
            if isinstance(score, int | float) and not isinstance(score, bool) and not 1 <= score <= 5:
                out.append(
                    problem(
                        doc,
                        ("versions", i, "average_score"),
                        Severity.ERROR,
                        "score-range",
                        f"`average_score` {score} is outside the 1–5 rubric.",
                    )
                )
        current = data.get("current_version")
        if numbers and isinstance(current, int) and current != max(numbers):
            out.append(
                problem(
                    doc,
                    ("current_version",),
                    Severity.WARNING,
                    "current-version",
                    f"`current_version` is {current} but the newest version is {max(numbers)}.",
                )
            )
        return out


# ------------------------------------------------------------------------------------------- grading.json


def _find_evals(grading_file: str, version: Any) -> tuple[FsPath, dict[str, Any]] | None:
    """The evals.json a grading file belongs to: the workspace's copy of the graded version, else v0, else the
    skill next to ``<name>-workspace``."""
    here = FsPath(grading_file).parent
    workspace = (
        here.parent
        if here.name == "grading"
        else next((p for p in here.parents if (p / "history.json").is_file()), here.parent)
    )
    candidates = [
        workspace / f"v{version}" / "skill" / "evals" / "evals.json",
        workspace / "v0" / "skill" / "evals" / "evals.json",
    ]
    if workspace.name.endswith("-workspace"):
        candidates.append(workspace.parent / workspace.name[: -len("-workspace")] / "evals" / "evals.json")
    for path in candidates:
        if path.is_file():
            try:
                doc = parse(path.read_text(encoding="utf-8"), "json")
            except (OSError, UnicodeDecodeError):
                continue
            if isinstance(doc.data, dict) and isinstance(doc.data.get("cases"), list):
                return path, doc.data
    return None


def _overall_mismatch(doc: ParsedDocument, message: str, fixes: list[Fix] | None = None) -> Problem:
    """A grading's ``overall`` that its results contradict."""
    return problem(doc, ("overall",), Severity.ERROR, "overall-mismatch", message, fixes=fixes)


class WritingSkillsGrading(Format):
    id = "writing-skills-grading"
    title = "writing-skills grading.json"
    language = "json"
    globs = ("**/grading/*.json", "**/grading.json")
    schema_file = "writing-skills-grading.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        if not isinstance(data, dict):
            return Match.NO
        results = data.get("results")
        scored = isinstance(results, list) and any(
            isinstance(r, dict) and "criterion" in r for r in results[:50]
        )
        return Match.YES if "case_id" in data or scored else Match.NO

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data: Any = doc.data if isinstance(doc.data, dict) else {}
        out: list[Problem] = []
        results = _dicts(data.get("results"))
        scores: list[float] = []
        for i, r in results:
            score = r.get("score")
            if isinstance(score, int | float) and not isinstance(score, bool):
                scores.append(score)
                want = score >= m.PASS_SCORE
                if isinstance(r.get("passed"), bool) and r["passed"] != want:
                    out.append(
                        problem(
                            doc,
                            ("results", i, "passed"),
                            Severity.ERROR,
                            "passed-mismatch",
                            f"`passed` must be `score >= 3`: score {score} means `{str(want).lower()}`.",
                            fixes=[replace_fix(doc, ("results", i, "passed"), str(want).lower())],
                        )
                    )
        overall_score = data.get("overall_score")
        if scores and isinstance(overall_score, int | float) and not isinstance(overall_score, bool):
            mean = round(sum(scores) / len(scores), 1)
            if abs(mean - overall_score) > 0.051:
                out.append(
                    problem(
                        doc,
                        ("overall_score",),
                        Severity.WARNING,
                        "score-mismatch",
                        f"`overall_score` is {overall_score} but the mean of the scores is {mean}.",
                        fixes=[replace_fix(doc, ("overall_score",), str(mean))],
                    )
                )
        name = _GRADING_NAME.match(FsPath(ctx.file_path).name)
        if name:
            for key, expected in (
                ("case_id", name["case"]),
                ("version", int(name["version"])),
                ("run", int(name["run"])),
            ):
                if key in data and data[key] != expected:
                    out.append(
                        problem(
                            doc,
                            (key,),
                            Severity.WARNING,
                            "filename-mismatch",
                            f"`{key}` is {json.dumps(data[key], ensure_ascii=False)} but the file "
                            f"name says {json.dumps(expected, ensure_ascii=False)} "
                            "(`<case_id>_v<version>_run<run>.json`).",
                        )
                    )
        out += self._against_evals(doc, data, results, ctx)
        return out

    def _against_evals(
        self, doc: ParsedDocument, data: dict[str, Any], results: list[tuple[int, dict]], ctx: RuleContext
    ) -> list[Problem]:
        passed = {
            r.get("criterion"): (
                r["score"] >= m.PASS_SCORE
                if isinstance(r.get("score"), int | float) and not isinstance(r.get("score"), bool)
                else r.get("passed")
            )
            for _, r in results
        }
        overall = data.get("overall")
        found = _find_evals(ctx.file_path, data.get("version"))
        case = None
        if found is not None:
            cases = {c.get("id"): c for _, c in _dicts(found[1].get("cases"))}
            case = cases.get(data.get("case_id"))
            if case is None and isinstance(data.get("case_id"), str):
                near = suggest(data["case_id"], [c for c in cases if isinstance(c, str)])
                return [
                    problem(
                        doc,
                        ("case_id",),
                        Severity.ERROR,
                        "unknown-case",
                        f"Case `{data['case_id']}` is not in {found[0]}"
                        + (f"; did you mean `{near}`?" if near else "."),
                        fixes=[replace_fix(doc, ("case_id",), near)] if near else [],
                    )
                ]
        out: list[Problem] = []
        if case is None:  # without the evals we only know the extremes
            values = [v for v in passed.values() if isinstance(v, bool)]
            if values and overall == "pass" and not any(values):
                out.append(_overall_mismatch(doc, "`overall` is `pass` but every result failed."))
            if values and overall == "fail" and all(values):
                out.append(_overall_mismatch(doc, "`overall` is `fail` but every result passed."))
            return out
        expectations = [e for _, e in _dicts(case.get("expectations"))]
        known = [c for e in expectations if isinstance(c := e.get("criterion"), str)]
        for i, r in results:
            crit = r.get("criterion")
            if isinstance(crit, str) and crit not in known:
                near = suggest(crit, known)
                out.append(
                    problem(
                        doc,
                        ("results", i, "criterion"),
                        Severity.WARNING,
                        "unknown-criterion",
                        f"Criterion `{crit}` is not an expectation of case `{case.get('id')}`"
                        + (f"; did you mean `{near}`?" if near else "."),
                        fixes=[replace_fix(doc, ("results", i, "criterion"), near)] if near else [],
                    )
                )
        missing = [c for c in known if c not in passed]
        if missing:
            out.append(
                problem(
                    doc,
                    ("results",),
                    Severity.WARNING,
                    "missing-result",
                    f"No result for expectation(s) {', '.join(f'`{c}`' for c in missing)}.",
                    on_key=True,
                )
            )
        required: list[Any] = [e.get("criterion") for e in expectations if e.get("required") is True]
        if overall in ("pass", "fail") and all(c in passed for c in required):
            want = "pass" if all(passed[c] is True for c in required) else "fail"
            if overall != want:
                out.append(
                    _overall_mismatch(
                        doc,
                        f"`overall` must be `{want}`: it passes only when every required expectation "
                        f"passed ({', '.join(f'`{c}`' for c in required)}).",
                        fixes=[replace_fix(doc, ("overall",), want)],
                    )
                )
        scores: dict[Any, Any] = {r.get("criterion"): r.get("score") for _, r in results}
        req_scores: list[float] = [scores[c] for c in required if isinstance(scores.get(c), int | float)]
        rs = data.get("required_score")
        if (
            req_scores
            and isinstance(rs, int | float)
            and abs(round(sum(req_scores) / len(req_scores), 1) - rs) > 0.051
        ):
            mean = round(sum(req_scores) / len(req_scores), 1)
            out.append(
                problem(
                    doc,
                    ("required_score",),
                    Severity.WARNING,
                    "score-mismatch",
                    f"`required_score` is {rs} but the mean of the required criteria's scores is {mean}.",
                    fixes=[replace_fix(doc, ("required_score",), str(mean))],
                )
            )
        return out

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        data = document_data(ctx, "json")
        found = _find_evals(ctx.file_path, data.get("version") if isinstance(data, dict) else None)
        if found is None:
            return []
        cases = [c for _, c in _dicts(found[1].get("cases"))]
        if path == ("case_id",):
            return [ValueChoice(str(c.get("id")), "case", str(c.get("prompt", ""))[:200]) for c in cases]
        if len(path) == 3 and path[0] == "results" and path[2] == "criterion":
            return [
                ValueChoice(
                    str(e.get("criterion")),
                    "required" if e.get("required") else "optional",
                    str(e.get("description", "")),
                )
                for c in cases
                for _, e in _dicts(c.get("expectations"))
            ]
        return []

    def hover_value(self, path: Path, value: Any, ctx: RuleContext) -> str | None:
        """The expectation a criterion grades, or the prompt of the graded case."""
        data = document_data(ctx, "json")
        found = _find_evals(ctx.file_path, data.get("version") if isinstance(data, dict) else None)
        if found is None:
            return None
        cases = {c.get("id"): c for _, c in _dicts(found[1].get("cases"))}
        case = cases.get(data.get("case_id")) if isinstance(data, dict) else None
        if path == ("case_id",) and value in cases:
            return f"**Case `{value}`** — {str(cases[value].get('prompt', ''))[:400]}"
        if len(path) == 3 and path[0] == "results" and path[2] == "criterion" and case is not None:
            for _, e in _dicts(case.get("expectations")):
                if e.get("criterion") == value:
                    kind = "required" if e.get("required") is True else "optional"
                    return f"**{kind}** — {e.get('description', '')}"
        return None

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        version = doc.data.get("version") if isinstance(doc.data, dict) else None
        found = _find_evals(ctx.file_path, version)
        if found is None or path != ("case_id",):
            return []
        evals_doc = parse(found[0].read_text(encoding="utf-8"), "json")
        for i, c in _dicts(found[1].get("cases")):
            if c.get("id") == value:
                return [Target(str(found[0]), evals_doc.span_for(("cases", i, "id")))]
        return []


# ------------------------------------------------------------------------------------------- comparison / analysis


class WritingSkillsComparison(Format):
    id = "writing-skills-comparison"
    title = "writing-skills comparison.json"
    language = "json"
    globs = ("**/comparison.json",)
    schema_file = "writing-skills-comparison.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        if not isinstance(data, dict):
            return Match.NO
        scores = data.get("scores")
        blind = isinstance(scores, dict) and any(
            isinstance(v, dict) and {"A", "B"} <= set(v) for v in scores.values()
        )
        return Match.YES if "eval_prompt" in data or blind else Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        for p in problems:
            if tuple((p.data or {}).get("path", ())) == ("winner",) and p.code == "schema-enum":
                p.message = (
                    f"`winner` must be `A` or `B`, not `{doc.data.get('winner')}`: the schema has no tie "
                    "(the comparator's instructions allow one; pick the closer winner)."
                )
        return problems

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data: Any = doc.data if isinstance(doc.data, dict) else {}
        scores = sub_dict(data, "scores")
        totals = {"A": 0.0, "B": 0.0}
        for pair in scores.values():
            if isinstance(pair, dict):
                for side in totals:
                    if isinstance(pair.get(side), int | float):
                        totals[side] += pair[side]
        winner = data.get("winner")
        loser = {"A": "B", "B": "A"}.get(winner) if isinstance(winner, str) else None
        if loser and scores and totals[winner] < totals[loser]:
            return [
                problem(
                    doc,
                    ("winner",),
                    Severity.WARNING,
                    "winner-mismatch",
                    f"`winner` is {winner} but its scores total {totals[winner]:g} against "
                    f"{totals[loser]:g} for {loser}.",
                )
            ]
        return []


class WritingSkillsAnalysis(Format):
    id = "writing-skills-analysis"
    title = "writing-skills analysis.json"
    language = "json"
    globs = ("**/analysis.json",)
    schema_file = "writing-skills-analysis.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        return (
            Match.YES
            if isinstance(data, dict) and ("winner_version" in data or "loser_version" in data)
            else Match.NO
        )

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data: Any = doc.data if isinstance(doc.data, dict) else {}
        if data.get("winner_version") is not None and data.get("winner_version") == data.get("loser_version"):
            return [
                problem(
                    doc,
                    ("loser_version",),
                    Severity.ERROR,
                    "same-version",
                    "`winner_version` and `loser_version` are the same version.",
                )
            ]
        return []


registry.register(WritingSkillsEvals())
registry.register(WritingSkillsHistory())
registry.register(WritingSkillsGrading())
registry.register(WritingSkillsComparison())
registry.register(WritingSkillsAnalysis())
