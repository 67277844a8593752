"""A small JavaScript RegExp → Python ``regex`` translation, the stand-in for intake/jsregex.py
(issue 44's full translator) until that lands: same API (``js_regex``, ``JsRegexError``,
``JsRegex.search`` / ``.count``), the checks take whichever is there.

What it translates, so the meaning is JavaScript's: ``$`` (end of input without ``m``, not
"before a final newline"), ``.`` (not ``\\r``, U+2028, U+2029 without ``s``), ``\\d`` ``\\w`` ``\\b``
(ASCII), ``\\s`` (JavaScript's whitespace set), ``[^]`` and ``[]``, ``\\k<name>``. What it refuses
(JsRegexError, a load error naming the grader): the flags ``y`` and ``v``, ``\\p`` without ``u``,
``\\c``, negated class escapes inside a class, and patterns JavaScript itself rejects (inline
``(?i)``): plugin eval's grader throws on those, so the check fails, as there.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from skill_eval.intake import timedmatch

_WS = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_CLASS_IN = {"d": "0-9", "w": "A-Za-z0-9_", "s": _WS}
_W = "[A-Za-z0-9_]"
_OUTSIDE = {"d": "[0-9]", "D": "[^0-9]", "w": _W, "W": "[^A-Za-z0-9_]",
            "s": f"[{_WS}]", "S": f"[^{_WS}]",
            "b": f"(?:(?<={_W})(?!{_W})|(?<!{_W})(?={_W}))",
            "B": f"(?:(?<={_W})(?={_W})|(?<!{_W})(?!{_W}))"}
_JS_INVALID = re.compile(r"\(\?[a-zA-Z-]+\)")  # inline flags: a SyntaxError in JavaScript


class JsRegexError(ValueError):
    """The pattern has no faithful translation here (the message names the construct)."""


class JsInvalid(ValueError):
    """JavaScript itself rejects the pattern or flags: plugin eval's grader throws (fails)."""


@dataclass(frozen=True)
class JsRegex:
    pattern: str  # the JavaScript source
    flags: str
    compiled: Any

    def search(self, text: str) -> bool:
        """``RegExp.prototype.test`` on a fresh RegExp (lastIndex 0)."""
        return timedmatch.search(self.compiled, text) is not None

    def count(self, text: str) -> int:
        """``text.match(new RegExp(pattern, flags + 'g'))?.length ?? 0``: every match, an empty
        one moving on by one character."""
        n, at = 0, 0
        started = time.monotonic()
        limit = timedmatch.REGEX_TIMEOUT_MS / 1000
        while at <= len(text):
            left = limit - (time.monotonic() - started)
            try:
                found = self.compiled.search(text, at, timeout=max(left, 0.001))
            except TimeoutError as e:
                raise timedmatch.PatternTimedOut(self.pattern) from e
            if found is None:
                break
            n += 1
            at = found.end() + (1 if found.end() == found.start() else 0)
        return n


def _escape(pattern: str, i: int, in_class: bool, unicode: bool) -> tuple[str, int]:
    ch = pattern[i + 1] if i + 1 < len(pattern) else ""
    if ch == "":
        raise JsInvalid("\\ at end of pattern")
    if in_class and ch in _CLASS_IN:
        return _CLASS_IN[ch], i + 2
    if in_class and ch in "DWS":
        raise JsRegexError(f"\\{ch} inside a character class")
    if not in_class and ch in _OUTSIDE:
        return _OUTSIDE[ch], i + 2
    if ch in "pP" and not unicode:
        raise JsRegexError(f"\\{ch} without the u flag (JavaScript reads it as the letter)")
    if ch == "c":
        raise JsRegexError("\\c control escapes")
    if ch == "k" and not in_class and i + 2 < len(pattern) and pattern[i + 2] == "<":
        end = pattern.find(">", i + 3)
        if end < 0:
            raise JsInvalid("unterminated \\k<name>")
        return f"(?P={pattern[i + 3:end]})", end + 1
    if ch == "u" and unicode and i + 2 < len(pattern) and pattern[i + 2] == "{":
        end = pattern.find("}", i + 3)
        if end < 0:
            raise JsInvalid("unterminated \\u{...}")
        return f"\\U{int(pattern[i + 3:end], 16):08x}", end + 1
    if ch == "b" and in_class:
        return "\\x08", i + 2
    return pattern[i:i + 2], i + 2


def translate(pattern: str, flags: str) -> str:
    """The Python ``regex`` (V0) source that matches what JavaScript's would."""
    if _JS_INVALID.search(pattern):
        raise JsInvalid("inline flag groups such as (?i) are not JavaScript")
    unicode, dotall, multi = "u" in flags, "s" in flags, "m" in flags
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            text, i = _escape(pattern, i, in_class, unicode)
            out.append(text)
            continue
        if in_class:
            if ch == "]":
                in_class = False
            elif ch == "[":
                ch = "\\["
            out.append(ch)
        elif ch == "[":
            if pattern.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                continue
            if pattern.startswith("[]", i):
                out.append("(?!)")
                i += 2
                continue
            in_class = True
            out.append(ch)
            if pattern.startswith("[^", i):
                out.append("^")
                i += 1
        elif ch == "$":
            out.append("(?=[\\n\\r\\u2028\\u2029]|\\Z)" if multi else "\\Z")
        elif ch == "^" and multi:
            out.append("(?:(?<=[\\n\\r\\u2028\\u2029])|\\A)")
        elif ch == "." and not dotall:
            out.append("[^\\n\\r\\u2028\\u2029]")
        else:
            out.append(ch)
        i += 1
    if in_class:
        raise JsInvalid("unterminated character class")
    return "".join(out)


def js_regex(pattern: str, flags: str = "") -> JsRegex:
    """The JavaScript ``new RegExp(pattern, flags)``; JsRegexError when it cannot be matched
    faithfully here, JsInvalid when JavaScript throws on it."""
    bad = sorted(set(flags) - set("dgimsuy v"))
    if bad or len(set(flags)) != len(flags):
        raise JsInvalid(f"invalid flags {flags!r}")
    for flag in "yv":
        if flag in flags:
            raise JsRegexError(f"the {flag} flag")
    import regex as rx

    source = translate(pattern, flags)
    try:
        compiled = rx.compile(source,
                              rx.VERSION0 | (rx.IGNORECASE if "i" in flags else 0))
    except (rx.error, ValueError, OverflowError, RecursionError) as e:
        raise JsInvalid(f"invalid regex {pattern!r}: {e}") from e
    return JsRegex(pattern, flags, compiled)
