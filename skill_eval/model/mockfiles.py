"""How the mock reader (model/mocks.py) reads files: through the shared guards (fs/confined.py:
no link out of the eval folder, no FIFO or device, UTF-8 or named), and once per suite.

Suite-wide mocks (``evals/mocks/``) serve every case alike: a ``MockReads`` made once for the
eval folder reads, parses and hashes each mock file and fixture once, however many cases use it,
and hands each case the problems reading it found (each case's problems name them, as before).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from skill_eval.fs.confined import Unreadable, confined_bytes, decoded, universal_newlines

Report = Callable[[str], None]
T = TypeVar("T")
MAX_FIXTURE = 4 * 1024 * 1024  # plugin eval's cap on one fixture file


def read_json(path: Path) -> Any:
    """A plugin's JSON file (plugin.json, .mcp.json, _tools.json), or None when it is missing,
    is not JSON, or is a FIFO or device (never waited on)."""
    try:
        return json.loads(confined_bytes(path))
    except (Unreadable, ValueError):
        return None


class MockReads:
    """The mock files of one eval folder, each read once."""

    def __init__(self, eval_dir: Path) -> None:
        self.eval_dir = eval_dir
        self._done: dict[tuple[str, Any], tuple[Any, tuple[str, ...]]] = {}

    def once(self, key: tuple[str, Any], make: Callable[[Report], T], report: Report) -> T:
        """``make(report)``'s value, computed on the first call for ``key`` only; the problems
        it reported are reported again on every call (to each case that uses the file)."""
        if key not in self._done:
            said: list[str] = []
            self._done[key] = (make(said.append), tuple(said))
        value, said = self._done[key]
        for message in said:
            report(message)
        return value  # type: ignore[no-any-return]

    def text(self, path: Path, report: Report) -> str | None:
        """A mock file's text (None after a problem naming it)."""
        read = self.once(("read", path), lambda said: self._read(path, said), report)
        return None if read is None else read[0]

    def digest(self, path: Path) -> str:
        """The sha256 of a mock file ``text`` read (the one read serves both)."""
        read = self.once(("read", path), lambda said: self._read(path, said), _quiet)
        return "" if read is None else read[1]

    def _read(self, path: Path, report: Report) -> tuple[str, str] | None:
        try:
            data = confined_bytes(path, self.eval_dir)
            return decoded(data), _sha256(data)
        except Unreadable as exc:
            report(f"{self._rel(path)}: {exc}")
            return None

    def fixtures(self, folder: Path, report: Report) -> tuple[tuple[str, str, str], ...]:
        """(``fixtures/<name>``, text, sha256) of every file under a mock's ``fixtures/`` folder;
        one over the cap, a link out of the eval folder or a FIFO is named and left out."""
        return self.once(("fixtures", folder), lambda said: self._fixtures(folder, said), report)

    def _fixtures(self, folder: Path, report: Report) -> tuple[tuple[str, str, str], ...]:
        out: list[tuple[str, str, str]] = []
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.is_dir():
                continue
            try:
                data = confined_bytes(path, self.eval_dir, MAX_FIXTURE)
            except Unreadable as exc:
                report(f"{self._rel(path)}: {exc}; the agent would be told there is no such fixture")
                continue
            name = f"fixtures/{path.relative_to(folder).as_posix()}"
            out.append((name, universal_newlines(data.decode("utf-8", errors="replace")), _sha256(data)))
        return tuple(out)

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.eval_dir).as_posix() if path.is_relative_to(self.eval_dir) else str(path)


def _quiet(_: str) -> None:
    """Problems already reported where the file was first read."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
