"""JSON text redacted without touching its structure: each string (keys included) is decoded,
handed to the redaction rule, and written back as a JSON string in the place it held; every
other byte (the layout, the numbers, the punctuation) stays as it was. So a stored JSON document
(a session line, a kept ``.json`` file, a recording held in a string of meta.json) always parses
again, with the same shape, whatever its strings held: a secret rule can never take a quote or
an escape for part of a secret, because it never sees one.

The rule comes in as functions (store/redact.py owns it and calls this module): ``strings``
redacts one decoded string, ``secret_value`` names the marker a value under a secret-named key
becomes (``"password": "hunter2"`` holds no secret shape in either string alone), and ``marks``
says where in the raw text a secret could be at all, so that the strings without one (most of a
session) are neither decoded nor handed over.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence

Strings = Callable[[str], str]
SecretValue = Callable[[str], "str | None"]
# Where in a raw text a secret could start (sorted offsets; every backslash among them), or None
# when it could start anywhere: a string token holding none of them is left unread.
Marks = Callable[[str], "Sequence[int] | None"]

# A valid JSON text is a sequence of these, with whitespace between (skipped); outside strings
# there is no quote, so a '"' always opens a string token (the text is parsed first, so the
# tokens are exact).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^ \t\n\r"{}\[\]:,]+', re.DOTALL)
_LITERALS = frozenset({"true", "false", "null"})
_OPENERS = frozenset("{[\"")


def parses(text: str) -> bool:
    """Whether ``text`` is one JSON document (Python's reading: NaN and Infinity included)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def looks_like_json(text: str) -> bool:
    """Whether ``text`` could be a JSON document or JSON lines worth parsing: it opens with an
    object, an array or a string."""
    head = text.lstrip(" \t\r\n")[:1]
    return head in _OPENERS and head != ""


def encode(value: str) -> str:
    """A JSON string literal of ``value``, non-ASCII kept as is unless it cannot be written as
    UTF-8 (a lone surrogate), then escaped."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def unique_keys(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """The keys of one object after redaction, from ``(original, redacted)`` pairs: two keys
    that differed before stay apart (``token=a`` and ``token=b`` both read
    ``token=[REDACTED:token]``: the second gets `` (2)``), so the object keeps every member."""
    taken = {red for orig, red in pairs if red == orig}
    chosen: dict[str, str] = {}
    out = []
    for orig, red in pairs:
        if orig not in chosen:
            final, n = red, 2
            if red != orig:
                while final in taken:
                    final, n = f"{red} ({n})", n + 1
                taken.add(final)
            chosen[orig] = final
        out.append(chosen[orig])
    return out


def redact_document(text: str, strings: Strings, secret_value: SecretValue, marks: Marks) -> str | None:
    """``text`` with its strings redacted in place; None when it is not one JSON document."""
    if not parses(text):
        return None
    at = marks(text)
    return text if at is not None and not at else _rewrite(text, strings, secret_value, at)


def first_line_parses(text: str) -> bool:
    """Whether ``text``'s first non-blank line is a JSON document: JSON lines, by the look."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return parses(first)


def redact_lines(text: str, strings: Strings, secret_value: SecretValue, marks: Marks, plain: Strings) -> str:
    """JSON lines (a session): each line that is a JSON document redacted in place, each run of
    lines that are not redacted together as text by ``plain`` (a private key spans lines)."""
    lines = text.split("\n")
    out: list[str] = []
    loose: list[str] = []
    for line in lines:
        done = redact_document(line, strings, secret_value, marks) if line.strip() else line
        if done is None:
            loose.append(line)
            continue
        if loose:
            out.append(plain("\n".join(loose)))
            loose = []
        out.append(done)
    if loose:
        out.append(plain("\n".join(loose)))
    return "\n".join(out)


def _rewrite(text: str, strings: Strings, secret_value: SecretValue, at: Sequence[int] | None) -> str:
    spans = [m.span() for m in _TOKEN.finditer(text)]  # the tokens; the layout between them stays
    tokens = [text[a:b] for a, b in spans]
    new: dict[int, str] = {}  # token index -> what it becomes

    def may_hold(i: int) -> bool:  # whether a secret (or an escape) can be in token i
        if at is None:
            return True
        n = bisect_left(at, spans[i][0])
        return n < len(at) and at[n] < spans[i][1]

    frames: list[list[int]] = []  # per open object: the indexes of its keys
    for i, token in enumerate(tokens):
        key = i - 2 if i > 1 and tokens[i - 1] == ":" else None  # the key this value is under
        blank = secret_value(json.loads(tokens[key])) if key is not None and may_hold(key) else None
        if token == "{":
            frames.append([])
        elif token == "}":
            new.update(_close(frames.pop(), tokens, strings, may_hold))
        elif token[0] == '"' and i + 1 < len(tokens) and tokens[i + 1] == ":":
            frames[-1].append(i)
        elif token[0] == '"' and (blank is not None or may_hold(i)):
            value = json.loads(token)
            done = blank if blank is not None and value and not _is_marker(value) else strings(value)
            if done != value:
                new[i] = encode(done)
        elif blank is not None and token not in _LITERALS and token not in "[]{},":
            new[i] = encode(blank)  # a number under a secret name: a PIN is a secret too
    if not new:
        return text
    out, done_to = [], 0
    for i in sorted(new):
        out += [text[done_to:spans[i][0]], new[i]]
        done_to = spans[i][1]
    out.append(text[done_to:])
    return "".join(out)


def _close(frame: list[int], tokens: list[str], strings: Strings,
           may_hold: Callable[[int], bool]) -> dict[int, str]:
    """The keys of one object that change, kept apart."""
    if not any(may_hold(i) for i in frame):
        return {}  # no key can change: nothing to keep apart
    pairs = [(key, strings(key)) for key in (json.loads(tokens[i]) for i in frame)]
    return {i: encode(final) for i, (orig, _), final in zip(frame, pairs, unique_keys(pairs), strict=True)
            if final != orig}


def _is_marker(value: str) -> bool:
    return value.startswith("[REDACTED") and value.endswith("]")
