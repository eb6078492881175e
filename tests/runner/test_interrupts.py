"""A signal that arrives where Python cannot raise (a weakref callback of the import machinery, a ``__del__``)
still ends ``evalens eval``/``run`` as interrupted: CI once saw a SIGHUP at startup swallowed by
``_get_module_lock``'s callback, after which the run went on for minutes.

Each script runs with the signals it sends back at their default disposition (:func:`_delivered`): a pytest
started under ``nohup`` (or a shell that ignores SIGHUP/SIGINT) hands its children those signals ignored, evalens
rightly keeps an ignored signal ignored, and the first test then failed on that machine only (issue 40 item 5).
The signal is raised with ``signal.raise_signal``, whose handler runs before it returns, so it runs inside
``__del__`` however loaded the machine is (``os.kill`` and a sleep left that to the scheduler)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap


def _delivered() -> None:
    """``preexec_fn``: SIGINT, SIGTERM and SIGHUP at their default, whatever the test runner inherited."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


SCRIPT = textwrap.dedent(
    """
    import signal
    from evalens.runner import interrupts

    interrupts.install()

    class Swallower:
        def __del__(self):
            signal.raise_signal(signal.SIGHUP)  # the handler runs here, inside __del__, where its exception is ignored

    Swallower()
    print("survived", flush=True)

    async def work():
        print("the loop ran", flush=True)

    try:
        interrupts.run_interruptibly(work(), "test")
    except interrupts.Interrupted as exc:
        print("interrupted", exc.exit_code, flush=True)
    """
)


def test_a_signal_swallowed_in_del_is_raised_at_the_loops_start_without_a_traceback() -> None:
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_delivered,
    )
    assert out.stdout.split("\n")[:2] == ["survived", "interrupted 129"], out
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr, out.stderr
    assert "never awaited" not in out.stderr


def test_the_command_end_raises_a_swallowed_signal() -> None:
    script = textwrap.dedent(
        """
        import signal
        from evalens.runner import interrupts

        interrupts.install()

        class Swallower:
            def __del__(self):
                signal.raise_signal(signal.SIGTERM)

        Swallower()
        try:
            interrupts.check()
        except interrupts.Interrupted as exc:
            interrupts.caught()
            print("interrupted", exc.exit_code)
        interrupts.check()  # caught: nothing more
        print("done")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, preexec_fn=_delivered
    )
    assert out.stdout.split() == ["interrupted", "143", "done"], out
    assert "Traceback" not in out.stderr, out.stderr
