"""A scripted model server on 127.0.0.1 for the Gemini CLI, OpenCode and Mistral Vibe real-CLI
tests (tests/test_real_more_agents.py): Gemini's ``generateContent`` and
``streamGenerateContent`` (``/v1beta/models/<model>:<method>``) and the chat-completions API
(``/v1/chat/completions``, streamed as SSE when asked).

The model it plays:

- a structured side request (a ``responseJsonSchema``/``response_format`` asking for JSON: Gemini's
  model router, its next-speaker check; a title request) gets a small valid answer and no tool call;
- when the request lists the skill (``Script.skill_marker``, part of its description, appears in
  it) and no tool result has come back yet, it loads the skill: a call of the CLI's own skill
  tool (``activate_skill`` for Gemini, ``skill`` for OpenCode) when the request offers it, else a
  read of its SKILL.md with the CLI's file tool (``read_file``/``read``);
- once a tool result came back, or when the skill is not listed, it answers: ``answer_with_skill``
  when some request of the conversation carried the skill's body (``Script.body_marker``), else
  ``answer_without_skill``.

Every request is logged (``requests``); usage is reported per request (prompt tokens from the
request's size, about 4 characters a token). The server stops by itself after ``lifetime`` s.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SKILL_TOOLS = ("activate_skill", "skill")
READ_TOOLS = ("read_file", "read")


@dataclass
class Script:
    skill_name: str = "csv-summary"
    skill_marker: str = "Summarise CSV files"  # part of the skill's description
    body_marker: str = "Sum the amount column"  # part of SKILL.md's body
    answer_with_skill: str = "Total sales: 42"
    answer_without_skill: str = "I cannot tell the total."
    model: str = "fake-model-1"


def _schema_default(schema: Any) -> Any:
    """A minimal value of a (Gemini- or JSON-) schema: what a side request asks for."""
    if not isinstance(schema, dict):
        return {}
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: _schema_default(v) for k, v in props.items()}
    return {"string": "fine", "integer": 10, "number": 1.0, "boolean": False, "array": []}.get(kind, None)


class FakeAgents:
    def __init__(self, script: Script | None = None, lifetime: float = 600.0):
        self.script = script or Script()
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                with outer.lock:
                    outer.requests.append({"method": "POST", "path": self.path,
                                           "headers": dict(self.headers), "body": body})
                if ":generateContent" in self.path or ":streamGenerateContent" in self.path:
                    reply = outer.gemini(body)
                    if ":streamGenerateContent" in self.path:
                        return self._send(200, b"data: " + json.dumps(reply).encode() + b"\r\n\r\n",
                                          "text/event-stream")
                    return self._send(200, json.dumps(reply).encode())
                if self.path.rstrip("/").endswith("/chat/completions"):
                    return outer.chat(self, body)
                self._send(404, b'{"error": {"message": "not here"}}')

            def do_GET(self) -> None:  # noqa: N802
                with outer.lock:
                    outer.requests.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
                if self.path.rstrip("/").endswith("/models"):
                    return self._send(200, json.dumps({"object": "list", "data": [
                        {"id": outer.script.model, "object": "model"}]}).encode())
                self._send(404, b'{"error": {"message": "not here"}}')

            def _send(self, status: int, data: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.timer = threading.Timer(lifetime, self.close)
        self.timer.daemon = True
        self.timer.start()

    def close(self) -> None:
        self.timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeAgents:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ what the model decides
    def _saw_body(self) -> bool:
        with self.lock:
            return any(self.script.body_marker in json.dumps(r.get("body")) for r in self.requests)

    def decide(self, text: str, tools: set[str], answered: bool) -> tuple[str, dict[str, Any]] | str:
        """(tool, args) to call, or the answer text."""
        s = self.script
        if s.skill_marker in text and not answered:
            skill_tool = next((t for t in SKILL_TOOLS if t in tools), None)
            if skill_tool:
                return skill_tool, {"name": s.skill_name}
            read_tool = next((t for t in READ_TOOLS if t in tools), None)
            path = self.skill_md_path(text)
            if read_tool and path:
                key = "file_path" if read_tool == "read_file" else "filePath"
                return read_tool, {key: path}
        return s.answer_with_skill if self._saw_body() and s.skill_marker in text else s.answer_without_skill

    def skill_md_path(self, text: str) -> str | None:
        m = re.search(r"(/[^\s\"'<>]*skills/" + re.escape(self.script.skill_name) + r"/SKILL\.md)", text)
        return m.group(1) if m else None

    def lists_skill(self, request: dict[str, Any]) -> bool:
        return self.script.skill_marker in json.dumps(request.get("body"))

    def model_calls(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]

    # ------------------------------------------------------------------ Gemini
    def gemini(self, body: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(body)
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        tools = {d.get("name") for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []}
        answered = any("functionResponse" in p for c in body.get("contents") or []
                       for p in c.get("parts") or [])
        if schema is not None:
            parts: list[dict[str, Any]] = [{"text": json.dumps(_schema_default(schema))}]
        else:
            choice = self.decide(text, tools, answered)
            parts = [{"text": choice}] if isinstance(choice, str) else \
                [{"functionCall": {"name": choice[0], "args": choice[1]}}]
        out_tokens = max(1, len(json.dumps(parts)) // 4)
        prompt = max(1, len(text) // 4)
        return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                "index": 0}],
                "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": out_tokens,
                                  "totalTokenCount": prompt + out_tokens},
                "modelVersion": self.script.model}

    # ------------------------------------------------------------------ chat completions
    def chat(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        text = json.dumps(body)
        tools = {(t.get("function") or {}).get("name") for t in body.get("tools") or []}
        messages = body.get("messages") or []
        answered = any(m.get("role") == "tool" for m in messages)
        side = body.get("response_format") is not None or not tools
        plain = self.script.answer_with_skill if self._saw_body() else self.script.answer_without_skill
        choice = plain if side else self.decide(text, tools, answered)
        if side and "title" in text.lower():
            choice = "CSV totals"
        prompt = max(1, len(text) // 4)
        if isinstance(choice, str):
            message: dict[str, Any] = {"role": "assistant", "content": choice}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{len(self.requests)}", "type": "function",
                 "function": {"name": choice[0], "arguments": json.dumps(choice[1])}}]}
            finish = "tool_calls"
        completion = max(1, len(json.dumps(message)) // 4)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                 "total_tokens": prompt + completion}
        if not body.get("stream"):
            data = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": self.script.model,
                               "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                               "usage": usage}).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        delta: dict[str, Any] = {"role": "assistant"}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": 0, **message["tool_calls"][0]}]
        else:
            delta["content"] = message["content"]
        chunks = [{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": self.script.model,
                   "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": self.script.model,
                   "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                  {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": self.script.model,
                   "choices": [], "usage": usage}]
        data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
