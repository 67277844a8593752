"""A scripted model server on 127.0.0.1 for the real-CLI tests (tests/test_real_agents.py).

It speaks just enough of the Anthropic Messages API (``POST /v1/messages``, streamed as SSE with
text and ``tool_use`` blocks) and of the OpenAI Responses API (``POST /v1/responses``, streamed,
with ``function_call`` items) for one-turn agent runs, and plays a model that:

- when the request offers the skill (its description appears anywhere in the request), first
  loads it -- a ``Skill`` tool call for Claude Code, ``cat <path>/SKILL.md`` through the shell
  tool for Codex -- and then answers ``answer_with_skill``;
- otherwise answers ``answer_without_skill`` at once;
- when the request carries the judge prompt (run/adapters/shared/judge_prompt.py), answers it with a
  verdict JSON: every rubric item passes when the judged answer contains ``judge_pass_if``;
- when it is a one-word vote request (``claude plugin eval``'s judge for ``llm`` and ``baseline``
  graders, or skill-eval's own prompt for them: a message text ending by asking ``PASS or FAIL``),
  answers with the votes ``Script.votes`` scripts for it (the first key found in the prompt; the
  n-th request with the same prompt text gets the n-th reply, cycling), else ``PASS`` when the
  prompt contains ``judge_pass_if`` and ``FAIL`` otherwise.

- when it plays a mocked MCP server (an agent mock: its system text names ``MCP server "<name>"``
  and a user turn starts ``Current call: <tool>``, from plugin eval or skill-eval's judge), answers
  ``Script.mock_replies`` (the first key found in the request) or ``AGENT-ANSWER <tool>``.

``write_first=(path, text)`` makes Claude write that workspace file with the ``Write`` tool before
answering. Options for the token and other-skill tests: ``subagent=True`` makes the Claude model first
delegate to a subagent (the ``Task``/``Agent`` tool), whose requests are billed but are not the
main conversation's turns; ``bundled_skill="code-review"`` makes a without-skill run load that
skill of the CLI's own (a ``Skill`` call for Claude Code, ``cat`` of its SKILL.md for Codex).

Usage is reported per request the way the real APIs do: ``input_tokens`` from the request's size
(about 4 characters a token, unless ``Script.input_tokens`` fixes it), ``output_tokens`` from the
reply's; ``billed`` keeps what each model request was charged, for tests to compare.

``fault="401"`` answers every model call with an authentication error. Every request is logged
(``requests``) so tests can assert on what the CLIs sent. The server stops by itself after
``lifetime`` seconds, so a hung test cannot leave it behind.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SHELL_TOOLS = ("shell_command", "exec_command", "shell", "local_shell")
JUDGE_MARKER = "You are grading the answer an AI agent gave to a task"
VOTE_ASK = re.compile(r"\bPASS or FAIL\.?\s*$")
_RUBRIC_ID = re.compile(r'^- id: ("(?:[^"\\]|\\.)*")$', re.MULTILINE)


def _strings(value: Any) -> list[str]:
    """Every string inside a decoded JSON body."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _strings(v)]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v)]
    return []


def free_port() -> int:
    """A port nothing listens on (for the 'server down' fault)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Script:
    skill_name: str = "csv-summary"
    skill_marker: str = "Summarise CSV files"  # part of the skill's description
    answer_with_skill: str = "Total sales: 42"
    answer_without_skill: str = "I cannot tell the total."
    model: str = ""  # served model name; "" echoes the requested one
    input_tokens: int | None = None  # None: from the request's size, as the real APIs count
    output_tokens: int | None = None  # None: from the reply's size
    fault: str = ""  # "" or "401"
    judge_pass_if: str = "42"  # a judged answer containing this passes every rubric item
    shell_first: str = ""  # a command the model runs through the shell tool before answering
    # (path relative to the working directory, content): Claude writes this file with the Write
    # tool before answering (after loading the skill, once), when Write is offered.
    write_first: tuple[str, str] | None = None
    subagent: bool = False  # Claude: delegate to a subagent before answering
    bundled_skill: str = ""  # a skill of the CLI's own that a without-skill run loads
    # A tool the model calls again on every turn while the request offers it (``Glob``): a run
    # that never ends by itself, for turn limits.
    loop_tool: str = ""
    # With ``loop_tool``: loop only in conversations whose text holds this marker ("" = all), so
    # one case of a suite can hit its turn limit while the others answer.
    loop_if: str = ""
    # One-word judge votes: prompt substring -> replies, given in turn to repeats of one prompt.
    votes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Claude: tool calls the main conversation makes one per turn, in order, after loading the
    # skill (when offered) and before answering: ({"name": "Write", "input": {...}}, ...). An
    # ``Agent`` step starts a subagent (its prompt must hold SUBAGENT_MARKER), which makes
    # ``subagent_steps`` the same way and then answers ``subagent_answer``.
    steps: tuple[dict[str, Any], ...] = ()
    subagent_steps: tuple[dict[str, Any], ...] = ()
    subagent_answer: str = "Subagent done."
    # An MCP tool the model calls once, with ``mcp_input``, when a request offers a tool named
    # ``mcp_tool`` or ending in ``__<mcp_tool>`` (``mcp__plugin_p_notes__lookup``); then it answers.
    mcp_tool: str = ""
    mcp_input: dict[str, Any] | None = None
    # Agent mocks: a request that plays an MCP server (its system text names the server, its user
    # turn is ``Current call: <tool>``) is answered by the first reply whose key is in its text,
    # else ``AGENT-ANSWER <tool>``.
    mock_replies: dict[str, str] = field(default_factory=dict)


SUBAGENT_MARKER = "[scripted subagent task]"
CHARS_PER_TOKEN = 4


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class FakeModel:
    def __init__(self, script: Script | None = None, lifetime: float = 600.0):
        self.script = script or Script()
        self.requests: list[dict[str, Any]] = []
        self.billed: list[dict[str, Any]] = []  # per model request: api, model, input/output tokens
        self._lock = threading.Lock()
        self._n = 0
        self._asked: dict[str, int] = {}  # vote prompt -> times asked
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _body(self) -> Any:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
                try:
                    return json.loads(raw) if raw else None
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def _log(self, body: Any) -> None:
                with outer._lock:
                    outer.requests.append(
                        {
                            "method": self.command,
                            "path": self.path,
                            "headers": dict(self.headers),
                            "body": body,
                        }
                    )

            def _send(self, status: int, payload: Any, ctype: str = "application/json") -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                self._log(None)
                if self.path.split("?")[0].endswith("/models"):
                    self._send(200, {"data": [], "models": [], "object": "list"})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "not_found_error"}})

            def do_HEAD(self) -> None:  # noqa: N802
                self._log(None)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                body = self._body()
                self._log(body)
                path = self.path.split("?")[0]
                if path.endswith("/messages/count_tokens"):
                    self._send(200, {"input_tokens": 100})
                elif path.endswith("/messages"):
                    outer._anthropic(self, body if isinstance(body, dict) else {})
                elif path.endswith("/responses"):
                    outer._responses(self, body if isinstance(body, dict) else {})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "not_found_error"}})

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        # A short poll: close() (shutdown) waits for the loop to see it, 0.5 s by default.
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self._timer = threading.Timer(lifetime, self.close)
        self._timer.daemon = True
        self._timer.start()

    def close(self) -> None:
        self._timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeModel:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _next_id(self) -> int:
        with self._lock:
            self._n += 1
            return self._n

    def _usage(self, api: str, model: str, body: Any, reply: Any) -> dict[str, int]:
        """What one request is billed, logged in ``billed``."""
        s = self.script
        given = s.input_tokens
        inp = given if given is not None else max(1, len(json.dumps(body)) // CHARS_PER_TOKEN)
        out = s.output_tokens if s.output_tokens is not None else max(
            1, len(json.dumps(reply)) // CHARS_PER_TOKEN)
        with self._lock:
            self.billed.append({"api": api, "model": model, "input_tokens": inp, "output_tokens": out})
        return {"input_tokens": inp, "output_tokens": out}

    def served(self, api: str) -> dict[str, int]:
        """Token totals over the requests of ``api`` ("messages" or "responses")."""
        rows = [b for b in self.billed if b["api"] == api]
        return {"requests": len(rows), "input_tokens": sum(b["input_tokens"] for b in rows),
                "output_tokens": sum(b["output_tokens"] for b in rows)}

    def _delegate(self, tools: set[Any], messages: list[Any]) -> list[dict[str, Any]] | None:
        """Claude with ``subagent``: the main conversation's first reply starts a subagent."""
        tool = next((t for t in ("Task", "Agent") if t in tools), None)
        replied = any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages)
        if not self.script.subagent or tool is None or replied:
            return None
        if SUBAGENT_MARKER in json.dumps(messages):
            return None  # the subagent itself
        task = {"description": "Add up the amounts", "subagent_type": "general-purpose",
                "prompt": f"{SUBAGENT_MARKER} Add up the amount column of inputs/sales.csv."}
        return [{"type": "text", "text": "Delegating."},
                {"type": "tool_use", "id": f"toolu_{self._next_id():04d}", "name": tool, "input": task}]

    def _scripted_step(self, tools: set[Any], messages: list[Any],
                       body: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The next of ``steps`` (``subagent_steps`` inside a subagent), or None when all are made."""
        if self._mcp_offered(body) is not None:
            return None  # a run offering mcp_tool calls it and answers (the mocks tests' script)
        first = messages[0] if messages else {}
        inside = SUBAGENT_MARKER in json.dumps(first)
        steps = self.script.subagent_steps if inside else self.script.steps
        made = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant"
                   for b in (m.get("content") if isinstance(m.get("content"), list) else [])
                   if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") != "Skill")
        if made >= len(steps):
            return None
        step = steps[made]
        name = step["name"]
        if name in ("Agent", "Task") and name not in tools:
            name = next((t for t in ("Agent", "Task") if t in tools), name)
        # "{cwd}" in an input is the session's working directory (file tools want absolute paths).
        said = json.dumps(body.get("system")) + json.dumps(messages)
        cwd = re.search(r"[Ww]orking directory: ([^\s\\]+)", said)
        given = json.dumps(step.get("input", {})).replace("{cwd}", cwd.group(1) if cwd else ".")
        return [{"type": "text", "text": f"Step {made + 1}."},
                {"type": "tool_use", "id": f"toolu_{self._next_id():04d}", "name": name,
                 "input": json.loads(given)}]

    def _subagent_reply(self, messages: list[Any]) -> bool:
        first = messages[0] if messages else {}
        return bool(self.script.subagent_steps or self.script.steps) and SUBAGENT_MARKER in json.dumps(first)

    def _bundled_load(self, body: Any, offered: bool) -> bool:
        """A without-skill run's first reply loads ``bundled_skill`` when the CLI lists it."""
        name = self.script.bundled_skill
        items = body.get("messages") or body.get("input") or [] if isinstance(body, dict) else []
        replied = any(isinstance(m, dict) and m.get("role") == "assistant" or m.get("type") in (
            "function_call", "custom_tool_call") for m in items if isinstance(m, dict))
        return (bool(name) and offered and not replied and not self.offers_skill(body)
                and self.lists_skill(body, name))

    @staticmethod
    def lists_skill(body: Any, name: str) -> bool:
        """The request's skill listing names ``name`` ("- code-review: ..."), not merely some
        tool description mentioning it."""
        return f"- {name}: " in "\n".join(_strings(body))

    def model_calls(self, path_end: str) -> list[dict[str, Any]]:
        return [
            r for r in self.requests if r["method"] == "POST" and r["path"].split("?")[0].endswith(path_end)
        ]

    def _mcp_offered(self, body: Any) -> str | None:
        """The full name of ``mcp_tool`` where the request offers it, as a tool or as a deferred
        tool's name (Claude Code lists those in a message and sends their schema on ToolSearch)."""
        want = self.script.mcp_tool
        if not want:
            return None
        found = re.findall(r"\bmcp__[\w-]+?__" + re.escape(want) + r"\b", "\n".join(_strings(body)))
        return sorted(found)[0] if found else None

    @staticmethod
    def mock_prompt(body: Any) -> str | None:
        """The text of a request that plays a mocked MCP server (an agent mock), if it is one."""
        text = "\n".join(_strings(body))
        if re.search(r'MCP server "[^"]+"', text) and re.search(r"^Current call: \S+", text, re.MULTILINE):
            return text
        return None

    def mock_reply(self, text: str) -> str:
        found = next((v for k, v in self.script.mock_replies.items() if k in text), None)
        if found is not None:
            return found
        tool = re.findall(r"^Current call: (\S+)", text, re.MULTILINE)[-1]
        return f"AGENT-ANSWER {tool}"

    def judge_prompt(self, body: Any) -> str | None:
        """The judge prompt inside a model request, if it is one."""
        return next((t for t in _strings(body) if JUDGE_MARKER in t), None)

    def judge_calls(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST" and self.judge_prompt(r["body"])]

    def verdict_reply(self, prompt: str) -> str:
        block = re.search(r"<answer-(\w+)>\n(.*)\n</answer-\1>\n\n<rubric-\1>\n(.*)\n</rubric-\1>", prompt,
                          re.DOTALL)
        answer, rubric = (block.group(2), block.group(3)) if block else (prompt, prompt)
        passed = self.script.judge_pass_if in answer
        ids = [json.loads(m.group(1)) for m in _RUBRIC_ID.finditer(rubric)]
        return json.dumps({"verdicts": [{"id": i, "passed": passed, "evidence": "scripted judge"}
                                        for i in ids]})

    @staticmethod
    def vote_prompt(body: Any) -> str | None:
        """The one-word PASS/FAIL judge prompt of a request (a text ending with the ask), if any."""
        if not isinstance(body, dict):
            return None
        texts = _strings(body.get("messages") or [])
        return next((t for t in texts if VOTE_ASK.search(t)), None)

    def vote_reply(self, prompt: str) -> str:
        with self._lock:
            n = self._asked.get(prompt, 0)
            self._asked[prompt] = n + 1
        replies = next((v for k, v in self.script.votes.items() if k in prompt), None)
        if replies:
            return replies[n % len(replies)]
        return "PASS" if self.script.judge_pass_if in prompt else "FAIL"

    def offers_skill(self, body: Any) -> bool:
        return self.script.skill_marker in json.dumps(body)

    # ------------------------------------------------------------------ Anthropic Messages API

    def _anthropic(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        s = self.script
        if s.fault == "401":
            h._send(
                401,
                {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
            )  # type: ignore[attr-defined]
            return
        model = s.model or str(body.get("model") or "claude-sonnet-4-5")
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        messages = body.get("messages") or []
        # A tool already answered in this conversation (Claude Code 2.1.245 puts the loaded
        # skill's text in a user message after the tool_result, so look past the last one).
        answered_tool = any(
            isinstance(m, dict) and isinstance(m.get("content"), list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])
            for m in messages
        )
        blocks: list[dict[str, Any]]
        judging = self.judge_prompt(messages)
        if (mocking := self.mock_prompt(body)) is not None:
            judging = mocking
            blocks = [{"type": "text", "text": self.mock_reply(mocking)}]
            stop = "end_turn"
        elif judging is not None:
            blocks = [{"type": "text", "text": self.verdict_reply(judging)}]
            stop = "end_turn"
        elif (voting := self.vote_prompt(body)) is not None:
            judging = voting
            blocks = [{"type": "text", "text": self.vote_reply(voting)}]
            stop = "end_turn"
        used = {str(b.get("name")) for m in messages if isinstance(m, dict) and m.get("role") == "assistant"
                for b in (m.get("content") if isinstance(m.get("content"), list) else [])
                if isinstance(b, dict) and b.get("type") == "tool_use"}
        # The skill under test was loaded (not a bundled skill of the CLI's own).
        ours = any(b.get("name") == "Skill" and (b.get("input") or {}).get("skill") == s.skill_name
                   for m in messages if isinstance(m, dict) and m.get("role") == "assistant"
                   for b in (m.get("content") if isinstance(m.get("content"), list) else [])
                   if isinstance(b, dict) and b.get("type") == "tool_use")
        if judging is None and s.loop_tool and s.loop_tool in tools and (
                not s.loop_if or s.loop_if in json.dumps(messages)):
            blocks = [{"type": "tool_use", "id": f"toolu_{self._next_id():04d}", "name": s.loop_tool,
                       "input": {"pattern": "**/*"} if s.loop_tool == "Glob" else {}}]
            stop = "tool_use"
        elif judging is None and s.write_first and "Write" in tools and "Write" not in used and (
                ours or not ("Skill" in tools and self.offers_skill(body))) and (
                cwd := re.search(r"Primary working directory: ([^\s\\]+)", json.dumps(body))):
            blocks = [{"type": "tool_use", "id": f"toolu_{self._next_id():04d}", "name": "Write",
                       "input": {"file_path": f"{cwd.group(1)}/{s.write_first[0]}",
                                 "content": s.write_first[1]}}]
            stop = "tool_use"
        elif judging is None and s.shell_first and "Bash" in tools and "Bash" not in used and (
                ours or not ("Skill" in tools and self.offers_skill(body))):
            blocks = [{"type": "text", "text": "Looking at the input first."},
                      {"type": "tool_use", "id": f"toolu_{self._next_id():04d}", "name": "Bash",
                       "input": {"command": s.shell_first, "description": "Look at the input"}}]
            stop = "tool_use"
        elif judging is not None:
            pass  # answered above
        elif (mcp := self._mcp_offered(body)) is not None and mcp not in used:
            # A deferred tool (its name listed, its schema not sent) is loaded through ToolSearch first.
            load = mcp not in tools and "ToolSearch" in tools and "ToolSearch" not in used
            blocks = [{"type": "tool_use", "id": f"toolu_{self._next_id():04d}",
                       "name": "ToolSearch" if load else mcp,
                       "input": {"query": f"select:{mcp}"} if load else dict(s.mcp_input or {})}]
            stop = "tool_use"
        elif not answered_tool and (delegate := self._delegate(tools, messages)) is not None:
            blocks, stop = delegate, "tool_use"
        elif not answered_tool and self._bundled_load(body, "Skill" in tools):
            blocks = [{"type": "tool_use", "id": f"toolu_{self._next_id():04d}", "name": "Skill",
                       "input": {"skill": s.bundled_skill}}]
            stop = "tool_use"
        elif ("Skill" in tools and self.offers_skill(body) and not answered_tool
              and not self._subagent_reply(messages)):
            blocks = [
                {"type": "text", "text": "Loading the skill."},
                {
                    "type": "tool_use",
                    "id": f"toolu_{self._next_id():04d}",
                    "name": "Skill",
                    "input": {"skill": s.skill_name},
                },
            ]
            stop = "tool_use"
        elif judging is None and (step := self._scripted_step(tools, messages, body)) is not None:
            blocks, stop = step, "tool_use"
        elif judging is None and self._subagent_reply(messages):
            blocks, stop = [{"type": "text", "text": s.subagent_answer}], "end_turn"
        else:
            text = (
                s.answer_with_skill
                if ours or ((answered_tool or tools) and self.offers_skill(body))
                else s.answer_without_skill
            )
            if not tools:  # a side call (titles, summaries): any short text will do
                text = "Summary"
            blocks = [{"type": "text", "text": text}]
            stop = "end_turn"
        usage = {
            **self._usage("messages", model, body, blocks),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        msg_id = f"msg_{self._next_id():04d}"
        if not body.get("stream"):
            content = [dict(b) for b in blocks]
            h._send(
                200,
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,  # type: ignore[attr-defined]
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        out = [
            _sse(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": msg_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {**usage, "output_tokens": 1},
                    },
                },
            )
        ]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                out.append(
                    _sse(
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {"type": "text", "text": ""},
                        },
                    )
                )
                out.append(
                    _sse(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "text_delta", "text": b["text"]},
                        },
                    )
                )
            else:
                out.append(
                    _sse(
                        "content_block_start",
                        {"type": "content_block_start", "index": i, "content_block": {**b, "input": {}}},
                    )
                )
                out.append(
                    _sse(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])},
                        },
                    )
                )
            out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        out.append(
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                },
            )
        )
        out.append(_sse("message_stop", {"type": "message_stop"}))
        h._send(200, b"".join(out), "text/event-stream")  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ OpenAI Responses API

    def _skill_md_path(self, body: dict[str, Any], skill: str = "") -> str:
        """The SKILL.md path Codex listed for the skill (``skill``, else the one under test): a
        short path ``rN/<name>/SKILL.md`` expanded through the listing's skill-roots table, or a
        full path."""
        skill = skill or self.script.skill_name
        text = json.dumps(body).replace("\\\\", "/").replace("\\/", "/")
        name = re.escape(skill)
        short = re.search(r"\(file: (r\d+)/" + name + r"/SKILL\.md\)", text)
        if short:
            root = re.search(r"`" + short.group(1) + r"` = `([^`]+)`", text)
            if root:
                return f"{root.group(1)}/{skill}/SKILL.md"
        m = re.search(r"([^\s\"'()]*skills/(?:\.system/)?" + name + r"/SKILL\.md)", text)
        return m.group(1) if m else f".agents/skills/{skill}/SKILL.md"

    @staticmethod
    def _tool_names(body: dict[str, Any]) -> set[str]:
        """Tool names offered: top-level ``tools`` and (newer Codex) ``additional_tools`` input
        items holding namespaces of tools."""
        names: set[str] = set()

        def walk(tools: Any) -> None:
            for t in tools if isinstance(tools, list) else []:
                if isinstance(t, dict):
                    if t.get("name") and t.get("type") != "namespace":
                        names.add(str(t["name"]))
                    walk(t.get("tools"))

        walk(body.get("tools"))
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "additional_tools":
                walk(item.get("tools"))
        return names

    def _shell_next(self, items: list[Any], body: dict[str, Any]) -> str:
        """``shell_first`` when it is the model's next step: after the skill's SKILL.md was read
        (if the skill is offered), before the answer, once."""
        s = self.script
        if not s.shell_first:
            return ""
        calls = self._calls(items)
        if json.dumps(s.shell_first)[1:-1] in calls:
            return ""
        if self.offers_skill(body) and f"{s.skill_name}/SKILL.md" not in calls:
            return ""
        return s.shell_first

    @staticmethod
    def _calls(items: list[Any]) -> str:
        """The tool calls made so far, as JSON text."""
        return json.dumps([i for i in items if isinstance(i, dict)
                           and i.get("type") in ("function_call", "custom_tool_call")])

    def _message(self, text: str) -> dict[str, Any]:
        return {
            "type": "message",
            "id": f"msg_{self._next_id():04d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }

    def _responses(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        s = self.script
        if s.fault == "401":
            h._send(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided.",
                        "type": "invalid_request_error",  # type: ignore[attr-defined]
                        "code": "invalid_api_key",
                        "param": None,
                    }
                },
            )
            return
        model = s.model or str(body.get("model") or "gpt-5")
        items = body.get("input") or []
        answered_tool = any(
            isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output")
            for i in items
        )
        names = self._tool_names(body)
        shell = next((n for n in SHELL_TOOLS if n in names), None) or ("exec" if "exec" in names else None)
        resp_id = f"resp_{self._next_id():04d}"
        output: list[dict[str, Any]] = []
        judging = self.judge_prompt(items)
        if judging is not None:
            output.append(self._message(self.verdict_reply(judging)))
        elif shell and (self._shell_next(items, body) or (not answered_tool and (
                self.offers_skill(body) or self._bundled_load(body, True)))):
            path = self._skill_md_path(body, s.bundled_skill if not self.offers_skill(body) else "")
            call = {
                "id": f"fc_{self._next_id():04d}",
                "status": "completed",
                "call_id": f"call_{self._next_id():04d}",
                "name": shell,
            }
            first = self._shell_next(items, body)
            if shell == "exec":  # code mode: JavaScript that calls the nested exec_command tool
                cmd = json.dumps(first or "cat " + path)
                js = f"const r = await tools.exec_command({{cmd: {cmd}}});\ntext(r.output);\n"
                output.append({"type": "custom_tool_call", **call, "input": js})
            else:
                line = first or f"cat {path}"
                args: dict[str, Any] = (
                    {"command": ["bash", "-lc", line] if first else ["cat", path]}
                    if shell == "shell"
                    else ({"cmd": line} if shell == "exec_command" else {"command": line})
                )
                output.append({"type": "function_call", **call, "arguments": json.dumps(args)})
        else:
            loaded = f"{s.skill_name}/SKILL.md" in self._calls(items)
            ours = answered_tool and self.offers_skill(body)
            text = s.answer_with_skill if (ours and (loaded or not s.shell_first)) else s.answer_without_skill
            output.append(self._message(text))
        billed = self._usage("responses", model, body, output)
        usage = {
            "input_tokens": billed["input_tokens"],
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": billed["output_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": billed["input_tokens"] + billed["output_tokens"],
        }
        base = {"id": resp_id, "object": "response", "model": model, "created_at": 0}
        out = [
            _sse(
                "response.created",
                {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}},
            )
        ]
        for i, item in enumerate(output):
            if item["type"] == "message":
                start = {**item, "status": "in_progress", "content": []}
                out.append(
                    _sse(
                        "response.output_item.added",
                        {"type": "response.output_item.added", "output_index": i, "item": start},
                    )
                )
                out.append(
                    _sse(
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "item_id": item["id"],
                            "output_index": i,
                            "content_index": 0,
                            "delta": item["content"][0]["text"],
                        },
                    )
                )
            else:
                out.append(
                    _sse(
                        "response.output_item.added",
                        {"type": "response.output_item.added", "output_index": i, "item": item},
                    )
                )
            out.append(
                _sse(
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": i, "item": item},
                )
            )
        out.append(
            _sse(
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {**base, "status": "completed", "output": output, "usage": usage},
                },
            )
        )
        h._send(200, b"".join(out), "text/event-stream")  # type: ignore[attr-defined]
