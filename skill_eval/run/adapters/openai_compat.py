"""Builtin adapter for any OpenAI-compatible chat-completions endpoint (stdlib only):
``python -m skill_eval.run.adapters.openai_compat [options]``.

A plain model has no agent loop and no file system, so the skill is given to it directly:

- with_skill: the system prompt holds the skill's SKILL.md and the list of its bundled files, and
  a ``skill_loaded`` event is reported.
- with_skill and ``trigger: true`` (trigger evals): the system prompt only lists the skill's name
  and description, and a ``load_skill`` function tool is offered; the skill counts as loaded only
  if the model calls it (the SKILL.md is then returned as the tool result). The endpoint must
  support tool calls for trigger evals.
- without_skill: no skill text at all.
- Fixtures (``inputs/...``): text files are appended to the user message (capped); binary files
  are listed, not sent.

Endpoint: ``--base-url`` or env ``OPENAI_BASE_URL`` (default https://api.openai.com/v1); key:
env ``OPENAI_API_KEY`` (optional, for local servers). 429 and 5xx answers and network errors are
retried with exponential backoff (honouring Retry-After) until ``--timeout`` runs out; other 4xx
answers fail at once with the server's message.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.openai_http import USER_AGENT, Client
from skill_eval.run.adapters.shared.judge_prompt import judge_main
from skill_eval.run.adapters.shared.protocol_io import (
    fail,
    one_line,
    options_to_argv,
    read_request,
    run_entry,
    write_json,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"

# Read by skill_eval.run.adapters.resolve_adapter (see its docstring).
BUILTIN_VERSION = "1"
ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
OPTION_FLAGS = {
    "model": "--model",
    "base_url": "--base-url",
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "system": "--system",
    "timeout": "--timeout",
    "max_file_bytes": "--max-file-bytes",
}


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "openai")


MAX_ROUNDS = 4  # model calls per run when the load_skill tool is offered


# --------------------------------------------------------------------------- prompt building


def _skill_files(skill_dir: Path) -> list[str]:
    files = []
    for p in sorted(skill_dir.rglob("*")):
        rel = p.relative_to(skill_dir)
        if p.is_file() and rel.as_posix() != "SKILL.md" and not any(s.startswith(".") for s in rel.parts):
            files.append(rel.as_posix())
    return files


def _frontmatter_field(text: str, key: str) -> str:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return ""
    for line in lines[1:]:
        if line.strip() == "---":
            break
        if line.startswith(f"{key}:"):
            return line.split(":", 1)[1].strip().strip("\"'")
    return ""


def _skill_dir(request: dict[str, Any], workspace: Path) -> tuple[str, Path]:
    skill = request.get("skill")
    if not isinstance(skill, dict) or not isinstance(skill.get("name"), str):
        fail("with_skill request needs 'skill': {name, path}")
    path = (workspace / str(skill.get("path") or f"skills/{skill['name']}")).resolve()
    if not (path / "SKILL.md").is_file():
        fail(f"skill folder {skill.get('path')!r} has no SKILL.md")
    return skill["name"], path


def skill_document(name: str, skill_dir: Path) -> str:
    body = (skill_dir / "SKILL.md").read_text("utf-8", "replace")
    files = _skill_files(skill_dir)
    listing = "\n".join(f"- {f}" for f in files) if files else "(none)"
    return (
        f'<skill name="{name}">\n{body.rstrip()}\n</skill>\n\n'
        f"Files bundled with the skill (not shown; paths relative to the skill folder):\n{listing}"
    )


def _is_text(data: bytes) -> bool:
    if b"\x00" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def attach_files(prompt: str, request: dict[str, Any], workspace: Path, max_bytes: int) -> str:
    """The prompt with the request's text fixtures appended, ``max_bytes`` in total."""
    files = request.get("files") or []
    if not isinstance(files, list) or not files:
        return prompt
    parts = [prompt.rstrip(), "", "Attached files:"]
    budget = max_bytes
    for entry in files:
        rel = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(rel, str):
            continue
        path = (workspace / rel).resolve()
        try:
            path.relative_to(workspace)
            data = path.read_bytes()
        except (ValueError, OSError):
            parts.append(f"[{rel}: not readable]")
            continue
        if not _is_text(data):
            parts.append(f"[{rel}: binary file, {len(data)} bytes, not included]")
            continue
        text = data.decode("utf-8")
        if len(data) > budget:
            text = data[: max(0, budget)].decode("utf-8", "ignore")
            note = f"\n[... truncated: {len(data) - len(text.encode('utf-8'))} more bytes not included]"
        else:
            note = ""
        budget -= len(text.encode("utf-8"))
        parts.append(f'<file path="{rel}">\n{text}{note}\n</file>')
    return "\n".join(parts)


# --------------------------------------------------------------------------- the chat


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    if isinstance(message.get("refusal"), str):
        return message["refusal"]
    return ""


def _add_usage(total: dict[str, float], answer: dict[str, Any]) -> None:
    usage = answer.get("usage")
    if not isinstance(usage, dict):
        return
    mapping = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens"}
    for src, dst in mapping.items():
        value = usage.get(src)
        if isinstance(value, int | float) and not isinstance(value, bool):
            total[dst] = total.get(dst, 0) + value
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        total["cached_input_tokens"] = total.get("cached_input_tokens", 0) + details["cached_tokens"]


LOAD_SKILL_TOOL = {
    "type": "function",
    "function": {
        "name": "load_skill",
        "description": "Load the full instructions of an available skill by name. "
        "Call it only when the skill is relevant to the user's request.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "the skill's name"}},
            "required": ["name"],
        },
    },
}


class Chat:
    def __init__(self, args: argparse.Namespace, model: str):
        base_url = args.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.client = Client(base_url, os.environ.get("OPENAI_API_KEY") or None, args.timeout)
        self.args = args
        self.model = model
        self.usage: dict[str, float] = {}
        self.served_model: str | None = None

    def ask(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.args.temperature is not None:
            body["temperature"] = self.args.temperature
        if self.args.max_tokens is not None:
            body["max_tokens"] = self.args.max_tokens
        if tools:
            body["tools"] = tools
        answer = self.client.post(body)
        _add_usage(self.usage, answer)
        if isinstance(answer.get("model"), str) and not self.served_model:
            self.served_model = answer["model"]
        choices = answer.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            if isinstance(answer.get("error"), dict | str):
                err = answer["error"]
                detail = err.get("message", err) if isinstance(err, dict) else err
                fail(f"{self.client.url} reported an error: {one_line(str(detail))}")
            fail(f"{self.client.url} answered without choices")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            fail(f"{self.client.url} answered without a message")
        return message

    def final_usage(self) -> dict[str, float]:
        usage = dict(self.usage)
        usage["num_requests"] = self.client.requests
        return usage


def run_chat(args: argparse.Namespace, request: dict[str, Any]) -> dict[str, Any]:
    workspace = Path(request.get("workspace") or Path.cwd()).resolve()
    mode = request.get("mode")
    if mode not in ("with_skill", "without_skill"):
        fail(f"request 'mode' must be with_skill or without_skill, not {mode!r}")
    prompt = request.get("prompt")
    if not isinstance(prompt, str):
        fail("request 'prompt' must be a string")
    model = _model(request.get("model"), args.model)
    chat = Chat(args, model)
    events: list[dict[str, str]] = []
    system: list[str] = [args.system] if args.system else []
    tools = None
    skill_text = ""
    if mode == "with_skill":
        name, skill_dir = _skill_dir(request, workspace)
        skill_text = skill_document(name, skill_dir)
        if request.get("trigger"):
            description = _frontmatter_field(
                (skill_dir / "SKILL.md").read_text("utf-8", "replace"), "description"
            )
            system.append(
                "You can load skills with the load_skill tool. Available skills:\n"
                f"- {name}: {description or '(no description)'}"
            )
            tools = [LOAD_SKILL_TOOL]
        else:
            system.append("Follow the instructions of this skill when answering.\n\n" + skill_text)
            events.append({"type": "skill_loaded", "name": name})
    messages: list[dict[str, Any]] = [{"role": "system", "content": "\n\n".join(system)}] if system else []
    messages.append(
        {"role": "user", "content": attach_files(prompt, request, workspace, args.max_file_bytes)}
    )
    output = ""
    for round_no in range(MAX_ROUNDS):
        message = chat.ask(messages, tools if round_no < MAX_ROUNDS - 1 else None)
        calls = message.get("tool_calls") if tools else None
        if not calls:
            output = _message_text(message)
            break
        messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": calls})
        for call in calls:
            fn = call.get("function") if isinstance(call, dict) else None
            fn = fn if isinstance(fn, dict) else {}
            try:
                wanted = json.loads(fn.get("arguments") or "{}").get("name")
            except (json.JSONDecodeError, AttributeError):
                wanted = None
            if fn.get("name") == "load_skill" and wanted == request["skill"]["name"]:
                if not any(e["type"] == "skill_loaded" for e in events):
                    events.append({"type": "skill_loaded", "name": wanted})
                result = skill_text
            else:
                events.append({"type": "tool_call", "name": str(fn.get("name") or "unknown")})
                result = f"error: unknown skill or tool {fn.get('name')!r}"
            messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": result})
    if chat.served_model:
        events.insert(0, {"type": "model", "name": chat.served_model})
    return {"output": output, "events": events, "usage": chat.final_usage()}


def _model(requested: Any, option: str | None) -> str:
    if isinstance(requested, str) and requested.strip() and requested.strip() != "default":
        return requested.strip()
    model = option or os.environ.get("OPENAI_MODEL")
    if not model:
        fail("no model: set adapter.options.model (or the suite's models) for the openai adapter")
    return model


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.openai_compat", description=__doc__)
    p.add_argument("--model", help="model name (used when the suite's model is 'default')")
    p.add_argument("--base-url", help=f"API base URL (env OPENAI_BASE_URL, default {DEFAULT_BASE_URL})")
    p.add_argument("--temperature", type=float, default=None)
    p.add_argument("--max-tokens", type=int, default=None)
    p.add_argument("--system", default=None, help="a base system prompt used in both arms")
    p.add_argument("--timeout", type=float, default=110.0, help="total deadline in seconds, retries included")
    p.add_argument("--max-file-bytes", type=int, default=200_000, help="cap on fixture text sent, in total")
    p.add_argument("--judge", action="store_true", help="serve a judge request instead of a run")
    p.add_argument("--print-version", action="store_true", help="print this adapter's version and exit")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    if args.print_version:
        print(USER_AGENT)
        return 0
    if args.judge:

        def complete(prompt: str, model: str | None) -> tuple[str, dict[str, float]]:
            chat = Chat(args, _model(model, args.model))
            if args.temperature is None:
                args.temperature = 0.0
            text = _message_text(chat.ask([{"role": "user", "content": prompt}]))
            return text, chat.final_usage()

        def chat(system: str, messages: list[dict[str, str]], model: str | None
                 ) -> tuple[str, dict[str, float]]:
            session = Chat(args, _model(model, args.model))
            if args.temperature is None:
                args.temperature = 0.0
            text = _message_text(session.ask([{"role": "system", "content": system}, *messages]))
            return text, session.final_usage()

        return judge_main(complete, chat=chat)
    write_json(run_chat(args, read_request()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
