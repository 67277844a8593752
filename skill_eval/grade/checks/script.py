"""script: run a user command (in the run's outputs folder, or ``cwd`` relative to the skill);
exit 0 (or ``pass_exit_code``) passes. ``{output_dir}`` in an argument is the run's outputs folder.

Off unless the suite sets ``allow_scripts: true``: an eval set from a pull request must not be
able to run code on a CI machine just by being graded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip, run_metadata

DEFAULT_TIMEOUT_S = 60.0
DISABLED = "script checks are disabled; set allow_scripts: true in the suite"
OUTPUT_DIR = "{output_dir}"
OUTPUT_PATH = "{output_path}"


def script(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    command = params.get("command")
    if not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command):
        raise CheckParamError("'command' must be a non-empty list of strings")
    timeout = params.get("timeout_seconds", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise CheckParamError("'timeout_seconds' must be a positive number")
    expected_code = params.get("pass_exit_code", 0)
    if isinstance(expected_code, bool) or not isinstance(expected_code, int):
        raise CheckParamError("'pass_exit_code' must be an integer")
    cwd_param = params.get("cwd")
    if cwd_param is not None and not isinstance(cwd_param, str):
        raise CheckParamError("'cwd' must be a folder path relative to the skill")
    if not ctx.allow_scripts:
        return False, DISABLED
    if ctx.outputs_dir is None or not ctx.outputs_dir.is_dir():
        return False, "this run kept no outputs/ folder to run the script in"
    cwd = ctx.outputs_dir
    if cwd_param is not None:
        # Harness manifests run their oracles from the manifest's folder, relative to the skill.
        if ctx.skill_root is None:
            return False, clip(f"cwd {cwd_param!r} is relative to the skill folder, which is not known here")
        cwd = (ctx.skill_root / cwd_param).resolve()
        if not cwd.is_dir():
            return False, clip(f"cwd {cwd_param!r} is not a folder (tried {cwd})")
    if params.get("run_layout"):
        with tempfile.TemporaryDirectory(prefix="skill-eval-run-") as run_dir:
            return _run(_run_layout(Path(run_dir), ctx), command, cwd, timeout, expected_code, ctx)
    # {output_dir}: the run's kept outputs folder, for oracles that inspect what the agent wrote.
    return _run(ctx.outputs_dir, command, cwd, timeout, expected_code, ctx)


def _run_layout(run_dir: Path, ctx: CheckContext) -> Path:
    """A run folder as skill-eval-harness oracles expect it: output.md, metadata.json, outputs/."""
    (run_dir / "output.md").write_text(ctx.output, encoding="utf-8")
    (run_dir / "metadata.json").write_text(json.dumps(run_metadata(ctx)), encoding="utf-8")
    assert ctx.outputs_dir is not None
    (run_dir / "outputs").symlink_to(ctx.outputs_dir.resolve(), target_is_directory=True)
    return run_dir


def _run(output_dir: Path, command: list[str], cwd: Path, timeout: float, expected_code: int,
         ctx: CheckContext) -> tuple[bool, str]:
    command = [a.replace(OUTPUT_DIR, str(output_dir)).replace(OUTPUT_PATH, str(output_dir / "output.md"))
               for a in command]
    try:
        # Own process group, so a timeout kills whatever the script started too.
        proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
    except OSError as e:
        return False, clip(f"could not start {command[0]!r}: {e.strerror or e}")
    try:
        # The output text on stdin lets a script check what the agent said, not only its files.
        out, _ = proc.communicate(ctx.output.encode("utf-8"), timeout=float(timeout))
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return False, f"timed out after {float(timeout):g} s"
    tail = out[-300:].decode("utf-8", "replace").strip()
    said = f": {tail}" if tail else ""
    want = f" (passes on {expected_code})" if expected_code != 0 else ""
    return proc.returncode == expected_code, clip(f"exit {proc.returncode}{want}{said}")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.communicate()


SCRIPT = CheckType(
    "script", script,
    ("Runs `command` (only when the suite sets `allow_scripts: true`) in the run's outputs folder; passes "
     "on exit code 0. `{output_dir}` in an argument is that folder."),
    {
        "command": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string"},
            "description": "The command and its arguments.",
        },
        "timeout_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "default": 60,
            "description": "Kill the command after this long (a failure).",
        },
    },
    required=("command",),
)
