"""Where each key path of a JSON document starts (line, column), in one linear pass.

The data itself always comes from the ``json`` module; this only finds positions for messages
and ``Case.line``. Reading JSON through the YAML loader for this took seconds per thousand cases.
The scan is iterative (no recursion limit) and gives up quietly, returning what it has, on
anything it does not expect: line numbers are a nicety and must never stop a read.
"""

from __future__ import annotations

import re
from json.decoder import scanstring
from typing import Any

from skill_eval.intake.limits import MAX_DEPTH

Path_ = tuple[str | int, ...]

# The tokens that matter; whitespace, commas and colons fall between matches.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|[^\s,:{}\[\]"]+')


def json_positions(text: str) -> dict[Path_, tuple[int, int]]:
    """Key path -> (1-based line, 1-based column) of where its value's key (or item) starts."""
    pos: dict[Path_, tuple[int, int]] = {}
    # Marks come in increasing offsets: count the newlines since the previous one.
    last, line, line_start = 0, 1, 0
    # One frame per open container: [its key path, is a mapping, next list index, pending key].
    stack: list[list[Any]] = []
    top: list[Any] | None = None
    count, rfind = text.count, text.rfind
    try:
        for m in _TOKEN.finditer(text):
            tok, i = m.group(), m.start()
            c = tok[0]
            if c == "}" or c == "]":
                stack.pop()
                top = stack[-1] if stack else None
                if top is not None:
                    if top[1]:
                        top[3] = None
                    else:
                        top[2] += 1
                continue
            if top is not None and top[1] and top[3] is not None:
                path: Path_ = (*top[0], top[3])  # a mapping's value: marked at its key already
            else:
                is_key = False
                if top is None:
                    path = ()
                elif top[1]:
                    if c != '"':
                        return pos
                    # A key: its value's position is the key's, as for YAML.
                    top[3] = tok[1:-1] if "\\" not in tok else scanstring(tok, 1)[0]
                    path = (*top[0], top[3])
                    is_key = True
                else:
                    path = (*top[0], top[2])
                n = count("\n", last, i)
                if n:
                    line += n
                    line_start = rfind("\n", 0, i) + 1
                last = i
                pos[path] = (line, i - line_start + 1)
                if is_key:
                    continue  # its value comes next
            if c == "{" or c == "[":
                if len(stack) >= MAX_DEPTH:
                    return pos  # too deep for a real document: the reader refuses it, with a message
                top = [path, c == "{", 0, None]
                stack.append(top)
            elif top is not None:
                if top[1]:
                    top[3] = None
                else:
                    top[2] += 1
    except (IndexError, ValueError):
        return pos
    return pos
