"""The review page (<results>/index.html, ``report --format html``): one self-contained file that
opens from disk. The figures are rendered by a jinja2 template with autoescape; the runs are
embedded once as JSON and drawn on demand by the page's own script with DOM text APIs. A
Content-Security-Policy allows only that script and stylesheet (by hash) and no network."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from skill_eval.review.comparison.agents import EFFECT_WORDS, agent_rows
from skill_eval.review.comparison.verdict import (
    RULE_NAMES,
    css_class,
    evidence,
    label,
    p_detail,
    rule,
    rule_text,
    until_decided_verdict,
)
from skill_eval.review.render.format import ReportFormat, ReportInput
from skill_eval.review.render.markdown import (
    ci,
    cost_note,
    credit_line,
    lift_note,
    parts_line,
    pct,
    plural,
    pvalue,
    signed,
    tokens,
    ungraded_note,
    usd,
    warnings,
)
from skill_eval.review.render.plugin_eval_md import plugin_eval_figures
from skill_eval.review.render.sections_md import ABLATION_VERDICTS
from skill_eval.review.render.statslines import decision_line, holm_note, interval_line

_TEMPLATES = "templates"


@cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(_TEMPLATES, name).read_text("utf-8")


@cache
def _env() -> Any:
    import jinja2

    loader = jinja2.FunctionLoader(lambda name: _asset(name))
    return jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True)


def csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def embed_json(data: Any) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' survives, so run
    text holding '</script>' or '<!--' cannot end the block."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _arm_row(name: str, arm: Mapping[str, Any]) -> dict[str, str]:
    dur = arm.get("duration_s") or {}
    return {
        "name": name, "rate": pct(arm.get("pass_rate")), "credit": pct(arm.get("partial_credit")),
        "runs": f"{arm.get('passed', 0)}/{arm.get('graded', 0)} runs passed over "
                f"{plural(arm.get('cases', 0), 'case')}",
        "errors": str(arm.get("errors", 0)),
        "ungraded": str(arm.get("rubric_ungraded", 0)),
        "tokens": tokens(arm.get("tokens_per_run")),
        "cost_run": usd(arm.get("cost_usd_per_run")), "cost": usd(arm.get("cost_usd")),
        "time": "n/a" if dur.get("median") is None else f"{dur['median']:.2f} s",
    }


def figures(bench: Mapping[str, Any]) -> dict[str, Any]:
    v, lift = bench["variants"], bench["lift"]
    weak = [c["id"] for c in bench.get("checks", []) if c.get("non_discriminating")]
    trig = bench.get("triggers") or {}
    return {
        "skill": bench["skill"], "model": bench["model"], "verdict": bench["verdict"],
        "verdict_label": label(bench), "verdict_rule": RULE_NAMES.get(rule(bench), rule(bench)),
        "verdict_why": rule_text(bench), "verdict_evidence": evidence(bench),
        "verdict_class": css_class(bench),  # an estimate-pass is not drawn as a plain pass
        "cases": len(bench["cases"]),
        "with": pct(v["with_skill"]["pass_rate"]), "without": pct(v["without_skill"]["pass_rate"]),
        "lift": f"{signed(lift['pass_rate'])} (n={lift['cases']})",
        "p": pvalue(lift["p_value"]) + holm_note(lift),
        "p_name": p_detail(bench),  # "fixed-sample p" where the until-decided decision is the verdict
        "ci": ci(lift["ci95"]), "note": lift_note(bench),
        "indeterminate": bool(lift.get("indeterminate")) and lift.get("pass_rate") is not None,
        "arms": [_arm_row("with skill", v["with_skill"]), _arm_row("without skill", v["without_skill"])],
        # Partial credit is shown beside the pass rate, never as it (see stats/credit.py).
        "credit": credit_line(bench),
        "ungraded": ungraded_note(bench), "parts": parts_line(bench), "warnings": warnings(bench),
        "weak": weak, "cost": cost_note(bench),
        "minimum": None if lift.get("minimum_lift") is None else
        f"Minimum lift {signed(lift['minimum_lift'])}: {'met' if lift.get('met') else 'NOT met'}"
        + (" (not the verdict: --until-decided decides it)." if until_decided_verdict(bench) else "."),
        "intervals": interval_line(bench), "decision": decision_line(bench),
        "ablations": [_ablation_row(a) for a in bench.get("ablations") or []],
        "plugin_eval": plugin_eval_figures(bench),
        "triggers": None if not trig else
        f"Trigger queries: precision {_r(trig.get('precision'))}, recall {_r(trig.get('recall'))}, "
        f"accuracy {_r(trig.get('accuracy'))} over "
        f"{plural(len(trig.get('queries', [])), 'query', 'queries')}.",
    }


def _ablation_row(a: Mapping[str, Any]) -> dict[str, str]:
    return {"name": str(a["name"]), "remove": ", ".join(str(r) for r in a["remove"]),
            "with": pct(a["with_skill_pass_rate"]),
            "ablated": pct(a["pass_rate"]) + (f", {a['errors']} errored" if a["errors"] else ""),
            "loss": f"{signed(a['loss'])} (n={a['cases']})", "p": pvalue(a["p_value"]), "ci": ci(a["ci95"]),
            "verdict": ABLATION_VERDICTS.get(a["verdict"], str(a["verdict"])), "v": str(a["verdict"])}


def _r(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def page_runs(skill: Mapping[str, Any]) -> int:
    """How many runs one skill's page data shows."""
    return sum(len(c["runs"]) for c in skill["cases"] + skill["triggers"])


def embed_parts(suite: str, skills: Sequence[str]) -> str:
    """``embed_json({"suite": suite, "skills": [...]})`` from each skill's ``embed_json`` text
    (the escapes are per character, so the parts join into exactly the whole)."""
    return '{"suite":' + embed_json(suite) + ',"skills":[' + ",".join(skills) + "]}"


def review_page(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]],
                data: Mapping[str, Any], history: Mapping[str, Any] | None = None) -> str:
    """``history``: the compare table and strips (review/render/page/history.py), if any."""
    skills = data.get("skills", [])
    return render_page(benches, moved, embed_json(data), sum(page_runs(s) for s in skills),
                       str(data.get("suite", "skill-eval")), history)


def review_html(report: ReportInput) -> str:
    """The page. With each skill's share holding every run's details (the results folder gives
    them, ``report.page_part``) and the store (the history parts), the whole page; else the
    figures only."""
    from skill_eval.review.render.page.history import page_history
    from skill_eval.review.render.page.run_data import review_data

    benches, moved = report.benches, report.moved
    if report.source is None or report.page_part is None:
        return review_page(benches, moved, review_data(None, [(b, None) for b in benches], moved))
    parts, runs = [], 0
    for b in benches:
        part, shown = report.page_part(b)
        parts.append(part)
        runs += shown
    suite = str(benches[0]["suite"]) if benches else "skill-eval"
    # The history parts (the compare table, the strips, the previous version's outputs) depend on
    # the store's history, not on a skill's inputs: they are attached afresh, to the skills that
    # have a version to compare with; only those skills' parts are decoded and embedded again.
    decoded: dict[int, dict[str, Any]] = {}

    def skill_data(i: int) -> dict[str, Any]:
        if i not in decoded:
            decoded[i] = json.loads(parts[i])
        return decoded[i]

    history = page_history(report.source, benches, skill_data)
    for i, entry in decoded.items():
        parts[i] = embed_json(entry)
    return render_page(benches, moved, embed_parts(suite, parts), runs, suite, history)


def render_page(benches: Sequence[Mapping[str, Any]], moved: Sequence[Mapping[str, Any]],
                embedded: str, runs: int, suite: str = "skill-eval",
                history: Mapping[str, Any] | None = None) -> str:
    """The page around its data, already embedded (``embed_json`` or ``embed_parts``)."""
    # One script and one stylesheet, each allowed by its hash; the history part rides along.
    script = _asset("history.js") + "\n" + _asset("review.js")
    style = _asset("review.css") + _asset("history.css")
    strips = list((history or {}).get("strips", []))
    parts = {"compare": list((history or {}).get("compare", [])),
             "strips": strips + [None] * (len(benches) - len(strips))}
    csp = ("default-src 'none'; script-src " + csp_hash(script) + "; style-src " + csp_hash(style)
           + "; img-src data:; base-uri 'none'; form-action 'none'")
    suite = str(benches[0]["suite"]) if benches else suite
    return _env().get_template("review.html.j2").render(
        suite=suite, csp=csp, script=script, style=style, data=embedded, history=parts,
        benches=[figures(b) for b in benches], moved=len(moved), runs=runs, agents=agent_figures(benches))


def agent_figures(benches: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The page's lift-per-agent table (a suite with ``agents:``; else empty)."""
    return [{"skill": str(r["skill"]), "agent": str(r["agent"]), "model": str(r["model"]),
             "lift": f"{signed(r['lift'])} (n={r['cases']})", "ci": ci(r["ci95"]), "p": pvalue(r["p_value"]),
             "p_holm": pvalue(r["p_holm"]), "effect": r["effect"], "reading": EFFECT_WORDS[r["effect"]]}
            for r in agent_rows(benches)]


# Opened in a browser from its file, never read in a terminal.
HTML = ReportFormat("html", "index.html", review_html, to_stdout=False, every_run=True)
