"""Standard streams whose reader may go away: ``skill-eval run | head`` closes the pipe after a
few lines. Output nobody reads is dropped and the command carries on to its own exit code: a
run keeps its paid-for agent work going, stores it, writes its tables and the fast-path state,
and exits with its verdict, so `set -o pipefail` reports the suite, not the pager."""

from __future__ import annotations

import os
from typing import Any, TextIO


class ReaderSafe:
    """Wraps a text stream; the first write or flush that meets a closed pipe points the file
    descriptor at /dev/null, so that later writes (ours, a library's, the interpreter's final
    flush) go nowhere instead of raising."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self) -> None:
        self.reader_gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
