"""The cursor over a JavaScript pattern (with its group count and names, read ahead), and the
escapes that stand for one character (ECMA-262 §22.2.1 CharacterEscape,
with Annex B's legacy forms when flag ``u`` is off): ``\\n``, ``\\cX``, ``\\xHH``, ``\\uHHHH``,
``\\u{H...}``, ``\\0``, octal and identity escapes. Each reads at the translator's cursor, just
after the backslash, and returns the character's code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from skill_eval.intake.javascript import regex_sets as cs
from skill_eval.intake.javascript.regex_errors import JsRegexError, JsSyntaxError

SYNTAX = frozenset(map(ord, "^$\\.*+?()[]{}|/"))
_CONTROL = {ord("f"): 0x0C, ord("n"): 0x0A, ord("r"): 0x0D, ord("t"): 0x09, ord("v"): 0x0B}
_HEX = frozenset(map(ord, "0123456789abcdefABCDEF"))
_LOOKBEHIND = ([ord("=")], [ord("!")])


@dataclass
class Reader:
    """A cursor over a pattern's units (code units, or code points under ``u``)."""

    units: list[int]
    unicode: bool
    at: int = 0
    all_names: dict[str, list[int]] = field(default_factory=dict)  # name -> its groups' numbers
    total_groups: int = 0

    def peek(self, k: int = 0) -> int | None:
        return self.units[self.at + k] if self.at + k < len(self.units) else None

    def eat(self, text: str) -> bool:
        codes = list(map(ord, text))
        if self.units[self.at:self.at + len(codes)] == codes:
            self.at += len(codes)
            return True
        return False

    def bad(self, what: str) -> JsSyntaxError:
        return JsSyntaxError(f"invalid JavaScript regex: {what}")

    def prescan(self) -> None:
        """Count capturing groups and note whether any is named: both change how escapes read."""
        u, i, in_class = self.units, 0, False
        while i < len(u):
            c = u[i]
            if c == ord("\\"):
                i += 2
                continue
            if in_class:
                in_class = c != ord("]")
            elif c == ord("["):
                in_class = True
            elif c == ord("(") and (i + 1 >= len(u) or u[i + 1] != ord("?")):
                self.total_groups += 1
            elif c == ord("(") and u[i + 2:i + 3] == [ord("<")] and u[i + 3:i + 4] not in _LOOKBEHIND:
                self.total_groups += 1
                end = u.index(ord(">"), i) if ord(">") in u[i:] else len(u)
                self.all_names.setdefault("".join(map(chr, u[i + 3:end])), []).append(self.total_groups)
            i += 1

    # -- structure -------------------------------------------------------------------------

    def group_name(self) -> str:
        start = self.at
        while (c := self.peek()) is not None and c != ord(">"):
            if c == ord("\\"):
                raise JsRegexError("an escape inside a group name is not supported")
            self.at += 1
        name = "".join(map(chr, self.units[start:self.at]))
        if c is None or not name or not name.replace("$", "_").isidentifier():
            raise self.bad(f"invalid capture group name <{name}>")
        self.at += 1
        return name


def decimal(t: Reader) -> int:
    start = t.at
    while (c := t.peek()) is not None and 0x30 <= c <= 0x39:
        t.at += 1
    return int("".join(map(chr, t.units[start:t.at])))


def legacy_escape(t: Reader) -> int:
    """Annex B: ``\\8`` is '8'; otherwise up to three octal digits worth at most 0o377."""
    c = t.units[t.at]
    if c in (ord("8"), ord("9")):
        t.at += 1
        return c
    digits = ""
    while (d := t.peek()) is not None and 0x30 <= d <= 0x37 and len(digits) < 3 \
            and int(digits + chr(d), 8) <= 0o377:
        digits += chr(d)
        t.at += 1
    return int(digits, 8)


def character_escape(t: Reader, in_class: bool) -> int:
    c = t.units[t.at]
    t.at += 1
    if c in _CONTROL:
        return _CONTROL[c]
    if c == ord("c"):
        letter = t.peek()
        # Annex B lets a class say \c1 or \c_ too (the code's low five bits, like a letter's).
        digit_ok = in_class and not t.unicode
        if letter is not None and (0x41 <= letter <= 0x5A or 0x61 <= letter <= 0x7A or
                                   (digit_ok and (0x30 <= letter <= 0x39 or letter == 0x5F))):
            t.at += 1
            return letter % 32
        if t.unicode:
            raise t.bad("invalid unicode escape \\c")
        t.at -= 1  # Annex B: the backslash is itself, and "c" is read next
        return ord("\\")
    if c == ord("0") and not (t.peek() is not None and 0x30 <= t.peek() <= 0x39):  # type: ignore[operator]
        return 0
    if 0x30 <= c <= 0x39:
        if t.unicode:
            raise t.bad("invalid decimal escape")
        t.at -= 1
        return legacy_escape(t)
    if c == ord("x"):
        if t.peek() in _HEX and t.peek(1) in _HEX:
            t.at += 2
            return int("".join(map(chr, t.units[t.at - 2:t.at])), 16)
        if t.unicode:
            raise t.bad("invalid escape \\x")
        return c
    if c == ord("u"):
        value = unicode_escape(t)
        if value is not None:
            return value
        if t.unicode:
            raise t.bad("invalid unicode escape \\u")
        return c
    if t.unicode:
        if c in SYNTAX or (in_class and c == ord("-")):
            return c
        raise t.bad(f"invalid escape \\{chr(c)}")
    if c == ord("k") and bool(t.all_names):
        raise t.bad("invalid named reference \\k")
    return c


def unicode_escape(t: Reader) -> int | None:
    """After ``\\u``: ``HHHH`` (a surrogate pair of two escapes is one code point under u),
    or ``{H...}`` under u; None when neither."""
    def four(at: int) -> int | None:
        hexes = t.units[at:at + 4]
        return int("".join(map(chr, hexes)), 16) if len(hexes) == 4 and set(hexes) <= _HEX else None


    if t.unicode and t.peek() == ord("{"):
        end = t.at + 1
        while end < len(t.units) and t.units[end] in _HEX:
            end += 1
        if end == t.at + 1 or end >= len(t.units) or t.units[end] != ord("}"):
            return None
        value = int("".join(map(chr, t.units[t.at + 1:end])), 16)
        if value > cs.MAX_CODE_POINT:
            raise t.bad("unicode escape out of range")
        t.at = end + 1
        return value
    value = four(t.at)
    if value is None:
        return None
    t.at += 4
    if t.unicode and 0xD800 <= value <= 0xDBFF and t.units[t.at:t.at + 2] == [ord("\\"), ord("u")]:
        low = four(t.at + 2)
        if low is not None and 0xDC00 <= low <= 0xDFFF:
            t.at += 6
            return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
    return value


