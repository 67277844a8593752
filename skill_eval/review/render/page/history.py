"""The review page's history parts: the compare table at the top (against the blessed baseline
when there is one, else the previous version), a strip per skill drawn as inline SVG (with- and
without-skill pass rates and the lift with its interval per recorded version, newest right),
and, in each case whose with-skill outputs changed since the compared version, that version's
outputs and verdicts beside the current ones (attached to the page data as ``prev``).

Everything here is computed when the page is built; the SVG is plain markup with classes (the
page's stylesheet colours it), so it needs no script and nothing from the network."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skill_eval.review.render.compare_md import SHOWN, headline
from skill_eval.review.render.markdown import pct, signed
from skill_eval.review.render.page.run_data import MAX_OUTPUT_CHARS
from skill_eval.review.resultsource import ResultSource
from skill_eval.review.versions.against_version import current_of, default_comparisons
from skill_eval.review.versions.compare import Comparison, by_pair, latest_with_hash
from skill_eval.review.versions.same_outputs import SameOutputs
from skill_eval.store.history import History, HistoryRecord

STRIP_VERSIONS = 20
_W, _TOP, _RATE_H, _GAP, _LIFT_H, _PAD = 260, 6, 44, 20, 56, 14


def _arm(counts: tuple[int, int] | None) -> str:
    if counts is None:
        return "n/a"
    return f"{pct(counts[0] / counts[1] if counts[1] else None)} ({counts[0]}/{counts[1]})"


def compare_block(c: Comparison) -> dict[str, Any]:
    rows = [{"id": x.id, "before": _arm(x.before), "after": _arm(x.after), "change": signed(x.change),
             "status": x.status, "critical": x.critical} for s in SHOWN for x in c.with_status(s)]
    return {"skill": c.skill, "model": c.model, "against": c.against, "before": c.before.label,
            "after": c.after.label, "headline": headline(c), "rows": rows,
            "unchanged": len(c.with_status("same"))}


def _same_version(a: HistoryRecord, b: HistoryRecord) -> bool:
    return (a.skill_hash, dict(a.pass_rate), dict(a.lift)) == (b.skill_hash, dict(b.pass_rate), dict(b.lift))


def strip(records: Sequence[HistoryRecord], current: HistoryRecord) -> dict[str, Any] | None:
    """The strip's geometry, one column per recorded version (a run repeating the version before
    it adds no column); None with fewer than two versions, where there is nothing to draw."""
    versions: list[HistoryRecord] = []
    for r in [*records, current]:
        if versions and _same_version(versions[-1], r):
            versions[-1] = r
        else:
            versions.append(r)
    versions = versions[-STRIP_VERSIONS:]
    if len(versions) < 2:
        return None
    lift_top = _TOP + _RATE_H + _GAP

    def y_rate(v: float | None) -> float | None:
        return None if v is None else round(_TOP + (1 - v) * _RATE_H, 1)

    def y_lift(v: float | None) -> float | None:  # -100 pp .. +100 pp
        return None if v is None else round(lift_top + (1 - (v + 1) / 2) * _LIFT_H, 1)

    step = max(20.0, min(60.0, (_W - 2 * _PAD) / (len(versions) - 1)))
    cols = []
    for i, r in enumerate(versions):
        ci = r.lift.get("ci95")
        cols.append({
            "x": round(_PAD + i * step, 1), "with": y_rate(r.pass_rate.get("with_skill")),
            "without": y_rate(r.pass_rate.get("without_skill")), "lift": y_lift(r.lift.get("pass_rate")),
            "lo": y_lift(ci[0]) if ci else None, "hi": y_lift(ci[1]) if ci else None,
            "title": f"{r.label}{' ' + r.date if r.date else ''}: "
                     f"with {pct(r.pass_rate.get('with_skill'))}, "
                     f"without {pct(r.pass_rate.get('without_skill'))}, "
                     f"lift {signed(r.lift.get('pass_rate'))}"
                     + (f" [{ci[0] * 100:+.1f}, {ci[1] * 100:+.1f}] pp" if ci else ""),
            "current": r is versions[-1],
        })

    def line(key: str) -> str:
        return " ".join(f"{c['x']},{c[key]}" for c in cols if c[key] is not None)

    width = max(_W, round(_PAD * 2 + (len(cols) - 1) * step))
    return {"width": width, "height": lift_top + _LIFT_H + _TOP, "cols": cols, "with_line": line("with"),
            "without_line": line("without"), "rate_top": _TOP, "rate_bottom": _TOP + _RATE_H,
            "lift_top": lift_top, "lift_zero": y_lift(0.0), "lift_bottom": lift_top + _LIFT_H,
            "versions": len(cols)}


def _checks(grade: Any) -> list[list[Any]]:
    if not isinstance(grade, dict):
        return []
    return [[str(c.get("id")), bool(c.get("required")), bool(c.get("passed")), str(c.get("evidence", ""))]
            for c in grade.get("checks", [])]


def _prev_runs(source: ResultSource, keys: Mapping[str, Any], case: dict[str, Any],
               current: Mapping[int, str], same: SameOutputs) -> list[dict[str, Any]]:
    """Per iteration where the with-skill output differs: the compared version's run beside
    the current one (``current``: iteration -> the current run's key). Runs gone from the store
    (gc, a fresh clone) are left out."""
    now = {r["it"]: r for r in case["runs"] if r["arm"] == "with_skill"}
    out = []
    for it, run_key, grade_key in keys.get("with_skill", []):
        cur = now.get(it)
        if cur is None or it not in current or run_key == current[it]:
            continue
        read: list[Any] = []

        def equal(key: str = run_key, shown: str = cur["out"], keep: list[Any] = read) -> bool:
            keep.append(source.store.get_run(key, verify=False))
            return keep[0] is None or keep[0].output[:MAX_OUTPUT_CHARS] == shown

        if same.same(run_key, current[it], equal):
            continue
        result = read[0] if read else source.store.get_run(run_key, verify=False)
        if result is None:
            continue
        grade = source.store.get_json("grades", grade_key)
        passed = grade.get("passed") is True if isinstance(grade, dict) else None
        out.append({"it": it, "st": "ungraded" if passed is None else "pass" if passed else "fail",
                    "out": result.output[:MAX_OUTPUT_CHARS], "checks": _checks(grade),
                    "now": {"st": cur["st"], "out": cur["out"],
                            "checks": [[k[0], k[2], k[3], k[4]] for k in cur["checks"]]}})
    return out


def page_history(source: ResultSource, benches: Sequence[Mapping[str, Any]],
                 skill_data: Callable[[int], dict[str, Any]]) -> dict[str, Any]:
    """Template parts ({"compare": [...], "strips": [per bench]}); attaches ``prev`` to the
    page data's cases whose outputs changed since the compared version. ``skill_data(i)``: the
    page data of ``benches[i]``, asked for only where there is a version to compare with."""
    history = History(source.store, source.suite.name)
    records = by_pair(history.records())
    current = current_of(source, benches, history)
    comparisons = {(c.skill, c.model): c for c in default_comparisons(source, current)}
    now_by_pair = {r.pair: r for r in current}
    same = SameOutputs(history.path.with_suffix(".same-outputs.json"), source.store)
    keys_now: dict[tuple[str, str, str], dict[int, str]] = {}
    for spec in source.plan.runs:
        if spec.arm == "with_skill" and (spec.skill_name, spec.column) in comparisons:
            keys_now.setdefault((spec.skill_name, spec.column, spec.case.id), {})[spec.iteration] = spec.key
    strips = []
    for i, b in enumerate(benches):
        pair = (str(b["skill"]), str(b["model"]))
        now = now_by_pair.get(pair)
        strips.append(strip(records.get(pair, []), now) if now is not None else None)
        c = comparisons.get(pair)
        if c is None:
            continue
        before = c.before if c.before.detail else latest_with_hash(records.get(pair, []), c.before.skill_hash)
        keys = history.runs(before) if before is not None else None
        if not keys:
            continue
        for case in skill_data(i)["cases"]:
            now_keys = keys_now.get((*pair, case["id"]), {})
            runs = _prev_runs(source, keys.get(case["id"], {}), case, now_keys, same)
            if runs:
                case["prev"] = {"label": f"{c.against} {c.before.label}", "runs": runs}
    same.save()
    return {"compare": [compare_block(c) for c in comparisons.values()], "strips": strips}
