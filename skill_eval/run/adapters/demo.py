"""Offline demo adapter: ``python -m skill_eval.run.adapters.demo --responses DIR``.

Answers protocol-v1 requests from recorded responses, one file per skill,
``DIR/<skill>.json``::

    {"skill": "commit-message",
     "cases": {"<case id>": {"prompt": "... (optional, matched when the id is not)",
                             "with_skill": [<answer>, ...], "without_skill": [<answer>, ...]}},
     "triggers": {"<case id or query>": [true, false, ...]},
     "baseline": "text for prompts nobody recorded"}

An <answer> is a string or ``{output, events?, usage?}``. Iteration i gets answer
``(i - 1) % len(list)``: a list mixing good and bad answers is how the demo shows flakiness.
with_skill answers carry a ``skill_loaded`` event unless the answer sets ``events`` itself; a
trigger request (``trigger: true``) loads the skill when ``triggers`` says so for that iteration.
Usage not recorded is derived from text lengths, so tokens and cost look plausible and stay
deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BUILTIN_VERSION = "1"
_GENERIC = ("Here is my answer to the request. I looked at the files you provided and wrote a "
            "reasonable response without any special conventions.")
_USD_PER_INPUT_TOKEN = 3e-6
_USD_PER_OUTPUT_TOKEN = 15e-6


class NoRecording(Exception):
    """No recorded answer matches the request."""


def default_responses(suite: Any) -> Path:
    # examples/skills sits beside examples/responses.
    return suite.adapter.responses or Path(suite.skills_dir).parent / "responses"


def folder_digest(folder: Path) -> str | None:
    """Content hash of the recorded answers: editing a recording invalidates the runs it made."""
    if not folder.is_dir():
        return None
    # Imported here: only the planner hashes; the adapter process, started once a run, need not
    # load OpenSSL for it.
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.json")):
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def build_args(options: dict[str, Any], suite: Any) -> list[str]:
    return ["--responses", str(default_responses(suite))]


def identity_extra(options: dict[str, Any], suite: Any) -> dict[str, Any]:
    return {"responses_sha256": folder_digest(default_responses(suite))}


def load_recordings(folder: Path) -> dict[str, dict[str, Any]]:
    """{skill name: recording file content} for every ``*.json`` in ``folder``."""
    recordings = {}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        recordings[data.get("skill", path.stem)] = data
    return recordings


def _find_case(request: dict[str, Any], recordings: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    skill = request.get("skill")
    case_id = str((request.get("case") or {}).get("id", ""))
    prompt = request.get("prompt", "")
    # with_skill names the skill; without_skill does not, so every recording is searched.
    named = skill.get("name") if skill else None
    pools = [recordings[named]] if named in recordings else list(recordings.values())
    for match in (lambda cid, c: c.get("prompt") == prompt, lambda cid, c: cid == case_id):
        for rec in pools:
            for cid, case in rec.get("cases", {}).items():
                if match(cid, case):
                    return case
    return None


def _pick(seq: list[Any], iteration: int) -> Any:
    return seq[(max(iteration, 1) - 1) % len(seq)]


def _usage(prompt: str, output: str) -> dict[str, float]:
    tokens_in = 180 + len(prompt) // 4
    tokens_out = max(1, len(output) // 4)
    cost = tokens_in * _USD_PER_INPUT_TOKEN + tokens_out * _USD_PER_OUTPUT_TOKEN
    return {"input_tokens": tokens_in, "output_tokens": tokens_out, "cost_usd": round(cost, 6)}


def _trigger_answer(request: dict[str, Any], recordings: dict[str, dict[str, Any]], iteration: int,
                    strict: bool) -> dict[str, Any]:
    skill = request.get("skill")
    case_id = str((request.get("case") or {}).get("id", ""))
    prompt = request.get("prompt", "")
    seq = None
    for rec in ([recordings.get(skill["name"], {})] if skill else list(recordings.values())):
        triggers = rec.get("triggers", {})
        seq = triggers.get(case_id, triggers.get(prompt))
        if seq is not None:
            break
    if seq is None and strict:
        raise NoRecording(f"no recorded trigger for case {case_id!r} / query {prompt[:60]!r}")
    flags = seq if isinstance(seq, list) else [bool(seq)]
    loaded = bool(skill) and bool(flags) and bool(_pick(flags, iteration))
    output = f"(answered the query{' using skill ' + skill['name'] if loaded else ''})"
    events = [{"type": "skill_loaded", "name": skill["name"]}] if loaded else []
    return {"output": output, "events": events, "usage": _usage(prompt, output)}


def answer(request: dict[str, Any], recordings: dict[str, dict[str, Any]],
           strict: bool = False) -> dict[str, Any]:
    """The recorded protocol-v1 response for ``request``; ``strict`` raises NoRecording instead of
    falling back to a generic baseline answer."""
    iteration = int((request.get("case") or {}).get("iteration", 1))
    if request.get("trigger"):
        return _trigger_answer(request, recordings, iteration, strict)
    mode = request.get("mode", "without_skill")
    skill = request.get("skill")
    prompt = request.get("prompt", "")
    case = _find_case(request, recordings)
    answers = (case or {}).get(mode)
    if not answers:
        if strict:
            raise NoRecording(f"no recorded {mode} answer for case "
                              f"{(request.get('case') or {}).get('id')!r} / prompt {prompt[:60]!r}")
        skill_name = skill.get("name") if skill else None
        baseline = (recordings.get(skill_name) or {}).get("baseline", _GENERIC)
        answers = [baseline]
    chosen = _pick(answers, iteration)
    if isinstance(chosen, str):
        chosen = {"output": chosen}
    output = chosen["output"]
    events = chosen.get("events")
    if events is None:
        events = [{"type": "skill_loaded", "name": skill["name"]}] if mode == "with_skill" and skill else []
    return {"output": output, "events": events, "usage": chosen.get("usage") or _usage(prompt, output)}


def serve(responder: Any) -> int:
    """Read one request on stdin, write one response on stdout; failures are one stderr line, exit 1."""
    try:
        request = json.load(sys.stdin)
        if not isinstance(request, dict):
            raise ValueError("request must be a JSON object")
        response = responder(request)
    except (NoRecording, ValueError, OSError) as exc:
        print(f"{Path(sys.argv[0]).stem}: {exc}", file=sys.stderr)
        return 1
    json.dump(response, sys.stdout, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--responses", required=True, type=Path, help="folder of <skill>.json recordings")
    args = parser.parse_args(argv)
    if not args.responses.is_dir():
        print(f"demo: responses folder {args.responses} does not exist", file=sys.stderr)
        return 1
    recordings = load_recordings(args.responses)
    return serve(lambda request: answer(request, recordings))


if __name__ == "__main__":
    sys.exit(main())
