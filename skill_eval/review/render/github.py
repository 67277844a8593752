"""GitHub Actions: a step-summary markdown and workflow-command annotations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_eval.review.comparison.verdict import on_estimate, verdict_text
from skill_eval.review.render.format import ReportFormat, ReportInput
from skill_eval.review.render.markdown import pct, plural, summary_md

if TYPE_CHECKING:
    from skill_eval.review.resultsource import ResultSource

_VERDICT_KIND = {"fail": "error", "error": "error", "undecided": "warning", "pass": "notice"}


def _escape(message: str) -> str:
    # Workflow commands end at a newline; GitHub's own escaping keeps multi-line text intact.
    return message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


MAX_CHECK_ANNOTATIONS = 50  # GitHub shows a few per step anyway; the rest are counted in one line


def _property(value: str) -> str:
    return _escape(value).replace(":", "%3A").replace(",", "%2C")


def failed_check_annotations(benches: Sequence[Mapping[str, Any]],
                             where: Mapping[tuple[str, str], tuple[str, int | None]] | None = None,
                             limit: int = MAX_CHECK_ANNOTATIONS) -> list[str]:
    """One ``::error`` per required check that failed in a with-skill run (per case, all its
    iterations together), at the case's file and line when ``where`` knows them
    ({(skill, case id): (eval-set file, line)}); past ``limit``, one line counting the rest. The
    lines sit in a ``::group::`` so a big suite's log stays folded."""
    found = []
    for b in benches:
        for case in b["cases"]:
            failed: dict[str, list[Mapping[str, Any]]] = {}
            for c in case["with_skill"].get("failed_checks", []):
                failed.setdefault(c["id"], []).append(c)
            runs = case["with_skill"]["graded"]
            for check_id, hits in failed.items():
                file, line = (where or {}).get((b["skill"], case["id"]), (None, None))
                title = f"{b['skill']}: {check_id}"
                props = ",".join(p for p in (f"file={_property(file)}" if file else "",
                                             f"line={line}" if file and line else "",
                                             f"title={_property(title)}") if p)
                iterations = ", ".join(str(h["iteration"]) for h in hits)
                message = (f"{b['skill']} ({b['model']}): case {case['id']}: check {check_id} failed in "
                           f"{len(hits)} of {plural(runs, 'with-skill run')} (iteration {iterations}): "
                           f"{hits[0]['evidence']}")
                found.append(f"::error {props}::{_escape(message)}")
    if not found:
        return []
    shown = found[:limit]
    if len(found) > limit:
        rest = f"... and {len(found) - limit} more failed checks: see the step summary"
        shown.append(f"::error ::{_escape(rest)}")
    return [f"::group::{plural(len(found), 'failed required check')}", *shown, "::endgroup::"]


def annotations(benches: Sequence[Mapping[str, Any]],
                where: Mapping[tuple[str, str], tuple[str, int | None]] | None = None) -> list[str]:
    out = failed_check_annotations(benches, where)

    def add(kind: str, message: str) -> None:
        out.append(f"::{kind} ::{_escape(message)}")

    for b in benches:
        who = f"{b['skill']} ({b['model']})"
        # The verdict in the words of every other report: an error where it fails the job.
        # An estimate-pass is a warning: it passes the job, but is not evidence yet.
        kind = "warning" if on_estimate(b) else _VERDICT_KIND.get(str(b["verdict"]), "notice")
        add(kind, f"{who}: verdict: {verdict_text(b)}")
        for case in b["cases"]:
            with_rate, without_rate = case["with_skill"]["pass_rate"], case["without_skill"]["pass_rate"]
            if "regressed" in case["flags"]:
                add("warning", f"{who}: case {case['id']} regressed with the skill: "
                               f"{pct(with_rate)} vs {pct(without_rate)} without")
            if "contaminated" in case["flags"]:
                add("warning", f"{who}: case {case['id']}: a without_skill run loaded the skill")
    return out


def github_summary(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()
                   ) -> tuple[str, list[str]]:
    """(markdown for $GITHUB_STEP_SUMMARY, annotation lines for stdout)."""
    return summary_md(benches, moved), annotations(benches)


def compare_table(source: ResultSource, benches: Sequence[Mapping[str, Any]]) -> tuple[str, list[str]]:
    """The compare table for the step summary and one annotation per regressed case (against the
    baseline when there is one, else the previous version)."""
    from skill_eval.review.render.compare_md import case_places, compare_annotations, compare_md
    from skill_eval.review.versions.against_version import current_of, default_comparisons
    from skill_eval.store.history import History

    history = History(source.store, source.project.suite.name)
    found = default_comparisons(source, current_of(source, benches, history))
    if not found:
        return "", []
    return "\n" + compare_md(found, []), compare_annotations(found, case_places(source.project))


def github_report(report: ReportInput) -> tuple[str, list[str]]:
    """The step summary (and, given the store, the compare table) and the lines for stdout: the
    annotations, at each case's eval-set line, and the compare's."""
    text, lines = github_summary(report.benches, report.moved)
    if report.source is None:
        return text, lines
    table, compared = compare_table(report.source, report.benches)
    project = report.source.project
    where = {(se.skill.name, c.id): (c.source, c.line) for se in project.skills for c in se.cases if c.source}
    return text + table, annotations(report.benches, where) + compared


def _step_summary(report: ReportInput) -> str:
    return github_report(report)[0]


# The step summary is a file; stdout is the runner's, for the workflow commands.
GITHUB = ReportFormat("github", "github-summary.md", _step_summary, to_stdout=False, annotated=github_report)
