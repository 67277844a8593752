"""A folder's input files read through the guards (fs/confined.py) once each, however many
readers ask: a ``claude plugin eval`` suite's mocks (``evals/mocks/``) serve every case alike,
and reading and hashing them once per case made 60 cases with 10 MB of mocks read 1.2 GB per
``validate`` or ``status``. What reading a file found wrong is reported again to every caller
(each case's problems name it, as if it had read the file itself).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from skill_eval.fs.confined import Unreadable, confined_bytes, decoded, universal_newlines

Report = Callable[[str], None]
T = TypeVar("T")


class ReadOnce:
    """The input files under ``root`` (links out of it refused), each read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._done: dict[tuple[str, Any], tuple[Any, tuple[str, ...]]] = {}

    def once(self, key: tuple[str, Any], make: Callable[[Report], T], report: Report) -> T:
        """``make(report)``'s value, computed on the first call for ``key`` only; the problems
        it reported are reported again on every call."""
        if key not in self._done:
            said: list[str] = []
            self._done[key] = (make(said.append), tuple(said))
        value, said = self._done[key]
        for message in said:
            report(message)
        return value  # type: ignore[no-any-return]

    def text(self, path: Path, report: Report) -> str | None:
        """A file's text (None after a problem naming it)."""
        read = self.once(("read", path), lambda said: self._read(path, said), report)
        return None if read is None else read[0]

    def digest(self, path: Path) -> str:
        """The sha256 of a file ``text`` read (the one read serves both)."""
        read = self.once(("read", path), lambda said: self._read(path, said), quiet)
        return "" if read is None else read[1]

    def _read(self, path: Path, report: Report) -> tuple[str, str] | None:
        try:
            data = confined_bytes(path, self.root)
            return decoded(data), _sha256(data)
        except Unreadable as exc:
            report(f"{self.rel(path)}: {exc}")
            return None

    def files(self, folder: Path, limit: int, report: Report) -> tuple[tuple[str, str, str], ...]:
        """(path relative to ``folder``, text, sha256) of every file under ``folder``, text as
        far as it decodes; one over ``limit`` bytes, a link out of the root, a FIFO or a device
        is named and left out."""
        return self.once(("files", folder), lambda said: self._files(folder, limit, said), report)

    def _files(self, folder: Path, limit: int, report: Report) -> tuple[tuple[str, str, str], ...]:
        out: list[tuple[str, str, str]] = []
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.is_dir():
                continue
            try:
                data = confined_bytes(path, self.root, limit)
            except Unreadable as exc:
                report(f"{self.rel(path)}: {exc}")
                continue
            text = universal_newlines(data.decode("utf-8", errors="replace"))
            out.append((path.relative_to(folder).as_posix(), text, _sha256(data)))
        return tuple(out)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)


def quiet(_: str) -> None:
    """A report for problems already reported where the file was first read."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
