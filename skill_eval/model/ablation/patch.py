"""Deletion-only unified diffs: an ablation that removes single lines or sentences.

A patch may only delete: a ``+`` line would put new text in the skill, which is a substitution
(another experiment), not an ablation. Each hunk's context and deleted lines must match the file
exactly, at the line the hunk names or, failing that, at exactly one other place; otherwise the
patch no longer fits the skill and the ablation is refused rather than run half-applied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


@dataclass(frozen=True)
class Hunk:
    start: int  # 1-based line of the old text the hunk begins at (0: an empty file)
    lines: tuple[tuple[str, str], ...]  # (" " context | "-" deleted, the line without its ending)


def _path(header: str) -> str:
    name = header[4:].split("\t", 1)[0].strip()
    return name[2:] if name[:2] in ("a/", "b/") else name


def parse(text: str) -> tuple[dict[str, list[Hunk]], list[str]]:
    """Hunks per file (paths as the patch names them, without a/ b/), or messages why not."""
    files: dict[str, list[Hunk]] = {}
    problems: list[str] = []
    current: list[Hunk] | None = None
    old_path: str | None = None
    hunk: list[tuple[str, str]] | None = None
    start = 0
    lines = text.splitlines()

    def close() -> None:
        if current is not None and hunk is not None:
            current.append(Hunk(start, tuple(hunk)))

    for n, line in enumerate(lines, 1):
        if line.startswith("--- ") and (n < len(lines) and lines[n].startswith("+++ ")):
            close()
            hunk, old_path = None, _path(line)
            continue
        if line.startswith("+++ ") and old_path is not None and hunk is None:
            new = _path(line)
            name = old_path if new == "/dev/null" or new == "dev/null" else new
            current = files.setdefault(name, [])
            continue
        found = _HUNK.match(line)
        if found:
            if current is None:
                problems.append(f"line {n}: a hunk before any '--- a/<file>' / '+++ b/<file>' header")
                return {}, problems
            close()
            hunk, start = [], int(found.group(1))
            continue
        if hunk is None:
            continue  # commit message, diff --git, index lines
        if line.startswith("+"):
            problems.append(f"line {n} adds text ('{line[1:60]}'); an ablation only removes: a patch "
                            "with '+' lines is a substitution")
        elif line.startswith(("-", " ")):
            hunk.append((line[0], line[1:]))
        elif line == "":
            hunk.append((" ", ""))  # some editors strip the space of an empty context line
        elif not line.startswith("\\"):  # "\ No newline at end of file"
            problems.append(f"line {n}: '{line[:40]}' is not a context, '-' or '+' line")
    close()
    if not files and not problems:
        problems.append("no '--- a/<file>' / '+++ b/<file>' diff in it")
    for name, hunks in files.items():
        if not any(tag == "-" for h in hunks for tag, _ in h.lines):
            problems.append(f"its diff of {name} deletes nothing")
    return ({} if problems else files), problems


def apply(text: str, hunks: list[Hunk]) -> tuple[str | None, str | None]:
    """``text`` with the hunks' deleted lines removed (line endings kept), or None and why."""
    lines = text.splitlines(keepends=True)
    bare = [line.rstrip("\r\n") for line in lines]
    spans: list[tuple[int, Hunk]] = []
    for h in hunks:
        old = [content for _, content in h.lines]
        at = max(h.start - 1, 0)
        if bare[at:at + len(old)] != old:
            places = [i for i in range(len(bare) - len(old) + 1) if bare[i:i + len(old)] == old]
            if len(places) != 1:
                first = next((c for tag, c in h.lines if tag == "-"), "")
                where = "nowhere" if not places else f"in {len(places)} places"
                return None, (f"the hunk at line {h.start} (deleting '{first[:50]}') matches {where} in the "
                              "file; the patch no longer fits the skill")
            at = places[0]
        spans.append((at, h))
    spans.sort(key=lambda s: s[0])
    for (a, ha), (b, _) in zip(spans, spans[1:], strict=False):
        if a + len(ha.lines) > b:
            return None, f"hunks at lines {a + 1} and {b + 1} overlap"
    for at, h in reversed(spans):
        keep = [lines[at + i] for i, (tag, _) in enumerate(h.lines) if tag == " "]
        lines[at:at + len(h.lines)] = keep
    return "".join(lines), None
