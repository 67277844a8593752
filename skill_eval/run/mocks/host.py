"""The runner's end of a run's mocked MCP servers: it holds their specs and their call log, so
neither is a file the agent could read or write (docs/sandbox.md).

The agent CLI starts each server (run/mocks/server.py) with this host's Unix socket and the
server's number. The server connects, says ``{"hello": N}`` and is sent its spec, once: spec N
is handed out to the first connection that asks for it and never again. Every record the server
then sends on that same connection (a call, an abort, a recording; one JSON line each) joins the
run's log. A socket connection cannot be joined by another process, so a line is the server's
because of the connection it came on: a line on any other connection (the agent's own, or a
second hello for a number already served) is refused, and kept as refused, naming it.

The socket sits in the run's private mock folder, which the sandbox binds read-only: connecting
needs no write access, and nothing else is in the folder to read or to change.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

HOST = "mocks.sock"
MAX_LINE = 64 * 1024 * 1024  # a record holds a whole answer (fixtures up to their cap)
_SHOWN = 200  # characters of a refused line kept to name it
_DRAIN = 10.0  # seconds to wait, after the run, for what the servers' connections still carry


class MockHost:
    """Serves one run's specs and collects its servers' records (``lines``, in arrival order) and
    what it refused (``refused``: one sentence each)."""

    def __init__(self, folder: Path, specs: list[dict[str, Any]]) -> None:
        self.path = folder / HOST
        self.lines: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self._specs = dict(enumerate(specs))
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(self.path))
        self._sock.listen(16)
        self._closed = False
        self._accepting = threading.Thread(target=self._serve, name="skill-eval-mock-host", daemon=True)
        self._accepting.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed: the run is over
            thread = threading.Thread(target=self._one, args=(conn,), daemon=True)
            with self._lock:
                self._threads.append(thread)
            thread.start()

    def _one(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as stream:
            try:
                first = stream.readline(MAX_LINE)
                index = _hello(first)
                with self._lock:
                    spec = self._specs.pop(index, None) if index is not None else None
                if spec is None:
                    self._refuse("not a mocked server's (no spec to hand out for it)", first)
                    for raw in iter(lambda: stream.readline(MAX_LINE), b""):
                        self._refuse("not a mocked server's", raw)
                    return
                conn.sendall(json.dumps(spec).encode("utf-8") + b"\n")
                for raw in iter(lambda: stream.readline(MAX_LINE), b""):
                    self._take(raw)
            except OSError:
                return  # the server is gone (the run ended)

    def _take(self, raw: bytes) -> None:
        if not raw.endswith(b"\n"):
            return  # cut by a killed server: not a call it answered
        try:
            record = json.loads(raw)
        except ValueError:
            self._refuse("not a JSON record", raw)
            return
        if isinstance(record, dict):
            with self._lock:
                self.lines.append(record)

    def _refuse(self, why: str, raw: bytes) -> None:
        if not raw.strip():
            return
        text = raw.decode("utf-8", "replace").strip()
        with self._lock:
            self.refused.append(f"a line on the mock socket was refused, {why}: {text[:_SHOWN]}")

    def close(self) -> None:
        """Stop taking connections and wait (a while) for the open ones to end: the servers die
        with the agent, so their last records arrive before their connections close."""
        if self._closed:
            return
        self._closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        self._sock.close()
        self._accepting.join(_DRAIN)
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(_DRAIN)
        self.path.unlink(missing_ok=True)


def _hello(raw: bytes) -> int | None:
    try:
        hello = json.loads(raw)
    except ValueError:
        return None
    index = hello.get("hello") if isinstance(hello, dict) else None
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def fetch_spec(path: str, index: int) -> tuple[socket.socket, dict[str, Any]]:
    """The server's side of the hello: its connection to the host and its spec. OSError or
    ValueError when the host gives none (another connection took it: named to the host)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    conn.sendall(json.dumps({"hello": index}).encode("utf-8") + b"\n")
    with conn.makefile("rb") as stream:
        raw = stream.readline(MAX_LINE)
    spec = json.loads(raw) if raw.endswith(b"\n") else None
    if not isinstance(spec, dict):
        conn.close()
        raise ValueError(f"the run's mock host gave no spec for server {index}")
    return conn, spec
