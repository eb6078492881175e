"""Compare a unit's two most recent runs: verdict, checks, judge reasoning, tokens and cost, and a diff of the
final outputs, side by side (``evalens show --compare``, VS Code's "Compare with previous run").

The runs come from the package's reports folder (``evals/reports/*.json``, newest first): the newest two reports
that hold the unit and did not merely cut it short. Reading never raises for a broken report or record; a
report that cannot be read is passed over.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from html import escape
from pathlib import Path

from evalens.runner.check_words import check_key, yaml_value
from evalens.runner.report import NotAReport, load_report
from evalens.runner.report_html import CSS, _diff
from evalens.runner.results import is_interrupted
from evalens.runner.run_view import UnitView, cost, load_view, tokens
from evalens.runner.verdicts import known_verdict

MAX_REPORTS = 50  # reports looked at, newest first
OUTPUT_DIFF_LIMIT = 64_000  # characters of the output diff shown


@dataclass
class Side:
    """One run of the unit: its report and what the report and its records say."""

    report_path: Path
    timestamp: str
    unit: UnitView

    @property
    def output(self) -> str:
        """The final output of the unit's last run (its record), else the report's snippet."""
        if self.unit.records:
            return self.unit.records[-1].output
        return self.unit.case.agent_output_snippet or ""


@dataclass
class Comparison:
    name: str
    latest: Side
    previous: Side | None  # None: the unit ran once so far

    def output_diff(self) -> str:
        """A unified diff from the previous run's final output to the latest one ('' when equal)."""
        if self.previous is None:
            return ""
        lines = difflib.unified_diff(
            self.previous.output.splitlines(),
            self.latest.output.splitlines(),
            f"previous ({self.previous.timestamp})",
            f"latest ({self.latest.timestamp})",
            lineterm="",
        )
        text = "\n".join(lines)
        return text if len(text) <= OUTPUT_DIFF_LIMIT else text[:OUTPUT_DIFF_LIMIT] + "\n… [diff cut]"


def reports_folder(start: Path) -> Path | None:
    """``evals/reports`` of the package holding ``start`` (a report, an eval file or a folder)."""
    folder = start if start.is_dir() else start.parent
    if folder.name == "reports" and folder.parent.name == "evals":
        return folder
    for base in (folder, *folder.parents):
        if (base / "evals" / "reports").is_dir():
            return base / "evals" / "reports"
    return None


def _side(path: Path, name: str, case_file: str | None) -> Side | None:
    try:
        report = load_report(path)
    except (NotAReport, OSError, ValueError):
        return None
    cases = [c for c in report.cases if c.name == name and not is_interrupted(c, report)]
    if case_file is not None:
        cases = [
            c
            for c in cases
            if not c.case_file or Path(case_file).as_posix().endswith(Path(c.case_file).as_posix())
        ]
    if not cases:
        return None
    try:
        view = load_view(path, name)
    except (NotAReport, LookupError):
        return None
    unit = next(
        (u for u in view.units if u.case is not None and u.case.case_file == cases[0].case_file), None
    )
    return Side(path, report.timestamp, unit or view.units[0])


def compare(start: Path, name: str, case_file: str | None = None) -> Comparison | None:
    """The unit's two most recent runs (``start``: a report or anything inside the package), or None when no
    report holds it. ``case_file`` (an eval file's path) tells apart units of the same name in other files.
    Blocking (reads files): call it off the event loop."""
    folder = reports_folder(start)
    if folder is None:
        return None
    paths = sorted(
        (p for p in folder.glob("*.json") if p.is_file() and not p.name.startswith(".")),
        key=lambda p: (p.stat().st_mtime_ns, p.name),
        reverse=True,
    )[:MAX_REPORTS]
    if start.is_file() and start.suffix == ".json" and start in paths:
        paths = paths[paths.index(start) :]  # a report given: it is the latest side
    sides: list[Side] = []
    for path in paths:
        side = _side(path, name, case_file)
        if side is not None:
            sides.append(side)
            if len(sides) == 2:
                break
    if not sides:
        return None
    return Comparison(name, sides[0], sides[1] if len(sides) > 1 else None)


def compare_runs(first: Path, second: Path, name: str, case_file: str | None = None) -> Comparison | None:
    """The unit's runs in two chosen reports (the Runs view's "Compare with…"), the newer as the latest side;
    None when either report does not hold it. Blocking (reads files)."""
    a, b = _side(first, name, case_file), _side(second, name, case_file)
    if a is None or b is None:
        return None
    older, newer = sorted((a, b), key=lambda s: (s.timestamp, s.report_path.name))
    return Comparison(name, newer, older)


# --------------------------------------------------------------------------- rendering


def facts(side: Side) -> list[tuple[str, str]]:
    """(label, value) rows both columns show, in order."""
    case = side.unit.case
    judge = case.judge_verdict
    rows = [
        ("verdict", case.verdict),
        ("reason", side.unit.reason or ""),
        ("duration", f"{case.duration_seconds:.1f} s" if case.duration_seconds is not None else ""),
        ("tokens", tokens(case.usage)),
        ("cost", cost(case.usage) or ("no cost reported" if case.usage else "")),
        (
            "engine",
            " / ".join(
                x
                for x in (
                    side.unit.records[-1].engine if side.unit.records else "",
                    side.unit.records[-1].model if side.unit.records else "",
                )
                if x
            ),
        ),
        ("judge", f"{judge.result} ({judge.model or '?'}): {judge.reason}" if judge is not None else ""),
    ]
    for check in case.checks:
        rows.append(
            (
                f"check {check_key(check.kind)} {yaml_value(check.value)}",  # as the case and the run page write it
                f"{check.status}{': ' + check.detail if check.detail else ''}",
            )
        )
    return rows


def rows(cmp: Comparison) -> list[tuple[str, str, str]]:
    """(label, previous, latest): every fact of either run, matched by label (checks by kind and value)."""
    latest = facts(cmp.latest)
    previous = dict(facts(cmp.previous)) if cmp.previous is not None else {}
    labels = [label for label, _ in latest] + [label for label in previous if label not in dict(latest)]
    now = dict(latest)
    out = [(label, previous.get(label, ""), now.get(label, "")) for label in labels]
    return [row for row in out if row[1] or row[2]]  # a fact neither run has (no judge) is left out


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


CSS_EXTRA = """
.cmp{width:100%;table-layout:fixed}.cmp th:first-child{width:18%}.cmp td{white-space:pre-wrap;word-break:break-word}
.cmp tr.changed td{background:var(--hunk)}.cmp td.v-PASS{color:var(--pass);font-weight:700}
.cmp td.v-FAIL{color:var(--fail);font-weight:700}.cmp td.v-ERROR{color:var(--error);font-weight:700}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:12px}
"""


def _cell(label: str, value: str) -> str:
    verdict = value.split(":", 1)[0].split(" ", 1)[0]
    cls = (
        f' class="v-{verdict}"'
        if (label == "verdict" or label.startswith(("check ", "judge"))) and known_verdict(verdict)
        else ""
    )
    return f"<td{cls}>{_e(value)}</td>"


def render_compare_html(cmp: Comparison) -> str:
    """One self-contained page (inline CSS, no script needed, nothing fetched): the two runs side by side."""
    prev = cmp.previous
    head = (
        f"<tr><th></th><th>previous · {_e(prev.timestamp)}</th>"
        if prev is not None
        else "<tr><th></th><th>previous</th>"
    ) + f"<th>latest · {_e(cmp.latest.timestamp)}</th></tr>"
    body = []
    for label, before, now in rows(cmp):
        mark = ' class="changed"' if prev is not None and before != now else ""
        body.append(f"<tr{mark}><th>{_e(label)}</th>{_cell(label, before)}{_cell(label, now)}</tr>")
    parts = [f"<h1>evalens · compare {_e(cmp.name)}</h1>"]
    if prev is None:
        parts.append('<div class="reason">Only one run of this unit so far: run it again to compare.</div>')
    parts.append(
        '<div class="meta">' + " → ".join(_e(s.report_path.name) for s in (prev, cmp.latest) if s) + "</div>"
    )
    parts.append(f'<table class="cmp">{head}{"".join(body)}</table>')
    parts.append("<h3>Final output</h3>")
    diff = cmp.output_diff()
    if prev is not None and diff:
        parts.append(f'<pre class="diff" id="output-diff">{_diff(diff)}</pre>')
    elif prev is not None:
        parts.append('<div class="mute" id="output-diff">the final outputs are the same</div>')
    parts.append(
        '<div class="cols">'
        + "".join(
            f'<div><div class="mute">{label}</div><pre>{_e(side.output)}</pre></div>'
            for label, side in (("previous", prev), ("latest", cmp.latest))
            if side is not None
        )
        + "</div>"
    )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>evalens · compare {_e(cmp.name)}'
        '</title><meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<style>{CSS}{CSS_EXTRA}</style></head><body>{''.join(parts)}</body></html>\n"
    )


def render_compare_markdown(cmp: Comparison) -> str:
    """The same as Markdown (Neovim's buffer, ``evalens show --compare --markdown``)."""
    prev = cmp.previous
    out = [f"# Compare {cmp.name}", ""]
    if prev is None:
        out += ["Only one run of this unit so far: run it again to compare.", ""]
    out += [
        f"| | previous{' · ' + prev.timestamp if prev else ''} | latest · {cmp.latest.timestamp} |",
        "|---|---|---|",
    ]
    for label, before, now in rows(cmp):
        cell = [v.replace("|", "\\|").replace("\n", " ") for v in (label, before, now)]
        mark = " **≠**" if prev is not None and before != now else ""
        out.append(f"| {cell[0]}{mark} | {cell[1]} | {cell[2]} |")
    diff = cmp.output_diff()
    out += ["", "## Final output", ""]
    if prev is None:
        out += ["```text", cmp.latest.output, "```"]
    elif diff:
        out += ["```diff", diff.replace("```", "ʼʼʼ"), "```"]
    else:
        out.append("The final outputs are the same.")
    return "\n".join(out) + "\n"
