"""Replay adapter: ``python -m skill_eval.run.adapters.replay --responses PATH``.

PATH (``adapter.responses`` in the suite) is either

- a folder of recordings in the demo format (see ``demo``): looked up by skill, then case
  prompt or case id, then mode, answer ``(iteration - 1) % n``; or
- another skill-eval store (it has ``runs/``): looked up by the request's *replay key*
  (``protocol.replay_key``: SHA-256 of protocol version, mode, skill name, prompt, fixture
  paths and hashes, model, case id, iteration and trigger flag — no workspace path and no
  adapter identity). The runner indexes every stored run under ``<store>/replay/<k[:2]>/<k>.json``
  → ``{"run": <run key>}``; the newest run with that replay key wins.

Unlike the demo, a request with no recording is an adapter error naming what was looked for.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.demo import NoRecording, answer, folder_digest, load_recordings, serve

BUILTIN_VERSION = "1"


def _responses(suite: Any) -> Path:
    if suite.adapter.responses is None:
        from skill_eval.errors import InvalidInput, Problem

        raise InvalidInput([Problem(suite.display(suite.path), "adapter: builtin 'replay' needs "
                                    "'responses: <folder of recordings or another store>'")])
    return Path(suite.adapter.responses)


def build_args(options: dict[str, Any], suite: Any) -> list[str]:
    return ["--responses", str(_responses(suite))]


def identity_extra(options: dict[str, Any], suite: Any) -> dict[str, Any]:
    path = _responses(suite)
    if (path / "runs").is_dir():
        return {"responses": "store"}  # content-addressed already; hashing it all would be slow
    return {"responses_sha256": folder_digest(path)}


def from_store(store: Path, request: dict[str, Any]) -> dict[str, Any]:
    from skill_eval.errors import AdapterError
    from skill_eval.run.protocol import parse_response, replay_key

    key = replay_key(request)
    case = request.get("case") or {}
    what = (f"mode {request.get('mode')}, case {case.get('id')!r}, iteration {case.get('iteration')}, "
            f"model {request.get('model')!r} (replay key {key[:16]})")
    try:
        run = json.loads((store / "replay" / key[:2] / f"{key}.json").read_bytes())["run"]
        raw = (store / "runs" / run[:2] / run / "response.json").read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        raise NoRecording(f"no run recorded in store {store} for {what}") from None
    try:
        return parse_response(raw, f"store {store} run {run[:16]}").to_json()
    except AdapterError as exc:
        raise NoRecording(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.replay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--responses", required=True, type=Path, help="recordings folder or a store")
    args = parser.parse_args(argv)
    path: Path = args.responses
    if not path.is_dir():
        print(f"replay: responses {path} does not exist", file=sys.stderr)
        return 1
    if (path / "runs").is_dir():
        return serve(lambda request: from_store(path, request))
    recordings = load_recordings(path)
    return serve(lambda request: answer(request, recordings, strict=True))


if __name__ == "__main__":
    sys.exit(main())
