#!/usr/bin/env python3
"""A protocol-v1 adapter whose answer depends on the skill's content: a case whose id is listed
on a ``BREAK:`` line of the SKILL.md it was given gets an answer without the word its check
wants. Deterministic, so one version of a skill always gives the same outputs. Appends one line
per call to calls.log beside itself (as tests/suitekit.py's adapter does)."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
req = json.load(sys.stdin)
with open(os.path.join(here, "calls.log"), "a") as f:
    f.write(f"{req['mode']}\t{req['prompt']}\n")
broken = set()
if req["skill"]:
    with open(os.path.join(req["skill"]["path"], "SKILL.md")) as f:
        for line in f:
            if line.startswith("BREAK:"):
                broken.update(line.split(":", 1)[1].split())
case = req["prompt"].split(":", 1)[0].removeprefix("Task ")
if req["mode"] == "with_skill" and case not in broken:
    out = f"with_skill says: {req['prompt']}\nsecond line\nthird line"
elif req["mode"] == "with_skill":
    out = f"broken answer to: {req['prompt']}\nsecond line\nthird line"
else:
    out = f"plain answer to: {req['prompt']}"
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req["skill"] else []
json.dump({"output": out, "events": events, "usage": {"input_tokens": 10, "output_tokens": 5}}, sys.stdout)
