"""`skill-eval compare` and `skill-eval bless`: what an edit of a skill did, and the baseline a
regression gate compares with. Neither runs an adapter: both read what the store holds."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from skill_eval.errors import SkillEvalError
from skill_eval.model.config import display_path

if TYPE_CHECKING:
    from skill_eval.model.project import Project
    from skill_eval.review.versions.against_version import Missing
    from skill_eval.review.versions.compare import Comparison


def _engine(project: Project):  # noqa: ANN202
    from skill_eval.engine.engine import Engine, RunOptions
    from skill_eval.store.store import Store

    engine = Engine(project, Store(project.suite.store), RunOptions())
    engine.rerun_damaged = False  # like report: name what `run` must redo, run nothing
    return engine


def comparisons(project: Project, against: str) -> tuple[list[Comparison], list[Missing], list[str]]:
    """What differs, what could not be paired, and the stored runs found damaged (removed:
    a damaged run must not read as one never run, nor be compared)."""
    from skill_eval.review.folder.current_version import current_records
    from skill_eval.review.versions.against_version import Missing, resolve

    engine = _engine(project)
    engine.verify_stored()
    found = resolve(engine, current_records(engine), against)
    engine.save_state()
    return ([c for c in found if not isinstance(c, Missing)], [m for m in found if isinstance(m, Missing)],
            engine.damaged)


def compare(project: Project, against: str, fmt: str, fail_on_regression: bool, alpha: float) -> int:
    import json

    from skill_eval.cli.damaged import say_damaged
    from skill_eval.review.render.compare_md import case_places, compare_annotations, compare_json, compare_md
    from skill_eval.store.redact import redact

    found, missing, damaged = comparisons(project, against)
    notes = [m.message for m in missing]
    if fmt == "json":
        print(redact(json.dumps(compare_json(found, notes, against, alpha), indent=2, sort_keys=True)))
    else:
        text = redact(compare_md(found, notes, alpha))
        print(text, end="")
        if fmt == "github":
            for line in compare_annotations(found, case_places(project), alpha):
                print(redact(line))
            summary = os.environ.get("GITHUB_STEP_SUMMARY")
            if summary:
                with open(summary, "a", encoding="utf-8") as f:
                    f.write(text)
    fatal = [m for m in missing if m.fatal]
    for m in fatal:
        print(f"skill-eval: {m.message}", file=sys.stderr)
    say_damaged(damaged)
    if damaged:
        return 2  # the comparison left out runs the store held: not a result to gate on
    if not found and not fatal:
        print(f"skill-eval: nothing to compare against {against!r}: no skill has another version "
              "recorded yet", file=sys.stderr)
        if fail_on_regression:
            # A first version has nothing to regress from: the gate holds (a first CI run passes).
            held = "nothing to compare yet (a first version): not failing"
            if fmt == "github":
                print(f"::notice title=regression gate::{held}")
            print(f"skill-eval: regression gate: {held}", file=sys.stderr)
            return 0
    if fatal or not found:
        return 2
    reasons = [r for c in found for r in c.failures(alpha)]
    if fail_on_regression and reasons:
        for r in reasons:
            print(f"skill-eval: regression: {r}", file=sys.stderr)
        return 1
    if fail_on_regression:
        # A gate that holds says why, so an exit 0 after regressed cases is not a mystery.
        from skill_eval.review.versions.compare import gate_held

        held = gate_held(found, alpha)
        if fmt == "github":
            print(f"::notice title=regression gate::{held}")
        print(f"skill-eval: regression gate: {held}", file=sys.stderr)
    return 0


def bless(project: Project) -> int:
    from skill_eval.review.folder.current_version import current_records
    from skill_eval.review.folder.tables import write_text
    from skill_eval.review.versions.baseline import baseline_json, baseline_path, baseline_text
    from skill_eval.store.history import History

    engine = _engine(project)
    records = current_records(engine)
    engine.save_state()
    unrun = [f"{r.skill} ({r.model})" for r in records
             if any(c.with_skill[1] == 0 or c.without_skill[1] == 0 for c in r.cases.values())]
    if unrun:
        raise SkillEvalError(f"not blessed: {', '.join(unrun)} have cases without graded runs in the store; "
                             f"run the suite first: skill-eval run {display_path(project.suite.path)}")
    path = baseline_path(project.suite.path)
    history = History(engine.store, project.suite.name)
    write_text(path, baseline_text(baseline_json(project.suite.name, records, history)))
    n = sum(len(r.cases) for r in records)
    print(f"blessed {len(records)} skill x model pair(s), {n} cases: wrote {display_path(path)} "
          "(commit it: 'skill-eval compare --against baseline' gates on it)")
    return 0
