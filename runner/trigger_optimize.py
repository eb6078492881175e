"""``evalens triggers optimize SKILL_DIR``: better SKILL.md descriptions, accepted only with proof (docs/triggers.md).

1. The trigger set is split once into a training and a held-out part (per label, seeded: :func:`split`).
2. The current description runs on both; the judge model proposes rewrites from the training queries only (and
   what fired on them), never seeing a held-out query.
3. Each rewrite runs on the training queries; one that gets more runs right there runs on the held-out queries.
4. It is accepted only if, on the held-out queries, the improvement's 95% interval (paired: the same query and run
   with either description, :func:`paired_difference`) lies above 0 **and** no co-installed skill fires less
   often on the queries not meant for this skill (it must not take them from their owners).
5. The winner is shown as a diff of SKILL.md to review; nothing is written. What the agent runs cost (and the
   number of judge calls) is reported; ``--max-cost`` stops the search when spent.

Every measurement is an ordinary trigger-set run (:func:`evalens.runner.api.run_file`) of a temporary copy of the
skill: the same sandbox, detection and ERROR rules. A measurement with an ERROR run decides nothing.
"""

from __future__ import annotations

import difflib
import json
import random
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evalens.runner.stats import Z95, newcombe_paired_difference

# The run machinery (the run API, the suites, engines, judge, budget) is imported inside the functions that run:
# the language server imports this module for find_trigger_set on its code actions: 0.02 s alone, 0.3-0.6 s
# with the machinery (measured after the server's start).

SYSTEM = (
    "You improve the `description` of an agent skill. The agent sees only each installed skill's name and "
    "description when it decides which skill to use, so the description must make the agent use this skill for "
    "the requests it is meant for, and not for the others (those may belong to other installed skills). Keep "
    "it truthful to what the skill does and under 1024 characters. Reply with a JSON object "
    '{"descriptions": ["...", ...]} holding the requested number of different rewrites, nothing else.'
)


@dataclass
class OptimizeRequest:
    skill_dir: Path
    trigger_set: Path
    with_installed: list[Path] = field(default_factory=list)
    engine: str = "claude-code"
    agent_model: str | None = None  # the names RunOptions gives these (issue 41: one name per meaning)
    judge: str | None = None
    runs: int = 1
    candidates: int = 3
    holdout: float = 0.5
    seed: int = 0
    timeout: float = 60  # seconds, per query run
    max_cost: float | None = None


@dataclass
class Measured:
    """What fired in each counted run of each measured query (None: the run errored)."""

    queries: list[tuple[str, bool]]
    fired: list[list[str | None]]  # per query, per run: the first skill that fired ("" for none)
    errors: list[str] = field(default_factory=list)

    def correct(self, skill: str) -> list[list[bool]]:
        return [
            [(f == skill) == want for f in runs if f is not None]
            for (_, want), runs in zip(self.queries, self.fired, strict=True)
        ]

    def score(self, skill: str) -> tuple[int, int]:
        cells = [c for runs in self.correct(skill) for c in runs]
        return sum(cells), len(cells)

    def others_fired(self, skill: str) -> dict[str, int]:
        """Runs where another installed skill fired first on a query not meant for ``skill``."""
        out: dict[str, int] = {}
        for (_, want), runs in zip(self.queries, self.fired, strict=True):
            if want:
                continue
            for f in runs:
                if f and f != skill:
                    out[f] = out.get(f, 0) + 1
        return out


@dataclass
class Candidate:
    label: str
    description: str
    train: Measured | None = None
    held: Measured | None = None
    difference: tuple[float, float, float] | None = None  # held-out: (difference, low, high)
    accepted: bool = False
    why: str = ""


@dataclass
class OptimizeResult:
    skill: str
    train: list[tuple[str, bool]]
    held: list[tuple[str, bool]]
    current: Candidate
    candidates: list[Candidate] = field(default_factory=list)
    winner: Candidate | None = None
    diff: str = ""
    cost_usd: float = 0.0
    tokens: int = 0
    agent_runs: int = 0
    judge_calls: int = 0
    error: str | None = None
    stopped: str | None = None  # why the search ended early (the budget)

    def to_json(self) -> dict[str, Any]:
        def measured(m: Measured | None) -> dict[str, Any] | None:
            if m is None:
                return None
            right, of = m.score(self.skill)
            return {"correct": right, "of": of, "errors": m.errors}

        def cand(c: Candidate) -> dict[str, Any]:
            return {
                "label": c.label,
                "description": c.description,
                "train": measured(c.train),
                "held_out": measured(c.held),
                "difference": list(c.difference) if c.difference else None,
                "accepted": c.accepted,
                "why": c.why,
            }

        return {
            "skill": self.skill,
            "train": [q for q, _ in self.train],
            "held_out": [q for q, _ in self.held],
            "current": cand(self.current),
            "candidates": [cand(c) for c in self.candidates],
            "winner": self.winner.label if self.winner else None,
            "diff": self.diff,
            "cost": {
                "agent_usd": round(self.cost_usd, 6),
                "tokens": self.tokens,
                "agent_runs": self.agent_runs,
                "judge_calls": self.judge_calls,
            },
            "error": self.error,
            "stopped": self.stopped,
        }


def split(labels: list[bool], holdout: float, seed: int) -> list[bool]:
    """Which queries are held out (True), per label: a seeded shuffle of each label's positions, the first
    ``round(n * holdout)`` held out, at least one of each side when a label has two or more queries. It depends
    only on the labels' order and the seed, so a test (or a user) can know the split before running."""
    held = [False] * len(labels)
    for want in (True, False):
        positions = [i for i, label in enumerate(labels) if label == want]
        random.Random(f"{seed}-{want}").shuffle(positions)
        k = round(len(positions) * holdout)
        if len(positions) >= 2:
            k = min(max(k, 1), len(positions) - 1)
        for i in positions[:k]:
            held[i] = True
    return held


def paired_difference(pairs: list[tuple[bool, bool]], z: float = Z95) -> tuple[float, float, float]:
    """``rate(new) - rate(old)`` over paired outcomes ``(new, old)`` with its 95% interval.

    The statistic is :func:`evalens.runner.stats.newcombe_paired_difference` (Newcombe 1998b, method 10, with
    its continuity-corrected φ), the one every paired comparison in evalens uses. This module once carried its
    own copy without the φ correction; on 6 held-out pairs (3 wins, no loss) it gave [+0.05, +0.73] where the
    published method gives [−0.040, +0.773], and so accepted a rewrite whose interval contains 0."""
    if not pairs:
        raise ValueError("no pairs")
    both = sum(1 for new, old in pairs if new and old)
    better = sum(1 for new, old in pairs if new and not old)
    worse = sum(1 for new, old in pairs if old and not new)
    neither = len(pairs) - both - better - worse
    return newcombe_paired_difference(both, worse, better, neither, z)


def pairs_of(new: Measured, old: Measured, skill: str) -> list[tuple[bool, bool]]:
    """The same query and run index with either description (runs that errored on either side are dropped)."""
    out = []
    for (_, want), runs_new, runs_old in zip(new.queries, new.fired, old.fired, strict=True):
        for f_new, f_old in zip(runs_new, runs_old, strict=False):
            if f_new is not None and f_old is not None:
                out.append(((f_new == skill) == want, (f_old == skill) == want))
    return out


FRONTMATTER = re.compile(r"\A(---[ \t]*\n)(.*?\n)(---[ \t]*(?:\n|\Z))", re.S)


def with_description(text: str, description: str) -> str:
    """SKILL.md with its frontmatter ``description`` replaced (a folded or block value too), as a JSON-quoted
    YAML string; everything else unchanged."""
    match = FRONTMATTER.match(text)
    if match is None:
        raise ValueError("SKILL.md has no frontmatter")
    lines = match.group(2).splitlines(keepends=True)
    out: list[str] = []
    skipping = False
    replaced = False
    for line in lines:
        if skipping and (line.startswith((" ", "\t")) or not line.strip()):
            continue
        skipping = False
        if re.match(r"description\s*:", line):
            out.append(f"description: {json.dumps(description, ensure_ascii=False)}\n")
            skipping = replaced = True
            continue
        out.append(line)
    if not replaced:
        out.append(f"description: {json.dumps(description, ensure_ascii=False)}\n")
    return match.group(1) + "".join(out) + match.group(3) + text[match.end() :]


def find_trigger_set(skill_dir: Path) -> Path | None:
    """The skill's trigger set when it has exactly one ``evals/trigger*.json`` (the CLI and the editor's code
    action both look here; with several, the user names one)."""
    folder = skill_dir / "evals"
    found = sorted(folder.glob("trigger*.json")) if folder.is_dir() else []
    return found[0] if len(found) == 1 else None


def current_description(text: str) -> str:
    match = FRONTMATTER.match(text)
    data = yaml.safe_load(match.group(2)) if match else None
    value = data.get("description") if isinstance(data, dict) else None
    return str(value or "")


class Optimizer:
    """One optimize run: the temporary skill copies, the shared budget and the counts of what it spent."""

    def __init__(self, request: OptimizeRequest, say: Callable[[str], None]) -> None:
        # lazy: the run machinery (see the note above the imports)
        from evalens.runner.budget import Budget

        self.request = request
        self.say = say
        self.budget = Budget(max_cost=request.max_cost)
        self.skill_md = next(
            p for p in (request.skill_dir / "SKILL.md", request.skill_dir / "skill.md") if p.is_file()
        )
        self.text = self.skill_md.read_text(encoding="utf-8")
        self.skill = request.skill_dir.name
        # lazy: the run machinery (see the note above the imports)
        from evalens.runner.suites.trigger_sets import co_installed

        # each co-installed skill by its own folder: the skill itself is left out even when it sits among them
        self.others = [md.parent for md in co_installed(request.with_installed, request.skill_dir).values()]
        self.work = Path(tempfile.mkdtemp(prefix="evalens-optimize-"))
        self.variants = 0
        self.agent_runs = 0

    def copy(self, description: str) -> Path:
        """A copy of the skill (without its evals) under its own folder name, with ``description``."""
        self.variants += 1
        dest = self.work / f"v{self.variants}" / self.skill
        shutil.copytree(
            self.request.skill_dir,
            dest,
            ignore=lambda _d, names: [n for n in names if n in ("evals", ".git") or n.endswith("-workspace")],
            symlinks=True,
        )
        (dest / self.skill_md.name).write_text(with_description(self.text, description), encoding="utf-8")
        return dest

    async def measure(self, description: str, queries: list[tuple[str, bool]]) -> Measured:
        # lazy: the run machinery (see the note above the imports)
        from evalens.runner.api import run_file
        from evalens.runner.api_types import RunRequest

        skill = self.copy(description)
        (skill / "evals").mkdir()
        file = skill / "evals" / "trigger-eval.json"
        file.write_text(json.dumps([{"query": q, "should_trigger": w} for q, w in queries]), encoding="utf-8")
        outcome = await run_file(
            RunRequest(
                file=file,
                skill=skill,
                with_installed=self.others,
                engine=self.request.engine,
                agent_model=self.request.agent_model,
                runs=self.request.runs,
                timeout=self.request.timeout,
                budget=self.budget,
                write_report=False,
            )
        )
        by_unit = {r.name: r for r in outcome.results}  # the canonical trigger set's units are its indexes
        measured = Measured(queries=queries, fired=[])
        for i, (q, _) in enumerate(queries):
            r = by_unit.get(str(i))
            runs: list[str | None] = []
            if r is None or r.verdict == "SKIP":
                measured.errors.append(f"{q[:60]}: not run ({r.reason if r else 'missing'})")
            for run in r.details.get("fired") or [] if r is not None else []:
                self.agent_runs += 1
                if "error" in run:
                    measured.errors.append(f"{q[:60]}: {run['error']}")
                    runs.append(None)
                else:
                    runs.append(str(run.get("skill") or ""))
            measured.fired.append(runs)
        return measured

    async def propose(self, current: str, train: Measured, others: dict[str, str]) -> list[str]:
        # lazy: the run machinery (see the note above the imports)
        from evalens.runner.engines import get_engine
        from evalens.runner.judge import ask_json, judge_deadline, resolve_judge

        engine = get_engine(self.request.engine)
        spec = resolve_judge(
            self.request.judge, default_provider=engine.default_provider, agent_model=self.request.agent_model
        )
        rows = []
        for (q, want), runs in zip(train.queries, train.fired, strict=True):
            fired = ", ".join(sorted({f or "no skill" for f in runs if f is not None})) or "not run"
            rows.append(f"- [{'should use' if want else 'should NOT use'}] {q}\n  (now: {fired})")
        listing = "\n".join(f"- {n}: {d}" for n, d in sorted(others.items())) or "(none)"
        user = (
            f"Skill name: {self.skill}\n\nOther installed skills:\n{listing}\n\n"
            f"Requests, with the skill that fired first for each under the current description:\n"
            + "\n".join(rows)
            + f"\n\nWrite {self.request.candidates} different rewrites of the description. "
            f"The current description is:\n{current}\n"
        )
        reply = await ask_json(spec, SYSTEM, user, deadline=judge_deadline(override=120))
        raw = reply.get("descriptions")
        out = []
        for value in raw if isinstance(raw, list) else []:
            text = str(value).strip()
            if text and text != current and text not in out:
                out.append(text[:1024])
        return out[: self.request.candidates]


async def optimize(request: OptimizeRequest, say: Callable[[str], None] = lambda _m: None) -> OptimizeResult:
    """Propose, measure and accept (or not) a rewrite of the skill's description; writes nothing."""
    # lazy: the run machinery (see the note above the imports)
    from evalens.runner.suites.trigger_sets import trigger_queries

    _name, queries = trigger_queries(request.trigger_set)
    held_mask = split([w for _, w in queries], request.holdout, request.seed)
    train = [q for q, h in zip(queries, held_mask, strict=True) if not h]
    held = [q for q, h in zip(queries, held_mask, strict=True) if h]
    opt = Optimizer(request, say)
    description = current_description(opt.text)
    result = OptimizeResult(
        skill=opt.skill, train=train, held=held, current=Candidate("current", description)
    )
    # lazy: budget loads the report machinery (see the note above the imports)
    from evalens.runner.budget import refuse_unpriced

    refused = refuse_unpriced(request.engine, request.agent_model, request.max_cost, False)
    if refused is not None:  # before any run: the budget would count every run $0 and never stop the search
        result.error = refused
        shutil.rmtree(opt.work, ignore_errors=True)
        return result
    try:
        await _search(opt, result, description)
    finally:
        result.cost_usd, result.tokens, result.agent_runs = opt.budget.cost, opt.budget.tokens, opt.agent_runs
        shutil.rmtree(opt.work, ignore_errors=True)
    return result


async def _search(opt: Optimizer, result: OptimizeResult, description: str) -> None:
    # lazy: the run machinery (see the note above the imports)
    from evalens.runner.judge import JudgeFailed

    request, say, train, held = opt.request, opt.say, result.train, result.held
    say(f"split: {len(train)} training and {len(held)} held-out queries (seed {request.seed})")
    if not train or not held:
        result.error = "the trigger set is too small to split into training and held-out queries"
        return
    everything = await opt.measure(description, train + held)
    result.current.train = Measured(train, everything.fired[: len(train)])
    result.current.held = Measured(held, everything.fired[len(train) :])
    if everything.errors:
        result.error = "the current description's runs failed: " + "; ".join(everything.errors[:3])
        return
    right, of = result.current.train.score(opt.skill)
    h_right, h_of = result.current.held.score(opt.skill)
    say(f"current: training {right}/{of} runs right, held-out {h_right}/{h_of}")
    others = {
        folder.name: current_description(md.read_text(encoding="utf-8"))
        for folder in opt.others
        for md in [folder / "SKILL.md" if (folder / "SKILL.md").is_file() else folder / "skill.md"]
    }
    result.judge_calls += 1
    try:
        proposals = await opt.propose(description, result.current.train, others)
    except JudgeFailed as exc:
        result.error = f"judge error: {exc}"
        return
    if not proposals:
        result.error = "the judge proposed no usable rewrite"
        return
    for i, text in enumerate(proposals, 1):
        cand = Candidate(f"rewrite {i}", text)
        result.candidates.append(cand)
        spent = opt.budget.exhausted()
        if spent:
            result.stopped = spent
            cand.why = f"not measured: {spent}"
            continue
        await _judge_candidate(opt, result, cand)
        say(f"{cand.label}: {cand.why}")
    accepted = [c for c in result.candidates if c.accepted]
    if not accepted:
        return
    result.winner = max(accepted, key=lambda c: (c.difference or (0.0, 0.0, 0.0))[0])
    result.diff = "".join(
        difflib.unified_diff(
            opt.text.splitlines(keepends=True),
            with_description(opt.text, result.winner.description).splitlines(keepends=True),
            fromfile=str(opt.skill_md),
            tofile=f"{opt.skill_md} (proposed)",
        )
    )


async def _judge_candidate(opt: Optimizer, result: OptimizeResult, cand: Candidate) -> None:
    """Training first; the held-out runs only for a rewrite that did better there; then the two rules."""
    skill = opt.skill
    assert result.current.train is not None and result.current.held is not None
    cand.train = await opt.measure(cand.description, result.train)
    if cand.train.errors:
        cand.why = "not accepted: its training runs failed (" + "; ".join(cand.train.errors[:2]) + ")"
        return
    new, old = cand.train.score(skill), result.current.train.score(skill)
    if new[0] <= old[0]:
        cand.why = f"rejected: no better on the training queries ({new[0]}/{new[1]} vs {old[0]}/{old[1]})"
        return
    cand.held = await opt.measure(cand.description, result.held)
    if cand.held.errors:
        cand.why = "not accepted: its held-out runs failed (" + "; ".join(cand.held.errors[:2]) + ")"
        return
    diff = paired_difference(pairs_of(cand.held, result.current.held, skill))
    cand.difference = tuple(round(x, 4) for x in diff)  # type: ignore[assignment]
    words = (
        f"training {new[0]}/{new[1]} (was {old[0]}), held-out {diff[0]:+.2f} [{diff[1]:+.2f}, {diff[2]:+.2f}]"
    )
    if diff[1] <= 0:
        cand.why = f"rejected: {words}: the held-out interval does not exclude 0 (a training-only win)"
        return
    before, after = result.current.held.others_fired(skill), cand.held.others_fired(skill)
    lost = [
        f"{name} {after.get(name, 0)}/{n}" for name, n in sorted(before.items()) if after.get(name, 0) < n
    ]
    if lost:
        cand.why = f"rejected: {words}, but it takes queries from co-installed skills ({', '.join(lost)})"
        return
    cand.accepted = True
    cand.why = f"accepted: {words}"
