"""One self-contained HTML page for a report and its run records: the CI artifact, and the editors' run view.

Everything is inline (CSS, a few lines of JS) and nothing is fetched, so the page opens from a CI artifact, a mail
attachment or a VS Code webview with scripts allowed and no network. Units come failures first; turns and diffs
are ``<details>`` that collapse (a turn with a blocked or failed call opens by itself in a unit that did not
pass); a filter shows one verdict. Anchors: ``#u-<unit>``, ``#u-<unit>-check-<n>``, ``#u-<unit>-r<run>-t<turn>``;
opening the page at an anchor unfolds it.
"""

from __future__ import annotations

import json
import re
from html import escape

from evalens.core.models.run_record import FileChange, RunRecord, ToolCall, Turn
from evalens.runner.check_words import check_key, yaml_value
from evalens.runner.matrix import batch_matrix
from evalens.runner.run_view import CANCELLED, RunView, UnitView, call_summary, cost, record_facts, tokens
from evalens.runner.trigger_report import query_label, trigger_report
from evalens.runner.uplift_words import arms_table, describe

CSS = """
:root{--bg:#fff;--fg:#1f2328;--mute:#656d76;--line:#d0d7de;--card:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;
--error:#8250df;--skip:#9a6700;--add:#dafbe1;--del:#ffebe9;--hunk:#ddf4ff;--code:#eff1f3}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mute:#8d96a0;--line:#30363d;--card:#161b22;
--pass:#3fb950;--fail:#f85149;--error:#a371f7;--skip:#d29922;--add:#12361f;--del:#3d1418;--hunk:#0c2d6b;
--code:#1c2128}}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg);
margin:0;padding:16px 24px;max-width:1200px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:0;display:inline}h3{font-size:14px;margin:14px 0 6px}
.meta,.mute{color:var(--mute)}code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:var(--code);padding:8px;border-radius:6px;overflow:auto;white-space:pre-wrap;word-break:break-word;
margin:4px 0}
.badge{display:inline-block;font-weight:700;font-size:12px;padding:1px 8px;border-radius:10px;color:#fff;
margin-right:6px;vertical-align:1px}
.PASS{background:var(--pass)}.FAIL{background:var(--fail)}.ERROR{background:var(--error)}.SKIP{background:var(--skip)}
.CANCELLED{background:var(--skip)}
.unit{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:14px 0;background:var(--bg)}
.unit>header{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline}
.reason{margin:8px 0;padding:6px 10px;border-left:3px solid var(--line);background:var(--card)}
.uplift{margin:8px 0;padding:6px 10px;border-left:3px solid var(--pass);background:var(--card)}
.unit[data-verdict=FAIL] .reason{border-color:var(--fail)}.unit[data-verdict=ERROR] .reason{border-color:var(--error)}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;
vertical-align:top}tr.check-FAIL td{background:var(--del)}
details{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:var(--card)}
details>summary{cursor:pointer;padding:6px 10px;list-style-position:inside}details[open]>summary{border-bottom:1px solid var(--line)}
details>.body{padding:6px 10px}
.call{border-left:3px solid var(--line);padding:2px 0 2px 10px;margin:8px 0}.call.blocked{border-color:var(--fail)}
.tag{font-size:11px;font-weight:700;padding:0 6px;border-radius:8px;border:1px solid currentColor;margin-left:4px}
.tag.blocked,.tag.error{color:var(--fail)}.tag.skill{color:var(--pass)}.tag.cut{color:var(--skip)}
.diff .add{background:var(--add);display:block}.diff .del{background:var(--del);display:block}
.diff .hunk{background:var(--hunk);display:block;color:var(--mute)}.diff .ctx{display:block}
.hook-denied{color:var(--fail);font-weight:600}
.filters{position:sticky;top:0;background:var(--bg);padding:8px 0;border-bottom:1px solid var(--line);z-index:1}
.filters button{font:inherit;border:1px solid var(--line);background:var(--card);color:var(--fg);border-radius:14px;
padding:2px 12px;margin-right:4px;cursor:pointer}.filters button[aria-pressed=true]{outline:2px solid var(--fg)}
.bounds{color:var(--skip)}.hidden{display:none}
.triggers,.arms,.matrix{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:14px 0}
.matrix{overflow-x:auto}
.FLAKY{background:var(--skip)}.BUDGET{background:var(--mute)}th.here{border-bottom:2px solid var(--fg)}
"""

JS = """
(function(){
  var buttons=document.querySelectorAll('.filters button[data-filter]');
  function apply(v){
    document.querySelectorAll('section.unit').forEach(function(s){
      s.classList.toggle('hidden', v!=='all' && s.dataset.verdict!==v);});
    buttons.forEach(function(b){b.setAttribute('aria-pressed', String(b.dataset.filter===v));});
  }
  buttons.forEach(function(b){b.addEventListener('click',function(){apply(b.dataset.filter);});});
  document.querySelectorAll('button[data-toggle]').forEach(function(b){b.addEventListener('click',function(){
    var open=b.dataset.toggle==='open';document.querySelectorAll('details').forEach(function(d){d.open=open;});});});
  function reveal(){
    var id=decodeURIComponent(location.hash.slice(1))||document.body.dataset.anchor;
    var el=id&&document.getElementById(id);if(!el)return;
    apply('all');for(var n=el;n;n=n.parentElement){if(n.tagName==='DETAILS')n.open=true;}
    el.scrollIntoView();el.classList.add('target');
  }
  window.addEventListener('hashchange',reveal);reveal();
})();
"""


def unit_anchor(name: str) -> str:
    """The page's anchor of a unit (its checks and turns extend it)."""
    return "u-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "unit")


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _ms(value: int | None) -> str:
    if value is None:
        return ""
    return f"{value} ms" if value < 1000 else f"{value / 1000:.1f} s"


def _diff(text: str) -> str:
    out = []
    for line in text.splitlines():
        cls = (
            "hunk"
            if line.startswith("@@")
            else "add"
            if line.startswith("+") and not line.startswith("+++")
            else "del"
            if line.startswith("-") and not line.startswith("---")
            else "ctx"
        )
        out.append(f'<span class="{cls}">{_e(line) or " "}</span>')
    return "".join(out)


def _value(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)


def _call(call: ToolCall) -> str:
    tags = []
    if call.blocked:
        tags.append('<span class="tag blocked">blocked</span>')
    elif call.is_error:
        tags.append('<span class="tag error">error</span>')
    if call.skill:
        tags.append(f'<span class="tag skill">skill {_e(call.skill)}</span>')
    if call.truncated:
        tags.append('<span class="tag cut">cut</span>')
    parts = [
        f'<div class="call{" blocked" if call.blocked else ""}"><b>{_e(call.name)}</b> '
        f"<code>{_e(call_summary(call.name, call.input))}</code> {''.join(tags)} "
        f'<span class="mute">{_ms(call.duration_ms)}</span>',
        f'<div class="mute">input</div><pre>{_e(_value(call.input))}</pre>',
    ]
    if call.result is not None:
        parts.append(f'<div class="mute">result</div><pre>{_e(call.result)}</pre>')
    for hook in call.hooks:
        verdict = "denied the call" if hook.blocked else "allowed"
        parts.append(
            f'<div class="{"hook-denied" if hook.blocked else "mute"}">hook {_e(hook.name or hook.event)}'
            f" (exit {_e(hook.exit_code)}): {verdict}{': ' + _e(hook.reason) if hook.reason else ''}</div>"
        )
    return "\n".join(parts) + "</div>"


def _turn(turn: Turn, anchor: str, open_: bool) -> str:
    labels = [f"{c.name} {call_summary(c.name, c.input)}".strip() for c in turn.tool_calls]
    label = "; ".join(labels) or (turn.text.splitlines()[0][:100] if turn.text else "(no text)")
    flags = "".join(' <span class="tag blocked">blocked</span>' for c in turn.tool_calls if c.blocked)[:60]
    tok = f"{turn.input_tokens} in / {turn.output_tokens} out" if turn.input_tokens is not None else ""
    body = f"<pre>{_e(turn.text)}</pre>" if turn.text else ""
    body += "".join(_call(c) for c in turn.tool_calls)
    return (
        f'<details class="turn" id="{anchor}"{" open" if open_ else ""}><summary>Turn {turn.index + 1} · '
        f'{_e(label)}{flags} <span class="mute">{_e(tok)}</span></summary>'
        f'<div class="body">{body}</div></details>'
    )


def _file(change: FileChange) -> str:
    size = f"{change.size} bytes" if change.size is not None else ""
    body = f'<pre class="diff">{_diff(change.diff)}</pre>' if change.diff else ""
    if change.note:
        body += f'<div class="bounds">{_e(change.note)}</div>'
    cut = ' <span class="tag cut">cut</span>' if change.truncated else ""
    return (
        f'<details class="file"><summary>{_e(change.status)} <code>{_e(change.path)}</code> '
        f'<span class="mute">{_e(size)}</span>{cut}</summary><div class="body">{body}</div></details>'
    )


def _record(rec: RunRecord, anchor: str, runs: int, failed: bool) -> str:
    head = f"Run {rec.run_index} · {rec.verdict or ''}" if runs > 1 else "What the agent did"
    parts = [f'<h3>{_e(head)}</h3><div class="mute">{_e(record_facts(rec, version=True))}</div>']
    if rec.error:
        parts.append(f'<div class="reason">agent error: {_e(rec.error)}</div>')
    for note in rec.bounds:
        parts.append(f'<div class="bounds">bounded: {_e(note)}</div>')
    if rec.hooks:
        parts.append(
            '<div class="mute">hooks outside tool calls: '
            + ", ".join(f"{_e(h.name or h.event)}{' (denied)' if h.blocked else ''}" for h in rec.hooks)
            + "</div>"
        )
    if rec.activations:
        seen = "; ".join(
            f"{a.skill} ({a.how}{f', turn {a.turn + 1}' if a.turn is not None else ''})"
            for a in rec.activations
        )
        parts.append(f'<div class="mute">skills that fired: {_e(seen)}</div>')
    elif rec.skills_activated:
        parts.append(f'<div class="mute">skills activated: {_e(", ".join(rec.skills_activated))}</div>')
    parts.append(f'<div class="mute">prompt</div><pre>{_e(rec.prompt)}</pre>')
    for turn in rec.turns:
        trouble = any(c.blocked or c.is_error for c in turn.tool_calls)
        parts.append(_turn(turn, f"{anchor}-r{rec.run_index}-t{turn.index}", failed and trouble))
    if not rec.turns:
        parts.append('<div class="mute">no turns recorded</div>')
    parts.append(
        f"<h3>Files ({len(rec.files)})</h3>"
        + ("".join(_file(f) for f in rec.files) or '<div class="mute">no file created or changed</div>')
    )
    return "\n".join(parts)


def _unit(unit: UnitView, side: str | None = None) -> str:
    case = unit.case
    anchor = unit_anchor(case.name) + ("-baseline" if side is not None else "")
    facts = [
        f"{case.duration_seconds:.1f} s" if case.duration_seconds is not None else "",
        tokens(case.usage),
        cost(case.usage),
        f"pass rate {case.pass_rate:.0%}" if case.pass_rate is not None else "",
        case.case_file or "",
    ]
    parts = [
        f'<section class="unit" data-verdict="{_e(unit.shown)}" id="{anchor}"><header>'
        f'<span class="badge {_e(unit.shown)}">{_e(unit.shown)}</span><h2>{_e(case.name)}</h2>'
        + (f'<span class="mute">baseline: {_e(side)}</span>' if side is not None else "")
        + f'<span class="meta">{_e(" · ".join(f for f in facts if f))}</span></header>'
    ]
    if case.uplift is not None:
        parts.append(f'<div class="uplift"><b>Uplift</b> {_e(describe(case.uplift))}</div>')
    if unit.reason:
        parts.append(f'<div class="reason">{_e(unit.reason)}</div>')
    fired = _fired(case.details or {})
    if fired:
        parts.append(fired)
    if case.checks:
        rows = []
        for i, check in sorted(enumerate(case.checks), key=lambda ic: ic[1].status != "FAIL"):
            rows.append(
                f'<tr class="check-{_e(check.status)}" id="{anchor}-check-{i}"><td>'
                f'<span class="badge {_e(check.status)}">{_e(check.status)}</span></td>'
                f"<td>{_e(check_key(check.kind))}</td><td><code>{_e(yaml_value(check.value))}</code></td>"
                f"<td>{_e(check.detail or '')}</td></tr>"
            )
        parts.append(
            "<h3>Checks</h3><table><tr><th></th><th>check</th><th>value</th><th>reason</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    judge = case.judge_verdict
    if judge is not None:
        parts.append(
            f'<h3>Judge <span class="badge {_e(judge.result)}">{_e(judge.result)}</span>'
            f'<span class="mute">{_e(judge.model or "")}</span></h3><pre>{_e(judge.reason)}</pre>'
        )
    for problem in unit.problems:
        parts.append(f'<div class="bounds">{_e(problem)}</div>')
    if not unit.records and not unit.problems:
        parts.append(
            '<div class="mute">no run record (the report predates run records, or no agent ran)</div>'
        )
    for rec in unit.records:
        parts.append(_record(rec, anchor, len(unit.records), case.verdict != "PASS"))
    return "\n".join(parts) + "</section>"


def _fired(details: dict) -> str:
    """A trigger query: the lens words and, per run, which skill fired, how, in which turn, with what."""
    label = query_label(details)
    runs = details.get("fired")
    if label is None and not isinstance(runs, list):
        return ""
    items = []
    for i, run in enumerate(runs if isinstance(runs, list) else [], 1):
        if not isinstance(run, dict):
            continue
        if "error" in run:
            items.append(f"<li>run {i}: ERROR {_e(run['error'])}</li>")
        elif run.get("skill"):
            turn = f" in turn {run['turn'] + 1}" if isinstance(run.get("turn"), int) else ""
            also = f"; then {_e(', '.join(map(str, run.get('also') or [])))}" if run.get("also") else ""
            items.append(
                f"<li>run {i}: <b>{_e(run['skill'])}</b> by {_e(run.get('how'))}{turn}"
                f" <code>{_e(run.get('argument') or '')}</code>{also}</li>"
            )
        else:
            items.append(f"<li>run {i}: no skill fired</li>")
    return f'<div class="reason">{_e(label or "")}</div><ul class="fired">{"".join(items)}</ul>'


def _baseline_head(report: object) -> str:
    """With ``--baseline``: what the baseline runs had and the uplift over every unit."""
    base = getattr(report, "baseline", None)
    if base is None:
        return ""
    b = base.summary
    counts = (
        f": {b.passed} passed, {b.failed} failed, {b.errored} errored of {b.total}" if b is not None else ""
    )
    return f'<div class="meta">Baseline ({_e(base.label)}){_e(counts)}; it never decides a verdict</div>' + (
        f'<div class="uplift"><b>Uplift (all units)</b> {_e(describe(base.uplift))}</div>'
        if base.uplift is not None
        else ""
    )


def _trigger_section(report: object) -> str:
    """A trigger set's report (docs/triggers.md): rates with intervals, the confusion table query → skill that
    fired, stolen-by / stole-from. Every query and skill name is the user's text: escaped."""
    cases = getattr(report, "cases", None) or []
    lab = trigger_report((c.name, c.details or {}) for c in cases)
    if lab is None:
        return ""
    head, *rows = lab.confusion()
    table = (
        '<table class="confusion"><tr>'
        + "".join(f"<th>{_e(h)}</th>" for h in head)
        + "</tr>"
        + "".join(
            '<tr><td><a href="#'
            + _e(unit_anchor(r.unit))
            + f'">{_e(row[0])}</a></td>'
            + "".join(f"<td>{_e(cell)}</td>" for cell in row[1:])
            + "</tr>"
            for r, row in zip(lab.rows, rows, strict=True)
        )
        + "</table>"
    )
    lists = "".join(
        f"<li>stolen by <b>{_e(thief)}</b> {n}/{r.counted}: {_e(r.query)}</li>"
        for r, thief, n in lab.stolen_by()
    ) + "".join(
        f"<li>stole{' from <b>' + _e(owner) + '</b>' if owner else ''} {n}/{r.counted}: {_e(r.query)}</li>"
        for r, owner, n in lab.stole_from()
    )
    errors = f" · {lab.errors} ERROR run(s) not counted" if lab.errors else ""
    return (
        f'<section class="triggers"><h2>Triggers of {_e(lab.skill)}</h2>'
        f'<div class="meta">recall {_e(lab.recall.text())} · precision {_e(lab.precision.text())}'
        f"{_e(errors)} (runs, 95% Wilson intervals)</div>"
        f"<h3>Which skill fired</h3>{table}" + (f"<ul>{lists}</ul>" if lists else "") + "</section>"
    )


def _arms_section(report: object) -> str:
    """The reference report of an ``--arms`` run: one row per unit and one column per arm (k/N, cost, the
    reference's uplift over it with its interval), then each arm's pooled uplift (runner/arms.py's table, the
    one ``evalens show`` prints). Unit names and arm labels (git refs) are the user's text: escaped."""
    shaped = arms_table(report)
    arms = getattr(report, "arms", None)
    if shaped is None or arms is None:
        return ""
    head, rows, pooled = shaped
    links = {c.arm.label: c.report for c in arms.comparisons}
    heads = "".join(
        f'<th title="{_e(links.get(h) or "")}">{_e(h)}</th>' if links.get(h) else f"<th>{_e(h)}</th>"
        for h in head
    )
    body = "".join(
        f'<tr><td><a href="#{_e(unit_anchor(row[0]))}">{_e(row[0])}</a></td>'
        + "".join(f"<td>{_e(cell)}</td>" for cell in row[1:])
        + "</tr>"
        for row in rows
    )
    lines = "".join(f"<li>{_e(line)}</li>" for line in pooled)
    return (
        f'<section class="arms"><h2>Arms (reference: {_e(arms.reference.label)})</h2>'
        '<div class="meta">runs that passed of those that passed or failed · cost · the reference\'s uplift '
        "over the arm with its 95% interval</div>"
        f'<table class="arms-table"><tr>{heads}</tr>{body}</table><ul class="pooled">{lines}</ul></section>'
    )


def _matrix_section(view: RunView) -> str:
    """A cell report of an ``--engine a,b`` / ``--model A,B`` run: every cell of its batch (runner/matrix.py
    finds them by name) as one row per unit and one column per cell (k/N, the Wilson interval, the cost).
    A cell report that cannot be read is named, not hidden."""
    found = batch_matrix(view.report_path, view.report)
    if found is None:
        return ""
    grid, here, unread = found.grid, found.here, found.unread
    heads = "".join(
        f'<th class="here">{_e(c)} (this report)</th>' if i == here else f"<th>{_e(c)}</th>"
        for i, c in enumerate(grid.columns)
    ) + "".join(f'<th class="uplift">{_e(h)}</th>' for h in grid.uplift)
    rows = []
    for row, (name, cells) in enumerate(grid.rows):
        tds = []
        for cell in cells:
            if cell is None:
                tds.append('<td class="mute" title="not run in this cell">—</td>')
                continue
            state = cell.repeats.state
            tds.append(
                f'<td><span class="badge {_e(state)}">{_e(state)}</span>{_e(cell.repeats.label())} '
                f'<span class="interval">{_e(cell.interval_text())}</span> '
                f'<span class="mute cost">{_e(cell.cost_text())}</span></td>'
            )
        tds += [f'<td class="uplift">{_e(col[row])}</td>' for col in grid.uplift.values()]
        rows.append(f"<tr><td>{_e(name)}</td>{''.join(tds)}</tr>")
    problems = "".join(f'<div class="bounds">not read: {_e(u)}</div>' for u in unread)
    if grid.pooled:  # --arms: each cell's arms pooled with the paired interval
        problems = (
            '<ul class="pooled">'
            + "".join(f"<li>{_e(line)}</li>" for line in grid.pooled)
            + "</ul>"
            + problems
        )
    return (
        f'<section class="matrix"><h2>Matrix ({len(grid.columns)} cells)</h2>'
        '<div class="meta">runs that passed of those that passed or failed · 95% Wilson interval · cost</div>'
        f'<table class="matrix-table"><tr><th>unit</th>{heads}</tr>{"".join(rows)}</table>{problems}</section>'
    )


def render_html(view: RunView, anchor: str | None = None) -> str:
    """The whole page as one string; ``anchor``: where it opens (a failing check or turn) when the URL has none."""
    report = view.report
    counts = {v: sum(u.shown == v for u in view.units) for v in ("FAIL", "ERROR", "SKIP", "PASS", CANCELLED)}
    summary = report.summary
    facts = [
        report.timestamp,
        report.config.engine,
        report.agent.model or "",
        f"judge {report.judge.model}" if report.judge.model else "",
        f"{report.duration_seconds:.1f} s" if report.duration_seconds is not None else "",
        tokens(summary.usage),
        cost(summary.usage),
    ]
    buttons = ['<button data-filter="all" aria-pressed="true">all ' + str(len(view.units)) + "</button>"]
    buttons += [
        f'<button data-filter="{v}"><span class="badge {v}">{v}</span>{n}</button>'
        for v, n in counts.items()
        if n
    ]
    buttons += [
        '<button data-toggle="open">expand all</button>',
        '<button data-toggle="close">collapse all</button>',
    ]
    title = f"evalens · {report.package.name or report.id}"
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<style>{CSS}</style></head><body data-anchor="{_e(anchor or "")}">'
        f'<h1>{_e(title)}</h1><div class="meta">{_e(" · ".join(f for f in facts if f))}</div>'
        f'<div class="meta">{summary.passed} passed, {summary.failed} failed, {summary.errored} errored, '
        f"{summary.skipped} skipped of {summary.total}{' · interrupted' if report.interrupted else ''}</div>"
        + _baseline_head(report)
        + _arms_section(report)
        + _matrix_section(view)
        + _trigger_section(report)
        + f'<nav class="filters">{"".join(buttons)}</nav>'
        + "".join(_unit(u) for u in view.units)
        + (
            f"<h2>Baseline runs ({_e(report.baseline.label)})</h2>"
            if view.baseline_units and report.baseline
            else ""
        )
        + "".join(_unit(u, report.baseline.label if report.baseline else "") for u in view.baseline_units)
        + f"<script>{JS}</script></body></html>\n"
    )
