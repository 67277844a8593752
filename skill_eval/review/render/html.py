"""A single self-contained HTML page (no scripts, no external assets) for people who prefer a
browser to Markdown. Same figures as summary.md and benchmark.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from skill_eval.review.render.markdown import ci, pct, pvalue, signed

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;color:#222;padding:0 1rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.25rem .6rem;
text-align:left}th{background:#f3f3f3}.pass{color:#176c2e}.fail{color:#a61b1b}.error{color:#8a5a00}
.flag{display:inline-block;border-radius:.6rem;background:#eee;padding:0 .45rem;margin-right:.2rem;
font-size:12px}
.warn{background:#fff4d6;border-left:4px solid #e0a800;padding:.4rem .8rem}
"""


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _verdict(v: str) -> str:
    return f'<span class="{escape(v)}">{escape(v)}</span>'


def _skill_section(b: Mapping[str, Any]) -> str:
    lift, w, wo = b["lift"], b["variants"]["with_skill"], b["variants"]["without_skill"]
    parts = [f"<h2>{escape(b['skill'])} <small>({escape(b['model'])})</small> {_verdict(b['verdict'])}</h2>"]
    if lift.get("indeterminate"):
        parts.append(f'<p class="warn">Indeterminate: only {lift.get("nonzero_cases", 0)} cases moved; '
                     "the sign-flip test needs at least 6 to reach p ≤ 0.05.</p>")
    parts.append(_table(["", "with skill", "without skill", "lift", "p", "95% CI"], [[
        "pass rate", escape(pct(w["pass_rate"])), escape(pct(wo["pass_rate"])),
        escape(f"{signed(lift['pass_rate'])} (n={lift['cases']})"), escape(pvalue(lift["p_value"])),
        escape(ci(lift["ci95"]))]]))
    rows = []
    for c in b["cases"]:
        flags = "".join(f'<span class="flag">{escape(f)}</span>' for f in c["flags"])
        rows.append([escape(str(c["id"])), escape(pct(c["with_skill"]["pass_rate"])),
                     escape(pct(c["without_skill"]["pass_rate"])), escape(signed(c["delta"])), flags])
    parts.append(_table(["case", "with", "without", "delta", "flags"], rows))
    return "\n".join(parts)


def html_report(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]] = ()) -> str:
    suite = escape(str(benches[0]["suite"])) if benches else "skill-eval"
    rows = [[escape(b["skill"]), escape(b["model"]), str(len(b["cases"])),
             escape(pct(b["variants"]["with_skill"]["pass_rate"])),
             escape(pct(b["variants"]["without_skill"]["pass_rate"])),
             escape(signed(b["lift"]["pass_rate"])), escape(pvalue(b["lift"]["p_value"])),
             _verdict(b["verdict"])] for b in benches]
    body = [f"<h1>skill-eval: {suite}</h1>",
            _table(["skill", "model", "cases", "with", "without", "lift", "p", "verdict"], rows)]
    body += [_skill_section(b) for b in benches]
    return ("<!doctype html><html lang=en><head><meta charset=utf-8>"
            f"<title>skill-eval: {suite}</title><style>{_STYLE}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
