"""``evalens.runComparison``: an editor starts a whole matrix × arms run of a package, or of an eval file of any
other runnable format (issue 41).

The comparison is the runner's (runner/comparison.py): the same plan, order, report names and arm comparison as
``evalens run --engine a,b --arms skill,no-skill``, each batch through the run API. This face adds what an
editor needs: the package and the workspace checked first, one cancellable progress ("batch 2 of 4: codex ·
default model · no skill"), the lenses refreshed after each batch (a batch's report is the package's newest), and
the matrix as the answer, read back as ``evalens.matrix`` reads it. Nothing blocks the event loop: planning
(a ref arm runs git) and the reads run in the server's worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from evalens.runner.suites import PACKAGE_FORMAT, names_per_file, suite_root
from evalens.server import uris
from evalens.server.features import run_formats, work_done
from evalens.server.features.matrix_view import answer_of, batch_of, root_of
from evalens.server.features.run_formats import ALL
from evalens.server.features.workspace_scope import require_inside
from evalens.server.server import EvalensServer
from evalens.server.wire import ComparisonArgs, ComparisonPlan, MatrixAnswer

log = logging.getLogger("evalens.server.comparison")


class ComparisonRuns:
    """The comparison runs in flight, one per reports folder (a package's, or an eval file's suite's): a second
    start there while one runs is refused (two comparisons would name their reports in one folder at once)."""

    def __init__(self, runs: Any) -> None:
        self.runs = runs
        self.running: set[str] = (
            set()
        )  # roots whose evals/reports a comparison writes; taken before the first await, so two starts cannot race

    async def _where(self, ls: EvalensServer, uri: str, command: str) -> tuple[str, Path | None, Path]:
        """What ``uri`` compares (:meth:`_target`), inside the workspace, or the command's refusal."""
        target = await ls.off_loop(self._target, uri)
        if target is None:
            raise JsonRpcInvalidParams(f"{command}: no eval package or eval file holds {uri}")
        require_inside(ls, target[1] or target[2], command)
        return target

    async def start(self, ls: EvalensServer, a: ComparisonArgs) -> MatrixAnswer | None:
        fmt, file, root = await self._where(ls, a.uri, "evalens.runComparison")
        key = str(root)
        if key in self.running:
            raise JsonRpcInvalidParams(f"evalens.runComparison: {root.name} is running a comparison already")
        self.running.add(key)
        try:
            return await self._run(ls, a, fmt, file, root)
        finally:
            self.running.discard(key)

    async def plan(self, ls: EvalensServer, a: ComparisonArgs) -> ComparisonPlan:
        """What :meth:`start` would run for ``a``, counted by the runner (no agent starts): the editor's spend
        question asks about these numbers, not its own guess."""
        from evalens.runner.api_types import RunError  # lazy: the runner loads at the first run, not at start
        from evalens.runner.comparison import planned_runs  # lazy: as above
        from evalens.runner.session import UsageError  # lazy: as above

        fmt, file, root = await self._where(ls, a.uri, "evalens.planComparison")
        plan = await self._plan(ls, a, root, "evalens.planComparison")
        base = await self._base(ls, a, fmt, file, root)
        try:
            counted = await ls.off_loop(planned_runs, base, plan, fmt if file is not None else None)
        except (RunError, UsageError) as exc:
            raise JsonRpcInvalidParams(f"evalens.planComparison: {exc}") from None
        return ComparisonPlan(
            batches=counted.batches, units=counted.units, runs=counted.runs, agent_runs=counted.agent_runs
        )

    async def _plan(self, ls: EvalensServer, a: ComparisonArgs, root: Path, command: str) -> Any:
        """The runner's plan of ``a``'s comparison (a ref arm runs git: off the loop)."""
        from evalens.runner.comparison import (  # lazy: the runner loads at the first run, not at start
            ComparisonError,
            plan_comparison,
        )

        engines = a.engines or ls.settings.engine or None
        try:
            return await ls.off_loop(plan_comparison, root, engines, a.models, a.arms, a.arms_reference)
        except ComparisonError as exc:
            raise JsonRpcInvalidParams(f"{command}: {exc}") from None

    async def _base(
        self, ls: EvalensServer, a: ComparisonArgs, fmt: str, file: Path | None, root: Path
    ) -> Any:
        """The request every batch of the comparison starts from: the whole file, each batch as its suite runs
        it, or every case of the package."""
        if file is not None:
            base = await run_formats.request(fmt, file, ALL, ls.settings)
        else:
            base = await run_formats.request(PACKAGE_FORMAT, root, ALL, ls.settings, package_root=root)
        return base.model_copy(update={"no_judge": True}) if a.no_judge else base

    def _target(self, uri: str) -> tuple[str, Path | None, Path] | None:
        """What ``uri`` compares: an eval file that runs per file (its format, the file, the suite's root, where
        every batch reports), else the package holding it (its cases, the package root). Blocking: it may
        validate the file from disk."""
        path = uris.usable_path(uri) if uri else None
        if path and Path(path).is_file():
            fmt = self.runs.format_id_of(self.runs.validation_of(uri))
            if names_per_file(fmt):
                return fmt, Path(path), suite_root(fmt, Path(path))
        root = root_of({"uri": uri})
        return None if root is None else (PACKAGE_FORMAT, None, root)

    async def _run(
        self, ls: EvalensServer, a: ComparisonArgs, fmt: str, file: Path | None, root: Path
    ) -> MatrixAnswer | None:
        from evalens.runner.comparison import run_comparison  # lazy: the runner loads at the first run

        plan = await self._plan(ls, a, root, "evalens.runComparison")
        base = await self._base(ls, a, fmt, file, root)
        batches = plan.runs()

        def on_run(run: Any) -> None:
            number = batches.index(run)
            if number:
                self.runs.refresh_lenses()  # the batch before wrote the newest report
            message = f"batch {number + 1} of {len(batches)}: {run.label}"
            work_done.report(ls, token, message, number * 100 // len(batches))

        title = f"Compare {root.name}: {len(batches)} batches"
        # the editor's Cancel stops the task made right after (no await between: it cannot come first)
        token = await work_done.begin(ls, title, "starting", lambda: task.cancel())
        task = asyncio.get_running_loop().create_task(
            run_comparison(base, plan, on_run=on_run, format_id=fmt if file is not None else None)
        )
        try:
            outcome = await task
        except asyncio.CancelledError:  # the request itself cancelled: the batches stop with it
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            raise
        finally:
            work_done.end(ls, token, "cancelled" if task.cancelled() else None)
            self.runs.refresh_lenses()
        if outcome.interrupted:
            return None
        return await ls.off_loop(_answer, outcome.reports, plan.batch)


def _answer(reports: list[Any], batch: str) -> MatrixAnswer | None:
    """The comparison's own reports as a matrix (whatever the newest matrix run of the package is by then)."""
    found = batch_of(list(reports), batch)
    return None if found is None else answer_of(found, None)
