"""The server's memory of verdicts: the last result of every case, restored from ``evals/reports/``.

A lens run writes a report holding just the case it ran, so the newest report rarely covers a whole package:
reports are merged newest-first until every case has its latest verdict (``runner.results`` converts each one,
the same way ``runner.api.load_last_results`` does), and re-read when the reports folder changes (a CLI run in a
terminal).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalens.server.features import run_formats

MAX_REPORTS = 50  # how far back to look for a case's last verdict
MAX_TRACKED = 1024  # eval files and package roots whose result files are tracked (least recently used go)
STALE_AFTER = 1.0  # seconds between two full looks at another format's result files


@dataclass(slots=True)
class CaseRecord:
    """The last known result of one case and where it came from."""

    result: Any  # evalens.runner.results.UnitResult
    report_path: str | None
    finished_at: float  # wall clock; a report older than this does not replace the record


def read_reports(
    root: Path, names: set[str] | None = None, prefer: tuple[str | None, str | None] = (None, None)
) -> dict[str, CaseRecord]:
    """Case name → record from the newest batch that holds the case (at most ``MAX_REPORTS`` are read): its
    report, or the run log of a batch killed before its report (the runs that finished). A matrix batch's
    case is the cell :func:`matrix_first` picks (``prefer``: the next run's engine and model)."""
    # lazy: evalens.runner.run_log ~0.6 s to import; the server starts without it, and without the report and
    # run-log models (~0.1 s, issue 43: initialize answers before them)
    from evalens.core.models.run_log import LOG_FILE
    from evalens.runner.report import load_report, reports_dir
    from evalens.runner.results import UAAPS_FORMAT, is_interrupted, result_from_report_case
    from evalens.runner.run_log import logged_results, past_batches

    found: dict[str, CaseRecord] = {}
    batches = matrix_first(past_batches(reports_dir(root))[:MAX_REPORTS], prefer)
    for path in batches:
        if path.name == LOG_FILE:
            for result in logged_results(path):
                if result.name not in found and result.format == UAAPS_FORMAT:
                    found[result.name] = CaseRecord(result, None, _mtime(path))
            continue
        try:
            report = load_report(path)
            mtime = path.stat().st_mtime
        except Exception:  # noqa: BLE001 - a half-written or foreign file is skipped, not fatal
            continue
        for case in report.cases:
            if (
                case.name in found
                or (case.format or UAAPS_FORMAT) != UAAPS_FORMAT
                or is_interrupted(case, report)
            ):
                continue
            found[case.name] = CaseRecord(result_from_report_case(case, report, path, root), str(path), mtime)
        if names is not None and names <= set(found):
            break
    # lazy: evalens.runner.unit_identity ~0.8 s to import; the server starts without it
    from evalens.runner.unit_identity import renamed_since

    for new, old in renamed_since({n: r.result for n, r in found.items()}, root).items():
        record = found.pop(old)  # renamed in place since its last run (in any editor, or with none open)
        found[new] = CaseRecord(
            record.result.model_copy(update={"name": new}), record.report_path, record.finished_at
        )
    return found


def matrix_first(batches: list[Path], prefer: tuple[str | None, str | None]) -> list[Path]:
    """``batches`` (newest first) with each matrix batch's cell reports (``<batch>-cell-N.json``) in the order
    their verdicts count, so a case's one verdict (lens, hover, Test Explorer, stale check) is the same cell
    whichever cell report was written last (:func:`cell_order`). The hover's matrix table shows every cell."""
    # lazy: evalens.runner.matrix ~0.3 s to import; the server starts without it
    from evalens.runner.matrix import CELL_REPORT

    out: list[Path] = []
    done: set[str] = set()
    for path in batches:
        cell = CELL_REPORT.fullmatch(path.name)
        if cell is None:
            out.append(path)
        elif cell["batch"] not in done:
            done.add(cell["batch"])
            out += cell_order(path, prefer)
    return out


def cell_order(path: Path, prefer: tuple[str | None, str | None]) -> list[Path]:
    """The cell reports of the matrix batch of ``path`` whose verdicts count: only the reference arm's (an
    ``--arms`` run: an ablation arm's FAIL is not the case's verdict, as only the reference decides the exit
    code), the cell of the next run's engine and model (``prefer``) first, then cell order (the first
    ``--engine``)."""
    # lazy: evalens.runner.matrix ~0.3 s to import; the server starts without it
    from evalens.runner.matrix import batch_reports
    from evalens.runner.report import load_report

    cells = []
    for p in batch_reports(path):
        try:
            cells.append((p, load_report(p)))
        except Exception:  # noqa: BLE001 - a half-written or foreign file is skipped, not fatal
            continue
    references = {r.arms.reference.name for _p, r in cells if r.arms is not None}
    kept = [(p, r) for p, r in cells if r.arm is None or not references or r.arm.name in references]
    engine, model = prefer
    first = [
        p
        for p, r in kept
        if (engine or model) and engine in (None, r.config.engine) and model in (None, r.agent.model)
    ]
    return first + [p for p, _r in kept if p not in first]


def _is_cell(report_path: str | None) -> bool:
    # lazy: evalens.runner.matrix ~0.3 s to import; the server starts without it
    from evalens.runner.matrix import CELL_REPORT

    return report_path is not None and CELL_REPORT.fullmatch(Path(report_path).name) is not None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def renames(before: dict[tuple, str], units: list[Any], taken: set[str]) -> dict[str, str]:
    """Old name → new name for each unit whose name changed in place: the same path in the file, the old name
    gone from ``taken`` (every unit name in force) and the new one new. Inserting or reordering units renames
    nothing (every old name is still there)."""
    out: dict[str, str] = {}
    known = set(before.values())
    for unit in units:
        old = before.get(tuple(unit.path))
        if (
            old is not None
            and old != unit.name
            and old not in taken
            and old != "*"
            and unit.name != "*"
            and unit.name not in known
        ):
            out[old] = unit.name
    return out


def _trim(table: OrderedDict[str, Any]) -> None:
    while len(table) > MAX_TRACKED:
        table.popitem(last=False)


class Memory:
    """Thread-safe store of case records per package root (the workspace scan runs in a thread)."""

    def __init__(self, prefer: Callable[[], tuple[str | None, str | None]] | None = None) -> None:
        self._lock = threading.RLock()
        self._loading = threading.RLock()  # one look at a root at a time: see ``_refresh``
        self._prefer = prefer or (lambda: (None, None))  # the next run's engine and model (``matrix_first``)
        self._records: dict[tuple[str, str], CaseRecord] = {}
        self._seen: OrderedDict[str, tuple[float, Any]] = OrderedDict()  # root -> (checked at, stamp)
        self._files: OrderedDict[str, tuple[str, Callable[[], Any]]] = OrderedDict()  # file -> (format, data)

    def watch(self, file: Path, format_id: str, data: Callable[[], Any]) -> None:
        """Key records of ``file`` by the file itself and restore them from its format's result files
        (``run_formats``): skilljack results JSON, ``grading.json``.

        ``data`` must fetch the file's current data when called, not hold a parsed document: this table
        outlives documents (a closure over each version's tree once kept gigabytes alive)."""
        with self._lock:
            self._files[str(file)] = (format_id, data)
            self._files.move_to_end(str(file))
            _trim(self._files)

    def _refresh_file(self, file: Path, format_id: str, data: Callable[[], Any]) -> None:
        key = str(file)
        now = time.monotonic()
        quick = run_formats.folder_stamp(format_id, file)  # new result files show at once
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and seen[1][0] == quick and now - seen[0] < STALE_AFTER:
                return
        stamp = run_formats.stamp(format_id, file)  # rewritten ones within a second
        with self._lock:
            self._seen[key] = (now, (quick, stamp))
            _trim(self._seen)
            if seen is not None and seen[1][1] == stamp:
                return
        loaded = run_formats.restore(format_id, file, data()) if stamp else {}
        with self._lock:
            for name, (result, path, mtime) in loaded.items():
                current = self._records.get((key, name))
                if current is None or mtime > current.finished_at:
                    self._records[(key, name)] = CaseRecord(result, path, mtime)

    def _refresh(self, root: Path) -> None:
        """Bring the records of ``root`` up to date. One look at a time: the lens (on the loop), the hover and
        discovery (worker threads) ask at once, and a reader must not find the folder marked as read while
        another is still reading it (a hover once said "No run yet" beside a lens showing the verdict)."""
        with self._loading:
            self._refresh_locked(root)

    def _refresh_locked(self, root: Path) -> None:
        key = str(root)
        watched = self._files.get(key)
        if watched is not None:
            self._refresh_file(root, *watched)
            return
        now = time.monotonic()
        try:  # one stat per look: reports are written by atomic rename, so the folder's mtime always moves
            stamp = (root / "evals" / "reports").stat().st_mtime_ns
        except OSError:
            stamp = 0
        prefer = self._prefer()
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and seen[1] == (stamp, prefer):
                return
            self._seen[key] = (now, (stamp, prefer))
            _trim(self._seen)
        repick = seen is not None and seen[1][1] != prefer  # another engine or model: another cell counts
        loaded = read_reports(root, prefer=prefer) if stamp else {}
        with self._lock:
            for name, record in loaded.items():
                current = self._records.get((key, name))
                if (
                    current is None
                    or record.finished_at > current.finished_at
                    or repick
                    and _is_cell(current.report_path)
                ):
                    self._records[(key, name)] = record

    def size(self) -> int:
        """How many eval files and roots are remembered (bounded: see ``watch``)."""
        with self._lock:
            return len(self._files) + len(self._seen)

    def get(self, root: Path, name: str) -> CaseRecord | None:
        self._refresh(root)
        with self._lock:
            return self._records.get((str(root), name))

    def all_for(self, root: Path) -> dict[str, CaseRecord]:
        self._refresh(root)
        with self._lock:
            return {n: r for (k, n), r in self._records.items() if k == str(root)}

    def records(self) -> list[CaseRecord]:
        """A snapshot of every remembered record (for the stale check, which runs in a thread)."""
        with self._lock:
            return list(self._records.values())

    def rename(self, root: Path, old: str, new: str) -> bool:
        """A unit renamed in its file keeps its last result (under the new name); the old name is forgotten,
        so summaries do not count the unit twice. False when there was nothing to move."""
        with self._lock:
            record = self._records.pop((str(root), old), None)
            if record is None or (str(root), new) in self._records:
                return False
            result = (
                record.result.model_copy(update={"name": new})
                if hasattr(record.result, "model_copy")
                else record.result
            )
            self._records[(str(root), new)] = CaseRecord(result, record.report_path, record.finished_at)
            return True

    def put(self, root: Path, name: str, record: CaseRecord) -> None:
        with self._lock:
            self._records[(str(root), name)] = record

    def newest_report(self, root: Path) -> Path | None:
        # lazy: the report models (~0.1 s) load after the initialize answer (issue 43)
        from evalens.runner.report import newest_report

        return newest_report(root)
