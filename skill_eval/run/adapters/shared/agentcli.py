"""Plumbing shared by the adapters that drive an agent CLI (Claude Code, Codex): the
workspace, skill installation, an isolated environment, running the CLI under a deadline with
its whole process tree killed, and reading its JSON-lines stream."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.shared.failure_causes import Cause, Watch
from skill_eval.run.adapters.shared.protocol_io import (
    fail,
    one_line,
)

# A path that names some skill's SKILL.md, e.g. ".claude/skills/pdf/SKILL.md",
# "/ws/.agents/skills/pdf/SKILL.md", "cat 'skills/pdf/SKILL.md'", and Codex's own skills
# "$CODEX_HOME/skills/.system/skill-creator/SKILL.md".
_SKILL_MD = re.compile(
    r"(?:^|[\\/\s'\"=:(])skills[\\/](?:\.system[\\/])?([A-Za-z0-9._-]+)[\\/]SKILL\.md\b")


def skills_read_in(text: str) -> list[str]:
    """Names of the skills whose SKILL.md is named in ``text`` (a path or a shell command)."""
    return [m.group(1) for m in _SKILL_MD.finditer(text or "")]


@dataclass
class Collected:
    """What a parsed agent stream produced."""

    output: str = ""
    model: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)
    _skills: set[str] = field(default_factory=set)

    def tool_call(self, name: str) -> None:
        self.events.append({"type": "tool_call", "name": str(name)})

    def add_steps(self, events: list[dict[str, Any]]) -> None:
        """Tool calls and commands (run/adapters/shared/trajectory.py); a command that reads a
        SKILL.md also loads that skill."""
        for e in events:
            self.events.append(e)
            if e.get("type") == "command":
                for name in skills_read_in(" ".join(e.get("argv") or ())):
                    self.skill_loaded(name)

    def skill_loaded(self, name: str) -> None:
        if name and name not in self._skills:
            self._skills.add(name)
            self.events.append({"type": "skill_loaded", "name": name})

    def forget_skill(self, name: str) -> None:
        """A load that did not happen after all (the CLI refused it): only its tool call stays."""
        if name in self._skills:
            self._skills.discard(name)
            self.events = [e for e in self.events if e != {"type": "skill_loaded", "name": name}]

    def response(self) -> dict[str, Any]:
        events = ([{"type": "model", "name": self.model}] if self.model else []) + _within_budget(self.events)
        usage = {
            k: v for k, v in self.usage.items() if isinstance(v, int | float) and not isinstance(v, bool)
        }
        return {"output": self.output, "events": events, "usage": usage}


# The whole inputs of tool calls are reported up to this many characters in all: the response
# shares the run's output cap (max_output_bytes, 1 MiB by default) and a run writing large files
# must not be killed for reporting them. Past it the calls keep their preview; claude-code's kept
# session still has every input, and plugin eval's graders read them there.
INPUT_JSON_BUDGET = 256 * 1024


def _within_budget(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    used, out, cut = 0, [], 0
    for e in events:
        whole = e.get("input_json")
        if isinstance(whole, str):
            used += len(whole)
            if used > INPUT_JSON_BUDGET:
                e = {k: v for k, v in e.items() if k != "input_json"}
                cut += 1
        out.append(e)
    if cut:
        out.append({"type": "warning", "name": f"the whole input of {cut} tool call(s) is past "
                    f"{INPUT_JSON_BUDGET // 1024} KiB in all: kept in the session only"})
    return out


def workspace_of(request: dict[str, Any]) -> Path:
    ws = request.get("workspace")
    path = Path(ws) if isinstance(ws, str) and ws else Path.cwd()
    if not path.is_dir():
        fail(f"workspace {path} is not a directory")
    return path.resolve()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except ValueError:
        return False


def prepare_skill(request: dict[str, Any], workspace: Path, install_dirs: Sequence[str]) -> str | None:
    """Install the request's skill where the agent discovers it; clean up in without_skill mode.

    ``install_dirs`` are workspace-relative (or absolute) folders; the skill is copied into
    ``<dir>/<name>/`` for each, and the runner's copy under ``skills/`` is removed so the agent
    sees the skill only where it would in real use. Returns the skill name (or None).
    """
    mode = request.get("mode")
    if mode not in ("with_skill", "without_skill"):
        fail(f"request 'mode' must be with_skill or without_skill, not {mode!r}")
    staged = workspace / "skills"
    skill = request.get("skill")
    if mode == "without_skill" or not skill:
        if mode == "with_skill":
            fail("with_skill request has no 'skill'")
        if staged.is_dir() and not staged.is_symlink():
            shutil.rmtree(staged)
        return None
    if not isinstance(skill, dict) or not isinstance(skill.get("name"), str) or not skill["name"]:
        fail("request 'skill' must be an object with 'name' and 'path'")
    name = skill["name"]
    if "/" in name or "\\" in name or name in (".", ".."):
        fail(f"skill name {name!r} is not a plain folder name")
    src = (workspace / str(skill.get("path") or f"skills/{name}")).resolve()
    if not _inside(src, workspace):
        fail(f"skill path {skill.get('path')!r} is outside the workspace")
    if not (src / "SKILL.md").is_file():
        fail(f"skill folder {skill.get('path')!r} has no SKILL.md")
    for d in install_dirs:
        dest = Path(d) if os.path.isabs(d) else workspace / d
        dest = dest / name
        if dest.resolve() == src:
            continue
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dest, symlinks=True)
    if _inside(src, staged.resolve()) and staged.is_dir():
        shutil.rmtree(staged)
    return name


def remove_installed(workspace: Path, install_dirs: Sequence[str], name: str | None) -> None:
    """Take the skill copies ``prepare_skill`` made out again once the agent is done: they are
    the adapter's plumbing, not files the run created (plugin eval's ``files`` target). Folders
    left empty by that go too."""
    if not name:
        return
    for d in install_dirs:
        if os.path.isabs(d):
            continue
        dest = workspace / d / name
        if dest.is_dir() and not dest.is_symlink():
            shutil.rmtree(dest, ignore_errors=True)
        for parent in (workspace / d, *(workspace / d).parents):
            if parent == workspace or not _inside(parent, workspace):
                break
            try:
                parent.rmdir()
            except OSError:
                break


def isolated_env(workspace: Path) -> dict[str, str]:
    """The child's environment: ours, with HOME forced inside the workspace."""
    env = dict(os.environ)
    home = env.get("HOME")
    if not home or not _inside(Path(home), workspace):
        home = str(workspace / "home")
    Path(home).mkdir(parents=True, exist_ok=True)
    env["HOME"] = home
    return env


def find_binary(binary: str, env: dict[str, str], missing_message: str) -> str:
    if os.sep in binary or (os.altsep and os.altsep in binary):
        if os.path.isfile(binary) and os.access(binary, os.X_OK):
            return binary
        fail(f"{missing_message} ({binary} is not an executable file)")
    found = shutil.which(binary, path=env.get("PATH", os.defpath))
    if not found:
        fail(missing_message)
    return found


@dataclass
class Finished:
    returncode: int
    stdout_path: Path
    stderr: str
    timed_out: bool
    cause: Cause | None = None  # the watcher's last cause (fatal: the run was stopped for it)
    terminated: bool = False  # stopped from outside (SIGTERM: the suite's timeout)


def _kill_tree(proc: subprocess.Popen[bytes], own_group: bool) -> None:
    """Stop the agent and whatever it started.

    When we lead our own process group (the runner starts adapters that way), the agent shares
    it, so that the runner's group kill also reaches the agent; here we signal the group while
    ignoring the signal ourselves. Otherwise the agent has its own session and we kill that.
    """
    try:
        if own_group:
            previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
            try:
                os.killpg(os.getpgid(0), signal.SIGTERM)
            finally:
                signal.signal(signal.SIGTERM, previous)
        else:
            os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
    try:
        if not own_group:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


class _Terminated(Exception):
    pass


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


class _Follower:
    """Reads the complete JSON lines appended to the CLI's stdout file since the last look."""

    def __init__(self, path: Path, watch: Watch) -> None:
        self.path, self.watch, self.offset = path, watch, 0

    def poll(self) -> Cause | None:
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            chunk = f.read()
        end = chunk.rfind(b"\n")
        if end < 0:
            return None
        self.offset += end + 1
        for raw in chunk[: end + 1].splitlines():
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            if isinstance(ev, dict):
                cause = self.watch.see(ev)
                if cause is not None and cause.fatal:
                    return cause
        return None


def run_cli(
    argv: Sequence[str], cwd: Path, env: dict[str, str], timeout: float | None, tmp: Path,
    watch: Watch | None = None,
) -> Finished:
    """Run ``argv`` with stdout/stderr in files under ``tmp`` (not memory), within ``timeout``.

    stdin is /dev/null: both CLIs would otherwise add piped stdin to the prompt as context.
    With a ``watch``, the stream is followed while the CLI runs: a fatal cause (bad key) stops
    it at once, and a SIGTERM from outside (the runner's timeout) stops it with the last cause
    in hand instead of killing us before we can say why.
    """
    out_path, err_path = tmp / "stdout", tmp / "stderr"
    own_group = os.name == "posix" and os.getpgid(0) == os.getpid()
    follower = _Follower(out_path, watch) if watch is not None else None
    fatal: Cause | None = None
    terminated = False
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if (watch is not None and main_thread) else None
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                proc = subprocess.Popen(
                    list(argv),
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=not own_group and os.name == "posix",
                )
            except OSError as exc:
                fail(f"could not start {argv[0]}: {exc}")
            timed_out = False
            deadline = None if timeout is None else time.monotonic() + timeout
            try:
                while True:
                    step = 0.1 if follower is not None else None
                    if deadline is not None:
                        left = deadline - time.monotonic()
                        step = left if step is None else min(step, left)
                    try:
                        proc.wait(timeout=max(step, 0.0) if step is not None else None)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    if follower is not None:
                        fatal = follower.poll()
                        if fatal is not None:
                            _kill_tree(proc, own_group)
                            break
                    if deadline is not None and time.monotonic() >= deadline:
                        timed_out = True
                        _kill_tree(proc, own_group)
                        break
            except _Terminated:
                terminated = True
                proc.kill()
                proc.wait()
            except BaseException:
                _kill_tree(proc, own_group)
                raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if follower is not None and fatal is None:
        fatal = follower.poll()  # whatever arrived after the last look
    cause = fatal or (watch.last if watch is not None else None)
    stderr = err_path.read_bytes()[-65536:].decode("utf-8", "replace")
    return Finished(proc.returncode, out_path, stderr, timed_out, cause, terminated)


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return one_line(lines[-1]) if lines else ""


def json_values(path: Path, agent: str) -> Iterator[tuple[int, str, Any]]:
    """(line number, stripped line, its JSON value) for each non-empty line; non-JSON fails."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                fail(f"{agent} stream line {lineno} is not valid JSON ({exc.msg}): {one_line(line, 120)!r}")
            yield lineno, line, value


def json_lines(path: Path, agent: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each JSON-object line; a line that is not JSON fails."""
    # other JSON values carry no event: skip them
    return ((n, value) for n, _line, value in json_values(path, agent) if isinstance(value, dict))


def number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def model_for(request: dict[str, Any], option: str | None) -> str | None:
    """The suite's model for this run wins; "default" (or none) falls back to the option."""
    model = request.get("model")
    if isinstance(model, str) and model.strip() and model.strip() != "default":
        return model.strip()
    return option or None


def print_version(binary: str, env: dict[str, str], missing: str) -> int:
    exe = find_binary(binary, env, missing)
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        fail(f"{binary} --version failed: {exc}")
    if done.returncode != 0:
        fail(f"{binary} --version exited with status {done.returncode}: {last_line(done.stderr)}")
    print(done.stdout.strip())
    return 0
