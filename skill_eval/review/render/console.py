"""What `run` prints per skill: its verdict with the rule that decided it, the figures with the
same formatting as the Markdown, then the first failing checks and trigger queries by name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from skill_eval.review.comparison.verdict import p_aside, p_detail, verdict_text
from skill_eval.review.render.markdown import loads, pct, plural, pvalue, signed, ungraded_note
from skill_eval.review.render.statslines import decision_line, holm_note

_SHOWN_FAILURES = 3


# The part of an adapter error that differs run by run: the excerpt of what it printed.
_EXCERPT = re.compile(r"(?:;| \|) (?:starts with|stderr:|output:) .*$", re.S)


def error_lines(errors: Sequence[tuple[str, str]], shown: int = 20) -> list[str]:
    """Each distinct run error once: ``18 runs: <message> (first: <task>)``, in the order they
    first happened. ``errors``: (task, message) as they happened; each run's own message stays
    in benchmark.md and on the review page."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for task, message in errors:
        groups.setdefault(_EXCERPT.sub("", message), []).append((task, message))
    lines = []
    for hits in list(groups.values())[:shown]:
        task, message = hits[0]
        lines.append(f"{plural(len(hits), 'run')} could not run: {message} (first: {task})"
                     if len(hits) > 1 else f"error in {task}: {message}")
    if len(groups) > shown:
        lines.append(f"... and {len(groups) - shown} more distinct run errors (each run's: benchmark.md)")
    return lines


def work_line(suite: str, counts: dict[str, int]) -> str:
    """``demo: 78 runs planned, 12 to run, 0 to re-grade, 2 tables to rebuild``: the one count
    of a run's work, as `run` and `status` both say it (status --json has the same ``counts``)."""
    return (f"{suite}: {plural(counts['planned'], 'run')} planned, {counts['to_run']:,} to run, "
            f"{counts['regrade']:,} to re-grade, {plural(counts['rebuild'], 'table')} to rebuild")


def skill_lines(b: dict[str, Any]) -> list[str]:
    """A skill's lines on the console: its figures, then the first failing checks and trigger
    queries by name, so the reason for a verdict is on screen and not only in junit.xml."""
    lift = b["lift"]
    w, wo = b["variants"]["with_skill"], b["variants"]["without_skill"]
    note = (" (indeterminate: fewer than 6 cases moved)"
            if lift.get("indeterminate") and lift.get("pass_rate") is not None else "")
    lines = [f"  {b['skill']} [{b['model']}]: {verdict_text(b)}",
             f"    with {pct(w['pass_rate'])}, without {pct(wo['pass_rate'])}, "
             f"lift {signed(lift['pass_rate'])} over {plural(lift['cases'], 'case')}, "
             f"{p_detail(b)}={pvalue(lift['p_value'])}{holm_note(lift)}{note}{p_aside(b)}"]
    decided = decision_line(b, brief=True)
    if decided:
        lines.append(f"    {decided}")
    ungraded = ungraded_note(b)
    if ungraded:
        lines.append(f"    {ungraded}")
    unscorable = w.get("unscorable", 0) + wo.get("unscorable", 0)
    if unscorable:
        how = "counted as failures" if b.get("include_unscorable") else "not in the pass rates"
        lines.append(f"    {plural(unscorable, 'run')} unscorable ({how}; see benchmark.md)")
    failed = [(c["id"], f["id"], f["evidence"]) for c in b["cases"]
              for f in c["with_skill"].get("failed_checks", [])]
    seen: dict[tuple[str, str], str] = {}
    for cid, check, evidence in failed:
        seen.setdefault((str(cid), str(check)), str(evidence))
    for (cid, check), evidence in list(seen.items())[:_SHOWN_FAILURES]:
        lines.append(f"    failed with the skill: {cid}/{check}: {evidence[:120]}")
    if len(seen) > _SHOWN_FAILURES:
        lines.append(f"    ... and {plural(len(seen) - _SHOWN_FAILURES, 'more failing check')}")
    block = b.get("triggers")
    if block:
        lines.append(f"    triggers: {plural(len(block['queries']), 'query', 'queries')}, precision "
                     f"{_r(block['precision'])}, recall {_r(block['recall'])}, "
                     f"accuracy {_r(block['accuracy'])}")
        missed = [q for q in block["queries"] if q["verdict"] != "pass"]
        for q in missed[:_SHOWN_FAILURES]:
            expected = "should load" if q["should_trigger"] else "should not load"
            text = " ".join(str(q["query"]).split())
            lines.append(f"    trigger {q['verdict'] or 'error'}: {text[:80]!r} {expected}, "
                         f"loaded {loads(q)}")
        if len(missed) > _SHOWN_FAILURES:
            more = plural(len(missed) - _SHOWN_FAILURES, "more trigger query", "more trigger queries")
            lines.append(f"    ... and {more}")
    return lines


def _r(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}"
