"""A toy report format (tests/test_extending.py): the whole of a new format is this module and
one registration, ``FORMATS.add(TOY)`` (here ``FORMATS.temporarily(TOY)``)."""

from __future__ import annotations

from skill_eval.review.render.format import ReportFormat, ReportInput


def verdict_lines(report: ReportInput) -> str:
    return "".join(f"{b['skill']} ({b['model']}): {b['verdict']}\n" for b in report.benches)


TOY = ReportFormat("toy", "toy-verdicts.txt", verdict_lines, help="one line per skill: its verdict",
                   to_stdout=False)
