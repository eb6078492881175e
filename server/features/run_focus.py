"""Batches the editor starts beyond "run this": repeats ("Run 5×"), focused re-runs ("Run failed", "Run stale")
and the budget every batch runs within (docs/repeats.md#in-the-editor).

Which units "Run failed" / "Run stale" run is decided by :func:`evalens.runner.reselect.pick`, the function the
CLI's ``--failed`` / ``--stale`` use, so both faces pick the same units. The lenses only count what the verdict
memory already knows (a lens request must not read reports); the command asks ``pick`` off the event loop.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from evalens.core.index import evals_parent
from evalens.core.problems import Severity
from evalens.runner.suites import names_per_file, runnable
from evalens.server import uris
from evalens.server.features.run_formats import ALL, suite_root
from evalens.server.features.run_state import RunTarget
from evalens.server.wire import CaseCommandArgs

log = logging.getLogger("evalens.server.run")

TOP = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))


def overridden(settings: Any, arg: CaseCommandArgs | None = None) -> Any:
    """The settings a run takes: the editor's, with the overrides it remembers (``evalens.runOverrides``) and
    then one batch's own (``engine``, ``model``, ``maxCost`` of the run command; the extension's Run Overrides
    quick pick sends them with each one) on top. ``overridden(settings)`` is what the next run takes, which
    staleness is judged against. The settings themselves are left as they are."""
    remembered = getattr(settings, "run_overrides", None)
    engine, model, cost = (arg.engine, arg.model, arg.max_cost) if arg is not None else (None, None, None)
    if remembered is not None:
        engine = engine or remembered.engine
        model = model or remembered.model
        cost = cost if cost is not None else remembered.max_cost
    update: dict[str, Any] = {key: value for key, value in (("engine", engine), ("model", model)) if value}
    if cost is not None:
        update["run"] = settings.run.model_copy(update={"max_cost": float(cost)})
    return settings.model_copy(update=update) if update else settings


def next_run(settings: Any) -> Any:
    """The inputs the editor's next run would take (its ``evalens.engine``, ``model`` and ``judge`` settings
    with the overrides it remembers laid over them, as every run it starts takes them; the rest from the eval
    config), which the lens and the Test Explorer judge staleness against."""
    # lazy: evalens.runner.depends costs ~0.6 s; the server starts without it
    from evalens.runner.depends import NextRun

    s = overridden(settings)
    return NextRun(
        engine=getattr(s, "engine", None) or None,
        agent_model=getattr(s, "model", None) or None,
        judge=getattr(s, "judge", None) or None,
    )


def arm_of(arg: CaseCommandArgs, file_format: bool) -> str | None:
    """``runCase``'s ``arm`` (a matrix cell item of an engines × arms run): the ``--arms`` arm the case runs
    as (runner/arms.py resolves it, and a name it does not know is the run's ERROR); refused for the other
    formats, whose units no matrix cell runs."""
    if arg.arm is not None and file_format:
        raise JsonRpcInvalidParams("`arm` runs a UAAPS case (evalens eval --arms) only")
    return arg.arm


def file_lenses(
    uri: str, root: Path, records: dict[str, Any], active: dict[tuple[str, str], Any], never_ran: int = 0
) -> list[types.CodeLens]:
    """ "↻ Run failed (k)" / "↻ Run stale (k)" at the top of an eval file (or a package's eval config), only
    when some remembered verdict is failed or stale and nothing of it is running. "Run stale" also runs the
    ``never_ran`` units (as ``--stale`` does), so they are in its count: it counts exactly what it runs."""
    # lazy: evalens.runner.reselect ~1 s to import; the server starts without it
    from evalens.runner.reselect import failed_reason

    if any(key[0] == str(root) for key in active):
        return []
    # only verdicts a report holds: those are what ``pick`` reads (a case refused before it ran has none)
    units = [r.result for name, r in records.items() if name != ALL and r.report_path]
    failed = sum(failed_reason(r) is not None for r in units)
    stale = sum(bool(getattr(r, "stale", None)) for r in units)
    out = []
    for mode, count, parts in (
        ("failed", failed, []),
        (
            "stale",
            stale + never_ran if stale else 0,
            [f"{stale} stale", f"{never_ran} never ran"] if never_ran else [],
        ),
    ):
        if count:
            out.append(
                types.CodeLens(
                    range=TOP,
                    command=types.Command(
                        title=f"↻ Run {mode} ({count})"
                        if not parts
                        else f"↻ Run {mode} ({count}: {', '.join(parts)})",
                        command="evalens.runFile",
                        arguments=[{"uri": uri, "select": mode}],
                    ),
                )
            )
    return out


def _never_ran(runs: Any, current: dict[str, Path | None], records: dict[str, Any]) -> int:
    """Units ``pick`` would add as "never ran": no result at all, and (UAAPS) a case file without errors,
    since only valid cases are planned. Reads no file (one stat each, since ``pick`` lists what is on disk): the
    verdict memory and the validations already made."""
    count = 0
    for name, path in current.items():
        if name == ALL or name in records:
            continue
        if path is not None:
            if not path.is_file():  # gone from disk before the watcher said so: `pick` reads the disk
                continue
            uri = uris.uri_of(path)
            validation = runs.ls.validation_for(uri) if uri else None
            if validation is None or any(p.severity == Severity.ERROR for p in validation.problems):
                continue
        count += 1
    return count


def current_file_lenses(runs: Any, uri: str, root: Path, validation: Any) -> list[types.CodeLens]:
    """:func:`file_lenses` over the units the file (or the eval config's package) has now: a unit renamed in
    the editor keeps its verdict under its new name and is counted once."""
    if names_per_file(runs.format_id_of(validation)):
        current: dict[str, Path | None] | None = {c.name: None for c in runs.units_of(validation)}
    else:
        index = runs.ls.indexes.for_file(Path(validation.path))
        current = {n: refs[0].path for n, refs in index.case_names.items()} if index is not None else None
    records = {n: r for n, r in runs.memory.all_for(root).items() if current is None or n in current}
    never = _never_ran(runs, current, records) if current is not None else 0
    return file_lenses(uri, root, records, runs.active, never)


def picked_targets(
    runs: Any, uri: str | None, mode: str, *, whole_package: bool = False
) -> list[tuple[RunTarget, str]]:
    """The units "Run failed" / "Run stale" run, each with why: of one eval file, of a package (its eval config,
    or a case file's package: narrowed to that case unless ``whole_package``, as ``runAll`` asks), or (no
    ``uri``) of the whole workspace. Blocking."""
    # lazy: evalens.runner.reselect ~1 s to import; the server starts without it
    from evalens.runner.reselect import case_names, pick

    inputs = next_run(runs.ls.settings)
    out: list[tuple[RunTarget, str]] = []

    def package(root: Path, within: list[str]) -> None:
        names, why = pick(root, mode, case_names(root), within, inputs=inputs)  # type: ignore[arg-type]
        wanted = set(names)
        out.extend((t, why[t.name]) for t in runs.package_targets(root) if t.name in wanted)

    def eval_file(file_uri: str) -> None:
        path = Path(to_fs_path(file_uri) or "")
        validation = runs.validation_of(file_uri)
        fid = runs.format_id_of(validation)
        if names_per_file(fid):
            units = [t.name for t in runs.file_targets(file_uri, whole=False)]
            names, why = pick(
                suite_root(fid, path),
                mode,  # type: ignore[arg-type]
                units,
                [],
                file=path,
                inputs=inputs,
            )
            out.extend((runs.target(file_uri, n), why[n]) for n in names if n in units)
            return
        root = evals_parent(path)
        if root is None:
            return
        if runnable(fid) and not whole_package:  # a package's case: narrowed to it
            package(root, [runs.target(file_uri, None).name])
        else:  # the eval config: the whole package
            package(root, [])

    if uri:
        eval_file(uri)
    else:
        for root in runs.workspace_packages():
            package(root, [])
        for file_uri in runs.workspace_files():
            eval_file(file_uri)
    return out


class Budgets:
    """The budget of each editor batch (``evalens.run.maxCost`` / ``maxTokens``): one ``runner.budget.Budget``
    shared by every unit of the batch, so once the batch has spent it no new unit starts and the rest are SKIP.

    A batch is one command (Run all, a lens, Run failed), or the commands an editor sends under one ``batch`` id
    (a Test Explorer run sends each unit on its own); the newest few batch ids are kept."""

    KEEP = 32

    def __init__(self) -> None:
        self._batches: OrderedDict[str, Any] = OrderedDict()

    def for_batch(self, settings: Any, batch: str | None) -> Any:
        """The batch's budget, or None when neither limit is set."""
        run = settings.run
        if run.max_cost is None and run.max_tokens is None:
            return None
        if batch is not None and batch in self._batches:
            self._batches.move_to_end(batch)
            return self._batches[batch]
        # lazy: the budget reads reports (runner.report and its models, ~0.1 s): loaded with the first budgeted
        # batch, not before the server answers initialize (issue 43)
        from evalens.runner.budget import Budget

        budget = Budget(
            run.max_cost, run.max_tokens, cost_name="evalens.run.maxCost", tokens_name="evalens.run.maxTokens"
        )
        if batch is not None:
            self._batches[batch] = budget
            while len(self._batches) > self.KEEP:
                self._batches.popitem(last=False)
        return budget
