"""SIGTERM and SIGHUP stop a run the way Ctrl-C does.

`timeout`, CI cancellation and a closed terminal send these, not SIGINT. The handler turns the
first one into a KeyboardInterrupt in the main thread, so the same path runs as for Ctrl-C:
start nothing more, kill every adapter and everything it started, remove their workspaces,
keep what finished. ``main`` then exits with 128 + the signal number (143 for SIGTERM, 129 for
SIGHUP), as a shell reports a process killed by that signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Received:
    signum: int | None = None


@contextlib.contextmanager
def stop_on_signals() -> Iterator[type[Received]]:
    """While inside, SIGTERM/SIGHUP raise KeyboardInterrupt once; ``Received.signum`` says which."""
    Received.signum = None
    if threading.current_thread() is not threading.main_thread():
        yield Received
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if Received.signum is not None:
            return  # already stopping: let the clean-up finish
        Received.signum = signum
        raise KeyboardInterrupt

    # A signal the caller ignores stays ignored: `nohup skill-eval run` must survive a hang-up.
    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS
                if signal.getsignal(sig) is not signal.SIG_IGN}
    try:
        yield Received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def name(signum: int) -> str:
    return signal.Signals(signum).name
