"""JavaScript regexes (``new RegExp(pattern, flags)``), matched here as JavaScript matches them.

``claude plugin eval``'s ``regex`` grader is JavaScript: ``contains`` is ``re.test(text)`` on a
fresh RegExp, and ``count:N`` compares N with ``text.match(re_g).length``, where ``re_g`` is the
pattern with ``g`` added to the flags when missing (read from the CLI and confirmed by running
it; docs/dialects.md). So ``count`` counts every non-overlapping match from the start, empty ones
included (after an empty match the search moves on one code unit, one code point under ``u``),
whether or not the grader's flags say ``g``; under ``y`` matches must follow one another from 0.

    rx = js_regex(r"\\bfoo\\b", "i")     # JsRegexError (naming the construct) when it cannot load
    rx.search(text)                      # bool, as RegExp.prototype.test
    rx.count(text)                       # what count:N compares with

The pattern is translated (jsregex_syntax) into one the ``regex`` engine matches identically and
searched by intake/timedmatch with its time limit (PatternTimedOut, like every user pattern).
Without ``u``, JavaScript sees a string as UTF-16 code units, so the subject is handed to the
engine with each astral character split into its two surrogates; with ``u``, as code points.

Flags: ``i m s u g y d`` are supported (``d`` only asks for indices: no effect on a match); ``v``
is refused (its class syntax and case rules differ from ``u``'s and are not translated).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from skill_eval.intake import timedmatch
from skill_eval.intake.javascript.regex_errors import JsRegexError, JsSyntaxError
from skill_eval.intake.javascript.regex_syntax import Modes, Translator

if TYPE_CHECKING:
    import regex as rx

__all__ = ["JsRegex", "JsRegexError", "JsSyntaxError", "js_regex"]

FLAGS = "dgimsuvy"  # what plugin eval's loader accepts (/^[dgimsuvy]*$/)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _split_astral(m: re.Match[str]) -> str:
    code = ord(m.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def _join_pair(m: re.Match[str]) -> str:
    high, low = map(ord, m.group())
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def js_text(text: str, unicode: bool) -> str:
    """``text`` as a JS engine walks it: UTF-16 code units, or code points under ``u``."""
    if unicode:
        return text if text.isascii() else _PAIR.sub(_join_pair, text)
    return _ASTRAL.sub(_split_astral, text) if not text.isascii() else text


@dataclass(frozen=True)
class JsRegex:
    pattern: str  # as written, JavaScript syntax
    flags: str
    translated: str  # what the ``regex`` engine runs
    unicode: bool
    sticky: bool

    def _compiled(self) -> rx.Pattern[str]:
        return timedmatch.compiled(self.translated)

    def search(self, text: str) -> bool:
        """``new RegExp(pattern, flags).test(text)``."""
        return timedmatch.search(self._compiled(), js_text(text, self.unicode)) is not None

    def count(self, text: str) -> int:
        """``text.match(new RegExp(pattern, flags + "g")).length`` (0 when no match)."""
        subject, compiled = js_text(text, self.unicode), self._compiled()
        found, at = 0, 0
        while at <= len(subject):
            m = timedmatch.search(compiled, subject, pos=at)
            if m is None:
                break
            found += 1
            at = m.end() + (m.end() == m.start())
        return found


def _check_flags(flags: str) -> None:
    unknown = sorted(set(flags) - set(FLAGS))
    if unknown:
        raise JsRegexError(f"flags {flags!r}: {''.join(unknown)!r} is not a JS RegExp flag "
                           f"(they are {' '.join(FLAGS)})")
    repeated = sorted({f for f in flags if flags.count(f) > 1})
    if repeated:
        raise JsSyntaxError(f"flags {flags!r} repeat {''.join(repeated)!r}: new RegExp throws "
                            "'Invalid flags supplied to RegExp constructor'")
    if "u" in flags and "v" in flags:
        raise JsSyntaxError(f"flags {flags!r}: u and v together make new RegExp throw")
    if "v" in flags:
        raise JsRegexError("flag v (unicodeSets) is not supported: its class syntax and case "
                           "rules are not translated; use u")


@lru_cache(maxsize=1024)
def js_regex(pattern: str, flags: str = "") -> JsRegex:
    """The JavaScript regex ``/pattern/flags``; JsRegexError naming the construct when it cannot
    be matched faithfully (JsSyntaxError when JavaScript itself rejects it)."""
    _check_flags(flags)
    unicode = "u" in flags
    units = list(map(ord, js_text(pattern, unicode)))
    modes = Modes(ignore_case="i" in flags, multiline="m" in flags, dot_all="s" in flags)
    try:
        translated = Translator(units, unicode, modes=modes).translate()
    except RecursionError:
        raise JsRegexError("pattern nests too deeply") from None
    sticky = "y" in flags
    if sticky:  # \G: only where the search starts, as a sticky regex matches only at lastIndex
        translated = f"\\G(?:{translated})"
    try:
        timedmatch.compiled(translated)
    except timedmatch.BadPattern as e:
        raise JsRegexError(f"the translated pattern does not compile ({e})") from None
    return JsRegex(pattern, flags, translated, unicode, sticky)
