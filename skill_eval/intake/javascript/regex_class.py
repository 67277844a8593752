"""A JavaScript character class ``[...]`` (ECMA-262 §22.2.1 ClassContents, without flag ``v``),
read at the translator's cursor just after ``[`` and emitted as an explicit engine class.

``[]`` matches nothing and ``[^]`` anything; ``\\b`` inside is a backspace. A range with a class
escape at either end (``[\\w-z]``) is an error under ``u`` and, without it (Annex B), three
members: the escape's set, '-' and the other end. Under ``i`` the members are closed under JS's
case rules before a ``^`` negates them (jsregex_sets).
"""

from __future__ import annotations

from typing import Protocol

from skill_eval.intake.javascript import regex_escape as esc
from skill_eval.intake.javascript import regex_sets as cs


class ClassReader(Protocol):
    """What reading a class needs of the translator besides its cursor."""

    def class_escape(self) -> cs.Ranges | str | None: ...

    def fold(self, ranges: cs.Ranges) -> cs.Ranges: ...

    def fold_property(self, prop: str) -> cs.Ranges: ...

_DASH, _CLOSE, _BACKSLASH = ord("-"), ord("]"), ord("\\")


def _atom(t: esc.Reader, classes: ClassReader) -> cs.Ranges | int | str:
    """One class atom: a character's code, the set of a class escape, or a property escape (the
    engine's text)."""
    c = t.peek()
    if c is None:
        raise t.bad("unterminated character class")
    t.at += 1
    if c != _BACKSLASH:
        return c
    c = t.peek()
    if c is None:
        raise t.bad("\\ at end of pattern")
    if c == ord("b"):
        t.at += 1
        return 0x08
    escaped = classes.class_escape()
    if escaped is not None:
        return escaped
    return esc.character_escape(t, in_class=True)


def char_class(t: esc.Reader, classes: ClassReader) -> str:
    negate = t.eat("^")
    members: list[tuple[int, int]] = []
    props: list[str] = []

    def add(item: cs.Ranges | int | str) -> None:
        if isinstance(item, str):
            props.append(item)
            members.extend(classes.fold_property(item))
        else:
            members.extend(((item, item),) if isinstance(item, int) else item)

    while t.peek() != _CLOSE:
        first = _atom(t, classes)
        if t.peek() == _DASH and t.peek(1) not in (_CLOSE, None):
            t.at += 1
            last = _atom(t, classes)
            if isinstance(first, int) and isinstance(last, int):
                if last < first:
                    raise t.bad("range out of order in character class")
                members.append((first, last))
                continue
            if t.unicode:
                raise t.bad("invalid character class (a range with a class escape at an end)")
            add(first)
            add(_DASH)
            add(last)
            continue
        add(first)
    t.at += 1  # "]"
    return cs.emit(classes.fold(cs.normalize(members)), negate=negate, extra="".join(props))
