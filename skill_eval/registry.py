"""One registry type for every pluggable part (builtin adapters, check types, eval-set readers,
report formats, subcommands): the place every consumer reads, so that adding a part is its
module and one registration, and argparse choices, validate's messages, the schemas' enums, the
fast path and ``init`` follow without a second list to keep in step.

A descriptor is any object with a ``name``; the registry keeps them in registration order.
``temporarily`` adds parts for the length of a ``with`` block (tests/test_extending.py adds toy
parts that way), and ``generation`` changes with every change, so a consumer that derives
something from a registry (a compiled schema) can tell when to derive it again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, Protocol, TypeVar


class Named(Protocol):
    @property
    def name(self) -> str: ...


D = TypeVar("D", bound=Named)

_generation = 0  # shared by every registry: one counter is enough to say "something changed"


def _bump() -> int:
    global _generation
    _generation += 1
    return _generation


class Registry(Generic[D]):
    """Descriptors of one kind of part, by name."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  # words for messages: "check type", "report format", ...
        self._parts: dict[str, D] = {}
        self.generation = _bump()

    def add(self, descriptor: D) -> D:
        """Register ``descriptor``; a second part of the same name is a bug, not an override."""
        if descriptor.name in self._parts:
            raise ValueError(f"{self.kind} {descriptor.name!r} is registered twice")
        self._parts[descriptor.name] = descriptor
        self.generation = _bump()
        return descriptor

    def remove(self, name: str) -> None:
        del self._parts[name]
        self.generation = _bump()

    def get(self, name: str) -> D | None:
        return self._parts.get(name)

    def require(self, name: str, source: str, line: int | None = None) -> D:
        """The part called ``name``, or InvalidInput naming ``source``, the closest name and all."""
        part = self._parts.get(name)
        if part is None:
            # errors (dataclasses, difflib) is imported on a miss only: `skill-eval --help` reads
            # the command registry, and those imports would be a good part of its start-up.
            from skill_eval.errors import InvalidInput, Problem

            raise InvalidInput([Problem(source, self.unknown(name), line)])
        return part

    def unknown(self, name: str) -> str:
        """The message for a name that is not registered (with the closest one, and every one)."""
        from skill_eval.errors import did_you_mean

        return (f"unknown {self.kind} {name!r}{did_you_mean(name, self._parts)}; "
                f"known: {', '.join(self._parts)}")

    def names(self) -> list[str]:
        return list(self._parts)

    def __iter__(self) -> Iterator[D]:
        return iter(list(self._parts.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._parts

    def __len__(self) -> int:
        return len(self._parts)

    @contextmanager
    def temporarily(self, *descriptors: D) -> Iterator[None]:
        """Register ``descriptors`` inside the block only (tests, and a user's own extensions)."""
        added: list[str] = []
        try:
            for descriptor in descriptors:
                self.add(descriptor)
                added.append(descriptor.name)
            yield
        finally:
            for name in added:
                self.remove(name)
