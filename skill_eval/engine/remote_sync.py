"""`push`, `pull`, `status`'s remote line and `gc --remote`: a suite's entries and the remote.

Every operation here works by key from the suite's plan (what the suite references), through
the engine's remote tier (store.remote_tier), many requests at once. Prints nothing: progress
goes to a callback the CLI gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from skill_eval.engine.engine import Engine, RunOptions
from skill_eval.errors import SkillEvalError
from skill_eval.model.project import load_project
from skill_eval.plan.types import RunSpec
from skill_eval.store.remote_tier.entries import MANIFEST, ROOT, parse_path
from skill_eval.store.remote_tier.objects import RemoteUnavailable
from skill_eval.store.remote_tier.tier import RemoteTier
from skill_eval.store.store import Store

REQUESTS = 8  # requests in flight at once
Progress = Callable[[int, int], None]  # (done, total)


@dataclass(frozen=True)
class Synced:
    runs: int  # runs pushed / pulled
    grades: int  # grades (and judge verdicts, for a push) pushed / pulled
    there: int  # already on the other side
    total: int  # entries looked at


def tier_of(engine: Engine) -> RemoteTier:
    if engine.remote is None:
        raise SkillEvalError(f"{engine.suite.path}: no remote; set the suite's remote: key or pass "
                             "--remote URL")
    return engine.remote


def _each(items: list[RunSpec] | list[str], work: Callable, progress: Progress | None) -> list:  # type: ignore[type-arg]
    out = []
    with ThreadPoolExecutor(REQUESTS) as pool:
        for i, result in enumerate(pool.map(work, items), 1):
            out.append(result)
            if progress is not None:
                progress(i, len(items))
    return out


def _unique(specs: Iterable[RunSpec]) -> list[RunSpec]:
    return list({s.key: s for s in specs}.values())


def push_suite(engine: Engine, progress: Progress | None = None) -> Synced:
    """Push every stored run and grade the suite references, and every judge verdict stored."""
    tier = tier_of(engine)
    if not tier.push_enabled:
        raise SkillEvalError(f"remote {tier.config.url} is read only (push: false)")
    specs = _unique(s for s in engine.selected_runs() if engine.store.has_run(s.key))
    grades = sorted({k for k in map(engine.grade_key, engine.selected_runs())
                     if engine.store.has_json("grades", k)})
    verdicts = sorted(p.stem for p in (engine.store.root / "judge").rglob("*.json"))
    jobs = [("runs", s.key) for s in specs] + [("grades", k) for k in grades]
    jobs += [("judge", k) for k in verdicts]
    done = _each(jobs, lambda job: tier.push(*job), progress)  # type: ignore[arg-type]
    _raise_if_down(tier)
    runs = sum(1 for (kind, _k), d in zip(jobs, done, strict=True) if kind == "runs" and d == "pushed")
    others = sum(1 for (kind, _k), d in zip(jobs, done, strict=True) if kind != "runs" and d == "pushed")
    return Synced(runs, others, done.count("already"), len(jobs))


def pull_suite(engine: Engine, progress: Progress | None = None) -> Synced:
    """Fetch every run the suite references that is not stored here, and the grades of those."""
    tier = tier_of(engine)
    specs = _unique(s for s in engine.selected_runs() if not engine.store.has_run(s.key))
    fetched = _each(specs, lambda s: tier.fetch_run(s.key) is not None, progress)  # type: ignore[arg-type]
    _raise_if_down(tier)
    got = {s.key for s, ok in zip(specs, fetched, strict=True) if ok}
    # A grade is adopted only for a run adopted now: a run made here may differ from the remote's.
    wanted = sorted({engine.grade_key(s) for s in engine.selected_runs()
                     if s.key in got and not engine.store.has_json("grades", engine.grade_key(s))})
    grades = _each(wanted, lambda k: tier.fetch_json("grades", k) is not None, None)  # type: ignore[arg-type]
    return Synced(len(got), sum(grades), len(engine.selected_runs()) - len(specs), len(specs))


def remote_serves(engine: Engine, keys: list[str]) -> set[str]:
    """Which of these run keys the remote holds (what a run would adopt with no call)."""
    if engine.remote is None or not keys:
        return set()
    tier = engine.remote
    unique = sorted(set(keys))
    found = _each(unique, lambda k: tier.has("runs", k), None)  # type: ignore[arg-type]
    return {k for k, ok in zip(unique, found, strict=True) if ok}


def _raise_if_down(tier: RemoteTier) -> None:
    if tier.disabled and tier.warnings:
        raise SkillEvalError(tier.warnings[0].replace("; going on with the local store only", ""))


def collect_remote(suites: list[Path], remote: str | None, delete: bool) -> tuple[int, int]:
    """Remote entries (and half-pushed leftovers) no listed suite references: (removed or to
    remove, kept). Judge verdicts are keyed by outputs, not plans: kept, as the local gc keeps them."""
    referenced: dict[str, set[str]] = {"runs": set(), "grades": set()}
    tier: RemoteTier | None = None
    for path in suites:
        project = load_project(path)
        engine = Engine(project, Store(project.suite.store), RunOptions(remote=remote))
        this = tier_of(engine)
        if tier is not None and this.config.url != tier.config.url:
            raise SkillEvalError(f"{path}: uses remote {this.config.url}, the others {tier.config.url}; "
                                 "gc one remote at a time")
        tier = this
        for spec in engine.plan.runs:
            referenced["runs"].add(spec.key)
            referenced["grades"].add(engine.grade_key(spec))
        engine.cache.save()
    assert tier is not None
    client = tier.client()
    if client is None:
        raise SkillEvalError(tier.warnings[0])
    doomed: dict[tuple[str, str], list[str]] = {}
    kept: set[tuple[str, str]] = set()
    try:
        for path in client.list(ROOT):
            parsed = parse_path(path)
            if parsed is None:
                continue
            kind, key, _rest = parsed
            if kind == "judge" or key in referenced.get(kind, set()):
                kept.add((kind, key))
            else:
                doomed.setdefault((kind, key), []).append(path)
        if delete:
            for paths in doomed.values():
                # The manifest first: the entry is invisible before any of its files goes.
                for path in sorted(paths, key=lambda p: not p.endswith("/" + MANIFEST)):
                    client.delete(path)
    except RemoteUnavailable as exc:
        raise SkillEvalError(str(exc)) from None
    return len(doomed), len(kept)
