#!/usr/bin/env python3
"""A protocol-v1 adapter written by `skill-eval init`: it works offline and answers with an echo.

skill-eval starts this script once per run, in a fresh workspace (the current folder), writes
one JSON request on stdin and reads one JSON response from stdout. Exit 0 with a response;
anything else (or a non-zero exit) is that run's adapter error. The protocol in full:
docs/protocol.md in the skill-eval repository.

TODO(skill-eval init): replace `answer()` with a call to your agent. Start it with the prompt,
let it read the files under inputs/ (and, in the with_skill arm, the skill at request["skill"]["path"]),
and return what it answered. Until then every check that only looks for words of the prompt passes.
"""

import json
import sys


def answer(request: dict) -> str:
    """The echo: the prompt and the names of the input files. Replace with your agent."""
    names = [f["path"] for f in request["files"]]
    skill = request["skill"]["name"] if request["skill"] else "none"
    return (f"[echo adapter, mode {request['mode']}, skill {skill}]\n"
            f"{request['prompt']}\n"
            f"files: {', '.join(names) if names else 'none'}\n")


def main() -> int:
    request = json.load(sys.stdin)
    output = answer(request)
    events = []
    # An agent that loads the skill reports it, so `loaded_skill` checks can see it:
    # events.append({"type": "skill_loaded", "name": request["skill"]["name"]})
    usage = {"input_tokens": len(request["prompt"].split()), "output_tokens": len(output.split())}
    json.dump({"output": output, "events": events, "usage": usage}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
