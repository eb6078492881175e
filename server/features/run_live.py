"""``evalens/runTurn``: the agent's turns, forwarded to the editor while a unit runs.

The runner reads them from the engine's event stream (``runner/live.py``, already bounded per turn and per run)
and calls the callback made here on the server's loop; it only builds the payload and queues the notification,
so it never blocks. VS Code appends each turn to the Test Results terminal of the unit's run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from evalens.server.wire import NOTIFICATIONS, RunTurnParams

log = logging.getLogger(__name__)


def params(uri: str, turn: Any) -> dict[str, Any]:
    """The notification's payload for one :class:`evalens.runner.live.LiveTurn`."""
    out = RunTurnParams(uri=uri, name=turn.unit, run=turn.run, seq=turn.seq, kind=turn.kind, text=turn.text)
    if turn.tool:
        out.tool = turn.tool
    if turn.call_id:
        out.call_id = turn.call_id
    if turn.is_error:
        out.is_error = True
    if turn.blocked:
        out.blocked = True
    return out.wire()


def forwarder(ls: Any, uri: str, on_run: Callable[[int], None] | None = None) -> Callable[[Any], None]:
    """The ``on_turn`` of one run started for the eval file ``uri``; ``on_run`` hears each turn's run number
    (repeats: which of the N runs the agent is in)."""

    def send(turn: Any) -> None:
        if on_run is not None:
            try:
                on_run(turn.run)
            except Exception:  # noqa: BLE001 - progress must not break the run
                log.debug("run progress not updated", exc_info=True)
        try:
            ls.protocol.notify(NOTIFICATIONS["runTurn"], params(uri, turn))
        except Exception:  # noqa: BLE001 - a closed transport must not break the run
            log.debug("evalens/runTurn not sent", exc_info=True)

    return send
