"""One call to a ``type: agent`` mock, inside the mock server (run/mocks/server.py): its ``expect``,
its body's substitutions, a replay from ``mocks/.replay/`` when an identical call was recorded,
else one question to the suite's judge (through the run's relay, run/mocks/relay.py) with plugin
eval's prompt shape (model/mockagent.py), and the reply read by its conventions.

The answer is the call's log record (plugin eval's ``mock_calls`` line) or an ``aborted`` record
(``ABORT: `` where the mock has ``abort_when``, or a broken ``expect``); a model answer of a server
that stayed replayable also gives a ``recording`` record, which the runner keeps only for a run
that ended cleanly (plugin eval's ``mock-recordings/``).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from skill_eval.model.mockagent import (
    MAX_ANSWER,
    call_digest,
    history_entry,
    read_reply,
    recording_name,
    recording_text,
    replayed,
    system_text,
    user_text,
)
from skill_eval.model.mockrules import check_expect, render

Ask = Callable[[str, str], str]  # (system text, user turn) -> the model's reply; raises AskFailed
RELAY_FAILED = "agent mock could not answer"


class AskFailed(Exception):
    """The judge gave no reply (not started, failed, timed out)."""


class Play:
    """The agent-mock state of one server in one run: its calls so far (the history each call
    shows), and whether its answers may still be recorded."""

    def __init__(self, spec: dict[str, Any], ask: Ask) -> None:
        self.spec = spec
        self.ask = ask
        self.history: list[dict[str, Any]] = []
        self.replayable = True

    def answer(self, entry: dict[str, Any], full: str, arguments: Any) -> list[dict[str, Any]]:
        server, tool = self.spec["server"], entry["name"]
        reason = check_expect(tuple((str(p), r) for p, r in entry.get("expect") or ()), arguments)
        if reason is not None:
            why = reason.split(": ", 1)[1] if ": " in reason else reason
            return [{"aborted": {"server": server, "tool": tool, "reason": f"input violates expect: {why}"}}]
        body, failed = render(entry["body"], arguments, entry.get("fixtures") or {})
        if failed:
            self.replayable = False
            return [self._done(full, tool, arguments, "tool_error", body)]
        digest = call_digest(server, tool, arguments, entry.get("digest") or "", body, self.history)
        name = recording_name(tool, digest)
        hit = replayed((entry.get("replays") or {}).get(name, ""))
        if hit is not None:
            return self._verdict(full, tool, arguments, *hit, replay=True)
        try:
            reply = self.ask(system_text(server, entry.get("abort_when"), body),
                             user_text(tool, arguments, self.history))
        except AskFailed as exc:
            self.replayable = False
            return [self._done(full, tool, arguments, "tool_error", f"{RELAY_FAILED}: {exc}")]
        verdict, text = read_reply(reply, entry.get("abort_when"))
        out = self._verdict(full, tool, arguments, verdict, text, replay=False)
        if self.replayable and verdict != "abort" and len(text) <= MAX_ANSWER:
            record = recording_text(arguments, text, verdict, datetime.now(UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"), self.spec.get("model"))
            out.append({"recording": {"server": server, "file": name, "text": record,
                                      "adopt_dir": entry.get("replay_dir") or ""}})
        return out

    def _verdict(self, full: str, tool: str, arguments: Any, verdict: str, text: str,
                 replay: bool) -> list[dict[str, Any]]:
        if verdict == "abort":
            self.history.append(history_entry(tool, arguments, verdict, text))
            return [{"aborted": {"server": self.spec["server"], "tool": tool, "reason": text}}]
        return [self._done(full, tool, arguments, verdict, text)]

    def _done(self, full: str, tool: str, arguments: Any, verdict: str, text: str) -> dict[str, Any]:
        self.history.append(history_entry(tool, arguments, verdict, text))
        if verdict == "ok":
            return {"tool": full, "input": arguments, "output": text, "verdict": "ok"}
        return {"tool": full, "input": arguments, "output": text, "isError": True, "verdict": "tool_error"}


def relay_ask(path: str, timeout: float) -> Ask:
    """Ask through the run's judge relay (a Unix socket the runner serves)."""

    def ask(system: str, user: str) -> str:
        request = {"system": system, "messages": [{"role": "user", "content": user}]}
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(timeout)
                conn.connect(path)
                conn.sendall(json.dumps(request).encode("utf-8") + b"\n")
                conn.shutdown(socket.SHUT_WR)
                raw = b""
                while chunk := conn.recv(65536):
                    raw += chunk
        except OSError as exc:
            raise AskFailed(f"the judge relay did not answer ({exc})") from None
        try:
            got = json.loads(raw.decode("utf-8"))
        except ValueError:
            raise AskFailed("the judge relay answered outside its protocol") from None
        if not isinstance(got, dict) or not isinstance(got.get("text"), str):
            raise AskFailed(str(got.get("error") if isinstance(got, dict) else "no answer"))
        return got["text"]

    return ask
