"""Dry runs from the editor: what running a unit would do (engine, judge, sandbox, checks), no agent and no
report. UAAPS cases plan through ``run_cases(dry_run=True)``, the other formats through their suite's
``dry_run`` (``evalens run --dry-run``); the plan is shown as a message and answered as a SKIP with
``dryRun: true``, so no face takes it for a verdict."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from evalens.server.features import run_formats
from evalens.server.features import run_present as present
from evalens.server.features.run import Runs
from evalens.server.features.run_formats import CLI_FORMATS
from evalens.server.features.run_state import Target
from evalens.server.wire import CaseResult


async def dry_run(runs: Runs, target: Target, settings: Any = None) -> CaseResult:
    """The ``evalens.runCase`` answer with ``dryRun``: the plan (under ``settings`` with the run's overrides,
    else the editor's), also shown as a message."""
    # lazy: evalens.runner.api ~0.7 s to import; the server starts without it (it loads on the first run)
    from evalens.runner.api import RunError, UsageError, run_cases

    base = CaseResult(
        uri=target.uri, name=target.name, verdict="SKIP", duration_seconds=0.0, failed_checks=[], dry_run=True
    )
    try:
        if target.format_id in CLI_FORMATS:
            return _show_plan(
                runs,
                base,
                target,
                await run_formats.dry_run(
                    target.format_id, target.case_file, target.name, settings or runs.ls.settings
                ),
            )
        outcome = await run_cases(
            runs.request(target.root, [str(target.case_file)], dry_run=True, settings=settings)
        )
    except (RunError, UsageError) as exc:
        runs.ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"evalens dry run: {exc}")
        )
        base.verdict, base.reason, base.error = "ERROR", str(exc), str(exc)
        return base
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


def _show_plan(runs: Runs, base: CaseResult, target: Target, lines: list[str]) -> CaseResult:
    """The dry run's message (``Dry run of <unit>: ...``) and its SKIP answer."""
    label = present.unit_label(target)
    message = "\n".join([f"Dry run of {label}: {lines[0]}", *lines[1:]])
    runs.ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    base.reason = "dry run: " + "; ".join(lines[1:] or ["ok"])
    return base
