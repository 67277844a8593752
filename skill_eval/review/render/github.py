"""GitHub Actions: a step-summary markdown and workflow-command annotations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.render.markdown import pct, plural, pvalue, signed, summary_md


def _escape(message: str) -> str:
    # Workflow commands end at a newline; GitHub's own escaping keeps multi-line text intact.
    return message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def annotations(benches: Sequence[Mapping[str, Any]]) -> list[str]:
    out = []

    def add(kind: str, message: str) -> None:
        out.append(f"::{kind} ::{_escape(message)}")

    for b in benches:
        who = f"{b['skill']} ({b['model']})"
        lift = b["lift"]
        if lift["met"] is False:
            add("error", f"{who}: lift {signed(lift['pass_rate'])} is below the minimum "
                         f"{signed(lift['minimum_lift'])} (n={lift['cases']}, p={pvalue(lift['p_value'])})")
        errored = b["variants"]["with_skill"]["errors"] + b["variants"]["without_skill"]["errors"]
        if errored:
            add("error", f"{who}: {plural(errored, 'run')} errored")
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
