"""``adapter: {sandbox: bwrap}``: each adapter process (and all it starts) runs in a bubblewrap
sandbox that sees only the host's system folders (read-only), its own workspace (read-write),
a private /tmp, and the few read-only paths the adapter itself needs (its interpreter, the
skill_eval package for builtins, its script, ``adapter.depends`` files, an agent CLI's
node_modules). The user's home, the store, results/, other workspaces and the skills' source
folders are simply not mounted (docs/sandbox.md).

Kill guarantees hold through bwrap: it is exec'ed by the cgroup launcher (run/containment/cgroup.py), so
it and everything inside join the run's cgroup; it keeps the environment, so the reaper's
token (run/containment/reaper.py) reaches every descendant; ``--unshare-pid`` makes the adapter's tree a
pid namespace whose init dies with bwrap, taking every process inside (setsid or not) with
it; ``--die-with-parent`` kills the sandbox when skill-eval dies (kill -9). No
``--new-session``: the adapter stays in the process group the runner signals (it has no
controlling terminal, the runner starts it in a new session, so TIOCSTI cannot reach one).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from skill_eval.errors import SkillEvalError

VERSION = "1"  # in the run key: bump when what the sandbox hides or allows changes
INSTALL = "apt-get install bubblewrap"
# Host system folders every program needs, bound read-only where they exist.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
          "/sys")
# What a run's entry records (docs/sandbox.md says the same at length).
HIDDEN = ("user home", "store", "results", "skill sources", "other workspaces", "host /tmp")
ALLOWED = ("system folders read-only", "workspace read-write", "private /tmp",
           "HOME = workspace/home (empty)", "adapter's own files read-only")
_PACKAGE = Path(__file__).resolve().parents[1]  # skill_eval/, for builtins on PYTHONPATH


class SandboxUnavailable(SkillEvalError):
    """bwrap is missing or cannot create namespaces here: the run is refused, never unsandboxed."""


def identity(kind: str, network: str) -> dict[str, str]:
    """The sandbox's part of the run key."""
    return {"kind": kind, "network": network, "version": VERSION}


def _bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.cache
def _probe(exe: str) -> str | None:
    """None when ``exe`` can build the namespaces we use, else its complaint."""
    try:
        done = subprocess.run([exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--", "true"],
                              capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        return lines[-1].strip() if lines else f"exit status {done.returncode}"
    return None


def require() -> str:
    """The bwrap executable, or SandboxUnavailable with one line saying how to get it."""
    exe = _bwrap()
    if exe is None:
        raise SandboxUnavailable(f"adapter: sandbox: bwrap was asked for but bwrap is not installed; "
                                 f"run '{INSTALL}' (or remove 'sandbox' from the suite)")
    why = _probe(exe)
    if why is not None:
        raise SandboxUnavailable(f"adapter: sandbox: bwrap cannot create namespaces here ({why}); "
                                 f"run '{INSTALL}' and allow unprivileged user namespaces "
                                 "(sysctl kernel.unprivileged_userns_clone=1), or remove 'sandbox'")
    return exe


def _is_under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _exposed(path: Path) -> Path:
    """What to mount for a file an adapter names: a whole node_modules tree for an npm CLI
    (its launcher reaches into sibling packages), else the file itself."""
    parts = path.parts
    if "node_modules" in parts:
        return Path(*parts[: parts.index("node_modules") + 1])
    return path


def needed_paths(argv: Sequence[str], extra: Iterable[str | Path] = ()) -> list[Path]:
    """Absolute host paths the adapter needs to read, beyond the system folders: its
    interpreter's environment, the skill_eval package, and each existing absolute path in its
    argv or ``extra`` (and where a symlink among them points)."""
    found: set[Path] = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), _PACKAGE}
    for item in [*argv, *extra]:
        text = str(item)
        if not os.path.isabs(text) or not os.path.exists(text):
            continue
        for p in {Path(text).absolute(), Path(text).resolve()}:
            found.add(_exposed(p))
            found.update(_venv_of(p))
    return sorted(found)


def _venv_of(path: Path) -> list[Path]:
    """For an executable in a Python venv's ``bin/`` (a CLI installed with pip, e.g. Mistral
    Vibe): the venv, and the Python it was made from (pyvenv.cfg's ``home``), which its
    scripts' interpreter line needs."""
    root = path.parent.parent
    try:
        cfg = (root / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out = [root]
    for line in cfg.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and os.path.isabs(value.strip()):
            out.append(Path(value.strip()).resolve().parent)  # <prefix>/bin -> <prefix>
    return out


def wrap(argv: Sequence[str], workspace: Path, network: str, readable: Iterable[Path],
         hidden: Iterable[Path], exe: str | None = None) -> list[str]:
    """``argv`` to run inside the sandbox. ``hidden`` (store, results, skill sources) is never
    mounted, nor is the user's home, and both are masked with an empty folder where a system
    folder would show them; of ``readable``, what lies in ``hidden`` is left out. Only the
    workspace is writable (a run's mock folder is among ``readable``: it holds only sockets)."""
    exe = exe or require()
    hidden = sorted({Path(h).resolve() for h in hidden})
    ws = Path(workspace).resolve()
    system = [Path(s) for s in SYSTEM]
    args = [exe, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if network == "none":
        args.append("--unshare-net")
    for folder in SYSTEM:
        args += ["--ro-bind-try", folder, folder]
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    home = Path(os.path.expanduser("~")).resolve()
    for h in [*hidden, home]:
        if _is_under(h, system) and not _is_under(ws, [h]) and h.is_dir():
            args += ["--tmpfs", str(h)]  # a project kept under /opt or /usr stays out of view
    bound: list[Path] = []
    for path in sorted(set(readable)):  # a parent sorts first: what is inside it is bound with it
        if not _is_under(path, [*hidden, *system, *bound]):
            args += ["--ro-bind-try", str(path), str(path)]
            bound.append(path)
    # The sandbox's own root is a tmpfs: read-only, so nothing can be made beside the mounts.
    args += ["--bind", str(ws), str(ws), "--remount-ro", "/", "--chdir", str(ws), "--"]
    return args + list(argv)
