"""Text no file can hold, numbers that are not numbers, and nesting no reader should follow:
found before anything uses them.

A lone surrogate (``"\\ud83d"`` in JSON, half of an emoji) is a valid escape but not a character:
Python keeps it in a str, and the first UTF-8 encode (a hash, the store, a request) fails with a
traceback. Documents nested hundreds of levels deep end in RecursionError somewhere downstream.
User files are refused with one line per place; adapter output is repaired (see ``clean``).
"""

from __future__ import annotations

import math
import re
from typing import Any

from skill_eval.intake.limits import MAX_DEPTH

_SURROGATE = re.compile(r"[\ud800-\udfff]")
Path_ = tuple[str | int, ...]


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text``, escaped for a message (``\\ud83d``), or None."""
    found = _SURROGATE.search(text)
    return f"\\u{ord(found.group()):04x}" if found else None


def hostile_parts(data: Any, limit: int = MAX_DEPTH) -> list[tuple[Path_, str]]:
    """(key path, what is wrong) for every lone surrogate in a key or string, every NaN or infinite
    number (YAML's ``.nan``, ``.inf``: JSON Schema's bounds let them through, as NaN compares false
    to everything, and a NaN timeout disables the timeout), and the first place the document nests
    deeper than ``limit``. Iterative, so it cannot overflow itself."""
    found: list[tuple[Path_, str]] = []
    too_deep = False
    stack: list[tuple[Any, Path_]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        kind = type(node)
        if kind is int or kind is bool or node is None:
            continue
        if isinstance(node, float) and not math.isfinite(node):
            shown = ".nan" if math.isnan(node) else (".inf" if node > 0 else "-.inf")
            found.append((path, f"must be a finite number, got {shown}; write a number"))
            continue
        if isinstance(node, str):
            bad = lone_surrogate(node)
            if bad:
                found.append((path, f"contains a lone surrogate ({bad}, half of a character such as an "
                                    "emoji) that cannot be stored as UTF-8; remove it or write the whole "
                                    "character"))
            continue
        if not isinstance(node, dict | list):
            continue
        if len(path) >= limit:
            if not too_deep:
                found.append((path, f"nested more than {limit} levels deep; flatten it"))
                too_deep = True
            continue
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and lone_surrogate(key):
                    found.append(((*path, key), f"key contains a lone surrogate ({lone_surrogate(key)}); "
                                                "remove it or write the whole character"))
                    key = key.encode("utf-8", "backslashreplace").decode("utf-8")
                if type(value) is str:  # the common leaf, checked here rather than pushed
                    if _SURROGATE.search(value):
                        stack.append((value, (*path, key)))
                elif not (value is None or type(value) in (int, bool)):
                    stack.append((value, (*path, key)))
        else:
            stack.extend((value, (*path, i)) for i, value in enumerate(node))
    found.sort(key=lambda item: [str(p) for p in item[0]])
    return found


def clean(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, the replacement character: what an
    adapter printed is kept (a paid run is not thrown away for half an emoji) and stays storable."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def path_text(path: Path_) -> str:
    """``evals[3].prompt``: a key path as messages show it."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"
