"""The per-run folders under results/ (the seed harness's layout): each is derived from the store
entry its run's *current* key names, and records the key it was derived from.

A folder is rewritten whenever its recorded key differs from the current one, not only when its
run executed: after an edit and its revert the run is served from the store (no call), and its
folder must show that result, not the edited version's. Folders of runs no longer planned (a
removed case, fewer iterations or arms) are removed. That is what makes an incremental
results folder the same as a clean build's.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from skill_eval.fs.hashing import key_of
from skill_eval.fs.safenames import arm_folder, path_component
from skill_eval.fs.specialfiles import read_plain
from skill_eval.model.cases import Case
from skill_eval.model.results import RunError, RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.review.folder.files import dump_json, holds, same_tree, write_if_changed, write_text
from skill_eval.store.redact import redact

KEY_FILE = ".view-key"  # in each run folder: the view key it was written from
VIEW_VERSION = 1


def case_json(case: Case) -> dict[str, Any]:
    return {"id": case.id, "prompt": case.prompt, "expected_output": case.expected_output,
            "files": [f"inputs/{f.rel}" for f in case.fixtures], "checks": case.checks_json(),
            # A baseline grader's reference transcript is named, not copied into every run folder.
            "rubric": [{k: v for k, v in r.items() if k != "reference"} for r in case.rubric_json()],
            "kind": case.kind, "should_trigger": case.should_trigger}


def view_key(spec: RunSpec, result: RunResult | RunError, grade: Any, grade_key: str) -> str:
    """What a run folder shows, by key: the stored run (its key names its bytes, timing and kept
    files), its grade (by grade key), or the error; and the case as case.json writes it."""
    if isinstance(result, RunError):
        shown: list[Any] = ["error", result.kind, result.message]
    else:
        shown = ["run", spec.key, grade_key if grade is not None else None]
    return key_of([VIEW_VERSION, shown, case_json(spec.case)])


def run_dir(out: Path, spec: RunSpec) -> Path:
    case = f"eval-{path_component(spec.case.id)}"
    return out / f"iteration-{spec.iteration}" / case / arm_folder(spec.arm)


def recorded_key(folder: Path) -> str | None:
    """The key a run folder records, None when it records none. Read with the os calls, as it is
    read for every planned run (600 per skill of the 6,000-run suite) on every table rebuild. A
    file that is not text, a folder or a FIFO in its place reads as a key that matches nothing,
    so the folder is rewritten."""
    data = read_plain(os.path.join(folder, KEY_FILE), 4096)
    return None if data is None else data.decode("utf-8", "replace")


def write_view(out: Path, spec: RunSpec, result: RunResult | RunError, grade: Any, key: str) -> None:
    """iteration-<i>/eval-<id>/{case.json, <arm>/...}; anything else in the run folder goes,
    so the folder holds exactly what a first write would. Only what differs is written (a report
    rebuilds every folder, most of them unchanged). The key file goes before anything is changed
    and is written last: a crash part-way leaves a folder whose key does not match, so the next
    build writes it again."""
    folder = run_dir(out, spec)
    write_if_changed(folder.parent / "case.json", dump_json(case_json(spec.case)))
    if isinstance(result, RunError):
        files = {"error.json": redact(dump_json({"kind": result.kind, "message": result.message}))}
        trees: dict[str, Path] = {}
    else:
        response = {"output": result.output,
                    "events": [e.to_json() for e in result.response.events],
                    "usage": result.response.usage}
        # Run texts are the stored run's, which the store redacted when it wrote them.
        files = {"output.txt": result.output, "response.json": dump_json(response),
                 "timing.json": redact(dump_json({"duration_s": result.duration_s}))}
        if grade is not None:
            files["grading.json"] = redact(dump_json(grade))
        # outputs/ as the seed harness lays it out; files/ is every kept workspace file.
        sources = {"outputs": result.outputs_dir, "files": result.files_dir}
        trees = {name: src for name, src in sources.items() if src is not None and any(src.iterdir())}
    stale = [name for name, text in files.items() if not holds(folder / name, text.encode("utf-8"))]
    stale_trees = [name for name, src in trees.items() if not same_tree(src, folder / name)]
    extra = _others(folder, {*files, *trees, KEY_FILE})
    if not stale and not stale_trees and not extra and recorded_key(folder) == key:
        return
    (folder / KEY_FILE).unlink(missing_ok=True)
    _remove_except(folder, set(files) | set(trees))
    for name in stale:
        write_text(folder / name, files[name], redacted=True)
    for name in stale_trees:
        target = folder / name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target, ignore_errors=True)
        else:
            target.unlink(missing_ok=True)
        shutil.copytree(trees[name], target)
    # Not atomic, on purpose (one rename fewer per run folder): a torn key never matches.
    (folder / KEY_FILE).write_text(key, "utf-8")


def _others(folder: Path, keep: set[str]) -> bool:
    """Whether ``folder`` holds anything not in ``keep``."""
    try:
        return any(entry.name not in keep for entry in os.scandir(folder))
    except OSError:
        return False


def _remove_except(folder: Path, keep: set[str]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name in keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            Path(entry.path).unlink(missing_ok=True)


def prune(out: Path, specs: Iterable[RunSpec]) -> list[str]:
    """Remove run folders (and case folders, iteration folders) of runs not in ``specs``; returns
    the removed run folders, relative to ``out``."""
    wanted: dict[str, dict[str, set[str]]] = {}
    for spec in specs:
        folder = run_dir(out, spec)
        cases = wanted.setdefault(folder.parent.parent.name, {})
        cases.setdefault(folder.parent.name, set()).add(folder.name)
    removed: list[str] = []
    for it in _subdirs(out, "iteration-"):
        cases = wanted.get(it.name)
        for case in _subdirs(it, "eval-"):
            arms = (cases or {}).get(case.name)
            for arm in _subdirs(case, ""):
                if arms is None or arm.name not in arms:
                    removed.append(f"{it.name}/{case.name}/{arm.name}")
                    shutil.rmtree(arm, ignore_errors=True)
            if arms is None:
                shutil.rmtree(case, ignore_errors=True)
        if cases is None:
            shutil.rmtree(it, ignore_errors=True)
    return removed


def _subdirs(folder: Path, prefix: str) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder)
                if e.name.startswith(prefix) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _ours(folder: Path) -> bool:
    """A folder a skill's (or a model's) tables were written to: its benchmark.json is ours (a
    results folder may be shared with other files; nothing else is ever removed)."""
    try:
        return '"inputs_key"' in (folder / "benchmark.json").read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def prune_layout(skill_root: Path, model_folders: list[str] | None) -> None:
    """A skill's folder holds its tables directly with one model, one folder per model with
    more (see staleness.bench_dir): what the other layout, or a model no longer listed, left there
    goes. ``model_folders``: None for one model."""
    try:
        entries = list(os.scandir(skill_root))
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if model_folders is None:
            if is_dir and not entry.name.startswith((".", "iteration-")) and _ours(path):
                shutil.rmtree(path, ignore_errors=True)
        elif is_dir and entry.name.startswith(("iteration-", ".review")):
            shutil.rmtree(path, ignore_errors=True)
        elif not is_dir and entry.name in ("benchmark.json", "benchmark.md", ".records.json"):
            path.unlink(missing_ok=True)
        elif is_dir and entry.name not in model_folders and _ours(path):
            shutil.rmtree(path, ignore_errors=True)


def prune_skills(results: Path, skills: list[str]) -> None:
    """Remove the folders of skills no longer in the suite (only folders our tables are in)."""
    keep = {path_component(s) for s in skills}
    for folder in _subdirs(results, ""):
        if folder.name in keep or folder.name.startswith((".", "export-")):
            continue
        if _ours(folder) or any(_ours(sub) for sub in _subdirs(folder, "")):
            shutil.rmtree(folder, ignore_errors=True)
