"""A toy builtin adapter for tests/test_extending.py: one module, a protocol-v1 program.

``python -m skill_eval_toy --toy-bin PATH`` reads one request on stdin, asks its agent CLI (the
``toy-agent`` script beside it, or ``--toy-bin``) for an answer, and writes one response on
stdout. The CLI's ``--version`` joins the run key, as a real CLI builtin's does; its descriptor
(registered by the test) tells skill-eval the rest.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

from skill_eval.run.adapters.shared.protocol_io import agent_version

BUILTIN_VERSION = "1"
ENV = ("TOY_API_KEY",)


def identity_extra(options: dict[str, Any], suite: Any) -> dict[str, Any]:
    return {"agent_version": agent_version(str(options.get("toy_bin") or "toy-agent"))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="skill_eval_toy")
    parser.add_argument("--toy-bin", default="toy-agent")
    args = parser.parse_args(argv)
    request = json.load(sys.stdin)
    skill = request["skill"]["name"] if request["skill"] else None
    done = subprocess.run([args.toy_bin, request["mode"], request["prompt"]], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        print(f"toy: toy-agent failed: {done.stderr.strip()}", file=sys.stderr)
        return 1
    events = [{"type": "skill_loaded", "name": skill}] if skill else []
    usage = {"input_tokens": len(request["prompt"].split()), "output_tokens": len(done.stdout.split())}
    json.dump({"output": done.stdout, "events": events, "usage": usage}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
