"""Where each key path of a JSON document starts (line, column), in one linear pass.

The data itself always comes from the ``json`` module; this only finds positions for messages
and ``Case.line``. Reading JSON through the YAML loader for this took seconds per thousand cases.
The scan is iterative (no recursion limit) and gives up quietly, returning what it has, on
anything it does not expect: line numbers are a nicety and must never stop a read.
"""

from __future__ import annotations

import re
from json.decoder import scanstring

from skill_eval.model.limits import MAX_DEPTH

Path_ = tuple[str | int, ...]

# The tokens that matter; whitespace, commas and colons fall between matches.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|[^\s,:{}\[\]"]+')


def json_positions(text: str) -> dict[Path_, tuple[int, int]]:
    """Key path -> (1-based line, 1-based column) of where its value's key (or item) starts."""
    pos: dict[Path_, tuple[int, int]] = {}
    # Marks come in increasing offsets: count the newlines since the previous one.
    at = [0, 1, 0]  # offset of the previous mark, its line, where that line starts

    def mark(path: Path_, offset: int) -> None:
        n = text.count("\n", at[0], offset)
        if n:
            at[1] += n
            at[2] = text.rfind("\n", 0, offset) + 1
        at[0] = offset
        pos[path] = (at[1], offset - at[2] + 1)

    # Each frame: [path, kind ('{' or '['), next index of a list, key awaiting its value].
    stack: list[list[object]] = []
    first = True
    try:
        for m in _TOKEN.finditer(text):
            tok, i = m.group(), m.start()
            if first:
                mark((), i)
                first = False
            if tok in ("{", "["):
                if len(stack) >= MAX_DEPTH:
                    return pos  # too deep for a real document: the reader refuses it, with a message
                _start_value(stack, i, mark)
                stack.append([_here(stack), tok, 0, None])
            elif tok in ("}", "]"):
                stack.pop()
                _advance(stack)
            elif tok[0] == '"' and stack and stack[-1][1] == "{" and stack[-1][3] is None:
                # A key: the value's position is the key's, as for YAML.
                key = tok[1:-1] if "\\" not in tok else scanstring(tok, 1)[0]
                stack[-1][3] = key
                mark((*stack[-1][0], key), i)  # type: ignore[misc]
            else:
                _start_value(stack, i, mark)
                _advance(stack)
    except (IndexError, ValueError):
        return pos
    return pos


def _here(stack: list[list[object]]) -> Path_:
    """The key path of the value about to start."""
    if not stack:
        return ()
    path, kind, index, key = stack[-1]
    return (*path, key if kind == "{" else index)  # type: ignore[misc]


def _start_value(stack: list[list[object]], offset: int, mark: object) -> None:
    if stack and stack[-1][1] == "[":
        mark(_here(stack), offset)  # type: ignore[operator]


def _advance(stack: list[list[object]]) -> None:
    """A value just ended: the enclosing list moves to its next index, the mapping to its next key."""
    if not stack:
        return
    top = stack[-1]
    if top[1] == "[":
        top[2] = int(top[2]) + 1  # type: ignore[call-overload]
    else:
        top[3] = None
