"""The builtin adapters and judges by name: the one registry both the config check and the runner read.

A builtin adapter is a module of ``skill_eval.run.adapters`` started as a protocol-v1 process;
adding one is one entry here and one module there. Names are matched with ``-`` and ``_`` alike.
"""

from __future__ import annotations

from typing import Any

from skill_eval.errors import Problem

ADAPTERS_PACKAGE = "skill_eval.run.adapters"

# builtin name (with "_") → module name inside ADAPTERS_PACKAGE
ADAPTERS: dict[str, str] = {
    "demo": "demo",
    "replay": "replay",
    "claude_code": "claude_code",
    "codex": "codex",
    "openai": "openai_compat",
    "openai_compat": "openai_compat",
    "gemini": "gemini",
    "opencode": "opencode",
    "vibe": "vibe",
}

# Builtins that drive an agent CLI: its default executable and the option naming another. The
# CLI's version is in the run key, so the fast path watches the executable.
CLI_BINARIES: dict[str, tuple[str, str]] = {
    "claude_code": ("claude", "claude_bin"),
    "codex": ("codex", "codex_bin"),
    "gemini": ("gemini", "gemini_bin"),
    "opencode": ("opencode", "opencode_bin"),
    "vibe": ("vibe", "vibe_bin"),
}

# Builtins that serve ``--judge``; the offline demo/replay adapters do not.
JUDGE_BUILTINS = ("claude-code", "codex", "openai")
_JUDGE_ALIASES = {"claude_code": "claude-code", "openai_compat": "openai", "openai-compat": "openai"}


# Judge builtins that answer a raw completion (an agent mock's question); a command judge answers
# for itself (docs/judging.md).
COMPLETION_JUDGES = ("claude-code", "openai")


def adapter_module(name: str) -> str | None:
    """The dotted module of builtin adapter ``name``, or None when there is no such builtin."""
    module = ADAPTERS.get(name.replace("-", "_"))
    return f"{ADAPTERS_PACKAGE}.{module}" if module else None


def adapter_names() -> list[str]:
    return sorted({n.replace("_", "-") for n in ADAPTERS})


def judge_builtin(name: str) -> str | None:
    """The canonical judge builtin for ``name`` (claude_code → claude-code), or None if it is none."""
    canon = _JUDGE_ALIASES.get(name, name)
    return canon if canon in JUDGE_BUILTINS else None


def judge_problems(suite_file: str, judge: Any) -> list[Problem]:
    """Problems with a suite's ``judge:`` mapping that the schema cannot express."""
    if isinstance(judge, dict) and judge.get("builtin") and judge_builtin(str(judge["builtin"])) is None:
        return [Problem(suite_file, f"judge: builtin '{judge['builtin']}' cannot judge (judge builtins: "
                                    f"{', '.join(JUDGE_BUILTINS)}; or use 'command: [...]')")]
    if isinstance(judge, dict) and judge.get("builtin") and judge.get("command"):
        return [Problem(suite_file, "judge: set either 'builtin' or 'command', not both")]
    return []
