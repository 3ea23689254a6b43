"""Ctrl-C held back while a process is being started, then raised as it would have been.

tourney turns Ctrl-C into Python's KeyboardInterrupt (tournaments.cli), and Python raises it
wherever the main thread happens to be when the signal is handled. Starting a process is a place
where it must not land: a Popen with a preexec_fn (the sandbox's as root, the rlimits without the
sandbox) runs Python's at-fork hooks in the parent, and an exception raised in a hook is printed
as "Exception ignored" and dropped, so the press is lost and the run goes on waiting for a bot;
and a worker cut between its spawn and its orders dies reading a closed pipe. Inside
``ctrl_c_held()`` a press is only noted; when the block ends it is raised again, to the handler
that was there before.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Ctrl-C noted instead of handled until the block is over, then raised again. Only the main
    thread handles signals in Python, so elsewhere, and where Ctrl-C is ignored (a worker), nothing
    needs holding back."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) in (
            signal.SIG_IGN, None):
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed:
            signal.raise_signal(signal.SIGINT)
