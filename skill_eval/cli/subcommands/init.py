"""``skill-eval init [DIR]``: a suite, a skill and (for ``command``) an offline adapter to start from.
In a Claude Code plugin's folder: only the suite ``claude plugin eval`` runs over it
(model/plugins/folder_suite.py), no placeholder skill.

Never overwrites: every file that exists is kept as it is and said so, so a second ``init``
changes nothing. The templates are package data (templates/init/), not strings in code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from skill_eval.errors import InvalidInput, Problem
from skill_eval.model.builtins import ADAPTERS
from skill_eval.model.evaldraft import INPUT_FILE, draft_evals
from skill_eval.model.plugins.folder_suite import plugin_folder, suite_text

SUITE_FILE = "skill-eval.yaml"
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# The offline echo adapter init writes beside the suite; each builtin's block is its descriptor's.
_COMMAND_BLOCK = ("  command: [python3, adapter.py]   # protocol v1 (docs/protocol.md); edit adapter.py\n"
                  "  env: []                          # variables passed through, e.g. [MY_API_KEY]")


def adapter_choices() -> list[str]:
    """What ``init --adapter`` offers: ``command`` (the default), then every builtin that says
    what init writes for it, read from the registry when asked (so one added later is offered)."""
    return ["command", *(d.name for d in ADAPTERS if d.init_block is not None)]


def _adapter_block(adapter: str) -> str:
    found = ADAPTERS.get(adapter)
    return found.init_block if found is not None and found.init_block is not None else _COMMAND_BLOCK


@dataclass(frozen=True)
class Written:
    path: Path
    written: bool  # False: it existed and was kept


def _template(name: str) -> str:
    return resources.files("skill_eval.cli").joinpath("templates", "init", name).read_text(encoding="utf-8")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:64].strip("-") or "my-skill"


def _skill_names(root: Path, skill: str | None) -> list[str]:
    if skill is not None:
        if not _NAME.fullmatch(skill):
            raise InvalidInput([Problem("--skill", f"'{skill}' is not a skill name: lowercase "
                                        f"letters, digits and single hyphens (e.g. {_slug(skill)})")])
        return [skill]
    existing = sorted(p.parent.name for p in (root / "skills").glob("*/SKILL.md"))
    return existing or [_slug(root.resolve().name)]


def _put(path: Path, text: str, done: list[Written]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as f:  # "x": never replaces what is there
            f.write(text)
    except FileExistsError:
        done.append(Written(path, False))
        return
    done.append(Written(path, True))


def init_project(root: Path, skill: str | None = None, adapter: str = "command") -> list[Written]:
    """Write what is missing of a runnable suite in ``root``; return every file, written or kept."""
    if adapter not in adapter_choices():
        known = ", ".join(adapter_choices())
        raise InvalidInput([Problem("--adapter", f"unknown adapter '{adapter}'; one of {known}")])
    done: list[Written] = []
    plugin = plugin_folder(root) if root.is_dir() and skill is None else None
    if plugin is not None and plugin == root.resolve():
        _put(root / SUITE_FILE, suite_text(plugin), done)
        return done
    root.mkdir(parents=True, exist_ok=True)
    names = _skill_names(root, skill)
    suite = Template(_template("suite.yaml")).substitute(
        suite=_slug(root.resolve().name), skill=names[0] if len(names) == 1 else "*",
        adapter=_adapter_block(adapter))
    _put(root / SUITE_FILE, suite, done)
    for name in names:
        skill_dir = root / "skills" / name
        title = name.replace("-", " ").capitalize()
        _put(skill_dir / "SKILL.md", Template(_template("SKILL.md")).substitute(name=name, title=title), done)
        evals = skill_dir / "evals" / "evals.json"
        if evals.exists() or any((skill_dir / "evals").glob("*.json")):
            done.append(Written(evals, False) if evals.exists() else Written(skill_dir / "evals", False))
            continue
        drafted = draft_evals(name, (skill_dir / "SKILL.md").read_text(encoding="utf-8"))
        _put(evals, json.dumps(drafted, indent=2, ensure_ascii=False) + "\n", done)
        _put(skill_dir / INPUT_FILE, _template("example-input.txt"), done)
    if adapter == "command":
        _put(root / "adapter.py", _template("adapter.py"), done)
    return done


def next_steps(root: Path, adapter: str) -> list[str]:
    suite = root / SUITE_FILE
    if plugin_folder(root) == root.resolve() and suite.is_file() and "plugin: ." in suite.read_text("utf-8"):
        return [f"skill-eval validate {root}", f"skill-eval run {root}   (the claude-code adapter calls a "
                "real model: set ANTHROPIC_API_KEY or log claude in; docs/dialects.md#plugins)"]
    steps = [f"skill-eval validate {suite}", f"skill-eval run {suite}"]
    edits = ["edit SKILL.md (name, description, instructions) and evals/evals.json: every "
             "'TODO(skill-eval init)' marks a placeholder"]
    if adapter == "command":
        edits.append(f"replace answer() in {root / 'adapter.py'} with a call to your agent "
                     "(it echoes the prompt until then; the protocol: docs/protocol.md)")
    else:
        edits.append(f"set the variables listed under adapter.env in {suite} (the {adapter} builtin "
                     "calls a real model: docs/adapters.md)")
    return [*steps, *edits]
