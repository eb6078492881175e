"""The run commands (``evalens.runCase``, ``runFile``, ``runAll``, ``cancelRun``, ``discoverCases``,
``lastReport``, ``showResult``), the lens provider and the shutdown hook: thin handlers over :class:`Runs`."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from evalens.core.index import evals_parent
from evalens.runner.suites import names_per_file
from evalens.server.convert import to_range
from evalens.server.features import arms_lens, new_case, run_dry, run_focus, run_formats
from evalens.server.features import run_invalid as invalid
from evalens.server.features import run_present as present
from evalens.server.features.comparison_run import ComparisonRuns
from evalens.server.features.matrix_view import root_of
from evalens.server.features.run import CONFIG, Runs
from evalens.server.features.run_formats import ALL
from evalens.server.features.run_stale import StaleChecker
from evalens.server.features.run_state import RunTarget, typed_command
from evalens.server.features.workspace_scope import require_inside
from evalens.server.server import EvalensServer
from evalens.server.wire import (
    COMMANDS,
    CancelRunResult,
    CaseCommandArgs,
    CaseResult,
    ComparisonArgs,
    DiscoveredCase,
    LastReportResult,
    LspRange,
    MatrixAnswer,
    MatrixArgs,
    PickedUnit,
    ShowProblemsResult,
)

log = logging.getLogger("evalens.server.run")


async def off_loop(ls: EvalensServer, work: Callable[[], Any]) -> Any:
    """Run ``work`` (a workspace walk, file reads) in the server's worker threads, not on the event loop."""
    return await asyncio.get_running_loop().run_in_executor(ls.thread_pool, work)


class RunCommands:
    """The run commands and the lens provider as one handler each, over the shared :class:`Runs`, the stale
    checker and the batch budgets; :func:`register` binds them to the server."""

    def __init__(self, server: EvalensServer) -> None:
        self.runs = Runs(server)
        self.stale = StaleChecker()
        self.arms = arms_lens.ArmsLens()
        self.budgets = run_focus.Budgets()
        self._primer: asyncio.Task | None = None  # the probes of a first run, made at the first Run lens

    def commands(self) -> list[tuple[str, Callable[..., Any], bool]]:
        """Each command's name, its handler over ``CaseCommandArgs`` and whether it needs the file (``uri``)."""
        return [
            (COMMANDS["runCase"], self.run_case, True),
            (COMMANDS["showProblems"], self.show_problems, True),
            (COMMANDS["runFile"], self.run_file, True),
            (COMMANDS["runAll"], self.run_all, False),
            (COMMANDS["pickUnits"], self.pick_units, False),
            (COMMANDS["cancelRun"], self.cancel_run, False),
            (COMMANDS["discoverCases"], self.discover_cases, False),
            (COMMANDS["lastReport"], self.last_report, False),
            (COMMANDS["showResult"], self.show_result, True),
        ]

    async def code_lens(self, ls: EvalensServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        if not ls.settings.code_lens:
            return []
        try:
            self.stale.check_soon(
                ls, self.runs.memory
            )  # off the loop; lenses refresh if a verdict went stale
            uri = params.text_document.uri
            arms = await self.arms.lenses(ls, uri)  # reads reports off the loop, only when they changed
            found = self.runs.lenses(uri) + new_case.lenses(ls, uri) + arms
            self._prime_soon(ls, found)
            return found
        except Exception:  # noqa: BLE001 - no lenses is better than an error popup on every keystroke
            log.exception("code lenses failed for %s", params.text_document.uri)
            return []

    def _prime_soon(self, ls: EvalensServer, found: list[types.CodeLens]) -> None:
        """At the first Run lens of this server: the probes a first run ever makes before its agent (the judge
        SDK proven, the CLIs' versions) made now, in a child process, while the user reads the case, so a first
        click does not make them again (issue 45; one that comes sooner waits for the child's record, which is
        never longer). Once per server; nothing when all are on record (``runner.preflight.prime_command``)."""
        if self._primer is not None or not any(
            lens.command is not None and lens.command.command == COMMANDS["runCase"] for lens in found
        ):
            return
        self._primer = asyncio.get_running_loop().create_task(self._prime(ls))

    async def _prime(self, ls: EvalensServer) -> None:
        try:
            preflight = await off_loop(ls, _preflight)
            await preflight.prime_soon()
        except Exception:  # noqa: BLE001 - a probe not made ahead is made by the run itself
            log.debug("priming the run's probes failed", exc_info=True)

    async def on_shutdown(self, ls: EvalensServer, params: None) -> None:
        """Cancel runs in flight so no agent process or sandbox outlives the server (nor the probes' child)."""
        if self._primer is not None:
            self._primer.cancel()  # the child is killed (runner.preflight.prime_soon)
        handles = list(self.runs.active.values())
        for handle in handles:
            self.runs.cancel_handle(handle)
        tasks = [h.task for h in handles if h.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=15)

    async def run_case(self, ls: EvalensServer, a: CaseCommandArgs) -> CaseResult:
        runs = self.runs
        target = runs.target(a.uri or "", a.name)
        arm = run_focus.arm_of(a, names_per_file(target.format_id))
        errors = self.blockers(target)
        if errors:  # the lens says "✗ N errors: fix to run"; the Test Explorer gets a SKIP with the reason
            return invalid.skipped_answer(target.uri, target.name, errors, dry_run=bool(a.dry_run))
        settings = run_focus.overridden(ls.settings, a)
        if a.dry_run:
            return await run_dry.dry_run(runs, target, settings)
        runs.warn_if_unsaved(target)
        handle = runs.start(target, a.runs or 1, self.budgets.for_batch(settings, a.batch), settings, arm)
        runs.link_request(ls, [handle])
        return (await runs.wait([target], [handle]))[0]

    def blockers(self, target: RunTarget) -> list[Any]:
        """The validation errors that keep a unit from running (none: it may run)."""
        return invalid.unit_errors(target.validation, target.case, self.runs.units_of(target.validation))

    async def run_many(
        self, ls: EvalensServer, targets: list[RunTarget], a: CaseCommandArgs | None = None
    ) -> list[CaseResult]:
        """Run every target that validates, as one batch within one budget (``evalens.run.maxCost`` /
        ``maxTokens``); the others answer SKIP with their problems, in place."""
        runs = self.runs
        for target in targets:  # all or nothing: no agent starts when one unit is outside the workspace
            require_inside(ls, target.case_file, "the run")
        a = a or CaseCommandArgs()
        times = a.runs or 1
        settings = run_focus.overridden(ls.settings, a)
        budget = self.budgets.for_batch(settings, a.batch)
        refused = {i: self.blockers(t) for i, t in enumerate(targets)}
        ready = [(i, t) for i, t in enumerate(targets) if not refused[i]]
        handles = [runs.start(t, times, budget, settings) for _, t in ready]
        runs.link_request(ls, handles)
        answers = dict(
            zip((i for i, _ in ready), await runs.wait([t for _, t in ready], handles), strict=True)
        )
        return [
            answers[i] if i in answers else invalid.skipped_answer(t.uri, t.name, refused[i])
            for i, t in enumerate(targets)
        ]

    async def show_problems(self, ls: EvalensServer, a: CaseCommandArgs) -> ShowProblemsResult | None:
        """The "✗ N errors: fix to run" lens: go to the first problem (``window/showDocument``) and say how
        many there are; answers ``{uri, range, problems}`` (null when the unit now validates)."""
        target = self.runs.target(a.uri or "", a.name)
        errors = self.blockers(target)
        if not errors or target.validation.doc is None:
            return None
        rng = to_range(errors[0].span, target.validation.doc.lines, ls.encoding)
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"{present.unit_label(target)}: {invalid.reason(errors)}",
            )
        )
        if ls.cap("window.show_document.support", False):
            try:
                await ls.window_show_document_async(
                    types.ShowDocumentParams(uri=target.uri, take_focus=True, selection=rng)
                )
            except Exception:  # noqa: BLE001 - the message above already said where
                log.debug("showDocument failed", exc_info=True)
        return ShowProblemsResult(uri=target.uri, range=LspRange.of(rng), problems=len(errors))

    async def run_picked(
        self, ls: EvalensServer, uri: str | None, a: CaseCommandArgs, whole_package: bool = False
    ) -> list[CaseResult]:
        """ "Run failed" / "Run stale": the units ``runner.reselect.pick`` chooses (the CLI's --failed/--stale)."""
        mode = str(a.select)
        picked = await off_loop(
            ls, lambda: run_focus.picked_targets(self.runs, uri, mode, whole_package=whole_package)
        )
        if not picked:
            ls.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Info, message=f"evalens: no {mode} unit: nothing to run"
                )
            )
            return []
        for target, why in picked:
            log.info("run %s: %s: %s", mode, target.name, why)
        return await self.run_many(ls, [t for t, _ in picked], a)

    def package_targets_of(self, uri: str) -> list[RunTarget] | None:
        """A package's units when ``uri`` is its eval config, else None."""
        validation = self.runs.validation_of(uri)
        if validation is None or validation.format is None or validation.format.id != CONFIG:
            return None
        root = evals_parent(Path(to_fs_path(uri) or ""))
        return self.runs.package_targets(root) if root else []

    async def run_file(self, ls: EvalensServer, a: CaseCommandArgs) -> list[CaseResult]:
        uri = a.uri or ""
        if a.select:
            return await self.run_picked(ls, uri, a)
        package = self.package_targets_of(uri)
        if package is not None:
            return await self.run_many(ls, package, a)
        targets = self.runs.file_targets(uri, whole=True)
        if not targets:
            self.runs.target(uri, None)  # raises the reason the file does not run
        return await self.run_many(ls, targets, a)

    async def run_all(self, ls: EvalensServer, a: CaseCommandArgs) -> list[CaseResult]:
        uri = a.uri
        if uri:
            require_inside(ls, to_fs_path(uri) or uri, "evalens.runAll")
        if a.select:
            return await self.run_picked(ls, uri, a, whole_package=True)
        if uri and names_per_file(self.runs.format_id_of(self.runs.validation_of(uri))):
            return await self.run_many(ls, self.runs.file_targets(uri, whole=True), a)
        return await self.run_many(ls, await off_loop(ls, lambda: self.all_targets(uri)), a)

    def all_targets(self, uri: str | None) -> list[RunTarget]:
        """Run all: the package of ``uri`` (or every workspace package), plus every runnable file when the
        whole workspace runs."""
        runs = self.runs
        root = evals_parent(Path(to_fs_path(uri) or "")) if uri else None
        roots = [root] if root else runs.workspace_packages()
        targets = [t for r in roots for t in runs.package_targets(r)]
        if not uri:
            targets += [t for u in runs.workspace_files() for t in runs.file_targets(u, whole=True)]
        return targets

    async def pick_units(self, ls: EvalensServer, a: CaseCommandArgs) -> list[PickedUnit]:
        """What "Run failed" / "Run stale" would run (of a file, or the workspace), for the Test Explorer; with
        no ``select``, every unit a batch lens on ``uri`` runs ("▶ Run all evals" on an eval config, "▶ Run all"
        on a file), so the editor can say what it is about to spend before it asks (as its palette does). A unit
        with validation errors is left out: the batch answers it SKIP without an agent, so it costs nothing and
        "Run 3 evals" must not count it."""
        mode = a.select
        if mode is None:
            if not a.uri:
                raise JsonRpcInvalidParams(
                    'evalens.pickUnits needs `select` ("failed" or "stale") or a `uri`'
                )
            uri = a.uri
            targets = await off_loop(ls, lambda: [t for t in self.batch_units(uri) if not self.blockers(t)])
            return [PickedUnit(uri=t.uri, name=t.name, reason="") for t in targets]
        picked = await off_loop(
            ls,
            lambda: [
                (t, why)
                for t, why in run_focus.picked_targets(self.runs, a.uri, mode)
                if not self.blockers(t)
            ],
        )
        return [PickedUnit(uri=t.uri, name=t.name, reason=why) for t, why in picked]

    def batch_units(self, uri: str) -> list[RunTarget]:
        """The units a whole-file or whole-package run of ``uri`` runs, each on its own (a tasks.yaml's tasks,
        not its ``*`` unit). Blocking."""
        package = self.package_targets_of(uri)
        return package if package is not None else self.runs.file_targets(uri, whole=False)

    def cancel_run(self, ls: EvalensServer, a: CaseCommandArgs) -> CancelRunResult:
        runs = self.runs
        root = runs.root_of_uri(a.uri) if a.uri else None
        if root is not None and a.name not in (None, ALL) and (str(root), ALL) in runs.active:
            return CancelRunResult(cancelled=runs.cancel(root, ALL))  # it runs as part of its whole file
        return CancelRunResult(cancelled=runs.cancel(root, a.name))

    async def discover_cases(self, ls: EvalensServer, a: CaseCommandArgs) -> list[DiscoveredCase]:
        """Walks the workspace in a worker thread: a large root took the loop for seconds."""
        return await off_loop(ls, lambda: self.discover(a.uri))

    def discover(self, uri: str | None) -> list[DiscoveredCase]:
        runs = self.runs
        if uri:
            package = self.package_targets_of(uri)
            targets = package if package is not None else runs.file_targets(uri, whole=False)
        else:
            targets = [t for r in runs.workspace_packages() for t in runs.package_targets(r)]
            targets += [t for u in runs.workspace_files() for t in runs.file_targets(u, whole=False)]
        return [runs.discovered(t) for t in targets]

    async def matrix(self, ls: EvalensServer, a: MatrixArgs) -> MatrixAnswer | None:
        """``evalens.matrix``: the newest matrix run of the package holding ``uri`` (or one unit's row), read in
        a worker thread."""

        def work() -> MatrixAnswer | None:  # the package found and its reports read off the loop
            root = root_of({"uri": a.uri})
            return None if root is None else self.runs.matrix.answer(root, a.name)

        return await off_loop(ls, work)

    async def last_report(self, ls: EvalensServer, a: CaseCommandArgs) -> LastReportResult | None:
        return await off_loop(ls, lambda: self.newest_result(a.uri))

    def newest_result(self, uri: str | None) -> LastReportResult | None:
        runs = self.runs
        fid = runs.format_id_of(runs.validation_of(uri)) if uri else None
        if uri and names_per_file(fid):
            files = run_formats.result_files(fid, Path(to_fs_path(uri) or ""))
            return LastReportResult(path=str(files[0])) if files else None
        root = evals_parent(Path(to_fs_path(uri) or "")) if uri else None
        roots = [root] if root else runs.workspace_packages()
        found = [p for p in (runs.memory.newest_report(r) for r in roots) if p is not None]
        if not found:
            return None
        newest = max(found, key=lambda p: (p.stat().st_mtime_ns, p.name))
        return LastReportResult(path=str(newest))

    def show_result(self, ls: EvalensServer, a: CaseCommandArgs) -> CaseResult | None:
        """The verdict lens: show the last result as a message (editors without hover-on-lens)."""
        runs = self.runs
        target = runs.target(a.uri or "", a.name)
        record = runs.memory.get(target.root, target.name)
        if record is None:
            return None
        answer = runs.answer(target, record)
        text = present.summary_message(record.result)
        if record.report_path:
            text += f"\nreport: {record.report_path}"
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info if record.result.verdict == "PASS" else types.MessageType.Warning,
                message=f"{present.unit_label(target)}: {text}",
            )
        )
        return answer


def _preflight() -> Any:
    # lazy: the runner's preflight (~0.5 s with the sandbox and engines) loads at the first Run lens, not at start
    from evalens.runner import preflight

    return preflight


def _handler(method: Callable[..., Any]) -> Callable[..., Any]:
    """A plain function over a bound handler: pygls marks what it registers with attributes, which a bound
    method cannot carry."""
    if inspect.iscoroutinefunction(method):

        async def handler(ls: EvalensServer, *args: Any) -> Any:
            return await method(ls, *args)

        return handler

    def sync_handler(ls: EvalensServer, *args: Any) -> Any:
        return method(ls, *args)

    return sync_handler


def register(server: EvalensServer) -> None:
    """Lenses, run commands, and ``ls.runs``, which diagnostics, hover and ``evalens/stats`` ask for a unit's
    last result."""
    handlers = RunCommands(server)
    server.runs = handlers.runs
    server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))(
        _handler(handlers.code_lens)
    )
    server.feature(types.SHUTDOWN)(_handler(handlers.on_shutdown))
    for name, method, needs_uri in handlers.commands():
        typed_command(server, name, CaseCommandArgs, method, uri=needs_uri)
    typed_command(server, COMMANDS["matrix"], MatrixArgs, handlers.matrix, uri=True)
    comparisons = ComparisonRuns(handlers.runs)
    typed_command(server, COMMANDS["runComparison"], ComparisonArgs, comparisons.start, uri=True)
    typed_command(server, COMMANDS["planComparison"], ComparisonArgs, comparisons.plan, uri=True)
