"""The ``disable_bundled_skills`` adapter option: the skills an agent CLI ships with itself made
unavailable in both arms, so neither measures them alongside (or instead of) the skill under test.

How each CLI allows it (found in the CLIs themselves, docs/adapters.md says what it changes):

- Claude Code (2.1.245 .. 2.1.332): the ``disableBundledSkills`` setting (the same as
  ``CLAUDE_CODE_DISABLE_BUNDLED_SKILLS=1``) turns off every bundled skill but a few that
  survive that switch (``doctor`` and ``plugin-authoring`` in 2.1.332); ``skillOverrides``
  set to ``"off"`` turns those off by name. Both go in through ``--settings``.
- Codex (0.153 .. 0.171): ``-c skills.bundled.enabled=false``: its system skills
  (``skill-creator``, ``skill-installer``, ``imagegen``, ``openai-docs``, ...) are neither
  installed under ``$CODEX_HOME/skills/.system`` nor listed to the model.
"""

from __future__ import annotations

import json

# The bundled skills of Claude Code that its disableBundledSkills switch leaves on.
CLAUDE_SURVIVORS = ("doctor", "plugin-authoring")


def claude_args(tested: str | None) -> list[str]:
    """``claude`` flags that turn its bundled skills off; a survivor named like the skill under
    test is not overridden (the override would turn the tested skill off too)."""
    overrides = {name: "off" for name in CLAUDE_SURVIVORS if name != tested}
    settings = {"disableBundledSkills": True, "skillOverrides": overrides}
    return ["--settings", json.dumps(settings, sort_keys=True)]


def codex_args() -> list[str]:
    """``codex exec`` flags that turn its bundled (system) skills off."""
    return ["-c", "skills.bundled.enabled=false"]
