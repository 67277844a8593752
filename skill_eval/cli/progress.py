"""Progress on the terminal: one rewritten line on a TTY, plain periodic lines otherwise."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from skill_eval.engine.engine import Progress


def _fmt_secs(s: float) -> str:
    s = int(s)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def describe(p: Progress) -> str:
    elapsed = time.monotonic() - p.started
    parts = [f"{p.done}/{p.total} runs", f"{p.running} running"]
    if p.errors:
        parts.append(f"{p.errors} errors")
    parts.append(f"elapsed {_fmt_secs(elapsed)}")
    if 0 < p.done < p.total:
        parts.append(f"ETA {_fmt_secs(elapsed / p.done * (p.total - p.done))}")
    if p.tokens:
        parts.append(f"{int(p.tokens):,} tokens")
    if p.cost_usd:
        parts.append(f"${p.cost_usd:.2f}")
    return ", ".join(parts)


class ProgressLine:
    """A background thread that shows ``Progress`` until stopped."""

    def __init__(self, progress: Progress, stream: TextIO | None = None, interval: float | None = None):
        self.progress = progress
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval = interval or (0.25 if self.tty else 10.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> ProgressLine:
        if self.progress.total:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
            self._show(final=True)

    def _loop(self) -> None:
        last_done = -1
        while not self._stop.wait(self.interval):
            if self.tty or self.progress.done != last_done:
                last_done = self.progress.done
                self._show()

    def _show(self, final: bool = False) -> None:
        line = describe(self.progress)
        if self.tty:
            self.stream.write("\r\033[K" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
