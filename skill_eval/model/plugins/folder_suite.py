"""A Claude Code plugin's folder (or its eval folder) given where a suite file is expected: run
as the suite ``claude plugin eval <plugin>`` runs, with its defaults.

The suite is the plugin's ``skill-eval.yaml`` where there is one (``skill-eval init`` writes it
there), else the one that file would hold: every skill of the plugin, the plugin loaded whole in
the with-skill arm, the claude-code adapter with the environment plugin eval passes
(``env_preset: plugin-eval``), both arms, each case's own settings (``runs`` else 3, ``max_turns``,
``timeout_seconds``, tools), a claude-code judge on haiku (plugin eval's judge model), the store
in ``.skill-eval/store`` and the results in ``<eval folder>/results/skill-eval/``, beside plugin
eval's own results, both inside the plugin and never given to the agent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.intake.yamlpos import Located, load_yaml
from skill_eval.model.plugins.layout import eval_dir, is_plugin, plugin_name

SUITE_FILE = "skill-eval.yaml"
STORE = ".skill-eval/store"


def plugin_folder(path: Path) -> Path | None:
    """The plugin a folder argument names: the plugin's own folder, or its eval folder."""
    path = path.resolve()
    if is_plugin(path) or ((path / "skills").is_dir() and eval_dir(path).is_dir()):
        return path
    parent = path.parent
    if is_plugin(parent) and eval_dir(parent) == path:
        return parent
    return None


def _suite_name(root: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", plugin_name(root)).strip("-.")[:100]
    return name if name and name[0].isalnum() else "plugin"


def default_suite(root: Path) -> dict[str, Any]:
    """The suite of the plugin at ``root`` (paths relative to ``root``, where its file goes)."""
    results = (eval_dir(root) / "results" / "skill-eval").relative_to(root).as_posix()
    return {"suite": _suite_name(root), "plugin": ".", "skills": ["*"],
            "adapter": {"builtin": "claude-code", "env_preset": "plugin-eval"},
            "judge": {"builtin": "claude-code", "model": "haiku", "env_preset": "plugin-eval"},
            "variants": ["with_skill", "without_skill"], "iterations": 3, "timeout_seconds": 300,
            "store": STORE, "results": results}


def suite_text(root: Path) -> str:
    """``default_suite`` as the file ``skill-eval init`` writes in a plugin, with what each part means."""
    s = default_suite(root)
    return (
        "# The suite `claude plugin eval` runs over this plugin (docs/dialects.md#plugins), for\n"
        "# skill-eval: `skill-eval run` here (or `skill-eval run <plugin folder>`).\n"
        f"suite: {s['suite']}\n"
        "plugin: .                  # loaded whole in the with-skill arm, as `claude --plugin-dir .`\n"
        "skills: ['*']              # the plugin's skills/; cases from its eval folder\n"
        "adapter:\n"
        "  builtin: claude-code     # `claude` on PATH\n"
        "  env_preset: plugin-eval  # pass what plugin eval passes: ANTHROPIC_*, CLAUDE_CODE_*, EVAL_*, ...\n"
        "judge:                     # llm and baseline graders, on plugin eval's judge model\n"
        "  builtin: claude-code\n"
        "  model: haiku\n"
        "  env_preset: plugin-eval\n"
        "variants: [with_skill, without_skill]\n"
        "iterations: 3              # a case's own `runs` wins\n"
        "timeout_seconds: 300       # a case's own `timeout_seconds` wins where shorter\n"
        f"store: {s['store']}\n"
        f"results: {s['results']}\n")


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def suite_source(path: Path) -> tuple[Path, Located]:
    """The suite file and its YAML; a plugin's folder stands for its own suite."""
    if not path.is_dir():
        return path, load_yaml(path, _shown(path))
    plugin = plugin_folder(path)
    if plugin is None:
        raise InvalidInput([Problem(_shown(path), "is a folder; give the suite's YAML file (skill-eval init "
                                    "writes one), or a Claude Code plugin's folder")])
    file = plugin / SUITE_FILE
    return file, load_yaml(file, _shown(file)) if file.is_file() else Located(default_suite(plugin), {})
