"""Adapter protocol v1: the request we write to an adapter's stdin and the response we accept.

The response is checked by hand rather than by the JSON Schema validator: it is on the hot path
of every run and every failure needs one precise line, not a list of schema paths.
(schemas/adapter-response.schema.json describes the same contract for adapter authors.)
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from skill_eval.errors import AdapterError
from skill_eval.intake.textcheck import clean
from skill_eval.model.results import AdapterResponse, Event
from skill_eval.plan.types import RunSpec
from skill_eval.run.scaffold import HISTORY
from skill_eval.store.redact import redact

PROTOCOL_VERSION = 1
_RESPONSE_FIELDS = ("output", "events", "usage")
INPUT_PREVIEW = 400  # characters of a tool call's input kept (redacted first, then cut)
# The largest usage number accepted: a quadrillion tokens or dollars is no real run.
MAX_USAGE = 10**15
# Fields of a request that identify what is asked, independent of where and by which adapter.
_REPLAY_FIELDS = ("protocol_version", "mode", "skill", "prompt", "files", "model", "case", "trigger")


SESSION = "tmp/skill-eval-session.jsonl"


def build_request(spec: RunSpec, workspace: Path, files: list[dict[str, str]],
                  skill_rel: str | None) -> dict[str, Any]:
    """The protocol-v1 request for one run. Never carries expected output, checks or rubric."""
    request: dict[str, Any] = {
        "protocol_version": PROTOCOL_VERSION,
        # An ablation arm is a with-skill run whose skill folder is the ablated copy.
        "mode": "with_skill" if spec.ablation is not None else spec.arm,
        "skill": {"name": spec.skill_name, "path": skill_rel} if skill_rel else None,
        "prompt": spec.case.prompt,
        "files": files,
        "workspace": str(workspace),
        "model": spec.model,
        "case": {"id": spec.case.id, "iteration": spec.iteration},
        # Where an adapter that can keep the session writes it (claude-code), for target: trace.
        "session": SESSION,
    }
    if spec.plugin is not None and skill_rel is not None:  # load it whole: the skill is inside
        request["plugin"] = {"name": spec.plugin.name, "path": spec.plugin_rel}
    if spec.case.kind == "trigger":
        request["trigger"] = True
    if spec.ablation is not None:
        request["ablation"] = spec.ablation.name
    settings = spec.case.settings
    if settings is not None:  # the case's own run settings (a plugin eval suite's case)
        request["model"] = spec.asked_model
        carried = settings.request(spec.adapter.allow_tools)
        if carried:
            request["settings"] = carried
        if settings.history is not None:  # placed there by the runner before the adapter starts
            request["history"] = HISTORY
    return request


def replay_key(request: dict[str, Any]) -> str:
    """SHA-256 of what a request asks (mode, skill name, prompt, fixtures, model, case, iteration).

    Leaves out the workspace path and the skill folder's location, so the same question asked
    through a different adapter (or on another machine) finds the same recording.
    """
    fields = {k: request.get(k) for k in _REPLAY_FIELDS}
    if request.get("ablation"):  # only then: recordings of the other arms keep their keys
        fields["ablation"] = request["ablation"]
    if isinstance(fields["skill"], dict):
        fields["skill"] = fields["skill"].get("name")
    fields["trigger"] = bool(fields["trigger"])
    canon = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def planned_replay_key(spec: RunSpec, files: list[list[str]]) -> str:
    """The replay key of the request ``spec`` makes, known without building its workspace:
    ``files`` as the run key's material holds them (``[["inputs/<rel>", sha256], ...]``)."""
    sent = [{"path": path, "sha256": sha} for path, sha in sorted(files)]
    return replay_key(build_request(spec, Path(), sent, spec.skill_rel))


def _preview(raw: bytes | str, limit: int = 80) -> str:
    # Redact the whole text, then cut: a cut first could leave a secret's head unrecognised.
    text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
    text = redact(text).replace("\n", "\\n")
    return text[:limit] + ("..." if len(text) > limit else "")


def _names(keys: list[str]) -> str:
    """Field names an adapter sent, on one line: a control character in a key is shown escaped."""
    return ", ".join(json.dumps(k, ensure_ascii=False)[1:-1] for k in keys)


def parse_response(raw: bytes, source: str) -> AdapterResponse:
    """Validate an adapter's stdout; raise AdapterError with one line naming ``source``."""
    if not raw.strip():
        raise AdapterError(f"{source}: adapter printed nothing on stdout; expected a JSON object "
                           "with an 'output' string (protocol v1)")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise AdapterError(f"{source}: adapter stdout is not JSON ({exc}): have it print only its JSON "
                           "response on stdout and log everything else to stderr; starts with "
                           f"{_preview(raw)!r}") from None
    except RecursionError:
        raise AdapterError(f"{source}: adapter response nests JSON too deeply to read; protocol v1 "
                           "is {output, events, usage}") from None
    if not isinstance(data, dict):
        raise AdapterError(f"{source}: adapter response must be a JSON object, got {type(data).__name__}")
    extra = sorted(k for k in data if k not in _RESPONSE_FIELDS)
    if extra:
        raise AdapterError(f"{source}: adapter response has unknown field(s) {_names(extra)}; "
                           "protocol v1 allows only output, events, usage")
    if "output" not in data:
        raise AdapterError(f"{source}: adapter response has no 'output' field")
    output = data["output"]
    if not isinstance(output, str):
        raise AdapterError(f"{source}: adapter response 'output' must be a string, "
                           f"got {type(output).__name__}")
    # Lone surrogates (a JSON "\ud83d": half an emoji, e.g. from a truncated answer) become U+FFFD,
    # so the run is kept and everything after it (hashes, the store, tables) can encode it.
    return AdapterResponse(output=clean(output), events=_events(data.get("events", []), source),
                           usage=_usage(data.get("usage", {}), source))


_EVENT_FIELDS = ("type", "name", "argv", "input", "input_json", "subagent")


def _events(raw: Any, source: str) -> tuple[Event, ...]:
    if not isinstance(raw, list):
        raise AdapterError(f"{source}: adapter response 'events' must be a list, got {type(raw).__name__}")
    events = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise AdapterError(f"{source}: events[{i}] must be an object, got {type(item).__name__}")
        extra = sorted(k for k in item if k not in _EVENT_FIELDS)
        if extra:
            raise AdapterError(f"{source}: events[{i}] has unknown field(s) {_names(extra)}; "
                               f"allowed: {', '.join(_EVENT_FIELDS)}")
        kind, name, argv = item.get("type"), item.get("name"), item.get("argv")
        if not isinstance(kind, str) or not kind:
            raise AdapterError(f"{source}: events[{i}].type must be a non-empty string")
        if name is not None and not isinstance(name, str):
            raise AdapterError(f"{source}: events[{i}].name must be a string, got {type(name).__name__}")
        preview = item.get("input")
        if preview is not None and not isinstance(preview, str):
            raise AdapterError(f"{source}: events[{i}].input must be a string, got {type(preview).__name__}")
        whole, subagent = item.get("input_json"), item.get("subagent", False)
        if whole is not None and not isinstance(whole, str):
            raise AdapterError(f"{source}: events[{i}].input_json must be a string, "
                               f"got {type(whole).__name__}")
        if not isinstance(subagent, bool):
            raise AdapterError(f"{source}: events[{i}].subagent must be true or false")
        events.append(Event(clean(kind), clean(name) if name is not None else None,
                            _argv(kind, name, argv, f"{source}: events[{i}]"),
                            _preview(clean(preview), INPUT_PREVIEW) if preview is not None else None,
                            clean(whole) if whole is not None else None, subagent))
    return tuple(events)


def _argv(kind: str, name: str | None, argv: Any, where: str) -> tuple[str, ...] | None:
    """``command`` events carry the command line (``argv``), and only they do; a ``tool_call``
    names its tool: trace checks rely on both, so a half-formed event is refused, not guessed at."""
    if kind == "command":
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise AdapterError(f"{where}: a 'command' event needs 'argv', a non-empty list of strings")
        return tuple(clean(a) for a in argv)
    if argv is not None:
        raise AdapterError(f"{where}: 'argv' belongs to 'command' events only; drop it or set type: command")
    if kind == "tool_call" and not name:
        raise AdapterError(f"{where}: a 'tool_call' event needs 'name' (the tool's name)")
    return None


def _usage(raw: Any, source: str) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise AdapterError(f"{source}: adapter response 'usage' must be an object, got {type(raw).__name__}")
    usage: dict[str, float] = {}
    for key, value in raw.items():
        # bool is an int subclass; true/false are not quantities.
        if isinstance(value, bool) or not isinstance(value, int | float) or (
                isinstance(value, float) and not math.isfinite(value)):
            shown = _preview(json.dumps(value), 40)
            raise AdapterError(f"{source}: usage.{key} must be a number, got {shown}")
        # Checked before any float(): a 400-digit integer would overflow it (and every sum after).
        if abs(value) > MAX_USAGE:
            shown = _preview(json.dumps(value), 40)
            raise AdapterError(f"{source}: usage.{clean(key)} is {shown}, outside ±{MAX_USAGE:.0e}; "
                               "usage numbers are counts and costs, far below that")
        usage[clean(key)] = value
    return usage
