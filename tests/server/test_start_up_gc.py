"""``evalens lsp`` runs its start-up with the cyclic GC off (issue 43: ~150 collections, ~30 ms before the
initialize answer); the format loader, after the answer, must collect once, freeze what start-up made and turn
the collector back on, or the server would serve without one."""

from __future__ import annotations

import gc

from evalens.server import startup
from evalens.server.features import lifecycle


def test_the_collector_paused_for_start_up_is_back_after_the_format_loader() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        startup.resume_gc_after_loading()
        lifecycle.load_formats()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
        lifecycle.load_formats()  # a second load (no pause asked) leaves the collector as it is
        assert gc.isenabled()
    finally:
        gc.unfreeze()
        if not was:
            gc.disable()


def test_without_a_pause_the_loader_leaves_the_collector_alone() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        lifecycle.load_formats()  # in-process servers (tests) never paused it: nothing is turned on or frozen
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
    finally:
        if was:
            gc.enable()
