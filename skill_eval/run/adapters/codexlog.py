"""What Codex's session log (``$CODEX_HOME/sessions/**/rollout-*<thread>.jsonl``) tells that its
``exec --json`` stream does not."""

from __future__ import annotations

import json
from pathlib import Path

from skill_eval.run.adapters.agentcli import skills_read_in

_CALL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call"}


def session_skill_reads(env: dict[str, str], thread_id: str | None) -> list[str]:
    """Skills whose SKILL.md a tool call named, from the session log: in code mode Codex runs
    commands inside its JavaScript ``exec`` tool, and ``--json`` reports no item for them (a read
    of a bundled skill, ``skills/.system/<name>/SKILL.md``, left no trace in the stream)."""
    home = env.get("CODEX_HOME")
    if not home or not thread_id:
        return []
    found: list[str] = []
    for path in sorted(Path(home, "sessions").glob(f"**/rollout-*{thread_id}.jsonl")):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if '"response_item"' not in line or "SKILL.md" not in line:
                    continue
                try:
                    payload = json.loads(line).get("payload")
                except ValueError:
                    continue
                if not isinstance(payload, dict) or payload.get("type") not in _CALL_ITEMS:
                    continue
                call = payload.get("arguments") or payload.get("input") or payload.get("action")
                found += skills_read_in(call if isinstance(call, str) else json.dumps(call))
    return found
