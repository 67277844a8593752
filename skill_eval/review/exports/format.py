"""An export as one descriptor: what ``skill-eval export --format`` offers, and what each needs.
Each layout's module declares its ``ExportFormat``; ``review/exports/__init__.py`` registers them
in ``EXPORTS``, which the CLI's choices, its help and ``export`` read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skill_eval.registry import Registry

if TYPE_CHECKING:
    from skill_eval.model.project import Project
    from skill_eval.review.resultsource import ResultSource


@dataclass(frozen=True)
class Exported:
    """What an export wrote, for the CLI to say."""

    count: int
    noun: str  # what was counted: "run", "case"
    layout: str  # the layout in words, after the folder
    skipped: tuple[str, ...] = ()  # what could not be written, and why


@dataclass(frozen=True)
class ExportFormat:
    name: str
    help: str  # its words in `export --help` (formats with the same words are listed together)
    # Writes the export under the folder. The source is given only to a format that reads the
    # store (``reads_store``); the others write from the eval sets alone.
    write: Callable[[Project, ResultSource | None, Path], Exported]
    reads_store: bool = False  # the stored results: the CLI opens the store and says how long it took


EXPORTS: Registry[ExportFormat] = Registry("export format")


def exports_help() -> str:
    """`export --format`'s help: the formats sharing words named together."""
    groups: dict[str, list[str]] = {}
    for f in EXPORTS:
        groups.setdefault(f.help, []).append(f.name)
    return "; ".join(f"{', '.join(names)}: {words}" for words, names in groups.items())
