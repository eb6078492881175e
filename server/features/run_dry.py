"""Dry runs from the editor: what running a unit would do (engine, judge, sandbox, checks), no agent and no
report. Every format plans through the runner's one entry (``run`` with ``dry_run``): a package's case as its
package plans it, the other formats through their suite's ``dry_run`` (``evalens run --dry-run``); the plan is shown as a message and answered as a SKIP with
``dryRun: true``, so no face takes it for a verdict."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from evalens.core.engines import default_engine
from evalens.server.features import run_formats
from evalens.server.features import run_present as present
from evalens.server.features.run import Runs
from evalens.server.features.run_state import RunTarget
from evalens.server.wire import CaseResult


async def dry_run(runs: Runs, target: RunTarget, settings: Any = None) -> CaseResult:
    """The ``evalens.runCase`` answer with ``dryRun``: the plan (under ``settings`` with the run's overrides,
    else the editor's), also shown as a message."""
    # lazy: evalens.runner.api ~0.7 s to import; the server starts without it (it loads on the first run)
    from evalens.runner.api import RunError, RunOutcome, UsageError

    base = CaseResult(
        uri=target.uri, name=target.name, verdict="SKIP", duration_seconds=0.0, failed_checks=[], dry_run=True
    )
    try:
        outcome = await run_formats.dry_run(
            target.format_id, target.case_file, target.name, settings or runs.ls.settings, target.root
        )
    except (RunError, UsageError) as exc:
        runs.ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"evalens dry run: {exc}")
        )
        base.verdict, base.reason, base.error = "ERROR", str(exc), str(exc)
        return base
    if not isinstance(outcome, RunOutcome):  # a file suite's plan: its own lines, as `evalens run --dry-run`
        given = settings or runs.ls.settings
        head = f"engine {given.engine or default_engine()}, judge {given.judge or 'default'}"
        return _show_plan(runs, base, target, [head, *outcome.dry_run])
    plan = outcome.plan
    case = next((c for c in plan.cases if c.name == target.name), plan.cases[0] if plan.cases else None)
    lines = [
        f"{plan.engine} ({plan.engine_binary or 'not found'}), "
        f"judge {plan.judge or 'none'}, timeout {plan.timeout:g}s, "
        f"sandbox {plan.sandbox.get('method') or 'none'} (network {'on' if plan.sandbox.get('network') else 'off'})"
    ]
    if case is not None:
        lines.append("checks: " + (", ".join(case.checks) or "none"))
    lines += [f"warning: {w}" for w in plan.warnings]
    base.plan = plan.model_dump(mode="json")
    return _show_plan(runs, base, target, lines)


def _show_plan(runs: Runs, base: CaseResult, target: RunTarget, lines: list[str]) -> CaseResult:
    """The dry run's message (``Dry run of <unit>: ...``) and its SKIP answer."""
    label = present.unit_label(target)
    message = "\n".join([f"Dry run of {label}: {lines[0]}", *lines[1:]])
    runs.ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    base.reason = "dry run: " + "; ".join(lines[1:] or ["ok"])
    return base
