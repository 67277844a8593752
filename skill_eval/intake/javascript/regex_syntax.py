"""Translate an ECMAScript pattern into one the ``regex`` engine matches identically.

The parser follows ECMA-262 §22.2.1 (with Annex B's extensions when flag ``u`` is off) over the
pattern's UTF-16 code units (without ``u``) or code points (with ``u``); jsregex.py hands it the
units and converts the subject the same way. It emits only constructs whose meaning the engine
shares exactly: explicit classes (jsregex_sets), lookarounds for ``^ $ \\b``, numbered groups,
and a backreference as ``(?(n)\\n|)`` because in JS a reference to a group that has not matched
matches the empty string. What has no faithful rendering raises JsRegexError naming it; what
JavaScript itself rejects raises JsSyntaxError (``new RegExp`` throws).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from skill_eval.intake.javascript import regex_escape as esc
from skill_eval.intake.javascript import regex_sets as cs
from skill_eval.intake.javascript.regex_class import char_class
from skill_eval.intake.javascript.regex_errors import JsRegexError, JsSyntaxError
from skill_eval.intake.javascript.regex_props import property_escape

_CLASS_ESCAPES = {"d": cs.DIGITS, "s": cs.SPACE, "w": cs.WORD}
_BIG = 1 << 53  # JS reads {n} bounds as numbers; anything past 2**53 is "infinite" enough


def _exclusive(one: tuple[tuple[int, int], ...], other: tuple[tuple[int, int], ...]) -> bool:
    """Whether two places lie in different alternatives of one disjunction (never both match)."""
    for (d1, a1), (d2, a2) in zip(one, other, strict=False):
        if (d1, a1) != (d2, a2):
            return d1 == d2
    return False


class Piece(NamedTuple):
    """Translated text, and whether it can match empty and tries that only after every
    consuming way (what decides whether the engine repeats it the way JS does)."""

    text: str
    nullable: bool = False
    empty_last: bool = True


@dataclass
class Modes:
    ignore_case: bool
    multiline: bool
    dot_all: bool


@dataclass
class Translator(esc.Reader):
    modes: Modes = field(default_factory=lambda: Modes(False, False, False))
    groups: int = 0  # capturing groups opened so far
    names: dict[str, list[tuple[tuple[int, int], ...]]] = field(default_factory=dict)  # -> alt_paths
    alt_path: list[tuple[int, int]] = field(default_factory=list)  # (disjunction, alternative) chain
    disjunctions: int = 0
    open_groups: list[int] = field(default_factory=list)
    lookbehind: int = 0  # depth of lookbehinds around the current position
    repeated: set[int] = field(default_factory=set)  # groups inside a quantifier that loops
    behind: set[int] = field(default_factory=set)  # groups inside a lookbehind
    backrefs: list[int] = field(default_factory=list)

    # -- entry -----------------------------------------------------------------------------
    def translate(self) -> str:
        self.prescan()
        out = self.disjunction().text
        if self.at < len(self.units):
            raise self.bad("unmatched ')'" if self.peek() == ord(")") else "lone quantifier")
        for n in self.backrefs:
            if n in self.repeated:
                raise JsRegexError(f"backreference \\{n} to a group inside a repeated group (JS "
                                   "clears such a group at each repetition; the engine keeps it)")
            if n in self.behind:
                raise JsRegexError(f"backreference \\{n} to a group inside a lookbehind (JS "
                                   "captures there right to left)")
        return out

    def disjunction(self) -> Piece:
        ident = self.disjunctions
        self.disjunctions += 1
        self.alt_path.append((ident, 0))
        alternatives = [self.alternative()]
        while self.eat("|"):
            self.alt_path[-1] = (ident, len(alternatives))
            alternatives.append(self.alternative())
        self.alt_path.pop()
        return Piece("|".join(a.text for a in alternatives), any(a.nullable for a in alternatives),
                     not any(a.nullable for a in alternatives[:-1]) and alternatives[-1].empty_last)

    def alternative(self) -> Piece:
        parts: list[Piece] = []
        while (c := self.peek()) is not None and c not in (ord("|"), ord(")")):
            parts.append(self.term())
        return Piece("".join(p.text for p in parts), all(p.nullable for p in parts),
                     all(p.empty_last for p in parts))

    def term(self) -> Piece:
        assertion = self.assertion()
        if assertion is not None:
            text, quantifiable = assertion
            if self._quantifier_ahead():
                if not quantifiable:
                    raise self.bad("nothing to repeat (a quantifier after an assertion)")
                raise JsRegexError("quantified lookahead (Annex B) is not supported")
            return Piece(text, True)
        before, start = self.groups, self.at
        atom = self.atom()
        quantifier = self.quantifier()
        if quantifier is None:
            return atom
        text, low, high, lazy = quantifier
        if high is None or high > 1:
            self.repeated.update(range(before + 1, self.groups + 1))
        if (high is None or high > low) and atom.nullable and not atom.empty_last:
            # JS fails a repetition (past the minimum) that matches empty and backtracks into
            # it for a longer way; the engine stops repeating instead. They agree only when
            # matching empty is the repeated part's last resort.
            shown = "".join(map(chr, self.units[start:self.at]))
            raise JsRegexError(f"a repeated part that can match empty before it tries to consume "
                               f"('{shown}': JS and the engine repeat it differently)")
        nullable = low == 0 or atom.nullable
        if high == low:
            empty_last = atom.empty_last or high == 0
        else:
            empty_last = not nullable if lazy else (low == 0 or atom.empty_last)
        return Piece(f"(?:{atom.text}){text}", nullable, empty_last)

    def _quantifier_ahead(self) -> bool:
        c = self.peek()
        if c in (ord("*"), ord("+"), ord("?")):
            return True
        return c == ord("{") and self._braces(consume=False) is not None

    def _braces(self, consume: bool) -> tuple[int, int | None] | None:
        """A ``{n}``, ``{n,}`` or ``{n,m}`` at the cursor as (min, max); None when not one."""
        j, u = self.at + 1, self.units

        def number(j: int) -> tuple[int | None, int]:
            start = j
            while j < len(u) and 0x30 <= u[j] <= 0x39:
                j += 1
            return (int("".join(map(chr, u[start:j]))) if j > start else None), j

        low, j = number(j)
        if low is None:
            return None
        high: int | None = low
        if j < len(u) and u[j] == ord(","):
            high, j = number(j + 1)
        if j >= len(u) or u[j] != ord("}"):
            return None
        if consume:
            self.at = j + 1
        return min(low, _BIG), None if high is None else min(high, _BIG)

    def quantifier(self) -> tuple[str, int, int | None, bool] | None:
        c = self.peek()
        if c == ord("{"):
            bounds = self._braces(consume=True)
            if bounds is None:
                if self.unicode:
                    raise self.bad("incomplete quantifier '{'")
                return None
            low, high = bounds
            if high is not None and high < low:
                raise self.bad("numbers out of order in {} quantifier")
            text = f"{{{low}}}" if high == low else f"{{{low},{'' if high is None else high}}}"
        elif c in (ord("*"), ord("+"), ord("?")):
            self.at += 1
            text, low, high = chr(c), int(c == ord("+")), 1 if c == ord("?") else None
        else:
            return None
        lazy = self.eat("?")
        return text + ("?" if lazy else ""), low, high, lazy

    def assertion(self) -> tuple[str, bool] | None:
        m = self.modes
        not_line = cs.emit(cs.LINE_TERMINATORS, negate=True)
        if self.eat("^"):
            return (f"(?<!{not_line})" if m.multiline else "(?<![\\u0000-\\U0010ffff])"), False
        if self.eat("$"):
            return (f"(?!{not_line})" if m.multiline else "(?![\\u0000-\\U0010ffff])"), False
        if self.eat("\\b") or self.eat("\\B"):
            w = cs.emit(cs.word_characters(self.unicode, m.ignore_case))
            boundary = self.units[self.at - 1] == ord("b")
            return ((f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))" if boundary
                     else f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))"), False)
        for opener, engine, behind in (("(?=", "(?=", False), ("(?!", "(?!", False),
                                       ("(?<=", "(?<=", True), ("(?<!", "(?<!", True)):
            if self.eat(opener):
                self.lookbehind += behind
                inner = self.disjunction().text
                self.lookbehind -= behind
                if not self.eat(")"):
                    raise self.bad("unterminated group")
                return f"{engine}{inner})", not behind and not self.unicode
        return None

    # -- atoms -----------------------------------------------------------------------------
    def atom(self) -> Piece:
        c = self.peek()
        assert c is not None
        if c == ord("."):
            self.at += 1
            return Piece(cs.emit(cs.EVERYTHING if self.modes.dot_all else cs.complement(cs.LINE_TERMINATORS)))
        if c == ord("("):
            return self.group()
        if c == ord("["):
            self.at += 1
            return Piece(self.char_class())
        if c == ord("\\"):
            self.at += 1
            return self.atom_escape()
        if c in (ord("*"), ord("+"), ord("?")) or (c == ord("{") and self._braces(consume=False)):
            raise self.bad("nothing to repeat")
        if self.unicode and c in (ord("{"), ord("}"), ord("]")):
            raise self.bad(f"lone '{chr(c)}' (escape it under flag u)")
        self.at += 1
        return Piece(self.literal(c))

    def literal(self, code: int) -> str:
        return cs.emit(self.fold(((code, code),)))

    def fold(self, ranges: cs.Ranges) -> cs.Ranges:
        return cs.case_closure(ranges, self.unicode) if self.modes.ignore_case else ranges

    def fold_property(self, prop: str) -> cs.Ranges:
        """What flag i adds to a property escape's set (nothing without i)."""
        return cs.property_closure(prop, self.unicode) if self.modes.ignore_case else ()

    def group(self) -> Piece:
        self.at += 1  # "("
        saved = Modes(**vars(self.modes))
        if self.eat("?:"):
            prefix = "(?:"
        elif self.eat("?<"):
            name = self.group_name()
            here = tuple(self.alt_path)
            if not all(_exclusive(there, here) for there in self.names.get(name, [])):
                raise self.bad(f"duplicate capture group name <{name}> (groups may share a name "
                               "only in different alternatives)")
            self.groups += 1
            self.names.setdefault(name, []).append(here)
            prefix = "("
        elif self.peek() == ord("?"):
            prefix = self.modifiers()
        else:
            self.groups += 1
            prefix = "("
        number = self.groups if prefix == "(" else None
        if number is not None:
            self.open_groups.append(number)
            if self.lookbehind:
                self.behind.add(number)
        inner = self.disjunction()
        self.modes = saved
        if number is not None:
            self.open_groups.pop()
        if not self.eat(")"):
            raise self.bad("unterminated group")
        return Piece(f"{prefix}{inner.text})", inner.nullable, inner.empty_last)

    def modifiers(self) -> str:
        """``(?ims-ims:...)``, the ES2025 pattern modifiers the CLI's engine (JavaScriptCore in
        Bun) accepts. ``(?i)`` without a colon is not JavaScript at all."""
        start = self.at
        self.at += 1
        on, off, seen_dash = "", "", False
        while (c := self.peek()) is not None and chr(c) in "ims-":
            if chr(c) == "-":
                if seen_dash:
                    raise self.bad("invalid group modifiers")
                seen_dash = True
            elif chr(c) in on + off:
                raise self.bad("repeated flag in group modifiers")
            else:
                off, on = (off + chr(c), on) if seen_dash else (off, on + chr(c))
            self.at += 1
        if self.peek() == ord(")") and on + off:
            shown = "".join(map(chr, self.units[start:self.at + 1]))
            raise JsSyntaxError(f"inline flag group '({shown}' is not JavaScript (new RegExp throws "
                                "'Invalid regular expression: ... unrecognized character after (?'); "
                                "put the flags in 'flags' (e.g. flags: i) or scope them as (?i:...)")
        if not self.eat(":") or not on + off:
            raise self.bad(f"invalid group '(?{''.join(map(chr, self.units[start + 1:self.at + 1]))}'")
        for flag, value in [*((f, True) for f in on), *((f, False) for f in off)]:
            attr = {"i": "ignore_case", "m": "multiline", "s": "dot_all"}[flag]
            setattr(self.modes, attr, value)
        return "(?:"

    def backref(self, *numbers: int) -> str:
        """A reference to the group(s) of these numbers (several share a name in different
        alternatives, so at most one has matched): what that one matched, else empty."""
        if self.lookbehind:
            raise JsRegexError("a backreference inside a lookbehind is not supported")
        if any(n in self.open_groups for n in numbers):
            return "(?:)"  # inside its own group it has not matched yet: JS matches empty
        self.backrefs.extend(numbers)
        if self.modes.ignore_case and not self.unicode:
            raise JsRegexError(f"backreference \\{numbers[0]} under flag i without u (JS compares "
                               "upper-cased text; the engine folds case differently)")
        out = ""
        for n in reversed(numbers):
            ref = f"(?i:\\{n})" if self.modes.ignore_case else f"\\{n}"
            out = f"(?({n}){ref}|{out})"
        return out

    def atom_escape(self) -> Piece:
        c = self.peek()
        if c is None:
            raise self.bad("\\ at end of pattern")
        if 0x31 <= c <= 0x39:
            start, value = self.at, esc.decimal(self)
            if value <= self.total_groups:
                return Piece(self.backref(value), True)
            if self.unicode:
                raise self.bad(f"backreference \\{value} to a group that does not exist")
            self.at = start
            return Piece(self.literal(esc.legacy_escape(self)))
        if c == ord("k") and (self.unicode or bool(self.all_names)):
            self.at += 1
            if not self.eat("<"):
                raise self.bad("invalid named reference")
            name = self.group_name()
            if name not in self.all_names:
                raise self.bad(f"invalid named capture referenced <{name}>")
            return Piece(self.backref(*self.all_names[name]), True)
        ranges = self.class_escape()
        if ranges is not None:
            if isinstance(ranges, str):  # a property: the engine expands it, JS's i closes it
                return Piece(cs.emit(self.fold_property(ranges), extra=ranges))
            return Piece(cs.emit(self.fold(ranges)))
        return Piece(self.literal(esc.character_escape(self, in_class=False)))

    def class_escape(self) -> cs.Ranges | str | None:
        """``\\d \\D \\s \\S \\w \\W`` as ranges, ``\\p{..}`` as engine text; None otherwise."""
        c = self.peek()
        assert c is not None
        name = chr(c)
        if name.lower() in _CLASS_ESCAPES:
            self.at += 1
            ranges = _CLASS_ESCAPES[name.lower()]
            if name == "w" or name == "W":
                ranges = cs.word_characters(self.unicode, self.modes.ignore_case)
            return cs.complement(ranges) if name.isupper() else ranges
        if name in "pP" and self.unicode:
            self.at += 1
            return property_escape(self, negated=name == "P")
        return None

    def char_class(self) -> str:
        return char_class(self, self)
