"""Claude Code's own eval cases (`claude plugin eval`: a case folder's `prompt.md` / `case.yaml` and its graders) as
a suite of the one file run path (docs/plugin-evals.md#running).

A unit is one case (the folder of the file run). Each run of it is one unit-run of :func:`~evalens.runner.run_file.
run_file`, so repeats, FLAKY, the run log, ``--resume``, record / replay at the model bridge, stale and dry runs
come from the shared code:

* **claude-code**: the platform's own runner grades the case. The plugin (its eval dir cut down to this case and
  the suite's mocks) is copied into the run's sandbox and ``claude plugin eval <plugin> --case NAME --runs 1
  --ablation MODE --json --no-publish --trust-plugin`` runs there as the agent process (:class:`PluginEvalCli`, a
  Claude Code engine whose command is the eval runner), its children's model calls, the judge's included, going
  through the host's model proxy like any agent's. The result document it prints (§11) is read back: each grader's
  outcome a check with its explanation, the run's error and the CLI's own failures (exit 2, a case it refused) an
  ERROR.
* **codex**: evalens runs the case prompt with the plugin's skills installed (and, under the with/without ablation,
  again without them), grades the free graders from the engine's events and workspace and `llm` / `baseline` with
  its own judge (:mod:`evalens.runner.suites.plugin_eval_grading`).

Both then decide by the one verdict function: ERROR when the agent, the CLI or a grader failed, PASS only when the
run's score meets the threshold, SKIP when the case has no grader; the arms' delta becomes the unit's uplift.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from evalens.core.formats.plugin_eval import PROMPT_TEMPLATE, case_files, case_name, is_case_folder
from evalens.core.models.plugin_eval import READ_ONLY_TOOLS
from evalens.core.placeholders import refusal, rubric_placeholder
from evalens.core.regular_files import read_regular_bytes
from evalens.runner.api_types import RunRequest
from evalens.runner.baseline import uplift_of
from evalens.runner.engines.base import AgentCommand, Engine, Invocation, SandboxPaths, Transcript
from evalens.runner.engines.claude_code import ClaudeCode
from evalens.runner.engines.conversation import Builder, Conversation
from evalens.runner.judge import default_judge, judge_deadline, resolve_judge
from evalens.runner.results import UnitCheck, UnitResult
from evalens.runner.session import AgentLaunch, AgentResult, AgentSession, UsageError, agent_error
from evalens.runner.suites.base import (
    LoggedSession,
    Ran,
    Restored,
    Suite,
    Unit,
    UnitRun,
    newest_first,
    read_json,
)
from evalens.runner.suites.plugin_eval_grading import (
    PAID,
    Evidence,
    Grader,
    Outcome,
    case_graders,
    file_targets,
    grade_free,
    grade_paid,
    grader_error,
    read_targets,
    run_score,
    trace_lines,
    with_only,
)
from evalens.runner.suites.plugin_eval_paths import (
    copied_entries,
    eval_dir_of,
    plugin_root_of,
    plugin_skills,
)
from evalens.runner.verdicts import check_status, combine_runs, count_passed, counted, unit_verdict

ABLATIONS = ("with-without", "none")
GRADER_THREW = (
    "grader threw"  # how the result document words a grader that failed (a judge call, a missing file)
)
RESULT_LIMIT = 32 << 20  # bytes of the result document read back
RESULT_FILE = "aggregate-result.json"  # the result document in each of the CLI's own result folders
MAX_RESULT_FILES = 20  # of the CLI's own runs, the newest read back on a reload
NEVER_GRANTED = ("Bash", "Monitor", "EnterWorktree", "ExitWorktree")
"""Tools evalens never grants the CLI's runs: Bash needs Claude Code's own OS sandbox, which cannot start inside
evalens's (a nested bubblewrap), and the rest the platform never grants."""


# --------------------------------------------------------------------------- the platform's runner as the agent


class PluginEvalCli(ClaudeCode):
    """Claude Code's `claude plugin eval` as the process one run launches: the same binary, install roots,
    environment and model proxy as the Claude Code engine, but its command is the eval runner on the plugin copied
    into the workspace, and its output is the result document (§11), read by :meth:`parse` into the transcript
    and :attr:`document`."""

    def __init__(
        self,
        case: str,
        eval_dir: str,
        *,
        ablation: str,
        judge_model: str | None,
        allowed_tools: list[str],
        threshold: float,
    ) -> None:
        super().__init__()
        self.case = case
        self.eval_dir = eval_dir
        self.ablation = ablation
        self.judge_model = judge_model
        self.allowed_tools = allowed_tools
        self.threshold = threshold
        self.document: dict[str, Any] | None = None
        self.case_result: dict[str, Any] | None = None

    def command(self, invocation: Invocation) -> AgentCommand:
        base = super().command(invocation)
        argv = [
            str(self.binary),
            "plugin",
            "eval",
            str(invocation.paths.workspace),  # the target first: --json, --tag and --allow-tools take values
            f"--eval-dir={self.eval_dir}",  # one word each: a name starting with "-" is no option
            f"--case={self.case}",
            "--runs",
            "1",
            "--ablation",
            self.ablation,
            "--threshold",
            f"{self.threshold:g}",
            "--no-publish",
            "--trust-plugin",
            "--no-scaffold",
        ]
        if invocation.model:
            argv += ["--model", invocation.model]
        if self.judge_model:
            argv += ["--judge-model", self.judge_model]
        grants = [
            t for t in self.allowed_tools if t not in READ_ONLY_TOOLS and not t.startswith(NEVER_GRANTED)
        ]
        if grants and invocation.outer_sandbox:  # only where evalens's own sandbox confines what they do
            argv += ["--allow-tools", *grants]
        argv += ["--output-dir", str(invocation.paths.home / "plugin-eval-results"), "--json"]
        return AgentCommand(argv=argv, env=base.env, engine_sandbox=base.engine_sandbox)

    def live_reader(self, paths: SandboxPaths) -> Any:
        return None  # the runner prints one document at the end: no turns to stream

    def conversation(self, transcript: Transcript, paths: SandboxPaths, bounds: Any) -> Any:
        build = Builder(bounds)
        build.add_text(build.new_turn(), transcript.output)
        return Conversation(turns=build.finish(), sources=["aggregate-result.json"])

    def parse(self, paths: SandboxPaths, stdout: Path, stderr: Path, exit_code: int | None) -> Transcript:
        """The result document into the transcript: the run's error, the CLI's (exit 2: partial; a case it did not
        load: its own message), and the case's figures as the output."""
        t = Transcript(exit_code=exit_code)
        t.extra_files["aggregate-result.json"] = stdout
        self.document, self.case_result = None, None
        raw = read_regular_bytes(str(stdout), RESULT_LIMIT, follow_links=False)
        try:
            doc = json.loads(raw) if raw else None
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            t.error = f"claude plugin eval printed no result document (exit {exit_code}){_refusal(stderr)}"
            return t
        self.document = doc
        case = next(
            (c for c in doc.get("cases") or [] if isinstance(c, dict) and c.get("name") == self.case), None
        )
        t.usage = {"total_cost_usd": doc.get("costUsd")}
        if exit_code == 2 or doc.get("partial") is True:
            t.error = (
                f"claude plugin eval stopped before the case finished (exit {exit_code}, "
                f"{doc.get('partialReason') or 'partial'})"
            )
            return t
        if case is None:
            t.error = f"claude plugin eval did not run the case{_refusal(stderr)}"
            return t
        self.case_result = case
        t.model = case.get("model") if isinstance(case.get("model"), str) else None
        runs = (case.get("arms") or {}).get("with") or []
        first = runs[0] if runs and isinstance(runs[0], dict) else {}
        t.usage["num_turns"] = first.get("turns")
        if isinstance(first.get("error"), str) and first["error"]:
            t.error = f"agent error: {first['error']}"
        elif not first:
            t.error = "claude plugin eval reported no run of the case"
        t.output = _summary(case)
        return t


def _refusal(stderr: Path) -> str:
    """The CLI's own words for why (its `✗` lines and `Error:` lines), bounded."""
    raw = read_regular_bytes(str(stderr), 1 << 20, follow_links=False) or b""
    text = raw.decode("utf-8", errors="replace")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(("✗", "Error", "error"))]
    shown = "; ".join(lines)[-600:] or text.strip()[-300:]
    return f": {shown}" if shown else ""


def _summary(case: dict[str, Any]) -> str:
    """The case's outcome in one line per arm (what the run shows as the agent's output)."""
    agg = case.get("aggregates") or {}
    parts = [f"score {agg.get('score')}"]
    if agg.get("scoreWithout") is not None:
        parts.append(f"without {agg.get('scoreWithout')}")
    if agg.get("delta") is not None:
        parts.append(f"delta {agg.get('delta')}")
    for run in (case.get("arms") or {}).get("with") or []:
        for g in run.get("graders") or [] if isinstance(run, dict) else []:
            if isinstance(g, dict):
                parts.append(f"{'✓' if g.get('passed') else '✗'} {g.get('name')}: {g.get('explanation')}")
    return "\n".join(parts)


def _figure(runs: list[UnitRun], key: str) -> list[float]:
    """One figure of each run that has it (a score), as numbers."""
    return [float(v) for r in runs if isinstance(v := r.figures.get(key), int | float)]


def outcomes_of(run: dict[str, Any], graders: list[Grader]) -> list[Outcome]:
    """A run of the result document as grader outcomes (its `graders`, with the type the case gave them)."""
    kinds = {g.name: g.type for g in graders}
    out = []
    for g in run.get("graders") or []:
        if not isinstance(g, dict):
            continue
        name = str(g.get("name") or "")
        scored = g.get("scored") is not False and g.get("withOnly") is not True
        passed = g.get("passed")
        explanation = str(g.get("explanation") or "")
        if explanation.startswith(GRADER_THREW):  # the platform's own grader failed: not graded
            passed = None
        out.append(
            Outcome(
                name,
                kinds.get(name, ""),
                passed if isinstance(passed, bool) else None,
                explanation,
                float(g.get("weight") or 1.0),
                scored,
            )
        )
    return out


class PluginEvalSession(AgentSession):
    """The shared agent session, whose launches can run Claude Code's eval runner (:attr:`cli`) in place of the
    engine's agent command: everything else (sandbox, bridge, limits, retries, records) is the session's own."""

    cli: Engine | None = None

    def launch(self) -> AgentLaunch:
        launch = super().launch()
        if self.cli is not None:
            launch.engine = self.cli
        return launch


# --------------------------------------------------------------------------- the suite


class PluginEvalSuite(Suite):
    format_ids = ("plugin-eval-prompt", "plugin-eval-case")
    repeats_judge = True  # its own grading (any engine but Claude Code): each llm grader judged K times
    judge_repeats_refusal = (
        "on Claude Code a plugin's eval is graded by `claude plugin eval`, which judges once"
    )

    @classmethod
    def judge_repeats_refused(cls, request: Any) -> str | None:
        """On Claude Code the platform's own runner grades (``_platform_run``): evalens cannot ask its judge
        again, so ``--judge-repeats`` is refused there; evalens's own grading (the other engines) repeats it."""
        return cls.judge_repeats_refusal if request.file_engine == "claude-code" else None

    @classmethod
    def rejudge_refused(cls, request: Any) -> str | None:
        """Never yet: the graders of a plugin's eval read the run's trace and the files it left (``_arm``'s
        evidence), which its run log does not keep, and on Claude Code the platform's runner grades."""
        return (
            cls.judge_repeats_refusal
            if request.file_engine == "claude-code"
            else "a plugin eval's graders read the run's trace and workspace files, which its run log does not keep"
        )

    def load(self) -> None:
        self.folder = self.file.resolve().parent
        if not is_case_folder(self.folder):
            raise ValueError("not a `claude plugin eval` case folder (no prompt.md or case.yaml)")
        self.plugin = plugin_root_of(self.folder)
        self.eval_dir = eval_dir_of(self.plugin, self.folder) if self.plugin is not None else None
        self.name = case_name(self.folder)
        self.files = case_files(self.folder)
        self.graders = case_graders(self.folder)
        self.prompt = (self.files.body or str(self.files.run_field("prompt") or "")).strip()
        self.ablation = getattr(self.request, "ablation", None) or "with-without"
        if self.ablation not in ABLATIONS:
            raise ValueError(f"--ablation must be one of {', '.join(ABLATIONS)}")
        threshold = self.request.threshold_score
        if threshold is not None and not 0 <= threshold <= 1:
            raise ValueError("a plugin-eval threshold is a score from 0 to 1")
        self.threshold = 1.0 if threshold is None else float(threshold)
        timeout = self.files.run_field("timeout_seconds")
        self.case_timeout = float(timeout) if isinstance(timeout, int) else 300.0
        self.spec: Any = None
        self.cli_judge: str | None = None  # the judge model claude plugin eval is given (--judge-model)

    @property
    def root(self) -> Path:
        return self.plugin or self.folder

    def units(self) -> list[Unit]:
        return [Unit(self.name, [], self.files)]

    def dry_run(self, units: list[Unit]) -> list[str]:
        kinds = ", ".join(g.type for g in self.graders) or "no grader"
        how = (
            "claude plugin eval"
            if self.request.engine == "claude-code"
            else f"{self.request.engine} + evalens's graders"
        )
        out = []
        for u in units:
            why = self.placeholder_refusal(u)
            refused = f"; {why}; it will be ERROR, no agent started" if why else ""
            out.append(
                f"{u.id}\t{len(self.graders)} grader(s): {kinds}; ablation {self.ablation}; {how}{refused}"
            )
        return out

    def placeholder_refusal(self, unit: Unit) -> str | None:
        """A case whose `llm` / `baseline` grader's rubric is still a skeleton's (evalens's, or ``init``'s TODO
        line) is not run: its graders live in other files than the one run (`case.yaml`'s list, `graders/*.md`),
        which the generic check of the run file's judged keys cannot see, and judged it measured nothing. A prompt
        still ``init --bare``'s TODO line is refused too: Claude Code will not load it, and on another engine the
        agent would run a text the user did not write (``plugin-eval-template`` is ``enforced``)."""
        if PROMPT_TEMPLATE in self.prompt:
            return (
                f"not run: the case prompt is still the blank `init` template ({PROMPT_TEMPLATE!r}); write the "
                "user prompt to test"
            )
        for g in self.graders:
            found = rubric_placeholder(g.options.get("criteria")) if g.type in ("llm", "baseline") else None
            if found is not None:
                return refusal(f"the `{g.name}` grader's criteria ({g.where})", found)
        return None

    def _agent_time(self) -> float:
        """One run's time: the case's own wall clock per arm (two arms under the ablation, plus the judge's votes),
        unless the request sets one."""
        if self.request.timeout:
            return float(self.request.timeout)
        arms = 2 if self.ablation == "with-without" else 1
        return self.case_timeout * arms + 120

    async def session(self, units: list[Unit] | None = None) -> AgentSession:
        if self.plugin is None:
            raise UsageError(
                f"{self.file}: no plugin above this case (a folder with .claude-plugin/plugin.json, plugin.json "
                "or skills/): `claude plugin eval` runs a plugin's cases"
            )
        if self.eval_dir is None:
            raise UsageError(
                f"{self.file}: the case is not under the plugin's eval dir (`experimental.evals` in plugin.json, "
                "else evals/), so `claude plugin eval` would not find it"
            )
        paid = any(g.type in PAID for g in self.graders)
        own_judge = self.request.engine != "claude-code" and paid
        self.cli_judge = self.request.judge
        if self.request.engine == "claude-code" and self.cli_judge and ":" in self.cli_judge:
            provider, _, model = self.cli_judge.partition(":")
            if provider != "anthropic":
                raise UsageError(
                    f"--judge {self.cli_judge}: on claude-code the platform's runner judges, with a Claude model "
                    "only (give a Claude model, or run the case on --engine codex for evalens's judge)"
                )
            self.cli_judge = model
        if own_judge and self.request.no_judge:
            raise UsageError("this case has llm / baseline graders, which need the judge: drop --no-judge")
        if own_judge:
            self.spec = resolve_judge(self.request.judge, default_provider=default_judge(self.request.engine))
        session = await asyncio.to_thread(
            PluginEvalSession,
            self.request.file_engine,
            self.request.agent_model,
            self._agent_time(),
            keep_sandbox=self.request.keep_sandbox,
            judge=self.spec,
            warn=lambda m: self.say("", m),
        )
        if session.engine.name == "claude-code" and not session.plan.enforced:
            raise UsageError(
                "claude plugin eval loads the plugin's hooks and MCP servers and runs its agents as you: evalens "
                "runs it only inside its own sandbox (bubblewrap), which cannot start here"
                + (f" ({session.plan.warning})" if session.plan.warning else "")
                + "; run the case on --engine codex, or where bubblewrap works"
            )
        await session.ready()
        return session

    async def run_once(self, session: AgentSession, unit: Unit, run: int) -> UnitRun:
        t0 = time.monotonic()
        if not self.graders:
            res = AgentResult()
            verdict, reason = self._verdict(None, [], None)
            return UnitRun(verdict=verdict, reason=reason, res=res)
        if session.engine.name == "claude-code":
            res, outcomes, without, error = await self._platform_run(session)
        else:
            res, outcomes, without, error = await self._own_run(session)
        done = self._graded_run(res, outcomes, without, error, time.monotonic() - t0)
        self.say(unit.id, f"{unit.id} run {run}: {done.verdict} — {done.reason}", outcome=True)
        return done

    def _graded_run(
        self,
        res: AgentResult,
        outcomes: list[Outcome],
        without: list[Outcome],
        error: str | None,
        seconds: float,
        score: float | None = None,
    ) -> UnitRun:
        """One graded run as a unit-run, for a run of this batch and for one read back from a result document
        the CLI wrote itself (``score``: the document's own, else the outcomes' weighted mean)."""
        if score is None:
            score = run_score(outcomes) if outcomes else None
        score_without = run_score(without) if without else None
        verdict, reason = self._verdict(error, outcomes, score)
        checks = [
            UnitCheck(
                kind=f"grader:{o.type or 'grader'}",
                value=o.name,
                status=check_status(bool(o.passed)),
                detail=o.explanation if o.passed is not None else f"could not grade: {o.explanation}",
                location=self._location(o.name),
            )
            for o in outcomes
            if o.scored
        ]
        figures = {
            "score": score,
            "score_without": score_without,
            "graders": [o.to_data() for o in outcomes],
            "without": [o.to_data() for o in without],
            "error": error,
        }
        return UnitRun(verdict, reason, res, checks, seconds, figures)

    def _location(self, name: str) -> list[str | int] | None:
        g = next((g for g in self.graders if g.name == name), None)
        return g.location if g is not None and self.file.name == "case.yaml" else None

    def _verdict(self, error: str | None, outcomes: list[Outcome], score: float | None) -> tuple[Any, str]:
        """One run by the one verdict function: an agent, CLI or grader failure is ERROR; a score below the
        threshold is FAIL (the highest-weight failing grader named, as the platform's NOTES do); no grader is
        SKIP."""
        failed = sorted((o for o in outcomes if o.scored and o.passed is False), key=lambda o: -o.weight)
        below = None
        if score is not None and score < self.threshold:
            why = f"; {failed[0].name}: {failed[0].explanation}" if failed else ""
            below = f"score {score:.2f} below the threshold {self.threshold:g}{why}"
        return unit_verdict(
            agent_error=error,
            failed_check=below,
            judged=None,
            checked=bool(outcomes),
            judge_used=False,
            nothing_to_check="the case has no grader: nothing to check",
            checks_only=f"score {score if score is not None else 0:.2f} meets the threshold {self.threshold:g}",
        )

    async def _platform_run(
        self, session: AgentSession
    ) -> tuple[AgentResult, list[Outcome], list[Outcome], str | None]:
        """One run through `claude plugin eval` in the sandbox: its with-arm graders, its without-arm graders, and
        the error that makes the run ERROR (the agent's, the CLI's, or a grader the platform could not grade)."""
        assert isinstance(session, PluginEvalSession)
        tools = self.files.run_field("allowed_tools")
        cli = PluginEvalCli(
            self.name,
            str(self.eval_dir),
            ablation=self.ablation,
            judge_model=self.cli_judge,
            allowed_tools=[str(t) for t in tools] if isinstance(tools, list) else [],
            threshold=self.threshold,
        )
        assert self.plugin is not None and self.eval_dir is not None
        session.cli = cli
        try:
            res = await session.run(
                self.prompt, {}, self.plugin, copied_entries(self.plugin, self.eval_dir, self.folder)
            )
        finally:
            session.cli = None
        case = cli.case_result if not res.error else None
        if case is None:
            return res, [], [], res.error or "claude plugin eval did not run the case"
        arms = case.get("arms") or {}
        first = (arms.get("with") or [{}])[0]
        base = (arms.get("without") or [{}])[0] if arms.get("without") else None
        outcomes, without, error = self._arm_outcomes(first, base)
        return res, outcomes, without, error

    def _arm_outcomes(
        self, first: dict[str, Any], base: dict[str, Any] | None
    ) -> tuple[list[Outcome], list[Outcome], str | None]:
        """A with-plugin run of the result document and its without-plugin run (None without the ablation): their
        graders' outcomes, and the error that makes the run ERROR (a grader the platform could not grade, the
        without run's error, a mocked call that aborted it). The agent's own error is the caller's."""
        outcomes = outcomes_of(first, self.graders)
        without = outcomes_of(base, self.graders) if base is not None else []
        error = grader_error(outcomes) or grader_error(without)
        if base is not None and isinstance(base.get("error"), str) and base["error"]:
            error = error or f"the without-plugin run failed: {base['error']}"
        if first.get("aborted"):
            error = error or f"a mocked tool call aborted the run: {json.dumps(first['aborted'])[:300]}"
        return outcomes, without, error

    async def _own_run(
        self, session: AgentSession
    ) -> tuple[AgentResult, list[Outcome], list[Outcome], str | None]:
        """One run on an engine the platform does not grade: the prompt with the plugin's skills (and under the
        ablation without them), graded by evalens."""
        assert self.plugin is not None
        excluded = with_only(self.graders, self.ablation)
        res, outcomes = await self._arm(session, plugin_skills(self.plugin), excluded, None)
        error = agent_error(res) if res.error else None
        without: list[Outcome] = []
        if self.ablation == "with-without" and not error:
            base, without = await self._arm(session, {}, excluded, "without plugin")
            if base.error:
                error = f"the without-plugin run failed: {base.error}"
        return res, outcomes, without, error or grader_error(outcomes) or grader_error(without)

    async def _arm(
        self, session: AgentSession, skills: dict[str, Path], excluded: set[str], side: str | None
    ) -> tuple[AgentResult, list[Outcome]]:
        """One arm's agent run and its graders (a without arm leaves the with-only graders out, as the platform
        does)."""
        targets = file_targets(self.graders)
        read: dict[str, Any] = {}

        def capture(result: AgentResult) -> None:
            if result.workspace is not None:
                read["files"], read["errors"] = read_targets(result.workspace, targets)

        before = len(session.records)
        previous = session.side
        session.side = side or previous
        try:
            res = await session.run(self.prompt, skills, check=capture)
        finally:
            session.side = previous
        if res.error:
            return res, []
        record = session.records[-1][1] if len(session.records) > before else None
        ev = Evidence(
            last_message=res.output,
            trace=trace_lines(self.prompt, list(getattr(record, "turns", []) or []), res.output),
            created=sorted(f.path for f in getattr(record, "files", []) or [] if f.status == "created"),
            calls=[(str(c.get("tool")), c.get("input")) for c in res.tools]
            + [("Skill", {"skill": s}) for s in res.skills],
            files=read.get("files", {}),
            file_errors=read.get("errors", {}),
        )
        deadline = judge_deadline(self.case_timeout, self.request.judge_timeout)
        out = []
        for g in self.graders:
            if side and g.name in excluded:
                continue
            scored = g.name not in excluded
            if g.type in PAID:
                repeats = self.request.judge_repeats
                out.append(
                    await grade_paid(g, ev, self.spec, self.prompt, self.folder, deadline, scored, repeats)
                )
            else:
                out.append(grade_free(g, ev, scored))
        return res, out

    def combine(self, session: Ran, unit: Unit, runs: list[UnitRun]) -> UnitResult:
        """The case over its runs: the runs' verdicts by the one rule (any FAIL fails, then any ERROR), the case
        score the mean of the scored runs (the platform's), and under the ablation the with / without pass rates
        as the uplift with the platform's Δ beside it."""
        verdicts = [r.verdict for r in runs]
        verdict = combine_runs(verdicts)
        shown = next((r for r in runs if r.verdict == verdict), runs[0])
        scores = _figure(runs, "score")
        without = _figure(runs, "score_without")
        details: dict[str, Any] = {
            "threshold": self.threshold,
            "ablation": self.ablation,
            "graders": list(shown.figures.get("graders") or []),
            "graders_without": list(shown.figures.get("without") or []),
        }
        uplift = None
        reason = shown.reason
        if scores:
            details["score"] = round(sum(scores) / len(scores), 4)
        if scores and without:
            details["score_without"] = round(sum(without) / len(without), 4)
            delta = details["score"] - details["score_without"]
            details["delta"] = round(delta, 4)
            reason += f" · Δ {delta:+.2f} vs no plugin"
            mine = [r for r in runs if counted(r.verdict)]
            base = _figure(mine, "score_without")
            uplift = uplift_of(
                (sum(1 for s in _figure(mine, "score") if s >= 1), len(mine)),
                (sum(1 for s in base if s >= 1), len(base), len(mine) - len(base)),
                "no plugin",
            )
        return self.unit_result(
            session,
            unit.id,
            unit.location,
            [r.res for r in runs],
            shown.res,
            verdict=verdict,
            reason=reason,
            duration_seconds=round(sum(r.seconds for r in runs), 3),
            checks=shown.checks,
            error=shown.reason if verdict == "ERROR" else None,
            pass_rate=count_passed(verdicts) / len(verdicts) if len(verdicts) > 1 else None,
            run_verdicts=verdicts if len(verdicts) > 1 else [],
            details=details,
            uplift=uplift,
            judgements=[  # --judge-repeats: each judged grader of each run is one repeatedly judged item
                [str(v) for v in g["judgements"]]
                for r in runs
                for g in r.figures.get("graders") or []
                if isinstance(g, dict) and isinstance(g.get("judgements"), list) and g["judgements"]
            ],
        )

    # ----------------------------------------------------------------------- results the CLI wrote itself

    @classmethod
    def result_folder(cls, format_id: str, file: Path) -> Path | None:
        """``<eval dir>/results/``, where `claude plugin eval` writes each run's ``<timestamp>/aggregate-result.
        json`` (its ``--output-dir`` default, reference §8)."""
        folder = file.resolve().parent
        plugin = plugin_root_of(folder)
        eval_dir = eval_dir_of(plugin, folder) if plugin is not None else None
        return plugin / eval_dir / "results" if plugin is not None and eval_dir is not None else None

    @classmethod
    def result_files(cls, format_id: str, file: Path) -> list[Path]:
        base = cls.result_folder(format_id, file)
        if base is None or not base.is_dir():
            return []
        found = [p / RESULT_FILE for p in base.iterdir() if p.is_dir() and (p / RESULT_FILE).is_file()]
        return newest_first(found, MAX_RESULT_FILES)

    @classmethod
    def restore(cls, format_id: str, file: Path, data: Any) -> dict[str, Restored]:
        """The case's newest verdict from the result documents the CLI wrote on its own runs (`claude plugin eval`
        run outside evalens), decided by the rules of an evalens run: the same graders' outcomes, threshold and
        verdict function, so a reload shows what a run from the lens would have shown for that document."""
        files = cls.result_files(format_id, file)
        if not files:
            return {}
        try:
            suite = cls(RunRequest(file=file), format_id)
        except (OSError, ValueError):
            return {}
        for path in files:
            doc = read_json(path, RESULT_LIMIT)
            try:
                result = suite.from_document(doc) if isinstance(doc, dict) else None
                if result is not None:
                    result.result_file = str(path)
                    return {suite.name: Restored(result, str(path), path.stat().st_mtime)}
            except Exception:  # noqa: BLE001 - a foreign or half-written document is skipped
                continue
        return {}

    def from_document(self, doc: dict[str, Any]) -> UnitResult | None:
        """This case's result in a result document (§11), read leniently: every with-plugin run a unit-run (its
        error an ERROR; its graders the checks; the without run beside it), combined as the runs of one batch.
        None when the document does not hold this case (another case, or a document of another plugin)."""
        if doc.get("schemaVersion") not in (1, None):
            return None
        rel = self.folder.relative_to(self.root).as_posix()
        case = next(
            (c for c in doc.get("cases") or [] if isinstance(c, dict) and c.get("dir") == rel),
            None,
        )  # `dir` is relative to the suite's root (§11): a case of the same name elsewhere is not this one
        if case is None:
            return None
        suite: dict[str, Any] = doc["suite"] if isinstance(doc.get("suite"), dict) else {}
        threshold = suite.get("threshold")
        if isinstance(threshold, int | float) and 0 <= threshold <= 1:
            self.threshold = float(threshold)
        if suite.get("ablation") in ABLATIONS:
            self.ablation = suite["ablation"]
        arms: dict[str, Any] = case["arms"] if isinstance(case.get("arms"), dict) else {}
        withs = [r for r in arms.get("with") or [] if isinstance(r, dict)]
        bases = [r for r in arms.get("without") or [] if isinstance(r, dict)]
        if not withs:
            return None
        runs = []
        for i, first in enumerate(withs):
            base = bases[i] if i < len(bases) else None
            outcomes, without, error = self._arm_outcomes(first, base)
            if isinstance(first.get("error"), str) and first["error"]:
                error = f"agent error: {first['error']}"
            res = AgentResult(
                output=_summary(case),
                model=case.get("model") if isinstance(case.get("model"), str) else None,
                duration_ms=int(float(first.get("durationSeconds") or 0) * 1000),
            )
            score = first.get("score") if isinstance(first.get("score"), int | float) else None
            runs.append(self._graded_run(res, outcomes, without, error, res.duration_ms / 1000, score))
        version = doc.get("claudeVersion") if isinstance(doc.get("claudeVersion"), str) else None
        result = self.combine(LoggedSession(ClaudeCode(), version), self.units()[0], runs)
        result.runs = len(runs)
        return result
