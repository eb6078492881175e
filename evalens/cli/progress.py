"""Live progress on stderr (one line per case run) and the end-of-run summary table, drawn with rich.

rich is imported when the first progress line is drawn, not at CLI start-up. Inside GitHub Actions every text a
case, an agent or a judge can steer goes through :func:`evalens.core.workflow_commands.escape` and lines are never
wrapped, so no part of it can start a line the runner reads as a workflow command.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from evalens.core.models.run_record import sum_usage
from evalens.core.terminal_text import for_terminal
from evalens.core.workflow_commands import escape as escape_command
from evalens.core.workflow_commands import in_actions
from evalens.core.workflow_commands import shown as shown_text
from evalens.runner.results import repeat_label
from evalens.runner.run_view import cost, tokens
from evalens.runner.uplift_words import cost_text, describe, rates_text, uplift_text

UPLIFT_STYLES = {"▲": "bold green", "▼": "bold red", "=": "bold", "?": "yellow"}
VERDICT_STYLES = {
    "PASS": "bold green",
    "FAIL": "bold red",
    "ERROR": "bold magenta",
    "SKIP": "yellow",
    "FLAKY": "bold yellow",
    "BUDGET": "yellow",
}


class ProgressView:
    """Consumes :class:`evalens.runner.api.ProgressEvent` and renders a live table of case runs on stderr."""

    def __init__(self, *, stream: Any = None, live: bool | None = None, ci: bool | None = None) -> None:
        self.ci = in_actions() if ci is None else ci
        self.console = _console(stream, self.ci)
        self.live_enabled = (self.console.is_terminal and not self.ci) if live is None else live
        self.rows: dict[tuple[str, int], dict[str, Any]] = {}
        self.live: Any = None
        self.runs_seen = 1

    def __enter__(self) -> ProgressView:
        if self.live_enabled:
            self.live = Live(self._render(), console=self.console, refresh_per_second=8, transient=False)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.update(self._render())
            self.live.__exit__(None, None, None)
            self.live = None

    def _render(self) -> Any:
        table = Table.grid(padding=(0, 2))
        now = time.monotonic()
        for (name, index), row in self.rows.items():
            label = name if self.runs_seen == 1 else f"{name} #{index}"
            verdict = row.get("verdict")
            if verdict:
                status = f"[{VERDICT_STYLES.get(verdict, '')}]{verdict}[/]"
                elapsed = row["end"] - row["start"]
            else:
                status = f"[cyan]{row['stage']}[/]"
                elapsed = now - row["start"]
            table.add_row(
                status,
                escape(self._text(label)),
                f"{elapsed:5.1f}s",
                escape(self._text(row.get("message", "")[:90])),
            )
        return table

    def turn(self, turn: Any) -> None:
        """A live turn of the agent (``evalens eval --verbose``), printed above the table."""
        style = (
            "red"
            if turn.kind in ("hook", "error") or turn.is_error
            else "dim"
            if turn.kind == "result"
            else ""
        )
        line = escape(turn_text(turn, ci=self.ci))
        self.console.print(f"[{style}]{line}[/]" if style else line)

    def __call__(self, event: Any) -> None:
        if event.case_name is None:
            if event.stage == "plan" and event.message:
                self.console.print(f"[yellow]{escape(self._text(event.message))}[/]")
            return
        self.runs_seen = max(self.runs_seen, event.run_index)
        key = (event.case_name, event.run_index)
        row = self.rows.setdefault(key, {"start": time.monotonic(), "stage": event.stage})
        row["stage"] = event.stage
        row["message"] = event.message
        if event.stage == "done":
            row["verdict"] = event.verdict
            row["end"] = time.monotonic()
            if self.live is None:
                label = (
                    event.case_name
                    if event.run_index == 1 and self.runs_seen == 1
                    else f"{event.case_name} #{event.run_index}"
                )
                style = VERDICT_STYLES.get(event.verdict or "", "")

                self.console.print(
                    f"[{style}]{event.verdict:5}[/] {escape(self._text(label))}  "
                    f"{row['end'] - row['start']:.1f}s  {escape(self._text(event.message[:120]))}"
                )
        if self.live is not None:
            self.live.update(self._render())

    def _text(self, text: str) -> str:
        """Untrusted text (case names, reasons, agent output) as it may reach this terminal or CI log."""
        return shown_text(text, ci=self.ci)


def _console(stream: Any, ci: bool) -> Any:
    """A rich console on ``stream``; in CI one that never wraps (a wrapped line could start with ``::``)."""
    return Console(file=stream or sys.stderr, highlight=False, soft_wrap=ci, width=100_000 if ci else None)


TURN_MARKS = {"text": "💬", "tool": "▸", "result": "  ↳", "hook": "⛔", "error": "!", "note": "…"}


def turn_text(turn: Any, *, lines: int = 4, ci: bool = False) -> str:
    """One live turn (:class:`evalens.runner.live.LiveTurn`) as plain text: ``[case] ▸ Write output/x.txt``;
    ``ci``: every line escaped for the runner's command parser."""
    label = for_terminal(turn.unit if turn.run == 1 else f"{turn.unit} #{turn.run}")
    body = turn.text.rstrip()
    if turn.kind == "tool":
        body = f"{turn.tool or 'tool'} {body}".rstrip()
    elif turn.kind == "result" and turn.is_error:
        body = f"failed: {body}"
    elif turn.kind == "hook":
        body = f"{turn.tool or 'hook'} {'blocked' if turn.blocked else 'failed'}: {body}"
    body = for_terminal(
        body
    )  # the agent's own words and tool names: no terminal control reaches the terminal
    shown = body.splitlines()[:lines] or [""]
    if len(body.splitlines()) > lines:
        shown.append("…")
    if ci:
        label, shown = escape_command(label), [escape_command(line) for line in shown]
    pad = " " * (len(label) + 3)
    return f"[{label}] {TURN_MARKS.get(turn.kind, '')} " + f"\n{pad}".join(shown)


def _stopped(result: Any) -> str:
    """With ``--runs auto``: why the case's runs stopped, under its pass rate."""
    why = (getattr(result, "details", None) or {}).get("stopped")
    return f"\n{why}" if why else ""


def print_summary(
    results: list[Any], report_path: Any, *, stream: Any = None, baseline: Any = None, ci: bool | None = None
) -> None:
    """The closing table: one row per case with verdict, pass rate, duration and reason (and with ``--baseline``
    the uplift against it)."""
    ci = in_actions() if ci is None else ci
    console = _console(stream, ci)

    def text(value: Any) -> str:
        return escape(shown_text(value, ci=ci))

    table = Table(title="evalens eval", show_lines=False)
    table.add_column("case")
    table.add_column("verdict")
    table.add_column("pass rate", justify="right")
    table.add_column("time", justify="right")
    table.add_column("tokens", justify="right")
    table.add_column("cost", justify="right")
    uplifts = any(getattr(r, "uplift", None) is not None for r in results)
    if uplifts:
        table.add_column("uplift", overflow="fold", max_width=40)
    table.add_column("reason", overflow="fold", max_width=70)

    usages = [getattr(r, "usage", None) for r in results]
    for r, usage in zip(results, usages, strict=True):
        state = getattr(r, "shown_state", r.verdict)
        up = getattr(r, "uplift", None)
        shown = (
            [
                f"[{UPLIFT_STYLES[uplift_text(up)[:1]]}]{escape(uplift_text(up))}[/]\n{rates_text(up)}"
                + (f"\n{cost_text(up)}" if cost_text(up) else "")
            ]
            if up is not None
            else [""]
            if uplifts
            else []
        )
        table.add_row(
            text(r.name),
            f"[{VERDICT_STYLES.get(state, '')}]{text(state)}[/]",
            repeat_label(r) + _stopped(r),
            f"{r.duration_seconds:.1f}s",
            tokens(usage),
            cost(usage),
            *shown,
            text((r.reason or "")[:300]),
        )
    console.print(table)
    states = [getattr(r, "shown_state", r.verdict) for r in results]
    counts = {
        v: states.count(v)
        for v in dict.fromkeys(["PASS", "FAIL", "FLAKY", "ERROR", "SKIP", "BUDGET", *states])
    }
    counts = {k: n for k, n in counts.items() if n or k in ("PASS", "FAIL", "ERROR", "SKIP")}
    console.print(" ".join(f"{text(k.lower())}: {n}" for k, n in counts.items()))
    total = sum_usage(usages)
    if total is not None:
        spent = cost(total) or "no cost reported by the CLI"
        console.print(f"total: {tokens(total)} tokens · {spent}")
    if baseline is not None and baseline.uplift is not None:
        console.print(
            f"uplift (all units): {text(describe(baseline.uplift))}; baseline runs never fail the command"
        )
    if report_path:
        console.print(f"report: {text(report_path)}")
