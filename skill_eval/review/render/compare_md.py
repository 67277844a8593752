"""``compare`` as text: a Markdown table per skill x model (the terminal, a step summary, the
review page's words), JSON, and GitHub annotations (one per regressed case, at its eval-set line)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_eval.review.render.markdown import _table, ci, md_text, pct, plural, pvalue, signed
from skill_eval.review.versions.compare import ALPHA, CaseChange, Comparison

if TYPE_CHECKING:
    from skill_eval.model.project import Project

COMPARE_FORMATS = ("md", "json", "github")  # `compare --format`
SHOWN = ("regressed", "improved", "added", "removed", "unknown")


def _arm(counts: tuple[int, int] | None) -> str:
    if counts is None:
        return "n/a"
    return f"{pct(counts[0] / counts[1] if counts[1] else None)} ({counts[0]}/{counts[1]})"


def _status(c: CaseChange) -> str:
    return c.status + (" (critical)" if c.critical else "")


def headline(c: Comparison) -> str:
    return (f"with-skill pass rate {pct(c.rate('before'))} -> {pct(c.rate('after'))} over "
            f"{plural(len(c.deltas), 'paired case')}: change {signed(c.change)}, p {pvalue(c.p_value)}, "
            f"95% interval {ci(c.ci95)}")


def comparison_md(c: Comparison, alpha: float = ALPHA) -> str:
    title = (f"### {md_text(c.skill)} ({md_text(c.model)}): {c.after.label} (now) vs "
             f"{md_text(c.against)} {c.before.label}")
    lines = [title, "", headline(c) + "."]
    rows = [[md_text(x.id), _arm(x.before), _arm(x.after), signed(x.change), _status(x)]
            for status in SHOWN for x in c.with_status(status)]
    same = len(c.with_status("same"))
    if rows:
        lines += ["", _table(rows, ["case", "before (with skill)", "now (with skill)", "change", ""])]
    lines += ["", f"Regressed: {', '.join(md_text(x.id) for x in c.with_status('regressed')) or 'none'}. "
                  f"Improved: {', '.join(md_text(x.id) for x in c.with_status('improved')) or 'none'}. "
                  f"{plural(same, 'case')} unchanged."]
    for reason in c.failures(alpha):
        lines.append(f"**Regression:** {md_text(reason)}.")
    return "\n".join(lines) + "\n"


def compare_md(items: Sequence[Comparison], missing: Sequence[str], alpha: float = ALPHA) -> str:
    parts = ["## What changed since the compared version", ""]
    parts += [comparison_md(c, alpha) for c in items]
    parts += [f"- {md_text(m)}" for m in missing]
    return "\n".join(parts).rstrip() + "\n"


def compare_json(items: Sequence[Comparison], missing: Sequence[str], against: str,
                 alpha: float = ALPHA) -> dict[str, Any]:
    reasons = [r for c in items for r in c.failures(alpha)]
    return {"against": against, "alpha": alpha, "comparisons": [c.to_json(alpha) for c in items],
            "missing": list(missing), "regression": bool(reasons), "failures": reasons}


def _escape(text: str, prop: bool = False) -> str:
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def case_places(project: Project) -> dict[tuple[str, str], tuple[str, int | None]]:
    """Each case's eval-set file and line, by (skill, case id): where its annotation points."""
    return {(se.skill.name, c.id): (c.source, c.line) for se in project.skills for c in se.cases}


def compare_annotations(items: Sequence[Comparison], where: Mapping[tuple[str, str], tuple[str, int | None]],
                        alpha: float = ALPHA) -> list[str]:
    """One per regressed case (an error when it fails the gate by itself: a critical case),
    placed at the case's line in its eval set; one error per significant drop."""
    out = []
    for c in items:
        for x in c.with_status("regressed"):
            file, line = where.get((c.skill, x.id), ("", None))
            loc = f" file={_escape(file, True)}" + (f",line={line}" if line else "") if file else ""
            kind = "error" if x.critical else "warning"
            text = (f"{c.skill} ({c.model}): case {x.id} regressed since {c.against} {c.before.label}: "
                    f"{_arm(x.before)} -> {_arm(x.after)} with the skill")
            out.append(f"::{kind}{loc}::{_escape(text)}")
        change, p = c.change, c.p_value
        if change is not None and change < 0 and p is not None and p < alpha:
            out.append("::error ::" + _escape(f"{c.skill} ({c.model}): {headline(c)}"))
    return out
