"""doit integration (with engine.dodo, the only modules that import doit).

`skill-eval run` builds doit tasks only for the work that is out of date (the store and our
hash cache decide that cheaply), so an unchanged 6,000-run suite never pays doit's per-task
cost. engine.dodo exposes every task, with up-to-date checks that ask the store, so
`skill-eval doit SUITE list`, `doit info agent:...` and plain `doit` work too.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from doit.cmd_base import TaskLoader2
from doit.cmd_info import Info
from doit.dependency import DatabaseException, SqliteDB
from doit.doit_cmd import DoitMain
from doit.loader import generate_tasks
from doit.reporter import ZeroReporter

from skill_eval.engine.engine import Engine, Pending
from skill_eval.fs.storage import StorageError, fault_of, writing
from skill_eval.plan.types import RunSpec
from skill_eval.run.judge_process import JudgeProcess


def _agent_action(engine: Engine, spec: RunSpec) -> Callable[[], bool]:
    def action() -> bool:
        with _storage_faults(engine):
            engine.run_one(spec)
        return True  # an adapter error is recorded in the store, not a build failure

    return action


def _grade_action(engine: Engine, spec: RunSpec) -> Callable[[], bool]:
    def action() -> bool:
        with _storage_faults(engine):
            engine.grade_one(spec)
        return True

    return action


class Stored:
    """A doit up-to-date check that `doit info` prints as its reason, in `status`'s words
    (doit shows the check object itself where a task is out of date)."""

    def __init__(self, check: Callable[[], bool], reason: Callable[[], str]):
        self.check = check
        self.reason = reason

    def __call__(self) -> bool:
        return self.check()

    def __str__(self) -> str:
        return self.reason()


class ReasonInfo(Info):
    """`doit info` (installed in its place through the ``doit.COMMAND`` entry point): a
    skill-eval task's up-to-date check is printed as its reason alone ("never run"), without the
    "(args=[], kwargs={})" that doit adds to every check. Any other task prints as with doit."""

    name = "info"

    @staticmethod
    def get_reasons(reasons: dict[str, Any]) -> str:
        false = reasons.get("uptodate_false") or []
        ours = [f" * {check}" for check, _args, _kwargs in false if isinstance(check, Stored)]
        others = [u for u in false if not isinstance(u[0], Stored)]
        rest_reasons = copy.copy(reasons)  # doit's is a defaultdict: keep its defaults
        rest_reasons["uptodate_false"] = others
        rest = Info.get_reasons(rest_reasons)
        return "\n".join([*ours, *([rest] if rest else [])])


def _table_action(engine: Engine, build: Callable[..., Any], *args: Any) -> Callable[[], bool]:
    def action() -> bool:
        with _storage_faults(engine):
            build(engine, *args)
        return True

    return action


@contextlib.contextmanager
def _storage_faults(engine: Engine) -> Iterator[None]:
    """A full disk (or read-only store) stops the run instead of failing task after task with
    a traceback: the engine keeps the first fault, starts nothing more, `run` reports it."""
    try:
        yield
    except (OSError, StorageError) as exc:
        fault = fault_of(exc, engine.store.root)
        if fault is None:
            raise
        engine.storage_failed(fault)


def task_dicts(engine: Engine, runs: list[Pending], grades: list[Pending], skills: list[str],
               all_tasks: bool = False) -> dict[str, list[dict[str, Any]]]:
    """doit task dicts by base name. With ``all_tasks`` every planned run gets a task whose
    up-to-date check asks the store (for doit's own CLI)."""
    from skill_eval.model.names import doit_name
    from skill_eval.review.folder.staleness import skill_is_stale, summary_is_stale
    from skill_eval.review.folder.tables import build_skill, build_summary

    store = engine.store
    agent: list[dict[str, Any]] = []
    grade: list[dict[str, Any]] = []
    by_skill: dict[str, list[str]] = {}
    specs = [p.spec for p in runs] if not all_tasks else engine.selected_runs()
    reasons = {p.spec.key: p.reason for p in runs}
    for spec in specs:
        name = doit_name(engine.slot(spec))
        task: dict[str, Any] = {"name": name, "actions": [_agent_action(engine, spec)],
                                "doc": reasons.get(spec.key, f"{spec.arm} run of {spec.case.id}"),
                                "verbosity": 0}
        if all_tasks and not engine.options.force:
            task["uptodate"] = [Stored(lambda key=spec.key: store.has_run(key),
                                       lambda s=spec: engine.run_reason(s))]
        agent.append(task)
        by_skill.setdefault(spec.skill_name, []).append(f"agent:{name}")
    grade_specs = [p.spec for p in grades] if not all_tasks else engine.selected_runs()
    for spec in grade_specs:
        name = doit_name(engine.slot(spec))
        task = {"name": name, "actions": [_grade_action(engine, spec)], "verbosity": 0,
                "task_dep": [f"agent:{name}"] if all_tasks else []}
        if all_tasks:
            task["uptodate"] = [Stored(lambda s=spec: store.get_json("grades", engine.grade_key(s))
                                       is not None, lambda s=spec: engine.grade_reason(s))]
        grade.append(task)
        by_skill.setdefault(spec.skill_name, []).append(f"grade:{name}")
    bench = []
    for skill in skills:
        task = {"name": skill, "actions": [_table_action(engine, build_skill, skill)],
                "task_dep": by_skill.get(skill, []), "verbosity": 0,
                "doc": f"benchmark.json and benchmark.md of {skill}"}
        if all_tasks:
            task["uptodate"] = [Stored(lambda name=skill: not skill_is_stale(engine, name),
                                       lambda: "inputs changed")]
        bench.append(task)
    summary_task: dict[str, Any] = {"basename": "summary", "actions": [_table_action(engine, build_summary)],
                                    "task_dep": [f"bench:{s}" for s in skills], "verbosity": 0,
                                    "doc": "summary.md, summary.json, junit.xml, index.html"}
    if all_tasks:
        summary_task["uptodate"] = [Stored(lambda: not summary_is_stale(engine),
                                           lambda: "a skill's tables changed")]
    summary = [summary_task]
    return {"agent": agent, "grade": grade, "bench": bench, "summary": summary}


def _to_tasks(groups: dict[str, list[dict[str, Any]]]) -> list[Any]:
    tasks: list[Any] = []
    for base, dicts in groups.items():
        if base == "summary":
            tasks.extend(generate_tasks("summary", {k: v for k, v in dicts[0].items() if k != "basename"}))
            continue
        tasks.extend(generate_tasks(base, (d for d in dicts), f"{base} tasks"))
    return tasks


class _Loader(TaskLoader2):
    def __init__(self, tasks: list[Any], config: dict[str, Any]):
        super().__init__()
        self._tasks = tasks
        self._config = config

    def setup(self, opt_values: dict[str, Any]) -> None:
        pass

    def load_doit_config(self) -> dict[str, Any]:
        return self._config

    def load_tasks(self, cmd: Any, pos_args: list[str]) -> list[Any]:
        return self._tasks


def doit_config(engine: Engine, reporter: type | None = None) -> dict[str, Any]:
    # The store is the truth; doit's DB only has to be safe. sqlite3 commits atomically and
    # locks, and naming it per suite keeps two suites on one store apart.
    db = engine.store.root / "doit" / f"{engine.suite.name}.sqlite3"
    with writing(db):
        db.parent.mkdir(parents=True, exist_ok=True)
        if not _usable_db(db):
            engine.incidents.doit_db_replaced = True
    config: dict[str, Any] = {"dep_file": str(db), "backend": "sqlite3", "verbosity": 0,
                              "default_tasks": ["summary"]}
    if reporter is not None:
        config["reporter"] = reporter
    return config


def _usable_db(db: Path) -> bool:
    """A damaged doit DB only costs doit's memory of what ran (the store is the truth): remove
    it so doit makes a new one instead of stopping with 'bad format or is corrupted'. Damage is
    looked for in every page (``quick_check``), not only the first one opening reads: one bad
    page deep in the file (a CI cache restored half-written) stopped every run. False when the
    DB was damaged and removed."""
    if not db.exists():
        return True
    try:
        conn = sqlite3.connect(db)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        verdict = [("unreadable",)]
    if verdict == [("ok",)]:
        return True
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return False


_BACKEND = "skill-eval-sqlite3"
_DB_FAULTS: dict[str, str] = {}  # DB path -> what failed; read (and cleared) by execute()


class GuardedSqliteDB(SqliteDB):
    """doit's sqlite3 backend, except that a full disk or read-only file does not make doit
    print a traceback: the fault is kept for execute() to report in one line. doit's DB only
    remembers what ran (the store is the truth), so the run itself goes on without it."""

    def _sqlite3(self, name: str) -> Any:
        try:
            return super()._sqlite3(name)
        except (sqlite3.Error, DatabaseException) as exc:
            _DB_FAULTS.setdefault(name, str(exc).splitlines()[-1])
            return super()._sqlite3(":memory:")

    def dump(self) -> None:
        try:
            super().dump()
        except sqlite3.Error as exc:
            _DB_FAULTS.setdefault(self.name, str(exc))
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()


class QuietReporter(ZeroReporter):
    """Collects failures (which are bugs: adapter faults are results, not failures)."""

    failures: list[tuple[str, str]] = []

    def add_failure(self, task: Any, fail: Any) -> None:
        type(self).failures.append((task.name, fail.get_msg() if hasattr(fail, "get_msg") else str(fail)))

    def runtime_error(self, msg: str) -> None:
        type(self).failures.append(("doit", msg))


def _warm_judge(engine: Engine, specs: list[RunSpec]) -> None:
    """Get the judge ready in the background when some of these runs' grades will ask it."""
    if engine.suite.judge is not None and any(spec.case.rubric for spec in specs):
        judge = engine.judge_port()
        if isinstance(judge, JudgeProcess):
            threading.Thread(target=judge.warm, name="judge-warm", daemon=True).start()


def execute(engine: Engine, runs: list[Pending], grades: list[Pending], skills: list[str],
            jobs: int) -> list[tuple[str, str]]:
    """Run the out-of-date tasks through doit; returns task failures (bugs), normally none."""
    reporter = type("Reporter", (QuietReporter,), {"failures": []})
    tasks = _to_tasks(task_dicts(engine, runs, grades, skills))
    argv = ["run", "--continue"]
    if jobs > 1:
        argv += ["-n", str(jobs), "-P", "thread"]
    # doit's python-actions swap sys.stdout/stderr per task; with threads the swaps interleave
    # and can leave a capture buffer installed, so put the real streams back afterwards.
    saved = sys.stdout, sys.stderr
    config = {**doit_config(engine, reporter), "backend": _BACKEND}  # same file format
    db = config["dep_file"]
    _DB_FAULTS.pop(db, None)
    _warm_judge(engine, [p.spec for p in (*runs, *grades)])
    try:
        code = DoitMain(_Loader(tasks, config),
                        extra_config={"BACKEND": {_BACKEND: f"{__name__}:GuardedSqliteDB"}}).run(argv)
    except KeyboardInterrupt:
        engine.stop()  # worker threads never see Ctrl-C: stop them before the streams are restored
        raise
    finally:
        sys.stdout, sys.stderr = saved
    fault = _DB_FAULTS.pop(db, None)
    if fault is not None and engine.storage_error is None:
        cause = (errno.ENOSPC if "full" in fault else errno.EROFS if "readonly" in fault
                 else errno.EIO)
        engine.storage_failed(StorageError(db, OSError(cause, f"doit's database failed: {fault}")))
    failures = list(reporter.failures)
    if code not in (0, None) and not failures:
        failures.append(("doit", f"doit stopped with status {code}"))
    return failures
