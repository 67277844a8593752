"""A first eval set drafted from nothing but a skill's SKILL.md (what ``skill-eval init`` writes).

Three cases, each marked TODO: the main task (a word of the description must appear), a task on
an input file, and an edge case (the answer must not leak the frontmatter). The checks are
drafts: the user replaces them with what a good answer really contains. They are chosen so that
the echo adapter ``init`` writes passes them, so the first ``run`` starts from a working state.
"""

from __future__ import annotations

import re
from typing import Any

from skill_eval.model.skills import parse_frontmatter

MARK = "TODO(skill-eval init)"
INPUT_FILE = "evals/files/example-input.txt"
_HEADING = re.compile(r"^#{2,3}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{4,}")
# Words that say nothing about what a skill does.
_STOP = frozenset("""about above after again against because before being below between could
doing during every further having other should their there these those through under until
where which while would skill skills skill-eval todo using when what with from this that them
into your yours must make makes something thing things user users agent given write writes""".split())


def _terms(description: str) -> list[str]:
    seen: list[str] = []
    for word in _WORD.findall(description):
        low = word.lower().strip("-")
        if low not in _STOP and low not in seen:
            seen.append(low)
    return seen


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "section"


def draft_evals(skill_name: str, skill_md: str) -> dict[str, Any]:
    """The evals.json document for the skill ``skill_name`` whose SKILL.md text is ``skill_md``."""
    front, _ = parse_frontmatter(skill_md, "SKILL.md")
    front = front or {}
    description = str(front.get("description") or "").strip() or skill_name
    parts = skill_md.split("\n---", 1)
    body = parts[1] if skill_md.startswith("---") and len(parts) == 2 else skill_md
    headings = [h for h in _HEADING.findall(body) if MARK not in h][:2]
    terms = _terms(description) or [skill_name]
    main, edge = terms[0], terms[1] if len(terms) > 1 else terms[0]
    section_checks = [
        {"id": f"section-{_slug(h)}", "type": "contains", "value": h, "required": False,
         "description": f"{MARK}: drafted from SKILL.md's heading '{h}'; make it required (delete "
                        "'required') once a good answer must have this part"}
        for h in headings]
    return {
        "skill_name": skill_name,
        "description": f"{MARK}: drafted from SKILL.md alone. Replace every prompt with a real request "
                       "and every check with what a good answer must (or must not) contain.",
        "evals": [
            {"id": "draft-main-task",
             "description": f"{MARK}: the task the skill is for",
             "prompt": f"{MARK}: replace with a real request that needs this skill. "
                       f"Drafted from SKILL.md's description: {description}",
             "checks": [{"id": f"mentions-{_slug(main)}", "type": "contains", "value": main,
                         "description": f"{MARK}: drafted from the description's word '{main}'"},
                        *section_checks]},
            {"id": "draft-with-input-file",
             "description": f"{MARK}: a task on an input file (evals/files/ holds it)",
             "prompt": f"{MARK}: replace with a request about the input file. Use the {skill_name} "
                       f"skill on inputs/{INPUT_FILE}.",
             "files": [INPUT_FILE],
             "checks": [{"id": "names-the-input", "type": "contains", "value": "example-input.txt",
                         "description": f"{MARK}: check what the answer must say about the file"}]},
            {"id": "draft-edge-case",
             "description": f"{MARK}: an edge case the skill must handle with care",
             "prompt": f"{MARK}: replace with an edge case, e.g. a {edge} request with missing "
                       "information.",
             "checks": [{"id": f"mentions-{_slug(edge)}", "type": "regex",
                         "pattern": rf"\b{re.escape(edge)}\b",
                         "description": f"{MARK}: drafted from the description's word '{edge}'"},
                        {"id": "no-frontmatter-leak", "type": "not_contains", "value": f"name: {skill_name}",
                         "description": "the answer does not quote SKILL.md's frontmatter"}]},
        ],
    }
