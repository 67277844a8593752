"""benchmark.md and summary.md: GitHub-flavoured tables. Every rate is shown with its n."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

INDETERMINATE = ("indeterminate: fewer than 6 cases moved, so the sign-flip test cannot reach "
                 "p ≤ 0.05; treat the lift as unknown, not as an effect")


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


def pvalue(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def ci(bounds: Sequence[float] | None) -> str:
    return "n/a" if not bounds else f"[{bounds[0] * 100:+.1f}, {bounds[1] * 100:+.1f}] pp"


def _table(rows: list[list[Any]], headers: list[str]) -> str:
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def lift_note(bench: Mapping[str, Any]) -> str:
    lift = bench["lift"]
    if lift["pass_rate"] is None:
        return "no case was graded in both variants: no lift"
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
    if "error" in by_flag:
        out.append("runs errored (excluded from pass rates): " + ", ".join(by_flag["error"]))
    if "regressed" in by_flag:
        out.append("regressed with the skill: " + ", ".join(by_flag["regressed"]))
    lift = bench["lift"]
    if lift["met"] is False:
        out.append(f"minimum lift {signed(lift['minimum_lift'])} not met (lift {signed(lift['pass_rate'])},"
                   f" n={lift['cases']})")
    return out


def benchmark_md(bench: Mapping[str, Any]) -> str:
    v, lift = bench["variants"], bench["lift"]
    w, wo = v["with_skill"], v["without_skill"]
    lines = [f"# {bench['skill']} · {bench['model']} · suite {bench['suite']}", "",
             f"Verdict: **{bench['verdict']}**", ""]
    lines.append(_table([[pct(w["pass_rate"]), pct(wo["pass_rate"]),
                          f"{signed(lift['pass_rate'])} (n={lift['cases']})", pvalue(lift["p_value"]),
                          ci(lift["ci95"]), f"{w['graded']}+{wo['graded']}",
                          str(w["errors"] + wo["errors"])]],
                        ["with skill", "without skill", "lift", "p", "95% CI", "graded runs", "errors"]))
    lines += ["", f"Lift: {lift_note(bench)}."]
    if lift["minimum_lift"] is not None:
        lines.append(f"Minimum lift {signed(lift['minimum_lift'])}: {'met' if lift['met'] else 'NOT met'}.")
    for warning in warnings(bench):
        lines.append(f"> ⚠ {warning}")
    lines += ["", "## Cases", ""]
    rows = [[c["id"], _rate_n(c["with_skill"]), _rate_n(c["without_skill"]), signed(c["delta"]),
             ", ".join(c["flags"])] for c in bench["cases"]]
    lines.append(_table(rows, ["case", "with skill", "without skill", "delta", "flags"]))
    weak = [c["id"] for c in bench.get("checks", []) if c["non_discriminating"]]
    if weak:
        lines += ["", "Non-discriminating checks (pass in every run of both variants): " + ", ".join(weak)]
    lines += ["", "## Cost and time", ""]
    keys = sorted(set(w["usage"]) | set(wo["usage"]))
    rows = [[name, _secs(arm["duration_s"]["median"]), _secs(arm["duration_s"]["p95"]),
             _secs(arm["duration_s"]["total"]), *(_num(arm["usage"].get(k)) for k in keys)]
            for name, arm in (("with skill", w), ("without skill", wo))]
    lines.append(_table(rows, ["variant", "median", "p95", "total time", *keys]))
    return "\n".join(lines) + "\n"


def summary_md(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()) -> str:
    lines = ["# skill-eval summary", ""]
    rows = [[b["skill"], b["model"], str(len(b["cases"])), pct(b["variants"]["with_skill"]["pass_rate"]),
             pct(b["variants"]["without_skill"]["pass_rate"]),
             f"{signed(b['lift']['pass_rate'])} (n={b['lift']['cases']})",
             pvalue(b["lift"]["p_value"]) + (" (indeterminate)" if b["lift"]["indeterminate"] else ""),
             b["verdict"]] for b in benches]
    lines.append(_table(rows, ["skill", "model", "cases", "with", "without", "lift", "p", "verdict"]))
    for b in benches:
        for warning in warnings(b):
            lines.append(f"> ⚠ {b['skill']} ({b['model']}): {warning}")
    if moved:
        lines += ["", "## Moved since the previous benchmark", ""]
        rows = [[m["skill"], m["id"], m["status"],
                 f"{pct(m['with_skill']['old'])} → {pct(m['with_skill']['new'])}",
                 f"{pct(m['without_skill']['old'])} → {pct(m['without_skill']['new'])}"] for m in moved]
        lines.append(_table(rows, ["skill", "case", "change", "with skill", "without skill"]))
    return "\n".join(lines) + "\n"


def _rate_n(arm: Mapping[str, Any]) -> str:
    text = f"{pct(arm['pass_rate'])} ({arm['passed']}/{arm['graded']})"
    return text + (f", {arm['errors']} errored" if arm["errors"] else "")


def _secs(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _num(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4f}"
