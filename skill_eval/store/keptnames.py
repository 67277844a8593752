"""The names kept workspace files are stored under: printable, redacted, and one per file.

The agent under test chooses these names, so none of them may cost the run:

* A name that is not UTF-8 arrives from the file system with lone surrogates (Python's
  surrogateescape); its raw bytes are written as ``\\xNN`` escapes, as are control characters,
  so the name can go into JSON, onto a terminal and onto any file system. A backslash already in
  a name is escaped too, so no escaped name reads as another file's real one.
* Each path component is redacted on its own, so redaction never swallows a ``/``.
* Names that are equal after escaping and redaction (two different secrets, a file and a folder)
  get a distinct suffix ``~2``, ``~3`` before the extension; nothing overwrites anything.
* A component too long for a file system once escaped is not kept; the caller lists it in
  ``files_not_kept`` with the reason.
"""

from __future__ import annotations

import re

from skill_eval.store.redact import redact

MAX_NAME_BYTES = 255  # one path component, as most file systems allow
_ESCAPE = re.compile(r"[\\\x00-\x1f\x7f-\x9f]|[\udc80-\udcff]|[\ud800-\udfff]")


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if ch == "\\":
        return "\\\\"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape carried it
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return f"\\x{code:02x}"


def printable(name: str) -> str:
    """``name`` with undecodable bytes, controls and backslashes escaped: plain UTF-8 text."""
    return _ESCAPE.sub(lambda m: _escape_char(m.group(0)), name)


def _suffixed(part: str, n: int) -> str:
    stem, dot, ext = part.rpartition(".")
    if not dot or not stem:
        return f"{part}~{n}"
    return f"{stem}~{n}.{ext}"


class KeptNames:
    """Hands out the stored name of each kept file, unique within one run."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.folders: set[str] = set()

    def stored(self, rel: str) -> tuple[str | None, str]:
        """(the name to store ``rel`` under, "") or (None, why it cannot be kept)."""
        parts = [redact(printable(p)) for p in rel.split("/")]
        if any(len(p.encode("utf-8")) > MAX_NAME_BYTES for p in parts):
            return None, f"name too long to keep (over {MAX_NAME_BYTES} bytes once escaped)"
        out: list[str] = []
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            candidate, n = part, 1
            while True:
                path = "/".join([*out, candidate])
                # A folder may be shared by several files; a file's name must be new, and no
                # folder may sit where a file is (or the other way round).
                taken = (path in self.files or path in self.folders) if last else path in self.files
                if not taken:
                    break
                n += 1
                candidate = _suffixed(part, n)
            out.append(candidate)
        for i in range(1, len(out)):
            self.folders.add("/".join(out[:i]))
        name = "/".join(out)
        self.files.add(name)
        return name, ""
