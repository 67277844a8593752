"""``context.scaffold_script`` (plugin eval's ``--scaffold``, FORMAT.md §7.2): a Bash script run
in the run's empty workspace before the agent starts, with a small fixed environment (PATH, HOME
= the run's own home, TMPDIR, TERM=dumb; none of the case's ``EVAL_*``), for 120 s at most. It
runs outside the agent's sandbox but under skill-eval's own process limits (run/process.py: its
whole process tree is killed at the limit).

A ``context.history_file`` is placed at HISTORY (workspace-relative, in the run's own TMPDIR,
never kept as a file the agent made) for the adapter to resume (the request's ``history``).

What the workspace holds once it is done is listed (path -> sha256), so graders can tell the
files the agent created from those the scaffold made (``pre_existing`` in the run's meta.json).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from skill_eval.model.runsettings import SCAFFOLD_SECONDS, CaseFile, Scaffold
from skill_eval.run.process import run_process
from skill_eval.store.redact import redact

_TAIL = 600
HISTORY = "tmp/skill-eval-history.jsonl"
_OUTPUT_CAP = 1_048_576


class ScaffoldFailed(Exception):
    """The script exited non-zero or ran past its limit: the run scores 0 ("scaffold failed")."""


def environment(workspace: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(workspace / "home"),
            "TMPDIR": str(workspace / "tmp"), "TERM": "dumb", "LANG": "C.UTF-8"}


def run_scaffold(script: Scaffold, workspace: Path, timeout: float = SCAFFOLD_SECONDS) -> None:
    """Run ``script`` in ``workspace``; raise ScaffoldFailed with its stderr's tail."""
    if script.text is None:
        raise ScaffoldFailed(f'scaffold failed: path "{script.rel}" does not exist in the case folder')
    (workspace / "home").mkdir(exist_ok=True)
    (workspace / "tmp").mkdir(exist_ok=True)
    proc = run_process(["bash", "-c", script.text, script.rel], b"", workspace, environment(workspace),
                       timeout, _OUTPUT_CAP)
    if proc.returncode == 0 and not proc.timed_out and not proc.capped:
        return
    tail = redact(proc.stderr.decode("utf-8", "replace")).strip()
    tail = (tail if len(tail) <= _TAIL else "..." + tail[-_TAIL:]).replace("\n", " \\n ")
    why = (f"ran past {timeout:g}s" if proc.timed_out else "printed more than 1 MiB" if proc.capped
           else f"exited with status {proc.returncode}")
    raise ScaffoldFailed(f"scaffold failed: {script.rel} {why}" + (f" | stderr: {tail}" if tail else ""))


def place_history(history: CaseFile, workspace: Path) -> str:
    """Write the transcript where the request says it is; its workspace-relative path."""
    if history.text is None:
        raise ScaffoldFailed(f'history_file "{history.rel}" does not exist in the case folder')
    target = workspace / HISTORY
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(history.text, encoding="utf-8")
    return HISTORY


def listing(workspace: Path, skip: tuple[str, ...]) -> dict[str, str]:
    """{workspace-relative path: sha256} of every regular file, top-level ``skip`` folders aside."""
    out: dict[str, str] = {}
    for folder, dirs, names in os.walk(workspace):
        at_root = Path(folder) == workspace
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d))
                         and not (at_root and d in skip))
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                with open(path, "rb") as f:
                    out[path.relative_to(workspace).as_posix()] = hashlib.file_digest(f, "sha256").hexdigest()
            except OSError:
                continue
    return out
