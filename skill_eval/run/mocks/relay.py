"""How a run's agent mocks reach the suite's judge: a Unix socket in the run's private mock folder
(outside the workspace; bound into the sandbox with that folder), served by a thread of the
runner for as long as the run lasts.

The mock server (run/mocks/server.py, started by the agent CLI) sends one JSON line per question,
``{system, messages}``, and reads ``{text}`` or ``{error}``. The runner asks the judge process
(run/judge_process.py) with a completion request, so the judge's argv, environment and keys
never reach a file, the mock server, or the agent's environment.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skill_eval.errors import SkillEvalError

Complete = Callable[[str, list[dict[str, str]]], tuple[str, dict[str, float]]]
SOCKET = "judge.sock"
_MAX_QUESTION = 8 * 1024 * 1024


class Relay:
    """Serves the judge to one run's mock servers; ``usage`` adds up what the judge reported."""

    def __init__(self, folder: Path, complete: Complete) -> None:
        self.path = folder / SOCKET
        self.complete = complete
        self.calls = 0
        self.usage: dict[str, float] = {}
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(self.path))
        self._sock.listen(8)
        self._thread = threading.Thread(target=self._serve, name="skill-eval-judge-relay", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed: the run is over
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            raw = b""
            try:
                while len(raw) < _MAX_QUESTION and (chunk := conn.recv(65536)):
                    raw += chunk
                conn.sendall(json.dumps(self._answer(raw)).encode("utf-8"))
            except OSError:
                return  # the mock server is gone (the run ended)

    def _answer(self, raw: bytes) -> dict[str, Any]:
        try:
            question = json.loads(raw.decode("utf-8"))
            system, messages = str(question["system"]), list(question["messages"])
        except (ValueError, KeyError, TypeError):
            return {"error": "the question is not {system, messages}"}
        try:
            text, usage = self.complete(system, messages)
        except SkillEvalError as exc:
            return {"error": str(exc)}
        with self._lock:
            self.calls += 1
            for key, value in usage.items():
                self.usage[key] = self.usage.get(key, 0.0) + float(value)
        return {"text": text}

    def close(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        try:
            self._sock.close()
        finally:
            self.path.unlink(missing_ok=True)
