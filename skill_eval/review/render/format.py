"""A report format as one descriptor: what ``skill-eval report --format`` offers and where each
writes, and which files every run writes beside the tables. Each format's module declares its
``ReportFormat`` next to its renderer; ``review/render/__init__.py`` registers them in
``FORMATS``, and the CLI's choices, its help, ``report`` and ``run`` read nothing else."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skill_eval.registry import Registry

if TYPE_CHECKING:
    from skill_eval.model.project import Project
    from skill_eval.review.resultsource import ResultSource

Benches = Sequence[Mapping[str, Any]]
Moved = Sequence[Mapping[str, Any]]
# One skill's share of the review page with every run's details, as (embedded JSON, runs shown):
# only the results folder has those details (review.folder.tables.page_part gives them).
PagePart = Callable[[Mapping[str, Any]], tuple[str, int]]


@dataclass(frozen=True)
class ReportInput:
    """What a format renders: every table, the cases that moved since the previous benchmark,
    and where the caller has them (``report``, ``run``), the store behind the tables and each
    skill's share of the review page. A format that needs neither ignores them."""

    benches: Benches
    moved: Moved
    source: ResultSource | None = None
    page_part: PagePart | None = None


@dataclass(frozen=True)
class ReportFormat:
    name: str
    filename: str  # its file under <results>/
    render: Callable[[ReportInput], str]
    help: str = ""  # its words in `report --help` (none: the name says it)
    # Without --out: printed on stdout, or (False) written to <results>/<filename>, for a file
    # that is opened or read as a file rather than in a terminal.
    to_stdout: bool = True
    every_run: bool = False  # written by every run beside the tables (the summaries, the page)
    # The text and the lines that own stdout (github's workflow commands) made at once; a format
    # with them says "wrote ..." on stderr.
    annotated: Callable[[ReportInput], tuple[str, list[str]]] | None = None
    # Why a suite cannot have this format (None: it can), refused before anything is written.
    unsuited: Callable[[Project], str | None] | None = None

    def text_and_lines(self, report: ReportInput) -> tuple[str, list[str]]:
        return self.annotated(report) if self.annotated is not None else (self.render(report), [])


FORMATS: Registry[ReportFormat] = Registry("report format")


def formats_help() -> str:
    """`report --format`'s help: the words of each format that has some."""
    return "; ".join(f"{f.name}: {f.help}" for f in FORMATS if f.help)
