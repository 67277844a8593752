"""`skill-eval report`: grade what a merged store holds ungraded, rebuild the tables, write one format."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_eval.cli.damaged import say_damaged
from skill_eval.engine.options import RunOptions
from skill_eval.errors import InvalidInput, SkillEvalError
from skill_eval.fs.storage import writing
from skill_eval.model.config import display_path
from skill_eval.store.redact import redact
from skill_eval.store.store import Store

if TYPE_CHECKING:
    from skill_eval.model.project import Project
    from skill_eval.review.render.format import ReportFormat


def _moved(results: Path) -> list[dict[str, Any]]:
    """The moved-cases list the last summary computed (the previous benchmark is gone by now)."""
    import json

    try:
        return list(json.loads((results / "summary.json").read_text("utf-8")).get("moved", []))
    except (OSError, ValueError, AttributeError):
        return []


def _write(text: str, out: Path | None, stdout_taken: bool) -> None:
    """The report to ``out``, or stdout; "wrote" goes to stderr when stdout is the lines'."""
    if out is None:
        sys.stdout.write(text)
        return
    with writing(out):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, "utf-8")
    print(f"wrote {display_path(out)}", file=sys.stderr if stdout_taken else sys.stdout)


def report(project: Project, fmt: ReportFormat, out: Path | None) -> int:
    from skill_eval.engine.engine import Engine
    from skill_eval.review.folder.tables import build_skill, build_summary, report_input, written_benches

    if project.errors:
        raise InvalidInput(project.problems)
    store = Store(project.suite.store)
    engine = Engine(project, store, RunOptions())
    engine.rerun_damaged = False  # report runs nothing: it names what `run` must redo
    engine.verify_stored()
    # Stores merged from CI shards may carry runs without grades: grading is local and cheap
    # (judge verdicts come from their own cache), so the tables never show a stored run ungraded.
    for pending in engine.pending_grades([]):
        engine.grade_one(pending.spec)
    engine.save_state()
    say_damaged(engine.damaged)
    from skill_eval.cli.subcommands.remote import remote_notes
    remote_notes(engine)
    for se in project.skills:
        build_skill(engine, se.skill.name, full_view=True)
    build_summary(engine)
    benches = written_benches(engine)
    page, lines = fmt.text_and_lines(report_input(engine, benches, _moved(project.suite.results)))
    _write(redact(page), out if out is not None or fmt.to_stdout else project.suite.results / fmt.filename,
           stdout_taken=fmt.annotated is not None)
    for line in lines:
        print(redact(line))
    if not benches:
        raise SkillEvalError("no results in the store yet for this suite; run 'skill-eval run' first")
    # The report was written: that is this command's success (the verdict's exit code is
    # `run`'s), unless a stored run was found damaged and could not be shown.
    return 2 if engine.damaged else 0
