"""One run, end to end: workspace → request → adapter process → response → store.

Adapter faults come back as a RunError (and are recorded in the store as errors, never as
results); only programming errors raise. What is returned is what the store kept, redacted:
the first grade sees exactly the text every later regrade sees.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from skill_eval.errors import AdapterError
from skill_eval.model.config import Suite
from skill_eval.model.results import UNSCORABLE, RunError, RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.run import janitor, sandbox, unscorable
from skill_eval.run.adapters.shared.protocol_io import FATAL_EXIT
from skill_eval.run.judge_process import JudgeProcess, judge_timeout
from skill_eval.run.mocks import served
from skill_eval.run.mocks.relay import Relay
from skill_eval.run.process import ProcessResult, run_process
from skill_eval.run.protocol import SESSION, build_request, parse_response, planned_replay_key, replay_key
from skill_eval.run.sandbox import SandboxUnavailable
from skill_eval.run.scaffold import ScaffoldFailed, listing, place_history, run_scaffold
from skill_eval.run.workspace import NOT_KEPT, prepare_workspace
from skill_eval.store.redact import redact
from skill_eval.store.store import Store

_STDERR_TAIL = 600


def _tail(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    if not text:
        return ""
    # Redact the whole text before cutting it, so the cut cannot split a secret out of view.
    text = redact(text)
    return " | stderr: " + (text if len(text) <= _STDERR_TAIL else "..." + text[-_STDERR_TAIL:]).replace(
        "\n", " \\n ")


def _first_line(stderr: bytes) -> str:
    lines = [ln.strip() for ln in redact(stderr.decode("utf-8", "replace")).splitlines() if ln.strip()]
    return lines[-1] if lines else f"exited with status {FATAL_EXIT} (cannot work at all)"


def _failure(spec: RunSpec, suite: Suite, proc: ProcessResult) -> RunError | None:
    who = spec.adapter.name
    if proc.timed_out:
        where = "the case" if spec.case.settings and spec.case.settings.timeout_seconds else "the suite"
        return RunError(spec.key, "timeout", f"adapter {who} timed out after {run_timeout(spec, suite):g}s "
                        f"(raise timeout_seconds in {where} if it needs longer)" + _tail(proc.stderr),
                        proc.duration_s)
    if proc.capped:  # the answer never arrived whole: nothing to grade, and not the skill's fault
        return RunError(spec.key, UNSCORABLE, f"truncated: adapter {who} wrote more than "
                        f"{suite.max_output_bytes} bytes on stdout or stderr and was stopped "
                        "(max_output_bytes in the suite)", proc.duration_s)
    if proc.returncode == FATAL_EXIT:
        # The adapter says every run would fail the same way (e.g. a rejected API key).
        return RunError(spec.key, "fatal", f"adapter {who}: " + _first_line(proc.stderr), proc.duration_s)
    if proc.returncode != 0:
        return RunError(spec.key, "exit", f"adapter {who} exited with status {proc.returncode}"
                        + _tail(proc.stderr), proc.duration_s)
    return None


def execute(spec: RunSpec, suite: Suite, store: Store, tidy_later: bool = False) -> RunResult | RunError:
    """Run ``spec`` through its adapter and store the outcome; return the stored (redacted)
    result or the error. ``tidy_later``: the workspace is removed in the background (see
    run/janitor.py; whoever passes it drains the janitor before its command ends)."""
    start = time.perf_counter()
    settings = spec.case.settings
    refused = env_refusal(spec)
    if refused is not None:
        return record_error(store, RunError(spec.key, "settings", refused, 0.0))
    try:
        workspace = prepare_workspace(spec)
    except AdapterError as exc:
        return record_error(store, RunError(spec.key, "workspace", str(exc), time.perf_counter() - start))
    mocks: served.MockRun | None = None
    relay: Relay | None = None
    try:
        pre_existing: dict[str, str] | None = None
        if settings is not None and settings.scaffold is not None and spec.adapter.scaffold:
            try:
                run_scaffold(settings.scaffold, workspace.path)
            except (ScaffoldFailed, AdapterError) as exc:
                return record_error(store, RunError(spec.key, "scaffold", str(exc),
                                                    time.perf_counter() - start))
            pre_existing = listing(workspace.path, NOT_KEPT)
        if settings is not None and settings.history is not None:
            try:
                place_history(settings.history, workspace.path)
            except ScaffoldFailed as exc:
                return record_error(store, RunError(spec.key, "settings", str(exc), 0.0))
        request = build_request(spec, workspace.path, list(workspace.files), workspace.skill_rel)
        mocks = served.start(spec, suite.judge.model if suite.judge else None, judge_timeout(suite))
        if mocks is not None:  # the agent starts them; skill-eval reads what they recorded after
            request["mcp_servers"] = list(mocks.servers)
            if mocks.agents:  # the suite's judge plays the agent mocks, asked through the relay
                relay = Relay(mocks.folder, JudgeProcess(suite).complete)
        try:
            argv = sandboxed_argv(spec, suite, workspace.path, [mocks.folder] if mocks else [])
        except SandboxUnavailable as exc:  # never run unsandboxed what was asked sandboxed
            return record_error(store, RunError(spec.key, "sandbox", str(exc), time.perf_counter() - start))
        try:
            proc = run_process(argv, json.dumps(request).encode("utf-8"), workspace.path,
                               workspace.env(spec.adapter), run_timeout(spec, suite), suite.max_output_bytes)
        except AdapterError as exc:
            return record_error(store, RunError(spec.key, "not_found", str(exc), time.perf_counter() - start))
        if relay is not None:
            relay.close()
        calls, aborted, recordings = mocks.records() if mocks is not None else ([], None, [])
        if aborted is not None:  # a call broke a mock's expect: plugin eval's aborted run, score 0
            return record_error(store, RunError(spec.key, "aborted", served.abort_message(aborted),
                                                proc.duration_s))
        ok = proc.returncode == 0 and not proc.timed_out and not proc.capped
        kept, dropped = workspace.kept_files(suite.max_output_bytes, suite.max_kept_files) if ok else ([], {})
        session = read_session(workspace.path) if ok else None
        return conclude(spec, suite, store, proc, replay_key(request), kept, dropped, pre_existing,
                        session=session, extra=mock_meta(mocks, relay, calls, recordings if ok else []))
    finally:
        if relay is not None:
            relay.close()
        if mocks is not None:
            mocks.remove()
        if tidy_later:
            # Its processes are dead and its files read: nothing waits for the folder to go
            # (a stop on a signal removes live workspaces itself).
            janitor.later(workspace.remove)
        else:
            workspace.remove()


def mock_meta(mocks: served.MockRun | None, relay: Relay | None, calls: list[dict[str, Any]],
              recordings: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What a run keeps of its mocks: every call; with agent mocks, the judge's questions and, for
    a run that ended cleanly, the answers to record (plugin eval's mock-recordings/)."""
    if mocks is None:
        return None
    out: dict[str, Any] = {"mock_calls": calls}
    if mocks.refused:  # lines no mocked server sent (the agent's): refused, named here
        out["mock_refused"] = mocks.refused
    if relay is not None:
        out["mock_judge"] = {"calls": relay.calls, "usage": dict(relay.usage)}
        out["mock_recordings"] = recordings
    return out


def env_refusal(spec: RunSpec) -> str | None:
    """Why the case's ``env`` fails this run (a name outside EVAL_*), as plugin eval checks it:
    when the run starts, that run only."""
    bad = spec.case.settings.bad_env_keys() if spec.case.settings is not None else []
    if not bad:
        return None
    return (f'case "{spec.case.id}" env key "{bad[0]}" is not allowed: only EVAL_* keys can be set by '
            "a case; anything else must come from the suite's adapter.env")


def run_timeout(spec: RunSpec, suite: Suite) -> float:
    """The case's own ``timeout_seconds`` where it sets one, else the suite's."""
    own = spec.case.settings.timeout_seconds if spec.case.settings is not None else None
    return float(own) if own is not None else suite.timeout_seconds


def sandboxed_argv(spec: RunSpec, suite: Suite, workspace: Path,
                   private: Sequence[Path] = ()) -> tuple[str, ...]:
    """The adapter's argv, inside its sandbox when the suite asks for one. ``private`` (a run's
    mock folder: the sockets of its mock host and judge relay) is bound read-only."""
    adapter = spec.adapter
    if adapter.sandbox is None:
        return adapter.argv
    hidden = [suite.store, suite.results, suite.skills_dir, spec.skill_path]
    if suite.plugin is not None:  # its eval folder above all: the run has its own copy of the rest
        hidden.append(suite.plugin.root)
    return tuple(sandbox.wrap(adapter.argv, workspace, adapter.network,
                              [*(Path(p) for p in adapter.readable), *private], hidden))


def run_limits(spec: RunSpec, suite: Suite) -> dict[str, object]:
    """What the run ran under, kept with it: two benchmarks compare on equal terms only when
    these match (the summary warns when the arms of a comparison differ)."""
    box = spec.adapter.sandbox
    return {"timeout_seconds": run_timeout(spec, suite), "max_output_bytes": suite.max_output_bytes,
            "jobs": suite.jobs,
            "sandbox": None if box is None else {**sandbox.identity(box, spec.adapter.network),
                                                 "hidden": list(sandbox.HIDDEN),
                                                 "allowed": list(sandbox.ALLOWED)}}


def _adapter_named(spec: RunSpec, suite: Suite) -> str:
    """``adapter command 'python3 adapter.py'``: the command as the suite wrote it (file names,
    not the absolute paths it resolved to), so an error names what to edit."""
    command = suite.adapter.command
    if spec.adapter.name != "command" or not command:
        return f"adapter {spec.adapter.name}"
    return "adapter command '" + " ".join(os.path.basename(a) if os.sep in a else a for a in command) + "'"


def conclude(spec: RunSpec, suite: Suite, store: Store, proc: ProcessResult, replay: str,
             kept: Sequence[tuple[str, bytes]] = (), dropped: Mapping[str, str] | None = None,
             pre_existing: Mapping[str, str] | None = None, session: str | None = None,
             extra: Mapping[str, object] | None = None) -> RunResult | RunError:
    """What the adapter process did -> the store: an error, or the run with the files it left
    (``kept``: workspace-relative path and bytes; ``dropped``: path -> why it was not kept).
    Shared by local runs and runs that executed on another machine. The store redacts all of
    it; the stored result is returned, so the first grade sees what every regrade sees."""
    failure = _failure(spec, suite, proc)
    if failure is not None:
        return record_error(store, failure)
    try:
        response = parse_response(proc.stdout, _adapter_named(spec, suite))
    except AdapterError as exc:
        return record_error(store, RunError(spec.key, "invalid_response", str(exc), proc.duration_s))
    never = unscorable.never_reached(response)
    if never is not None:  # nothing the skill did: not graded, and run again once the cause is fixed
        return record_error(store, RunError(spec.key, UNSCORABLE, never, proc.duration_s))
    settings = spec.case.settings
    max_turns = settings.turn_cap if settings is not None else None
    # A case that sets max_turns is graded on what it produced when it reaches it (plugin eval).
    response = unscorable.mark(response, spec.asked_model, graded_at_turn_limit=max_turns is not None)
    meta = {
        "skill": spec.skill_name, "case": spec.case.id, "variant": spec.arm, "model": spec.model,
        "iteration": spec.iteration, "adapter": spec.adapter.name, "replay_key": replay,
    }
    meta["limits"] = run_limits(spec, suite)
    if max_turns is not None and unscorable.at_turn_limit(response):
        meta["run_error"] = f"max_turns: reached the case's max_turns ({max_turns})"
    if pre_existing is not None:
        # The workspace after the scaffold, before the agent: files here were not created by it.
        meta["pre_existing"] = dict(pre_existing)
    meta["created"] = created_files([rel for rel, _ in kept] + list(dropped or {}), pre_existing or {})
    if extra:
        # Every call the run made to a mocked MCP tool, input and answer (the mock_calls target).
        meta.update(extra)
        if "run_error" in meta and meta.get("mock_recordings"):
            meta["mock_recordings"] = []  # plugin eval keeps the answers of clean runs only
    if dropped:
        meta["files_not_kept"] = dict(dropped)  # the run stays: a paid run is never thrown away
    stored = store.put_run(spec.key, response, round(proc.duration_s, 6), meta, files=kept,
                           stderr=proc.stderr.decode("utf-8", "replace"), session=session)
    store.put_json("replay", replay, {"run": spec.key})
    store.clear_error(spec.key)
    return stored  # its not_kept: the files above and any whose name could not be stored


def index_replay(store: Store, spec: RunSpec, files: list[list[str]]) -> None:
    """Index the stored run under this slot's own request (its case's id and iteration), as
    ``conclude`` does for the slot that made it: a case served by another case's identical
    request is then found by a replay of the store whichever case asked first."""
    key = planned_replay_key(spec, files)
    if store.get_json("replay", key) != {"run": spec.key}:
        store.put_json("replay", key, {"run": spec.key})


SESSION_CAP = 64 * 1_048_576  # a session past this is not kept: target: trace then fails, never hangs


def created_files(left: list[str], pre_existing: Mapping[str, str]) -> list[str]:
    """The files the run created: those it left that were not there before it started (plugin
    eval's ``files`` target), sorted as JavaScript sorts strings (by UTF-16 code units). A name
    that is not UTF-8 is listed as Node reads it, its bad bytes as U+FFFD (it must still fit in
    the run's JSON record)."""
    made = {_as_node_reads(p) for p in left if p not in pre_existing and p != "." and not p.endswith("/")}
    return sorted(made, key=lambda p: p.encode("utf-16-be", "surrogatepass"))


def _as_node_reads(name: str) -> str:
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_session(workspace: Path) -> str | None:
    """The session the adapter kept at the request's ``session`` path, if it wrote one."""
    path = workspace / SESSION
    if path.is_symlink() or not path.is_file() or path.stat().st_size > SESSION_CAP:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def record_error(store: Store, error: RunError) -> RunError:
    """Store a run's error (the store redacts it) and return it as stored."""
    return store.put_error(error.key, error)
