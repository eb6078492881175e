"""How a case result looks in an editor: lens titles, diagnostics, hover text and the command answer.

Pure functions of a result and the positioned document, so every face (lens, diagnostic, hover, command)
says the same thing about a run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lsprotocol import types
from pygls.uris import from_fs_path

from evalens.core.labels import case_label, one_line
from evalens.runner.check_words import CHECK_KEYS, failure_sentence
from evalens.runner.stats import Repeats
from evalens.runner.trigger_report import query_label
from evalens.server.convert import code_description, to_range
from evalens.server.wire import (
    CaseResult,
    FailedCheck,
    JudgeResult,
    LspRange,
    RepeatStats,
    RunUsage,
    client_declares,
)

SOURCE = "evalens-run"
ICONS = {"PASS": "✓", "FAIL": "✗", "FLAKY": "≈", "ERROR": "⚠", "SKIP": "○", "BUDGET": "$"}
SEVERITY = {
    "PASS": types.DiagnosticSeverity.Information,
    "SKIP": types.DiagnosticSeverity.Information,
    "FAIL": types.DiagnosticSeverity.Error,
    "ERROR": types.DiagnosticSeverity.Error,
}


def short(text: str | None, limit: int = 60) -> str:
    """One line, at most ``limit`` characters: lens titles must fit at the end of a line."""
    line = re.sub(r"\s+", " ", (text or "").strip())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds:.1f}s" if seconds < 100 else f"{round(seconds)}s"


def verdict_title(result: Any) -> str:
    """``✓ PASS 18.2s``, ``✗ FAIL: <short reason>``, ``≈ FLAKY 3/5``, ``⚠ ERROR: <short reason>``; a trigger
    query says which skill fired (``✓ fired 3/3``, ``✗ stolen by pdf-tools 2/3``, docs/triggers.md); a verdict
    whose inputs changed since it ran ends in ``· stale``."""
    # lazy: the result, replay and uplift models (~0.1 s) load after the initialize answer (issue 43); a result
    # to show has loaded them already
    from evalens.core.models.cassette import replay_label
    from evalens.runner.uplift_words import uplift_text

    state = getattr(result, "state", None) or result.verdict
    icon = ICONS.get(state, "•")
    stale = " · stale" if getattr(result, "stale", None) else ""
    uplift = getattr(result, "uplift", None)
    if uplift is not None:  # --baseline: `✓ PASS 3/3 · ▲ +67 pts vs no skill` (the interval is in the hover)
        stale += f" · {uplift_text(uplift, interval=False)}"
    replayed = replay_label(getattr(result, "replay", None))
    if replayed:  # a verdict from a cassette is never shown as a live run
        stale += f" · {replayed}"
    details = getattr(result, "details", None)
    if state != "ERROR" and isinstance(details, dict) and "fired" in details:
        fired = query_label(details)  # a trigger query: `✓ fired 3/3`, `✗ stolen by pdf-tools 2/3`
        if fired:
            return fired + stale
    if state == "PASS":
        runs = f" {result.runs}/{result.runs}" if getattr(result, "runs", 1) > 1 else ""
        shown = "" if uplift is not None else f" {duration(result.duration_seconds)}"
        return f"{icon} PASS{runs}{shown}".rstrip() + stale
    if state == "FLAKY":
        return f"{icon} FLAKY {Repeats.of(result.run_verdicts).label()}" + stale
    reason = short(result.reason or result.error or "")
    return (f"{icon} {state}: {reason}" if reason else f"{icon} {state}") + stale


def unit_label(target: Any) -> str:
    """What the editor calls a run target: its name, or for skill-creator's bare ids its prompt
    (``evalens.core.labels``)."""
    if target.name == "*":  # a whole-file run: "Eval all of triggers.json", never "Eval *"
        return f"all of {Path(target.case_file).name}"
    validation = getattr(target, "validation", None)
    if target.case is None or validation is None or validation.doc is None:
        return target.name
    return case_label(validation.doc, target.case)


def run_title(validation: Any, case: Any, cli: bool, whole: bool) -> str:
    """The run lens: ``▶ Run eval`` (UAAPS), ``▶ Run`` (other formats), ``▶ Run all`` (a whole file); a unit whose
    own name is a bare number or index (skill-creator ``"id": 1``, trigger queries) is named by its prompt, so
    twenty lenses do not all read the same."""
    if whole:
        return "▶ Run all"
    base = "▶ Run" if cli else "▶ Run eval"
    label = case_label(validation.doc, case) if validation.doc is not None else case.name
    return base if label == case.name else f"{base}: {one_line(label, 40)}"


def check_label(check: Any) -> str:
    return CHECK_KEYS.get(check.kind, check.kind)


def check_path(validation: Any, case_path: tuple, check: Any) -> tuple | None:
    """Where the check's entry is written (``expected.contains[1]``), or None when the document changed."""
    doc = getattr(validation, "doc", None)
    if doc is None or not doc.ok:
        return None
    location = getattr(check, "location", None)  # the runner says where the check is written (from the root)
    if location is not None:
        node = doc.node_at_path(tuple(location))
        if node is not None and (
            node.kind != "scalar"
            or isinstance(check.value, bool)
            or str(node.value).strip() == str(check.value).strip()
        ):
            return tuple(location)
        if node is not None and check.kind not in CHECK_KEYS:
            return tuple(location)  # a graded statement: the entry is where the runner says, even if reworded
    own = getattr(check, "path", None)  # graded statements of the other formats know where they are written
    if own is not None:
        return (*case_path, *own) if doc.node_at_path((*case_path, *own)) is not None else None
    key = CHECK_KEYS.get(check.kind)
    if key is None:
        return None
    base = (*case_path, "expected", key)
    node = doc.node_at_path(base)
    if node is None:
        return None
    if node.kind == "seq":
        for i, item in enumerate(node.items):
            if item.kind == "scalar" and str(item.value).strip() == str(check.value).strip():
                return (*base, i)
        return None
    return base


def check_range(validation: Any, case_path: tuple, check: Any, encoding: str) -> types.Range | None:
    path = check_path(validation, case_path, check)
    if path is None:
        return None
    doc = validation.doc
    return to_range(doc.span_for(path), doc.lines, encoding)


FILE_CHECKS = ("files_created", "file_exists")


def check_diff(result: Any, check: Any) -> tuple[str, str] | None:
    """Expected and actual text of a failed check for an editor's diff, where the two compare: ``contains``
    (the text wanted, the agent's output), ``not-contains`` (the output without the forbidden text, the
    output) and the file checks (every declared path, the declared paths that exist). The output is what the
    result keeps of it."""
    output = result.output_snippet or ""
    if check.kind == "contains":
        return str(check.value), output
    if check.kind == "not_contains":
        return output.replace(str(check.value), ""), output
    if check.kind in FILE_CHECKS:
        same = [c for c in result.checks if c.kind == check.kind]
        expected = sorted(str(c.value) for c in same)
        actual = sorted(str(c.value) for c in same if c.status == "PASS")
        return "".join(f"{p}\n" for p in expected), "".join(f"{p}\n" for p in actual)
    return None


def failed_checks(result: Any, validation: Any, case_path: tuple, encoding: str) -> list[FailedCheck]:
    out = []
    for check in result.checks:
        if check.status != "FAIL":
            continue
        entry = FailedCheck(
            check=check_label(check),
            value=check.value,
            message=check.detail or "",
            sentence=failure_sentence(check),
        )
        diff = check_diff(result, check)
        if diff is not None:
            entry.expected, entry.actual = diff
        rng = check_range(validation, case_path, check, encoding)
        if rng is not None:
            entry.range = LspRange.of(rng)
        out.append(entry)
    return out


def summary_message(result: Any) -> str:
    """The diagnostic on `name`: verdict, the judge's reason and every failed check."""
    lines = [
        f"eval {result.verdict} ({duration(result.duration_seconds)})"
        if result.duration_seconds
        else f"eval {result.verdict}"
    ]
    if result.judge_reason:
        who = f" ({result.judge_model})" if result.judge_model else ""
        lines.append(f"judge{who}: {result.judge_verdict or ''} {result.judge_reason}".replace("  ", " "))
    for check in result.checks:
        if check.status == "FAIL":
            lines.append(f"failed check {failure_sentence(check)}")
    if result.error and result.error != result.judge_reason and result.verdict != "FAIL":
        lines.append(f"error: {result.error}")
    elif not result.judge_reason and not any(c.status == "FAIL" for c in result.checks) and result.reason:
        lines.append(result.reason)
    return "\n".join(lines)


def diagnostic_message(result: Any) -> str:
    """One line for the diagnostic on `name` (editors draw it as virtual text next to the lens): the verdict and
    its first reason. Every check, the judge and the output are in the hover."""
    failed = next((c for c in result.checks if c.status == "FAIL"), None)
    if result.verdict == "FAIL" and failed is not None:
        reason = failure_sentence(failed)
    elif result.verdict == "FAIL" and result.judge_reason:
        reason = f"judge: {result.judge_reason}"
    else:
        reason = result.reason or result.error or ""
    text = short(reason, 90)
    return f"eval {result.verdict}: {text}" if text else f"eval {result.verdict}"


def verdict_diagnostics(result: Any, validation: Any, case: Any, encoding: str) -> list[types.Diagnostic]:
    """A one-line diagnostic on the case's `name` plus one on each failed check's own line. A PASS has none:
    it is not a problem (the lens and the Test Explorer show it)."""
    if result.verdict == "PASS":
        return []
    doc = validation.doc
    out = [
        types.Diagnostic(
            range=to_range(case.name_span, doc.lines, encoding),
            message=diagnostic_message(result),
            severity=SEVERITY.get(result.verdict, types.DiagnosticSeverity.Information),
            source=SOURCE,
            code=f"eval-{result.verdict.lower()}",
            code_description=code_description(f"eval-{result.verdict.lower()}"),
        )
    ]
    for check in result.checks:
        if check.status != "FAIL":
            continue
        rng = check_range(validation, case.path, check, encoding)
        if rng is not None:
            out.append(
                types.Diagnostic(
                    range=rng,
                    message=short(failure_sentence(check), 120),
                    severity=types.DiagnosticSeverity.Error,
                    source=SOURCE,
                    code="eval-check-failed",
                    code_description=code_description("eval-check-failed"),
                )
            )
    return out


def run_links(experimental: Any, uri: str, name: str) -> str:
    """How to open the run from the hover: command links for a client that runs them (VS Code declares
    ``experimental.evalens.commandLinks``), else the Neovim command and the lens, in words."""
    allowed = client_declares(experimental).command_links or []
    arg = quote(json.dumps([{"uri": uri, "name": name}]))
    links = [
        f"[{title}](command:{command}?{arg})"
        for title, command in (
            ("Show run", "evalens.showRun"),
            ("Compare with previous run", "evalens.compareRuns"),
        )
        if command in allowed
    ]
    if links:
        return " · ".join(links)
    return "Show run: the **Show run** lens, or `:EvalensShow` / `:EvalensCompare` in Neovim"


def report_link(path: str, link: bool = True) -> str:
    """The report as a link editors open (a click in VS Code, ``gx`` in Neovim), its path as the text; with
    ``link`` False (an editor that draws links as written, ``EvalensServer.draws_links``) the path alone, which
    ``gf`` opens."""
    if not link:
        return f"`{path}`"
    uri = from_fs_path(str(path))
    text = str(path).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[{text}]({uri})" if uri else f"`{path}`"


def hover_markdown(record: Any, links: str = "", draws_links: bool = True) -> str:
    """The last result, in full: verdict, checks, judge, duration, engine + model, output, report; ``links``:
    how to open the run (:func:`run_links`); ``draws_links``: the report as a link (:func:`report_link`)."""
    # lazy: the result and uplift models (~0.1 s) load after the initialize answer (issue 43)
    from evalens.runner.results import repeat_label
    from evalens.runner.uplift_words import describe

    r = record.result
    state = getattr(r, "state", None) or r.verdict
    head = f"**Last run: {ICONS.get(state, '')} {state}**"
    if r.duration_seconds:
        head += f" · {duration(r.duration_seconds)}"
    who = " / ".join(x for x in (r.engine, r.agent_model) if x)
    if who:
        head += f" · {who}"
    spent = usage_text(getattr(r, "usage", None))
    if spent:
        head += f" · {spent}"
    parts = [head]
    if getattr(r, "stale", None):
        parts.append(
            "**Stale**: " + "; ".join(r.stale) + " since this run. Run it again for a current verdict."
        )
    if getattr(r, "runs", 1) > 1 and r.run_verdicts:
        hat = (
            f" · pass^{r.runs - r.run_verdicts.count('ERROR') - r.run_verdicts.count('SKIP')} "
            f"{r.pass_hat_k:.2f}"
            if r.pass_hat_k is not None
            else ""
        )
        parts.append(f"Runs: {repeat_label(r)} passed{hat} ({', '.join(r.run_verdicts)})")
    if getattr(r, "uplift", None) is not None:
        parts.append(f"Uplift: {describe(r.uplift)} (the verdict is the runs with the skill)")
    if r.reason:  # a PASS has no diagnostic, so what it measured ("2/2 assertions passed") is said here
        parts.append(f"{'Result' if r.verdict == 'PASS' else 'Reason'}: {r.reason}")
    if r.checks:
        rows = [hover_check_row(c) for c in r.checks]
        parts.append("Checks:\n" + "\n".join(rows))
    if r.judge_verdict:
        model = f" ({r.judge_model})" if r.judge_model else ""
        parts.append(f"Judge{model}: **{r.judge_verdict}** — {r.judge_reason or ''}")
    if r.error and r.verdict == "ERROR" and r.error != r.reason:
        parts.append(f"Error: {r.error}")
    if r.output_snippet:
        parts.append("Output:\n```text\n" + r.output_snippet.replace("```", "ʼʼʼ") + "\n```")
    if record.report_path:
        parts.append(
            f"Report: {report_link(record.report_path, draws_links)}" + (f"\n\n{links}" if links else "")
        )
    if r.sandbox_path:
        parts.append(f"Sandbox kept: `{r.sandbox_path}`")
    return "\n\n".join(parts)


def hover_check_row(check: Any) -> str:
    """A check in the hover: a failed one in its one sentence (:func:`failure_sentence`, as inline and in Test
    Results), its value added only where the sentence does not name it (a graded statement's id)."""
    if check.status != "FAIL":
        detail = f" — {check.detail}" if check.detail and check.detail != check.value else ""
        return f"- {'✓' if check.status == 'PASS' else '○'} `{check_label(check)}` `{check.value}`{detail}"
    sentence = failure_sentence(check)
    value = str(check.value)
    return f"- ✗ {sentence}" + ("" if not value or value in sentence else f" (`{value}`)")


def usage_text(usage: Any) -> str:
    """``1,204 in / 88 out tokens · $0.0123`` (cost only where the CLI reported one), or empty."""
    if usage is None:
        return ""
    # lazy: evalens.runner.run_view ~0.3 s to import; the server starts without it
    from evalens.runner.run_view import cost, tokens

    used = tokens(usage)
    return " · ".join(x for x in (f"{used} tokens" if used else "", cost(usage)) if x)


def case_result(
    uri: str, name: str, record: Any, validation: Any, case_path: tuple, encoding: str
) -> CaseResult:
    """The answer of ``evalens.runCase`` for a unit's last result."""
    # lazy: the replay models load after the initialize answer (issue 43)
    from evalens.core.models.cassette import replay_label

    r = record.result
    out = CaseResult(
        uri=uri,
        name=name,
        verdict=r.verdict,
        reason=r.reason,
        state=getattr(r, "state", None) or r.verdict,
        stale=list(getattr(r, "stale", None) or []),
        duration_seconds=r.duration_seconds,
        failed_checks=failed_checks(r, validation, case_path, encoding),
        engine=r.engine,
        model=r.agent_model,
        output_snippet=r.output_snippet,
        report_path=record.report_path,
    )
    if r.judge_verdict:
        out.judge = JudgeResult(verdict=r.judge_verdict, reason=r.judge_reason or "", model=r.judge_model)
    usage = getattr(r, "usage", None)
    if usage is not None:
        out.usage = RunUsage(
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, cost_usd=usage.cost_usd
        )
    if r.error:
        out.error = r.error
    if getattr(r, "runs", 1) > 1 and getattr(r, "run_verdicts", None):
        out.repeats = repeat_stats(r.run_verdicts)
    replayed = replay_label(getattr(r, "replay", None))
    if replayed:  # the Test Explorer marks a verdict from a cassette with the lens's words
        out.replayed = replayed
    return out


def repeat_stats(verdicts: list[str]) -> RepeatStats:
    """``CaseResult.repeats``: what the Test Explorer says of a repeated unit."""
    rep = Repeats.of(verdicts)
    interval = rep.interval
    return RepeatStats(
        runs=rep.runs,
        passed=rep.passed,
        counted=rep.counted,
        verdicts=list(verdicts),  # type: ignore[arg-type]  # Verdict values, checked by the model
        pass_rate=rep.pass_rate,
        interval=[round(x, 4) for x in interval] if interval else None,
        pass_hat_k=rep.pass_hat_k,
    )


def record_lenses(record: Any, whole_file: bool) -> list[tuple[str, str]]:
    """(title, command) of the lenses a unit's last result adds: "Show run" (the editor's own command: VS Code
    opens the run page in a webview, Neovim the run buffer) when a report holds the run, then its verdict. The
    verdict, the one title of no fixed length (a FAIL's reason), comes last: an editor clips a lens line that is
    too wide (VS Code with Show Run open beside the case), and clipped at its end every lens still shows its
    start and can be clicked (issue 45 #3: "Show run" after a long FAIL was cut off)."""
    if record is None:
        return []
    out = []
    if record.report_path and not whole_file:
        out.append(("Show run", "evalens.showRun"))
    out.append((verdict_title(record.result), "evalens.showResult"))
    return out
