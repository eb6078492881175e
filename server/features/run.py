"""The "Run eval" code lens, verdict diagnostics and hover: one unit from the editor through the runner API
(``run_cases`` for UAAPS cases, ``run_file`` for every other runnable format); the commands are in
``run_commands.py``.

Runs are asyncio tasks on the server's loop (the runner awaits its subprocesses), so completion, hover and
diagnostics keep answering during a run. Every face of a run — lens, diagnostic, hover, command answer,
``evalens/verdictChanged`` — reads the same :class:`~evalens.server.features.run_memory.CaseRecord`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from evalens.core.index import evals_parent
from evalens.core.labels import case_label, unit_cases, unit_skill
from evalens.runner.fingerprint import own_text_changed
from evalens.runner.suites import names_per_file, runnable
from evalens.server import uris, wire
from evalens.server.convert import to_range
from evalens.server.features import diagnostics, run_formats, run_live, run_memory, work_done
from evalens.server.features import run_focus as focus
from evalens.server.features import run_invalid as invalid
from evalens.server.features import run_present as present
from evalens.server.features.lifecycle import workspace_roots
from evalens.server.features.matrix_view import MatrixRows, cell_models, hover_markdown
from evalens.server.features.run_formats import ALL
from evalens.server.features.run_memory import CaseRecord, Memory
from evalens.server.features.run_state import CommandRefused, RunHandle, RunTarget, Slots
from evalens.server.features.workspace_scope import require_inside
from evalens.server.server import EvalensServer
from evalens.server.wire import (
    NOTIFICATIONS,
    LspRange,
    RunStateParams,
    VerdictChangedParams,
    client_declares,
)

log = logging.getLogger("evalens.server.run")

CONFIG = "uaaps-config"
STAGES = {"sandbox": 10, "agent": 25, "checks": 70, "judge": 80, "cleanup": 95}
SKIP_DIRS = {".git", "node_modules", ".tools", ".venv", "venv", "__pycache__", "reports", "build", "dist"}


def _next_engine_model(ls: EvalensServer) -> tuple[str | None, str | None]:
    """The engine and model the editor's next run takes: which cell of a matrix run is a case's verdict."""
    inputs = focus.next_run(ls.settings)
    return inputs.engine, inputs.agent_model


class Runs:
    """Runs in flight, the verdict memory, and what they look like in the editor."""

    def __init__(self, ls: EvalensServer) -> None:
        self.ls = ls
        self.memory = Memory(partial(_next_engine_model, ls))
        self.active: dict[tuple[str, str], RunHandle] = {}
        self.slots = Slots(lambda: ls.settings.max_parallel_runs)
        self._pushed: dict[str, tuple[int, int | None, list[types.Diagnostic]]] = {}
        self._case_cache: dict[str, tuple[Any, list[Any]]] = {}  # path -> (its latest validation, units)
        self._names: dict[str, dict[tuple, str]] = {}  # path -> unit path in the file -> its last name
        self.matrix = MatrixRows()  # the package's newest matrix run, for the hover and discovery

    def validation_of(self, uri: str) -> Any:
        """The open buffer's validation, else the scan's, else the file on disk's (None if none)."""
        found = self.ls.validation_for(uri)
        if found is not None:
            return found
        found = self.ls.validate_uri(uri)
        return found if found.doc is not None or found.problems else None

    def units_of(self, validation: Any) -> list[Any]:
        return self._cases(validation)

    def _cases(self, validation: Any, format_id: str | None = None) -> list[Any]:
        """The units of a document of ``format_id`` (None: of any runnable format); cached
        per validation (one per document version), since diagnostics, lenses and hover all ask."""
        if validation is None or validation.format is None:
            return []
        fid = validation.format.id
        if not runnable(fid) if format_id is None else fid != format_id:
            return []
        if validation.doc is None or not validation.doc.ok:
            return []
        cached = self._case_cache.get(validation.path)
        if cached is not None and cached[0] is validation:
            return cached[1]
        cases = unit_cases(validation.format, validation.doc, validation.path)
        self._follow_renames(validation, cases)
        if len(self._case_cache) >= 64 and validation.path not in self._case_cache:
            self._case_cache.pop(next(iter(self._case_cache)))
        self._case_cache[validation.path] = (validation, cases)  # one version per file: no old versions kept
        return cases

    def _follow_renames(self, validation: Any, cases: list[Any]) -> None:
        """A unit renamed in the editor keeps its verdict (``Memory.rename``); ``_names`` holds each file's last
        unit names by their path in the file, so a name typed over several versions still moves."""
        before = self._names.setdefault(validation.path, {})
        taken = {c.name for c in cases}
        if not names_per_file(
            self.format_id_of(validation)
        ):  # a package's case: another file may hold the name
            index = self.ls.indexes.for_file(Path(validation.path))  # may predate this edit: skip this file
            taken |= (
                {
                    n
                    for n, refs in index.case_names.items()
                    if any(str(r.path) != validation.path for r in refs)
                }
                if index
                else set()
            )
        moves = run_memory.renames(before, cases, taken)
        root = self._root(Path(validation.path), validation) if moves else None
        for old, new in moves.items():
            if root is not None and self.memory.rename(root, old, new):
                log.info("%s renamed to %s: its last verdict follows", old, new)
        before.update({tuple(c.path): c.name for c in cases})
        if len(self._names) > 256:
            self._names.pop(next(iter(self._names)))

    @staticmethod
    def format_id_of(validation: Any) -> str | None:
        return validation.format.id if validation is not None and validation.format is not None else None

    def _root(self, path: Path | None, validation: Any) -> Path | None:
        """What keys a unit's runs and verdicts: the package root for UAAPS, the eval file itself for the
        formats whose unit names (task ids, query indexes) are only unique within one file."""
        if path is None:
            return None
        fid = self.format_id_of(validation)
        if names_per_file(fid):
            self.memory.watch(path, fid, partial(self._data_of, str(path)))
            return path
        return evals_parent(path)

    def _data_of(self, path: str) -> Any:
        """The current data of an eval file (looked up when needed: nothing holds an old document)."""
        uri = uris.uri_of(path)
        validation = self.validation_of(uri) if uri else None
        return validation.doc.data if validation is not None and validation.doc is not None else None

    def root_of_uri(self, uri: str | None, validation: Any = None) -> Path | None:
        path = to_fs_path(uri) if uri else None
        if not path:
            return None
        return self._root(Path(path), validation if validation is not None else self.validation_of(uri or ""))

    def _lines(self, validation: Any) -> list[str]:
        return validation.doc.lines if validation is not None and validation.doc is not None else [""]

    def _verdict_diagnostics(self, uri: str, validation: Any) -> list[types.Diagnostic]:
        if client_declares(self.ls.cap("experimental", None)).test_results:
            return []  # its Test Explorer shows them; diagnostics piled up in Problems and outlived re-runs
        root = self.root_of_uri(uri, validation)
        if root is None or not self.memory.all_for(root):
            return []
        out: list[types.Diagnostic] = []
        for case in self._cases(validation):
            record = self.memory.get(root, case.name)
            if record is not None:
                out += present.verdict_diagnostics(record.result, validation, case, self.ls.encoding)
        return out

    def _pulls_without_refresh(self) -> bool:
        """Neovim 0.10/0.11 pull but cannot be told to re-pull: verdicts reach them by push instead."""
        return self.ls.client_pulls and not self.ls.cap("workspace.diagnostics.refresh_support", False)

    def diagnostics_for(self, path: str) -> list[types.Diagnostic]:
        """Verdict diagnostics merged into a document's diagnostics by ``features.diagnostics``."""
        uri = from_fs_path(path)
        if not uri:
            return []
        try:
            diags = self._verdict_diagnostics(uri, self.ls.validation_for(uri))
        except Exception:  # noqa: BLE001 - a stale record must never break validation diagnostics
            log.exception("verdict diagnostics failed for %s", path)
            return []
        if self._pulls_without_refresh():
            if self.ls.open_doc(uri) is not None:
                self._push_verdicts(uri, diags)
            return []
        return diags

    def _push_verdicts(self, uri: str, diags: list[types.Diagnostic]) -> None:
        doc = self.ls.open_doc(uri)
        if doc is None:
            return
        key = (id(doc), getattr(doc, "version", None), diags)  # a reopened document is a new object
        if self._pushed.get(uris.key(uri)) == key:
            return
        self._pushed[uris.key(uri)] = key
        self.ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=diags)
        )

    def forget(self, uri: str) -> None:
        """A closed document: nothing of it is kept (its verdicts stay in ``memory``, keyed by path)."""
        self._pushed.pop(uris.key(uri), None)
        path = uris.path_of(uri)
        if path:
            self._case_cache.pop(path, None)

    def _deliver_diagnostics(self, uri: str) -> None:
        """After a verdict: re-publish, push to pull-only clients, or ask pulling clients to re-pull."""
        if self._pulls_without_refresh():
            if self.ls.open_doc(uri) is not None:
                self._push_verdicts(uri, self._verdict_diagnostics(uri, self.validation_of(uri)))
        elif self.ls.client_pulls:
            try:
                self.ls.workspace_diagnostic_refresh(None)
            except Exception:  # noqa: BLE001
                log.debug("diagnostic refresh failed", exc_info=True)
        elif self.ls.open_doc(uri) is not None:
            diagnostics.refresh(self.ls, uri)

    def lenses(self, uri: str) -> list[types.CodeLens]:
        validation = self.validation_of(uri)
        if validation is None or validation.format is None:
            return []
        root = self.root_of_uri(uri, validation)
        if root is None:
            return []
        lines = self._lines(validation)
        per_file = names_per_file(self.format_id_of(validation))
        out: list[types.CodeLens] = []

        def lens(rng: types.Range, title: str, command: str, arg: dict[str, Any]) -> None:
            out.append(
                types.CodeLens(
                    range=rng, command=types.Command(title=title, command=command, arguments=[arg])
                )
            )

        whole_running = (str(root), ALL) in self.active
        for case in self._cases(validation):
            rng = to_range(case.span, lines, self.ls.encoding)
            arg = {"uri": uri, "name": case.name}
            if (str(root), case.name) in self.active or whole_running:
                handle = self.active.get((str(root), case.name))
                progress = (
                    f" · run {handle.current_run}/{handle.runs}"
                    if handle is not None and handle.runs > 1 and handle.current_run
                    else ""
                )
                lens(
                    rng,
                    ("■ Cancel all" if case.name == ALL else "■ Cancel") + progress,
                    "evalens.cancelRun",
                    {"uri": uri, "name": ALL} if whole_running else arg,
                )
                continue
            errors = invalid.unit_errors(validation, case, self._cases(validation))
            if errors:  # nothing runs until they are fixed; the lens jumps to the first one
                lens(rng, invalid.lens_title(len(errors)), "evalens.showProblems", arg)
            else:
                lens(
                    rng,
                    present.run_title(validation, case, per_file, case.name == ALL),
                    "evalens.runCase",
                    arg,
                )
                lens(rng, "Dry run", "evalens.runCase", {**arg, "dryRun": True})
            if not errors and case.name != ALL and (n := self.ls.settings.run.repeats) > 1:
                lens(rng, f"Run {n}×", "evalens.runCase", {**arg, "runs": n})
            for title, command in present.record_lenses(self.memory.get(root, case.name), case.name == ALL):
                lens(rng, title, command, arg)
        for case in self._cases(validation, CONFIG):
            rng = to_range(case.span, lines, self.ls.encoding)
            if any(k[0] == str(root) for k in self.active):
                lens(rng, "■ Cancel all", "evalens.cancelRun", {"uri": uri, "name": "*"})
            else:
                lens(rng, "▶ Run all evals", "evalens.runAll", {"uri": uri})
            counts: dict[str, int] = {}
            index = self.ls.indexes.for_file(Path(validation.path))
            current = set(index.case_names) if index is not None else None  # a renamed case counts once
            for name, record in self.memory.all_for(root).items():
                if current is not None and name not in current:
                    continue
                counts[record.result.shown_state] = counts.get(record.result.shown_state, 0) + 1
            if counts:
                title = " · ".join(
                    f"{present.ICONS[v]} {counts[v]} {v.lower()}" for v in present.ICONS if v in counts
                )
                lens(rng, title, "evalens.lastReport", {"uri": uri})
        if (
            per_file or self.format_id_of(validation) == CONFIG
        ):  # "Run failed" / "Run stale" at the top of the file
            out += focus.current_file_lenses(self, uri, root, validation)
        return out

    def _run_progress(self, handle: RunHandle, run: int) -> None:
        """A turn of run ``run``: the agent is running (a file suite names no stage of its own), and for a
        repeated unit the lens says "run k/N" (refreshed once per new run)."""
        if handle.stage == "starting":
            self._progress(
                handle, "agent", "running the agent" + (" on every unit" if handle.name == ALL else "")
            )
        if handle.runs > 1 and run != handle.current_run:
            handle.current_run = run
            self.refresh_lenses()

    def refresh_lenses(self) -> None:
        """Ask the editor for the lenses again (a run ended, a batch wrote the package's newest report)."""
        if self.ls.cap("workspace.code_lens.refresh_support", False):
            try:
                self.ls.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001
                log.debug("code lens refresh failed", exc_info=True)

    def sizes(self) -> dict[str, int]:
        """What the run machinery keeps per file (``evalens/stats``: none may grow without bound)."""
        return {
            "runMemoryFiles": self.memory.size(),
            "runPushed": len(self._pushed),
            "caseCache": len(self._case_cache),
        }

    def hover(self, uri: str, validation: Any, path: tuple) -> str | None:
        """Markdown for the last result when hovering a case's `name` (``features/hover.py`` asks)."""
        root = self.root_of_uri(uri, validation)
        if root is None:
            return None
        path = tuple(path)
        for case in self._cases(validation):
            named = path in {(*case.path, key) for key in ("name", "id", "query")}
            if case.name == ALL or not (named or case.path and path == tuple(case.path)):
                continue
            handle = self.active.get((str(root), case.name))
            running = f"**Running** ({handle.stage})\n\n" if handle else ""
            record = self.memory.get(root, case.name)
            grid = self.matrix_hover(root, validation, case.name)
            if record is None:
                if running:
                    return running.strip() + grid
                return (
                    "No run yet: use **▶ Run eval**."
                    if not names_per_file(self.format_id_of(validation))
                    else "No run yet: use **▶ Run**."
                ) + grid
            links = present.run_links(self.ls.cap("experimental", None), uri, case.name)
            return running + present.hover_markdown(record, links, self.ls.draws_links) + grid
        return None

    def matrix_hover(self, root: Path, validation: Any, name: str) -> str:
        """The unit's row in the package's newest matrix run (``--engine a,b``), under the hover's text; '' when
        it has none. Reads reports: hover runs in a worker thread."""
        if names_per_file(self.format_id_of(validation)):  # a matrix run is a package's batch
            return ""
        found = self.matrix.row(root, name, getattr(validation, "path", None))
        return "" if found is None else "\n\n" + hover_markdown(*found)

    def target(self, uri: str, name: str | None) -> RunTarget:
        path = to_fs_path(uri)
        if not path:
            raise CommandRefused(f"not a file URI: {uri}")
        require_inside(self.ls, path, "the run")
        validation = self.validation_of(uri)
        fid = self.format_id_of(validation)
        root = self._root(Path(path), validation)
        cases = self._cases(validation)
        if names_per_file(fid):
            assert root is not None
            if name is None:  # a bare runCase on the file: the whole file when it has such a unit
                name = next((c.name for c in cases if c.name == ALL), cases[0].name if cases else None)
            if name is None:
                raise CommandRefused(f"{path} has no runnable unit (does it parse?)")
            case = next((c for c in cases if c.name == name), None)
            return RunTarget(
                uri, root, name, Path(path), validation, case, fid, run_formats.display_root(fid, Path(path))
            )
        if root is None or not cases and not runnable(fid):
            raise CommandRefused(
                f"{path} is not a runnable eval file (a UAAPS case, a skilljack tasks.yaml or "
                "task.md, an evals.json or a trigger eval set)"
            )
        case = next((c for c in cases if name in (None, c.name)), None)
        return RunTarget(
            uri, root, case.name if case else (name or Path(path).stem), Path(path), validation, case
        )

    def file_targets(self, uri: str, *, whole: bool) -> list[RunTarget]:
        """A file's units: each one (``whole=False``, for discovery), or what running the file means
        (the ``*`` unit when the format has one, else every unit)."""
        validation = self.validation_of(uri)
        if not names_per_file(self.format_id_of(validation)):
            try:
                return [self.target(uri, None)]
            except ValueError:
                return []
        names = [c.name for c in self._cases(validation)]
        if whole and ALL in names:
            names = [ALL]
        return [self.target(uri, n) for n in names if whole or n != ALL]

    def workspace_files(self) -> list[str]:
        """URIs of the open and scanned documents of the formats ``runner.api.run_file`` runs."""
        tops = [Path(t) for t in workspace_roots(self.ls)]
        with self.ls.lock:
            known = dict(self.ls.disk_validations)
        named = {key: uris.uri_of(v.path) for key, v in known.items()}
        named.update({uris.key(u): u for u in self.ls.open_uris()})  # the open buffer wins over the disk
        out = []
        for key, uri in sorted(named.items()):
            path = uris.path_of(uri) if uri else None
            if not uri or not path or tops and not any(Path(path).is_relative_to(t) for t in tops):
                continue
            validation = self.validation_of(uri) if self.ls.open_doc(uri) is not None else known.get(key)
            if names_per_file(self.format_id_of(validation)):
                out.append(uri)
        return out

    def package_targets(self, root: Path) -> list[RunTarget]:
        cases_dir = root / "evals" / "cases"
        files = sorted(p for p in cases_dir.glob("*.y*ml") if p.is_file()) if cases_dir.is_dir() else []
        out = []
        for path in files:
            uri = from_fs_path(str(path))
            try:
                out.append(self.target(uri, None))
            except ValueError:
                continue
        return out

    def workspace_packages(self) -> list[Path]:
        """Every folder with an ``evals/`` holding cases or an eval config, under the workspace folders."""
        found: list[Path] = []
        for top in workspace_roots(self.ls):
            for dirpath, dirnames, _files in os.walk(top):
                if "evals" in dirnames:
                    evals = Path(dirpath) / "evals"
                    if (evals / "cases").is_dir() or (evals / "eval-config.json").is_file():
                        found.append(Path(dirpath))
                dirnames[:] = [
                    d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".") and d != "evals"
                ]
        return sorted(set(found))

    def answer(self, target: RunTarget, record: CaseRecord) -> wire.CaseResult:
        """A unit's last result as the ``evalens.runCase`` answer."""
        case_path = target.case.path if target.case is not None else ()
        return present.case_result(
            target.uri, target.name, record, target.validation, case_path, self.ls.encoding
        )

    def discovered(self, target: RunTarget) -> wire.DiscoveredCase:
        lines = self._lines(target.validation)
        span = target.case.span if target.case is not None else None
        rng = (
            to_range(span, lines, self.ls.encoding)
            if span
            else types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
            )
        )
        entry = wire.DiscoveredCase(
            uri=target.uri,
            name=target.name,
            format=target.format_id,
            package_root=str(target.package_root or target.root),
            range=LspRange.of(rng),
        )
        if target.case is not None and target.validation is not None and target.validation.doc is not None:
            entry.label = case_label(target.validation.doc, target.case)  # "1".."20" read as their prompts
            if skill := unit_skill(target.validation.doc, target.case):
                entry.skill = skill
        record = self.memory.get(target.root, target.name)
        if record is not None:
            entry.last_verdict = record.result.verdict
            entry.last_reason = record.result.reason
            entry.last_duration_seconds = record.result.duration_seconds
            entry.last_stale = list(record.result.stale or [])  # the lens's "· stale", one check for both
            if own_text_changed(entry.last_stale):
                entry.last_outdated = True
            if record.result.engine:
                entry.engine = record.result.engine
        if not names_per_file(target.format_id) and target.name != ALL:
            if (found := self.matrix.row(target.root, target.name, str(target.case_file))) is not None:
                entry.matrix = cell_models(*found)  # a row of the newest matrix run: one cell per column
        return entry

    def start(
        self,
        target: RunTarget,
        runs: int = 1,
        budget: Any = None,
        settings: Any = None,
        arm: str | None = None,
    ) -> RunHandle:
        """Start (or join) the run of one case (``runs`` times, within the batch's ``budget``, under ``settings``
        with the batch's overrides, else the editor's; ``arm``: installed as that ``--arms`` arm installs the
        package); returns at once."""
        require_inside(self.ls, target.case_file, "the run")
        key = (str(target.root), target.name)
        handle = self.active.get(key)
        if handle is not None:
            return handle
        handle = RunHandle(
            target.root,
            target.name,
            target.uri,
            target.case_file,
            target.format_id,
            runs=runs,
            budget=budget,
            settings=settings,
            arm=arm,
        )
        self.active[key] = handle
        handle.task = asyncio.get_running_loop().create_task(self._execute(handle, target))
        self._state_changed()
        return handle

    async def _execute(self, handle: RunHandle, target: RunTarget) -> CaseRecord | None:
        """Run one unit of any format through the runner's one entry (``run_formats.run_unit``); every unit the
        run graded is remembered (a whole file's units, before the file's own verdict)."""
        # lazy: evalens.runner.api ~0.7 s to import; the server starts without it (it loads on the first run)
        from evalens.runner.results import UnitResult

        record: CaseRecord | None = None
        others: list[CaseRecord] = []
        try:
            await self._progress_begin(handle, present.unit_label(target))
            # a unit's repeats run at once within maxParallelRuns, whatever its format (runner/scheduling.py)
            async with self.slots.take(handle.runs) as taken:
                self._progress(handle, "starting", "planning")
                reports = run_formats.suite_root(handle.format_id, handle.case_file) / "evals" / "reports"
                new_folder = not reports.exists()
                results = await run_formats.run_unit(
                    handle.format_id,
                    handle.case_file,
                    handle.name,
                    handle.settings or self.ls.settings,
                    partial(self._progress, handle),
                    run_live.forwarder(self.ls, handle.uri, partial(self._run_progress, handle)),
                    package_root=handle.root,
                    runs=handle.runs,
                    jobs=taken,
                    budget=handle.budget,
                    arm=handle.arm,
                )
            if new_folder and reports.is_dir():
                self._say_new_reports(reports)
            now = time.time()
            for unit, path in results:
                rec = CaseRecord(unit, path, now)
                self.memory.put(handle.root, unit.name, rec)
                if unit.name == handle.name:
                    record = rec
                else:
                    others.append(rec)
        except asyncio.CancelledError:
            handle.cancelled = True
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        except Exception as exc:  # noqa: BLE001 - a runner bug becomes this case's ERROR, not a dead server
            log.exception("run of %s failed", handle.name)
            result = UnitResult(
                name=handle.name,
                format=handle.format_id,
                case_file=str(handle.case_file),
                verdict="ERROR",
                reason=f"internal error: {exc}",
                error=f"{type(exc).__name__}: {exc}",
            )
            record = CaseRecord(result, None, time.time())
            self.memory.put(handle.root, handle.name, record)
        finally:
            self.active.pop((str(handle.root), handle.name), None)
            self._progress_end(handle, record)
            for other in others:  # the units a whole-file run graded, before the file's own verdict
                self._announce(replace(target, name=other.result.name, case=None), other, diagnostics=False)
            if record is not None:
                self._announce(target, record)
            self._state_changed()
        return record

    def _say_new_reports(self, reports: Path) -> None:
        """A run of a file format made ``evals/reports/`` beside the user's files (a skill's own repository, for
        skill-creator): say so once, and where, since the lens shows only the verdict (issue 45 #10)."""
        self.ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"evalens: this run wrote its report to a new folder, {reports}; add evals/reports/ to "
                ".gitignore to keep runs out of the repository",
            )
        )

    def _state_changed(self) -> None:
        self.ls.protocol.notify(NOTIFICATIONS["runState"], RunStateParams(running=len(self.active)).wire())
        self.refresh_lenses()

    def _announce(self, target: RunTarget, record: CaseRecord, diagnostics: bool = True) -> None:
        """Tell every face: diagnostics, the verdict notification (lens refresh follows in _state_changed)."""
        validation = self.validation_of(target.uri)
        case = next((c for c in self._cases(validation) if c.name == target.name), target.case)
        rng = to_range(case.span, self._lines(validation), self.ls.encoding) if case is not None else None
        r = record.result
        params = VerdictChangedParams(
            uri=target.uri,
            name=target.name,
            verdict=r.verdict,
            reason=r.reason,
            duration_seconds=r.duration_seconds,
        )
        if rng is not None:
            params.range = LspRange.of(rng)
        try:
            if diagnostics:
                self._deliver_diagnostics(target.uri)
        except Exception:  # noqa: BLE001
            log.exception("publishing verdict diagnostics failed")
        self.ls.protocol.notify(NOTIFICATIONS["verdictChanged"], params.wire())

    async def _progress_begin(self, handle: RunHandle, label: str) -> None:
        handle.token = await work_done.begin(
            self.ls, f"Eval {label}", "queued", lambda: self.cancel_handle(handle)
        )

    def _progress(self, handle: RunHandle, stage: str, message: str) -> None:
        handle.stage = stage
        text = f"{stage}: {message}" if message else stage
        work_done.report(self.ls, handle.token, text, STAGES.get(stage, 5))

    def _progress_end(self, handle: RunHandle, record: CaseRecord | None) -> None:
        message = present.verdict_title(record.result) if record is not None else "cancelled"
        work_done.end(self.ls, handle.token, message)

    def cancel_handle(self, handle: RunHandle) -> bool:
        if handle.task is None or handle.task.done():
            return False
        handle.cancelled = True
        return handle.task.cancel()

    def cancel(self, root: Path | None, name: str | None) -> int:
        count = 0
        for (r, n), handle in list(self.active.items()):
            if (root is None or r == str(root)) and (name in (None, "*") or n == name):
                count += self.cancel_handle(handle)
        return count

    def link_request(self, ls: EvalensServer, handles: list[RunHandle]) -> None:
        """``$/cancelRequest`` on the executeCommand cancels its runs.

        pygls cancels only the request's own future for commands (the handler task is not registered under
        the request id); ``EvalensProtocol.on_cancel`` is the one place that hooks it.
        """

        def cancel_all() -> None:
            for handle in handles:
                self.cancel_handle(handle)

        ls.protocol.on_cancel(ls.protocol.msg_id, cancel_all)

    async def wait(self, targets: list[RunTarget], handles: list[RunHandle]) -> list[wire.CaseResult]:
        """Answer only once every verdict is known (Neovim 0.7 re-requests lenses on the answer)."""
        out = []
        for target, handle in zip(targets, handles, strict=True):
            assert handle.task is not None
            try:
                record = await asyncio.shield(handle.task)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise
                record = None
            if record is None:
                out.append(
                    wire.CaseResult(  # the answer's model (runner.api's CaseResult is the runner's result)
                        uri=target.uri,
                        name=target.name,
                        verdict="SKIP",
                        reason="cancelled",
                        duration_seconds=round(time.monotonic() - handle.started, 3),
                        failed_checks=[],
                        cancelled=True,
                    )
                )
            else:
                out.append(self.answer(target, record))
        return out

    def warn_if_unsaved(self, target: RunTarget) -> None:
        doc = self.ls.open_doc(target.uri)
        if doc is None:
            return
        saved = uris.read_regular(target.case_file)
        if saved is not None and saved != doc.source:
            self.ls.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"evalens runs the saved {target.case_file.name}; save it to include your edits",
                )
            )
