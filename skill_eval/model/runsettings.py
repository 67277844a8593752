"""A case's own run settings (``claude plugin eval``'s ``runs``, ``max_turns``, ``allowed_tools``,
... and ``context.scaffold_script``), and the tool grants they add up to.

Grants follow plugin eval (FORMAT.md §7.3): of the tools a case lists, only the read-only ones
are granted; the suite's ``allow_tools`` (plugin eval's ``--allow-tools``) grants more for every
case; every other builtin tool is removed from the session. That holds for every case a plugin
eval suite holds (``gated``), whatever it sets: one listing no tools grants itself none (plugin
eval's ``allowed_tools`` defaults to ``[]``). A Bash grant in any form
(``Bash``, ``Bash(npm test *)``) means the agent runs sandboxed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skill_eval.model.mocks import Mocks

# The read-only tools a case may grant itself (plugin eval's own list).
READ_ONLY_TOOLS = ("Read", "Glob", "Grep", "NotebookRead", "Skill", "AskUserQuestion", "TaskCreate",
                   "TaskGet", "TaskList", "TaskUpdate", "TaskStop", "Agent", "TodoWrite")
# Builtin tools that change files, run commands, reach the network or act outside the session:
# removed unless granted. The list plugin eval's child sessions are started without (Claude Code
# 2.1.332's --disallowed-tools, path rules aside); a name an older CLI lacks is ignored by it.
GATED_TOOLS = ("Bash", "PowerShell", "Monitor", "EnterWorktree", "ExitWorktree", "ExitPlanMode",
               "Edit", "Write", "NotebookEdit", "memory_list", "memory_read", "memory_write",
               "WebFetch", "ReportFindings", "WebSearch", "SendFeedback", "SendToProject",
               "SendToProjectContext", "EnterPlanMode", "DesignSync", "Projects", "Artifact",
               "ArtifactComments", "ArtifactData", "ArtifactCheck", "AppifactRepl", "SendMessage",
               "SendFile", "ListAgents", "ShareOnboardingGuide", "Poll", "Yield", "Workflow",
               "CronCreate", "CronDelete", "CronList", "ScheduleWakeup", "RemoteTrigger",
               "SearchMcpRegistry", "SuggestConnectors", "ShowOnboardingRolePicker",
               "OfferChromeSetup", "WrapUp", "ReadNotifications", "ReadWidgetContext",
               "McpTaskCheck", "McpTaskResumePolling", "McpTaskShowQuestion", "request_computer",
               "ListConnectors", "SearchPlugins", "SearchSkills", "SuggestPluginInstall",
               "SuggestSkills", "ListPlugins", "ListSkills", "SendUserMessage", "SendUserFile",
               "propose_skills", "SetGoal", "PauseGoal", "GetGoal", "PublishPlugin",
               "PushNotification", "FetchInboxMessage", "ListMcpResourcesTool",
               "ReadMcpResourceTool", "ReadMcpResourceDirTool", "GetTask")
SHELL_TOOLS = ("Bash", "PowerShell")
ENV_KEY = re.compile(r"EVAL_[A-Z0-9_]*\Z")
SCAFFOLD_SECONDS = 120.0
DEFAULT_MAX_TURNS = 10  # plugin eval's turn cap for a case that sets none (FORMAT.md §2)


def tool_name(grant: str) -> str:
    """``Bash(npm test *)`` -> ``Bash``."""
    return grant.split("(", 1)[0].strip()


@dataclass(frozen=True)
class CaseRunOptions:
    """The suite's keys for cases with their own settings: ``allow_tools`` (plugin eval's
    ``--allow-tools``) and ``scaffold`` (its ``--scaffold``); ``run`` can add to both."""

    allow_tools: tuple[str, ...] = ()
    scaffold: bool = False
    both_arms: bool = False  # history_file cases run both arms too (plugin eval: --ablation with-without)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> CaseRunOptions:
        return cls(tuple(raw.get("allow_tools", ())), bool(raw.get("scaffold", False)),
                   bool(raw.get("both_arms", False)))


@dataclass(frozen=True)
class CaseFile:
    """A file of the case folder a run uses (``context.scaffold_script``, ``context.history_file``):
    its case-relative path (for messages) and its text (None: the file does not exist; a run
    that would use it fails, as in plugin eval)."""

    rel: str
    text: str | None


Scaffold = CaseFile


@dataclass(frozen=True)
class RunSettings:
    """What a case sets about its own runs; None / empty where it sets nothing."""

    runs: int | None = None
    model: str | None = None
    max_turns: int | None = None
    timeout_seconds: float | None = None
    append_system_prompt: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    allowed_tools: tuple[str, ...] | None = None  # as the case lists them (None: not listed)
    scaffold: Scaffold | None = None
    history: CaseFile | None = None  # context.history_file: a transcript the run resumes
    mocks: Mocks | None = None  # mocked MCP servers (the suite's mocks/ and the case's own)
    gated: bool = False  # runs under plugin eval's grants whatever it sets (every plugin eval case)

    @property
    def turn_cap(self) -> int | None:
        """The turn cap its runs get: its own ``max_turns``, else plugin eval's default for a plugin
        eval case (a case that sets none still stops at 10 turns there, FORMAT.md §2)."""
        if self.max_turns is not None:
            return self.max_turns
        return DEFAULT_MAX_TURNS if self.gated else None

    def bad_env_keys(self) -> list[str]:
        """``env`` keys outside ``EVAL_*``: each fails the run (as in plugin eval)."""
        return [k for k, _ in self.env if not ENV_KEY.match(k)]

    def granted(self, suite_grants: tuple[str, ...] = ()) -> tuple[str, ...]:
        """The tools this case's runs may use: its read-only ones, plus the suite's grants."""
        own = [t for t in self.allowed_tools or () if tool_name(t) in READ_ONLY_TOOLS]
        return tuple(dict.fromkeys([*own, *suite_grants]))

    def not_granted(self, suite_grants: tuple[str, ...] = ()) -> tuple[str, ...]:
        """Tools the case lists that are not granted (plugin eval prints them as ``not granted``)."""
        names = {tool_name(g) for g in self.granted(suite_grants)}
        return tuple(t for t in self.allowed_tools or () if tool_name(t) not in names)

    def removed(self, suite_grants: tuple[str, ...] = ()) -> tuple[str, ...]:
        names = {tool_name(g) for g in self.granted(suite_grants)}
        return tuple(t for t in GATED_TOOLS if t not in names)

    def grants_apply(self, suite_grants: tuple[str, ...] = ()) -> bool:
        """Whether plugin eval's grants (read-only tools listed, the suite's, nothing else) are
        applied: always for a plugin eval case (``gated``: its tool list is plugin eval's even
        where it lists none or sets nothing), else where tools are listed or granted."""
        return self.gated or self.allowed_tools is not None or bool(suite_grants)

    def key_material(self, suite_grants: tuple[str, ...], scaffold_runs: bool) -> dict[str, Any]:
        """This case's part of its runs' key: only what is set, so a case without settings keeps
        the key it had. The scaffold's text counts only where it runs (``--scaffold``)."""
        out: dict[str, Any] = {}
        for name in ("model", "turn_cap", "timeout_seconds", "append_system_prompt"):
            value = getattr(self, name)
            if value is not None:
                out[name.replace("turn_cap", "max_turns")] = value
        if self.history is not None:
            out["history"] = self.history.text
        if self.env:
            out["env"] = dict(self.env)
        if self.grants_apply(suite_grants):
            out["tools"] = {"allowed": list(self.granted(suite_grants)),
                            "removed": list(self.removed(suite_grants))}
        if self.scaffold is not None and scaffold_runs:
            out["scaffold"] = self.scaffold.text
        if self.mocks is not None:  # one entry per mock file, so status names the one that changed
            out.update(self.mocks.key_material())
        return out

    def request(self, suite_grants: tuple[str, ...] = ()) -> dict[str, Any]:
        """The protocol request's ``settings`` field (docs/protocol.md); {} when nothing is set."""
        out: dict[str, Any] = {}
        for name in ("turn_cap", "timeout_seconds", "append_system_prompt"):
            value = getattr(self, name)
            if value is not None:
                out[name.replace("turn_cap", "max_turns")] = value
        if self.env:
            out["env"] = dict(self.env)
        if self.grants_apply(suite_grants):
            out["allowed_tools"] = list(self.granted(suite_grants))
            out["disallowed_tools"] = list(self.removed(suite_grants))
        return out

    @property
    def empty(self) -> bool:
        return self == RunSettings()
