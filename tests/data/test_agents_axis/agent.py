"""A protocol-v1 agent for the agents-axis tests: ``agent.py NAME [--helps]``. With --helps the
skill makes it answer DONE; without, it answers the same in both arms. Each call appends
"NAME mode" to calls.log beside the suite."""
import json
import os
import sys

name, helps = sys.argv[1], "--helps" in sys.argv[2:]
req = json.loads(sys.stdin.read())
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.log"), "a") as f:
    f.write(f"{name} {req['mode']}\n")
with_skill = req["mode"] == "with_skill"
out = "DONE" if with_skill and helps else "not sure"
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if with_skill else []
print(json.dumps({"output": out, "events": events, "usage": {"input_tokens": 10, "output_tokens": 2}}))
