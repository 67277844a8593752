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


def _moved(results: Path) -> list[dict[str, Any]]:
    """The moved-cases list the last summary computed (the previous benchmark is gone by now)."""
    import json

    try:
        return list(json.loads((results / "summary.json").read_text("utf-8")).get("moved", []))
    except (OSError, ValueError, AttributeError):
        return []


def report(project: Project, fmt: str, out: Path | None) -> int:
    from skill_eval.engine.engine import Engine
    from skill_eval.review.folder.tables import build_skill, build_summary, review_html, written_benches
    from skill_eval.review.render import FORMATS

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
    moved = _moved(project.suite.results)
    page = review_html(engine, benches, moved) if fmt == "html" else FORMATS[fmt].render(benches, moved)
    compared: list[str] = []
    if fmt == "github":
        from skill_eval.cli.subcommands.compare import github_compare

        table, compared = github_compare(engine, project, benches)
        page += table
    text = redact(page)
    if out is None and fmt == "github":
        # stdout is for the runner's workflow commands; the step summary goes to a file.
        out = project.suite.results / FORMATS[fmt].filename
    elif out is None and fmt in ("html", "plugin-eval-json"):
        out = project.suite.results / FORMATS[fmt].filename  # opened or read as a file, not in a terminal
    if out is not None:
        with writing(out):
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, "utf-8")
        print(f"wrote {display_path(out)}", file=sys.stderr if fmt == "github" else sys.stdout)
    else:
        sys.stdout.write(text)
    if fmt == "github":
        from skill_eval.review.render.github import annotations

        where = {(se.skill.name, c.id): (c.source, c.line) for se in project.skills for c in se.cases
                 if c.source}
        for line in annotations(benches, where) + compared:
            print(redact(line))
    if not benches:
        raise SkillEvalError("no results in the store yet for this suite; run 'skill-eval run' first")
    # The report was written: that is this command's success (the verdict's exit code is
    # `run`'s), unless a stored run was found damaged and could not be shown.
    return 2 if engine.damaged else 0
