"""What Codex's session log (``$CODEX_HOME/sessions/**/rollout-*<thread>.jsonl``) tells that its
``exec --json`` stream does not."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.shared.agentcli import skills_read_in

_CALL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call"}


@functools.lru_cache(maxsize=4)
def session_calls(home: str | None, thread_id: str | None) -> tuple[dict[str, Any], ...]:
    """The tool-call items (``response_item`` payloads) of one thread's session log, in order.
    Read once per adapter process: the steps and the skill reads both come from here, after the
    run has ended (the log no longer grows)."""
    if not home or not thread_id:
        return ()
    calls: list[dict[str, Any]] = []
    for path in sorted(Path(home, "sessions").glob(f"**/rollout-*{thread_id}.jsonl")):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if '"response_item"' not in line or "_call" not in line:
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                payload = entry.get("payload") if isinstance(entry, dict) else None
                if (entry.get("type") == "response_item" and isinstance(payload, dict)
                        and payload.get("type") in _CALL_ITEMS):
                    calls.append(payload)
    return tuple(calls)


def session_skill_reads(env: dict[str, str], thread_id: str | None) -> list[str]:
    """Skills whose SKILL.md a tool call named, from the session log: in code mode Codex runs
    commands inside its JavaScript ``exec`` tool, and ``--json`` reports no item for them (a read
    of a bundled skill, ``skills/.system/<name>/SKILL.md``, left no trace in the stream)."""
    found: list[str] = []
    for payload in session_calls(env.get("CODEX_HOME"), thread_id):
        call = payload.get("arguments") or payload.get("input") or payload.get("action")
        text = call if isinstance(call, str) else json.dumps(call)
        if "SKILL.md" in text:
            found += skills_read_in(text)
    return found
