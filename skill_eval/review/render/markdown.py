"""benchmark.md and summary.md: GitHub-flavoured tables. Every rate is shown with its n."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.comparison.verdict import (
    evidence,
    label,
    rule_text,
    until_decided_verdict,
    verdict_cell,
)
from skill_eval.review.render.format import ReportFormat, ReportInput
from skill_eval.review.render.mdcells import (
    _clip,
    _num,
    _ratio,
    _secs,
    _table,
    ci,
    md_text,
    pct,
    plural,
    pvalue,
    signed,
    tokens,
    usd,
)
from skill_eval.review.render.plugin_eval_md import plugin_eval_md, plugin_eval_summary_md
from skill_eval.review.render.sections_md import (
    ablation_md,
    ablation_summary_md,
    agents_summary_md,
    decision_summary_md,
)
from skill_eval.review.render.statslines import decision_line, holm_note, interval_line

INDETERMINATE = ("indeterminate: fewer than 6 cases moved, so the sign-flip test cannot reach "
                 "p ≤ 0.05; treat the lift as unknown, not as an effect")


def lift_note(bench: Mapping[str, Any]) -> str:
    lift = bench["lift"]
    if lift["pass_rate"] is None:
        return "no case was graded in both arms: no lift"
    if lift["indeterminate"]:
        return INDETERMINATE + f" ({lift['nonzero_cases']} of {lift['cases']} cases moved)"
    return "significant at p ≤ 0.05" if lift["significant"] else "not significant (p > 0.05)"


def warnings(bench: Mapping[str, Any]) -> list[str]:
    """One line per contaminated / not-loaded / errored / regressed case and a missed minimum."""
    out = []
    by_flag: dict[str, list[str]] = {}
    for case in bench["cases"]:
        for flag in case["flags"]:
            by_flag.setdefault(flag, []).append(str(case["id"]))
    if "contaminated" in by_flag:
        out.append("without_skill runs reported loading the skill (the baseline is not a baseline): "
                   + ", ".join(by_flag["contaminated"]))
    if "not-loaded" in by_flag:
        out.append("with_skill runs never reported loading the skill: " + ", ".join(by_flag["not-loaded"]))
    if "other-skills" in by_flag:
        out.append("runs loaded other skills (the lift includes what they did): " + "; ".join(
            f"{c['id']} ({other_skills_text(c['other_skills'])})" for c in bench["cases"]
            if "other-skills" in c["flags"] and c.get("other_skills")))
    for flag, what in (("error", "errored (excluded from pass rates)"), ("not-run", "not run yet")):
        if flag in by_flag:
            out.append(f"runs {what}: " + ", ".join(by_flag[flag]))
    if "unscorable" in by_flag:
        why = sorted({r.split(": ", 1)[-1] for c in bench["cases"] for v in ARM_KEYS
                      for r in c[v].get("unscorable_reasons", [])})
        out.append("runs unscorable (turn limit, truncated, another model, no model request; "
                   + ("counted as failures" if _counted(bench) else "excluded from pass rates") + "): "
                   + ", ".join(by_flag["unscorable"]) + (f" ({'; '.join(why)})" if why else ""))
    out += [str(w) for w in bench.get("comparability") or []]
    if "regressed" in by_flag:
        out.append("regressed with the skill: " + ", ".join(by_flag["regressed"]))
    lift = bench["lift"]
    if lift["met"] is False:
        out.append(f"minimum lift {signed(lift['minimum_lift'])} not met (lift {signed(lift['pass_rate'])},"
                   f" n={lift['cases']})")
    for warning in (bench.get("triggers") or {}).get("warnings", []):
        out.append(f"trigger evals: {warning}")
    return out


def ungraded_count(bench: Mapping[str, Any]) -> int:
    return sum(int(bench["variants"][v].get("rubric_ungraded") or 0) for v in ("with_skill", "without_skill"))


def ungraded_note(bench: Mapping[str, Any]) -> str | None:
    """Said wherever a pass rate is shown: 100% must not silently mean "the rubric was not checked"."""
    n = ungraded_count(bench)
    if not n:
        return None
    # Verdicts, not items: each rubric item once per run (inspect and validate count the items).
    return (f"{plural(n, 'rubric verdict')} ungraded (one per rubric item and run): add a judge (the "
            "pass rates count the deterministic checks only)")


def parts_line(bench: Mapping[str, Any]) -> str | None:
    """Deterministic checks and the judge's rubric verdicts apart (None when nothing was judged)."""
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    judge = bench.get("judge")
    if judge is None and w.get("judged_pass_rate") is None and wo.get("judged_pass_rate") is None:
        return None
    name = (judge or {}).get("name", "unknown")
    return (f"Deterministic checks: with {pct(w.get('deterministic_pass_rate'))}, without "
            f"{pct(wo.get('deterministic_pass_rate'))}. Judged rubric (judge: {name}): with "
            f"{pct(w.get('judged_pass_rate'))}, without {pct(wo.get('judged_pass_rate'))}. "
            "Combined (a run passes when both do) is the pass rate above.")


def trigger_md(bench: Mapping[str, Any]) -> list[str]:
    """benchmark.md's per-query trigger table (empty without trigger queries)."""
    block = bench.get("triggers")
    if not block:
        return []
    lines = ["", "## Trigger queries", "",
             f"Precision {_ratio(block['precision'])}, recall {_ratio(block['recall'])}, accuracy "
             f"{_ratio(block['accuracy'])} over {plural(len(block['queries']), 'query', 'queries')} (a query "
             "triggers when "
             "the skill loaded in at least half its runs).", ""]
    rows = [[md_text(q["id"]), _clip(q["query"]), "yes" if q["should_trigger"] else "no", loads(q),
             q["verdict"] or "error"] for q in block["queries"]]
    lines.append(_table(rows, ["query", "text", "should trigger", "loaded", "verdict"]))
    return lines


def loads(q: Mapping[str, Any]) -> str:
    """A trigger query's loads as k/n over the runs that did not error."""
    ok = q["runs"] - q["errors"]
    if q["trigger_rate"] is None:
        return f"n/a ({plural(q['errors'], 'run')} errored)"
    return f"{round(q['trigger_rate'] * ok)}/{ok}"


def _ind(lift: Mapping[str, Any]) -> str:
    return " (indeterminate)" if lift.get("indeterminate") and lift.get("pass_rate") is not None else ""


ARM_KEYS = ("with_skill", "without_skill")


def credit_line(bench: Mapping[str, Any]) -> str | None:
    """Partial credit, soft items and critical failures: reported beside the pass rate, not in it."""
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    if w.get("partial_credit") is None and wo.get("partial_credit") is None:
        return None
    text = (f"Partial credit (share of graded checks passed per run; not the pass rate): with "
            f"{pct(w.get('partial_credit'))}, without {pct(wo.get('partial_credit'))}.")
    if w.get("soft_items") or wo.get("soft_items"):
        text += (f" Soft items (not in the pass rate): with {pct(w.get('soft_pass_rate'))} of "
                 f"{w.get('soft_items', 0)}, without {pct(wo.get('soft_pass_rate'))} of "
                 f"{wo.get('soft_items', 0)}.")
    if w.get("critical_failures") or wo.get("critical_failures"):
        text += (f" Critical failures (each vetoed its run): with {w.get('critical_failures', 0)}, "
                 f"without {wo.get('critical_failures', 0)}.")
    return text


def benchmark_md(bench: Mapping[str, Any]) -> str:
    v, lift = bench["variants"], bench["lift"]
    w, wo = v["with_skill"], v["without_skill"]
    lines = [f"# {md_text(bench['skill'])} · {md_text(bench['model'])} · suite {md_text(bench['suite'])}", "",
             f"Verdict: **{label(bench)}**{md_text(evidence(bench))} {md_text(rule_text(bench))}", ""]
    lines.append(_table([[pct(w["pass_rate"]), pct(wo["pass_rate"]),
                          f"{signed(lift['pass_rate'])} (n={lift['cases']})",
                          pvalue(lift["p_value"]) + _ind(lift),
                          ci(lift["ci95"]) + _ind(lift), f"{w['graded']}+{wo['graded']}",
                          str(w["errors"] + wo["errors"]), *_unscorable_cell([bench], bench)]],
                        ["with skill", "without skill", "lift", "p", "95% CI", "graded runs", "errors",
                         *_unscorable_head([bench])]))
    lines += ["", f"Lift: {lift_note(bench)}."]
    if lift["minimum_lift"] is not None:
        aside = " (not the verdict: --until-decided decides it)" if until_decided_verdict(bench) else ""
        met = "met" if lift["met"] else "NOT met"
        lines.append(f"Minimum lift {signed(lift['minimum_lift'])}: {met}{aside}.")
    lines += [x for x in (interval_line(bench), decision_line(bench)) if x]
    parts = parts_line(bench)
    if parts:
        lines.append(parts)
    credit = credit_line(bench)
    if credit:
        lines.append(credit)
    ungraded = ungraded_note(bench)
    if ungraded:
        lines.append(f"> ⚠ {ungraded}")
    for warning in warnings(bench):
        lines.append(f"> ⚠ {md_text(warning)}")
    lines += ["", "## Cases", ""]
    rows = [[md_text(c["id"]), _rate_n(c["with_skill"]), _rate_n(c["without_skill"]), signed(c["delta"]),
             ", ".join(c["flags"])] for c in bench["cases"]]
    lines.append(_table(rows, ["case", "with skill", "without skill", "delta", "flags"]))
    weak = [c["id"] for c in bench.get("checks", []) if c["non_discriminating"]]
    if weak:
        lines += ["", "Non-discriminating checks (pass in every run of both arms): "
                  + ", ".join(md_text(w) for w in weak)]
    lines += trigger_md(bench)
    lines += plugin_eval_md(bench)
    lines += ablation_md(bench)
    lines += ["", "## Cost and time", ""]
    # The usage counters not already a column (cost_usd is the cost column).
    # Per-model splits ("model/<name>/<key>") stay in benchmark.json; as columns they would crowd it.
    keys = sorted(k for k in (set(w["usage"]) | set(wo["usage"])) - {"cost_usd", "total_tokens"}
                  if not k.startswith("model/"))
    judged = w.get("judge_cost_usd") is not None or wo.get("judge_cost_usd") is not None
    # The judge's tokens beside the agent's: some judges report tokens and no price.
    judge_tokens = w.get("judge_tokens") is not None or wo.get("judge_tokens") is not None
    steps = [k for k in ("mean_tool_calls", "mean_turns") if w.get(k) is not None or wo.get(k) is not None]
    rows = [[name, _secs(arm["duration_s"]["median"]), _secs(arm["duration_s"]["p95"]),
             _secs(arm["duration_s"]["total"]), tokens(arm.get("tokens_per_run")),
             usd(arm.get("cost_usd_per_run")), usd(arm.get("cost_usd")),
             *([tokens(arm.get("judge_tokens"))] if judge_tokens else []),
             *([usd(arm.get("judge_cost_usd"))] if judged else []),
             *(_num(arm.get(k)) for k in steps), *(_num(arm["usage"].get(k)) for k in keys)]
            for name, arm in (("with skill", w), ("without skill", wo))]
    lines.append(_table(rows, ["arm", "median", "p95", "total time", "tokens/run", "cost/run", "cost",
                               *(["judge tokens"] if judge_tokens else []),
                               *(["judge cost"] if judged else []),
                               *({"mean_tool_calls": "tool calls/run", "mean_turns": "turns/run"}[k]
                                 for k in steps), *map(md_text, keys)]))
    lines += ["", cost_note(bench)]
    return "\n".join(lines) + "\n"


def other_skills_text(other: Mapping[str, Any]) -> str:
    """``{"with_skill": [], "without_skill": ["code-review"]}`` -> "without_skill: code-review"."""
    return "; ".join(f"{arm}: {', '.join(other[arm])}" for arm in ("with_skill", "without_skill")
                     if other.get(arm))


def cost_note(bench: Mapping[str, Any]) -> str:
    """What the skill costs per run, from the costs recorded when the runs were bought. A cost
    per unit of lift only when the lift is a measured effect (significant, positive)."""
    lift, v = bench["lift"], bench["variants"]
    w, wo = v["with_skill"], v["without_skill"]
    extra_tokens, extra_cost = lift.get("extra_tokens_per_run"), lift.get("extra_cost_usd_per_run")
    if extra_tokens is None and extra_cost is None:
        reported = [name for name, arm in (("with", w), ("without", wo))
                    if arm.get("runs_with_tokens") or arm.get("runs_with_cost")]
        if not reported:
            return "Cost of the skill: unknown (the adapter reported no token counts or cost)."
        missing = "without" if reported == ["with"] else "with"
        return f"Cost of the skill: unknown (no {missing}-skill run reported token counts or cost)."
    parts = []
    if extra_tokens is not None:
        parts.append(f"{extra_tokens:+,.0f} tokens per run with the skill")
    if extra_cost is not None:
        parts.append(f"{'+' if extra_cost >= 0 else '-'}{usd(abs(extra_cost))} per run")
    line = "Cost of the skill: " + "; ".join(parts) + "."
    points = lift.get("pass_rate")
    if (extra_cost is not None and extra_cost > 0 and points is not None and points > 0
            and lift.get("significant") and not lift.get("indeterminate")):
        line += f" Cost per unit of lift: {usd(extra_cost / points)} per extra passing run."
    return line


def summary_md(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()) -> str:
    lines = ["# skill-eval summary", ""]
    rows = [[md_text(b["skill"]), md_text(b["model"]), str(len(b["cases"])),
             pct(b["variants"]["with_skill"]["pass_rate"]),
             pct(b["variants"]["without_skill"]["pass_rate"]),
             f"{signed(b['lift']['pass_rate'])} (n={b['lift']['cases']})",
             pvalue(b["lift"]["p_value"]) + holm_note(b["lift"]) + _ind(b["lift"]),
             _cost_pair(b), *_unscorable_cell(benches, b), verdict_cell(b)] for b in benches]
    lines.append(_table(rows, ["skill", "model", "cases", "with", "without", "lift", "p",
                               "cost (with / without)", *_unscorable_head(benches), "verdict"]))
    lines += agents_summary_md(benches)
    lines += ["", *(f"- {md_text(b['skill'])} ({md_text(b['model'])}): **{label(b)}**"
                    f"{md_text(evidence(b))} {md_text(rule_text(b))}" for b in benches), ""]
    for b in benches:
        who = f"{md_text(b['skill'])} ({md_text(b['model'])})"
        for warning in [ungraded_note(b)] + warnings(b):
            if warning:
                lines.append(f"> ⚠ {who}: {md_text(warning)}")
    judged = [b for b in benches if parts_line(b)]
    if judged:
        lines += ["", "## Deterministic checks and judged rubric", ""]
        rows = [[md_text(b["skill"]), md_text(b["model"]), md_text((b.get("judge") or {}).get("name", "n/a")),
                 *(pct(b["variants"][v].get(k)) for k in ("deterministic_pass_rate", "judged_pass_rate")
                   for v in ("with_skill", "without_skill"))] for b in judged]
        lines.append(_table(rows, ["skill", "model", "judge", "checks with", "checks without",
                                   "judged with", "judged without"]))
    credited = [b for b in benches if credit_line(b)]
    if credited:
        lines += ["", "## Partial credit (beside the pass rate, not in it)", ""]
        rows = [[b["skill"], b["model"],
                 *(pct(b["variants"][v].get("partial_credit")) for v in ("with_skill", "without_skill")),
                 *(pct(b["variants"][v].get("soft_pass_rate")) for v in ("with_skill", "without_skill")),
                 str(sum(b["variants"][v].get("critical_failures", 0) for v in ARM_KEYS))]
                for b in credited]
        lines.append(_table(rows, ["skill", "model", "partial credit with", "partial credit without",
                                   "soft with", "soft without", "critical failures"]))
    triggered = [b for b in benches if b.get("triggers")]
    if triggered:
        lines += ["", "## Trigger evals", ""]
        rows = [[md_text(b["skill"]), md_text(b["model"]), str(len(b["triggers"]["queries"])),
                 *(_ratio(b["triggers"][k]) for k in ("precision", "recall", "accuracy"))] for b in triggered]
        lines.append(_table(rows, ["skill", "model", "queries", "precision", "recall", "accuracy"]))
    lines += plugin_eval_summary_md(benches)
    lines += ablation_summary_md(benches)
    lines += decision_summary_md(benches)
    if moved:
        lines += ["", "## Moved since the previous benchmark", ""]
        rows = [[md_text(m["skill"]), md_text(m["id"]), m["status"],
                 f"{pct(m['with_skill']['old'])} → {pct(m['with_skill']['new'])}",
                 f"{pct(m['without_skill']['old'])} → {pct(m['without_skill']['new'])}"] for m in moved]
        lines.append(_table(rows, ["skill", "case", "change", "with skill", "without skill"]))
    return "\n".join(lines) + "\n"


def _cost_pair(bench: Mapping[str, Any]) -> str:
    v = bench["variants"]
    w, wo = v["with_skill"].get("cost_usd"), v["without_skill"].get("cost_usd")
    return "n/a" if w is None and wo is None else f"{usd(w)} / {usd(wo)}"


def _rate_n(arm: Mapping[str, Any]) -> str:
    text = f"{pct(arm['pass_rate'])} ({arm['passed']}/{arm['graded']})"
    text += f", {arm['errors']} errored" if arm["errors"] else ""
    return text + (f", {arm['unscorable']} unscorable" if arm.get("unscorable") else "")


def _unscorable(bench: Mapping[str, Any]) -> int:
    """Unscorable runs of both arms (benchmarks written before the field: none)."""
    return sum(int(bench["variants"][v].get("unscorable", 0)) for v in ARM_KEYS)


def _unscorable_head(benches: Sequence[Mapping[str, Any]]) -> list[str]:
    """The 'unscorable' column, in every table where some run could not be scored."""
    return ["unscorable"] if any(_unscorable(b) for b in benches) else []


def _unscorable_cell(benches: Sequence[Mapping[str, Any]], bench: Mapping[str, Any]) -> list[str]:
    return [str(_unscorable(bench))] if _unscorable_head(benches) else []


def _counted(bench: Mapping[str, Any]) -> bool:
    return bool(bench.get("include_unscorable"))


def _summary(report: ReportInput) -> str:
    return summary_md(report.benches, report.moved)


MD = ReportFormat("md", "summary.md", _summary, every_run=True)
