"""Where a run's time goes: CPU per phase of one in-process ``skill-eval run -j 1`` (issue 25).

Wraps the functions of each phase (workspace, process start, cgroup, reaper, store, redaction,
grading, tables, page data, doit) and sums the calling thread's CPU time (``time.thread_time``)
spent inside them; ``-j 1`` keeps every run on the main thread. Phases nest (redaction happens
inside store writes and table writes), so the rows are inclusive and do not add up.

    python benchmarks/profile_overhead.py small            # the 48-run suite, cold store
    python benchmarks/profile_overhead.py big DIR          # one fixture edit in DIR's 6,000-run suite
                                                           # (as kept by bench_overhead.py --keep DIR)

Run it with ``PYTHONPATH=<checkout>`` to profile another tree the same way.
"""

from __future__ import annotations

import collections
import importlib
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

# (row, module, attribute[, class]): the phase a function's CPU is counted under.
PHASES = [
    ("workspace build", "skill_eval.run.runner", "prepare_workspace", None),
    ("workspace files kept", "skill_eval.run.workspace", "kept_files", "Workspace"),
    ("workspace removal", "skill_eval.run.workspace", "remove", "Workspace"),
    ("adapter process (all)", "skill_eval.run.runner", "run_process", None),
    ("  process start", "skill_eval.run.process", "_start", None),
    ("  cgroup", "skill_eval.run.containment.cgroup", "create", "Group"),
    ("  cgroup", "skill_eval.run.containment.cgroup", "kill", "Group"),
    ("  cgroup", "skill_eval.run.containment.cgroup", "remove", "Group"),
    ("  reaper sweep", "skill_eval.run.containment.reaper", "reap", None),
    ("  reaper sweep", "skill_eval.run.containment.reaper", "sweep", None),
    ("  reaper sweep", "skill_eval.run.containment.reaper", "become_subreaper", None),
    ("store write", "skill_eval.store.store", "put_run", "Store"),
    ("store write", "skill_eval.store.store", "put_json", "Store"),
    ("store write", "skill_eval.store.store", "clear_error", "Store"),
    ("redaction (inside writes)", "skill_eval.store.redact", "redact", None),
    ("redaction (inside writes)", "skill_eval.store.redact", "redact_bytes", None),
    ("grading", "skill_eval.engine.engine", "grade_one", "Engine"),
    ("table rebuild (all)", "skill_eval.review.folder.tables", "build_skill", None),
    ("table rebuild (all)", "skill_eval.review.folder.tables", "build_summary", None),
    ("  per-run views", "skill_eval.review.folder.tables", "_sync_views", None),
    ("  benchmark.json", "skill_eval.review.comparison.benchmark", "build_benchmark", None),
    ("  summary tables", "skill_eval.review.folder.tables", "_adjusted", None),
    ("  page data + page", "skill_eval.review.folder.tables", "page_part", None),
    ("  page data + page", "skill_eval.review.render.page.history", "page_history", None),
    ("  page data + page", "skill_eval.review.render.review", "render_page", None),
    ("doit + everything it ran", "skill_eval.engine.tasks", "execute", None),
    ("one run, end to end", "skill_eval.engine.engine", "run_one", "Engine"),
    ("load project", "skill_eval.model.project", "load_project", None),
    ("plan (engine init)", "skill_eval.engine.engine", "__init__", "Engine"),
    ("fast path check", "skill_eval.engine.fastpath", "check", "FastState"),
    ("state saves", "skill_eval.engine.engine", "save_state", "Engine"),
    ("state saves", "skill_eval.engine.fastpath", "save", "FastState"),
    ("stale leftovers sweep", "skill_eval.run.workspace", "remove_stale", None),
]
# Modules that import a wrapped function by name: their binding is rewrapped too.
BY_NAME = {"redact": ["skill_eval.store.store", "skill_eval.run.runner",
                      "skill_eval.review.folder.tables"],
           "redact_bytes": ["skill_eval.store.store"], "prepare_workspace": [], "run_process": []}

cpu: dict[str, float] = collections.defaultdict(float)
calls: collections.Counter[str] = collections.Counter()
_inside: collections.Counter[str] = collections.Counter()


def _wrap(row: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _inside[row]:  # a recursive or nested call of the same row counts once
            return fn(*args, **kwargs)
        _inside[row] += 1
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            cpu[row] += time.thread_time() - start
            calls[row] += 1
            _inside[row] -= 1
    return wrapper


def install() -> None:
    for row, module, attr, cls in PHASES:
        owner: Any = importlib.import_module(module)
        if cls is not None:
            owner = getattr(owner, cls)
        wrapped = _wrap(row, getattr(owner, attr))
        setattr(owner, attr, wrapped)
        for other in BY_NAME.get(attr, []):
            mod = importlib.import_module(other)
            if hasattr(mod, attr):
                setattr(mod, attr, wrapped)


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "small"
    started = time.process_time()
    import skill_eval.cli.main as cli  # noqa: F401 - timed as start-up
    for module in ("skill_eval.cli.runflow", "skill_eval.engine.engine", "skill_eval.engine.tasks",
                   "skill_eval.review.folder.tables", "skill_eval.review.render.review",
                   "skill_eval.run.runner"):
        importlib.import_module(module)
    imports = time.process_time() - started
    install()
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "small":
            from bench_overhead import small_suite

            suite = small_suite(Path(tmp) / "small")
            runs = 48
        else:
            suite = Path(sys.argv[2]) / "big" / "suite.yaml"
            cli.main(["run", str(suite)])  # settle: the edit below is the only change
            cpu.clear()
            calls.clear()
            edited = suite.parent / "skills" / "skill-03" / "evals" / "files" / "c0.txt"
            edited.write_text(f"edited {time.time_ns()}\n")
            runs = 6
        import contextlib
        import io

        start = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            cli.main(["run", str(suite), "-j", "1"])
        total = time.process_time() - start
        if mode == "small":
            shutil.rmtree(suite.parent, ignore_errors=True)
    print(f"{mode}: {runs} runs executed; CPU of this process (adapters excluded): imports "
          f"{imports * 1e3:.0f} ms, the run {total * 1e3:.0f} ms")
    print(f"{'phase':28} {'calls':>6} {'CPU ms':>8} {'per call':>9}")
    for row in dict.fromkeys(r for r, *_ in PHASES):
        if calls[row]:
            print(f"{row:28} {calls[row]:6d} {cpu[row] * 1e3:8.1f} {cpu[row] / calls[row] * 1e3:9.2f}")


if __name__ == "__main__":
    main()
