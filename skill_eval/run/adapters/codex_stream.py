"""``codex exec --json``'s event stream, read into what a run reports: the answer, the tool
calls and commands, skill loads, usage by turn, the thread id and warnings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.run.adapters.shared.agentcli import (
    Collected,
    json_lines,
    number,
    skills_read_in,
)
from skill_eval.run.adapters.shared.protocol_io import (
    one_line,
)
from skill_eval.run.adapters.shared.trajectory import codex_item_events

_TOOL_ITEMS = {
    "command_execution": "command_execution",
    "file_change": "file_change",
    "mcp_tool_call": "mcp_tool_call",
    "web_search": "web_search",
}
_MESSAGE_ITEMS = {"agent_message", "assistant_message"}


def _command_text(command: Any) -> str:
    if isinstance(command, list):
        return " ".join(str(c) for c in command)
    return command if isinstance(command, str) else ""


class _Stream:
    def __init__(self) -> None:
        self.got = Collected()
        self.seen_items: set[str] = set()
        self.turns_completed = 0
        self.failed: str | None = None
        self.last_error: str | None = None
        self.last_message: str | None = None
        self.thread_id: str | None = None
        self.warnings: list[str] = []

    def warn(self, text: str) -> None:
        text = one_line(text, 300)
        if text and text not in self.warnings:
            self.warnings.append(text)

    def _add_usage(self, usage: Any) -> None:
        # Every numeric field (cached_input_tokens, cache_write_input_tokens, ... as they come).
        if not isinstance(usage, dict):
            return
        for key, raw in usage.items():
            value = number(raw)
            if value is not None:
                self.got.usage[str(key)] = self.got.usage.get(str(key), 0) + value

    def item(self, item: dict[str, Any], completed: bool) -> None:
        kind = item.get("type") or item.get("item_type")
        item_id = item.get("id")
        if kind in _MESSAGE_ITEMS:
            if completed and isinstance(item.get("text"), str):
                self.last_message = item["text"]
            return
        if kind == "error":  # a non-fatal notice; the turn goes on
            if completed:
                self.warn(str(item.get("message") or "error"))
            return
        tool = _TOOL_ITEMS.get(str(kind))
        if tool is None:
            return
        key = str(item_id) if item_id is not None else None
        first_sight = (key is None and completed) or (key is not None and key not in self.seen_items)
        if key is not None:
            self.seen_items.add(key)
        if first_sight:
            if kind == "mcp_tool_call" and item.get("tool"):
                tool = f"mcp:{item.get('server') or '?'}/{item['tool']}"
            self.got.add_steps(codex_item_events(tool, item))
        if kind == "command_execution":
            for name in skills_read_in(_command_text(item.get("command"))):
                self.got.skill_loaded(name)

    def legacy(self, msg: dict[str, Any]) -> None:
        """The pre-0.44 ``{"id": ..., "msg": {"type": ...}}`` event shape."""
        kind = msg.get("type")
        if kind == "agent_message" and isinstance(msg.get("message"), str):
            self.last_message = msg["message"]
        elif kind == "exec_command_begin":
            self.got.tool_call("command_execution")
            for name in skills_read_in(_command_text(msg.get("command"))):
                self.got.skill_loaded(name)
        elif kind == "patch_apply_begin":
            self.got.tool_call("file_change")
        elif kind == "mcp_tool_call_begin":
            self.got.tool_call("mcp_tool_call")
        elif kind == "token_count":
            info = msg.get("info") if isinstance(msg.get("info"), dict) else msg
            total = info.get("total_token_usage") if isinstance(info.get("total_token_usage"), dict) else info
            self.got.usage = {}
            self._add_usage(total)
        elif kind == "task_complete":
            self.turns_completed += 1
            if isinstance(msg.get("last_agent_message"), str):
                self.last_message = msg["last_agent_message"]
        elif kind in ("error", "stream_error") and isinstance(msg.get("message"), str):
            self.last_error = msg["message"]

    def event(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if isinstance(ev.get("model"), str) and not self.got.model:
            self.got.model = ev["model"]
        if kind == "thread.started" and isinstance(ev.get("thread_id"), str):
            self.thread_id = ev["thread_id"]
        elif kind in ("item.started", "item.updated", "item.completed"):
            if isinstance(ev.get("item"), dict):
                self.item(ev["item"], kind == "item.completed")
        elif kind == "turn.completed":
            self.turns_completed += 1
            self._add_usage(ev.get("usage"))
        elif kind == "turn.failed":
            error = ev.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            self.failed = str(message or "turn failed")
        elif kind == "error":
            self.last_error = str(ev.get("message") or "error")
            self.warn(self.last_error)
        elif kind is None and isinstance(ev.get("msg"), dict):
            self.legacy(ev["msg"])


def parse_codex_stream(path: Path) -> _Stream:
    stream = _Stream()
    for _lineno, ev in json_lines(path, "codex"):
        stream.event(ev)
    return stream
