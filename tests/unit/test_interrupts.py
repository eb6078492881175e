"""A signal that arrives where Python cannot raise (a weakref callback of the import machinery, a ``__del__``)
still ends ``evalens eval``/``run`` as interrupted: CI once saw a SIGHUP at startup swallowed by
``_get_module_lock``'s callback, after which the run went on for minutes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    from evalens.runner import interrupts

    interrupts.install()

    class Swallower:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.05)  # the handler runs here, inside __del__, where its exception is ignored

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
        [sys.executable, "-W", "error", "-c", SCRIPT], capture_output=True, text=True, timeout=60
    )
    assert out.stdout.split("\n")[:2] == ["survived", "interrupted 129"], out
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr, out.stderr
    assert "never awaited" not in out.stderr


def test_the_command_end_raises_a_swallowed_signal() -> None:
    script = textwrap.dedent(
        """
        import os, signal, time
        from evalens.runner import interrupts

        interrupts.install()

        class Swallower:
            def __del__(self):
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)

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
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["interrupted", "143", "done"], out
    assert "Traceback" not in out.stderr, out.stderr
