"""Whether the suite's adapter can honour each case's own run settings (a ``claude plugin eval``
suite): what it cannot is an error at ``validate`` and ``run``, never a setting silently dropped.
Also the notices plugin eval itself prints: scaffolds that do not run without ``--scaffold``, and
tools a case lists that are not granted."""

from __future__ import annotations

from typing import Any

from skill_eval.errors import Problem
from skill_eval.model.builtins import ADAPTERS, completion_judges, find, judge_builtin
from skill_eval.model.mocks import EXTRA, mcp_installed

# Settings only the adapter can apply (runs, model, timeout_seconds and the scaffold are applied
# by skill-eval itself, for every adapter).
_AGENT_SETTINGS = ("max_turns", "append_system_prompt", "env", "allowed_tools", "history", "mocks")
# Builtins that apply them all say so in their descriptor (``applies_settings``); a command adapter
# gets them in the request and answers for itself. A builtin with tools of its own (``own_tools``:
# a shell, file edits) that plugin eval's grants would remove refuses every plugin eval case, even
# one that lists no tools (it grants itself none); the other builtins offer no builtin tools, so a
# case that lists none asks nothing of them.


def _applies(builtin: str) -> bool:
    found = find(builtin)
    return found is not None and found.applies_settings


def _own_tools(builtin: str) -> bool:
    found = find(builtin)
    return found is not None and found.own_tools


def _settings_builtins() -> str:
    """The builtins to suggest for a case's settings: ``{builtin: claude-code}``."""
    return " or ".join(d.name for d in ADAPTERS if d.applies_settings)


def _set(settings: Any, name: str) -> bool:
    value = getattr(settings, name)
    return bool(value) if name == "env" else value is not None


def _agent_judge_problems(project: Any) -> list[Problem]:
    """Agent mocks are played by the suite's judge: it must exist and answer completions."""
    suite = project.suite
    files = sorted({f for se in project.skills for case in se.cases
                    if case.settings is not None and case.settings.mocks is not None
                    for f in case.settings.mocks.agent_sources()})
    if not files:
        return []
    named = f"{files[0]}{f' (and {len(files) - 1} more)' if len(files) > 1 else ''}"
    judge = suite.judge
    judges = completion_judges()
    if judge is None:
        others = "".join(f"{name}, " for name in judges[1:])
        return [Problem(str(suite.path), f"agent mock {named} is played by the suite's judge, and the "
                        f"suite has none: add judge: {{builtin: {judges[0]}}} (or {others}or a command)")]
    if judge.builtin and not judge.command and judge_builtin(judge.builtin) not in judges:
        return [Problem(str(suite.path), f"agent mock {named} is played by the suite's judge, and judge "
                        f"{judge.builtin} cannot answer a completion request; use judge: {{builtin: "
                        f"{' or '.join(judges)}}} or a command judge")]
    return []


def settings_problems(project: Any) -> list[Problem]:
    """Errors for settings the adapter cannot apply, then one notice per kind for the rest."""
    suite = project.suite
    # With agents: the first agent that cannot apply them speaks for the suite.
    builtins = [a.builtin if not a.command else None for a in suite.adapters()]
    builtin = next((b for b in builtins if b is not None and not _applies(b)), builtins[0])
    out: list[Problem] = []
    unstaged: list[str] = []
    single: list[str] = []
    refused: dict[str, int] = {}
    mocked: list[str] = []
    for se in project.skills:
        for case in se.cases:
            s = case.settings
            if s is None:
                continue
            where = case.source or str(se.skill.path)
            if s.history is not None and s.history.text is None:
                out.append(Problem(where, f"case '{case.id}': context.history_file {s.history.rel!r} does "
                                   "not exist in the case folder; fix the path", case.line))
            if s.history is not None and not suite.case_runs.both_arms:
                single.append(case.id)
            if builtin is not None and not _applies(builtin):
                names = [n for n in _AGENT_SETTINGS if _set(s, n)]
                if not names and _own_tools(builtin) and s.gated:
                    names = ["nothing, but runs under plugin eval's tool grants (read-only tools only)"]
                if names:
                    out.append(Problem(where, f"case '{case.id}' sets {', '.join(names)}, which adapter "
                                       f"{builtin} cannot apply; use adapter: {{builtin: "
                                       f"{_settings_builtins()}}}", case.line))
            if s.mocks is not None and s.mocks.served(True):
                mocked.append(case.id)
            if s.scaffold is not None and not suite.case_runs.scaffold:
                unstaged.append(case.id)
            for tool in s.not_granted(suite.case_runs.allow_tools):
                refused[tool] = refused.get(tool, 0) + 1
    out += _agent_judge_problems(project)
    if mocked and not mcp_installed():
        out.append(Problem(str(suite.path), f"{len(mocked)} case{'s' * (len(mocked) != 1)} use mocked MCP "
                           f"servers (mocks/), served with the MCP SDK: pip install 'skill-eval[{EXTRA}]'"))
    if unstaged:
        listed = ", ".join(f'"{c}"' for c in unstaged)
        out.append(Problem(str(suite.path), f"cases {listed}: their scaffold_script is not run without "
                           "--scaffold (author-supplied bash that runs as you: pass it, or set "
                           "'scaffold: true', only for suites you trust); they run against an "
                           "unstaged workspace", severity="warning"))
    if single:
        out.append(Problem(str(suite.path), f"{len(single)} case{'s' * (len(single) != 1)} run single-arm "
                           "(no lift): a resumed history carries the skill into both arms: "
                           f"{', '.join(single)} (both_arms: true runs the without-skill arm too)",
                           severity="warning"))
    if refused:
        listed = ", ".join(f"{t} ({n} case{'s' * (n != 1)})" for t, n in sorted(refused.items()))
        out.append(Problem(str(suite.path), f"not granted: {listed}; cases may grant only read-only "
                           "tools, grant more with the suite's allow_tools or run --allow-tools",
                           severity="warning"))
    return out
