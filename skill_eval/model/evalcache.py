"""A cache of parsed eval sets, so a suite of thousands of cases is not re-validated on every
run: reading and schema-checking 1,000 cases costs over a second, a cache hit a few ms.

An entry is valid while the eval-set file and every other file beside it (prompt_ref files,
manifests; not the fixtures, whose content never changes how a set parses) have the same
content, for the same skill folder, format and skill-eval version. Fixture existence is
re-checked on every hit. Only sets without errors are cached, so problems are always reported
fresh. Entries are JSON (never pickle: a store restored from a CI cache is data, not code).

A suite config that passed the schema is remembered alike (``schema_marker``): a no-op run of an
unchanged config skips jsonschema.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from skill_eval import __version__
from skill_eval.errors import Problem
from skill_eval.fs.atomic import write_atomic
from skill_eval.fs.hashing import HashCache, key_of
from skill_eval.fs.specialfiles import special_kind
from skill_eval.fs.storage import StorageError
from skill_eval.model.ablation.parts import Ablation
from skill_eval.model.cases import Case, Check, EvalSet, Fixture, RubricItem

# 2: checks carry critical/arms, rubric items critical; 3: ablations; 4: critical cases;
# 5: rubric items carry plugin-eval votes, focus and baseline reference; 6: checks and rubric
# items carry weight and indicator (keyword arguments: positional ones broke when a field came)
CACHE_FORMAT = 6


def _case_json(c: Case) -> dict[str, Any]:
    return {"id": c.id, "prompt": c.prompt, "expected_output": c.expected_output,
            "fixtures": [[f.rel, str(f.source)] for f in c.fixtures],
            "checks": [ch.to_json() for ch in c.checks], "rubric": c.rubric_json(), "kind": c.kind,
            "should_trigger": c.should_trigger, "split": c.split, "source": c.source, "line": c.line,
            "critical": c.critical}


def _case(d: dict[str, Any]) -> Case:
    return Case(
        id=d["id"], prompt=d["prompt"], expected_output=d["expected_output"],
        fixtures=tuple(Fixture(rel, Path(src)) for rel, src in d["fixtures"]),
        checks=tuple(Check(ch["id"], ch["type"], ch["required"], ch["case_sensitive"], ch["params"],
                           ch.get("critical", False), tuple(ch["arms"]) if "arms" in ch else None,
                           weight=ch.get("weight", 1.0), indicator=ch.get("indicator", False))
                     for ch in d["checks"]),
        rubric=tuple(RubricItem(r["id"], r["text"], r["weight"], r["required"], r.get("critical", False),
                                indicator=r.get("indicator", False), votes=r.get("votes", 1),
                                focus=r.get("focus", ""), reference=r.get("reference"),
                                reference_file=r.get("reference_file", ""))
                     for r in d["rubric"]),
        kind=d["kind"], should_trigger=d["should_trigger"], split=d["split"], source=d["source"],
        line=d["line"], critical=d.get("critical", False))


def to_json(es: EvalSet) -> dict[str, Any]:
    return {"path": str(es.path), "format": es.format, "skill_name": es.skill_name,
            "cases": [_case_json(c) for c in es.cases],
            "problems": [[p.file, p.message, p.line, p.column, p.severity] for p in es.problems],
            "ablations": [[a.name, list(a.remove), a.skill, a.source, a.line, list(a.cases), a.strict,
                           [list(p) for p in a.patches]] for a in es.ablations]}


def from_json(d: dict[str, Any]) -> EvalSet:
    return EvalSet(Path(d["path"]), d["format"], d["skill_name"], tuple(_case(c) for c in d["cases"]),
                   tuple(Problem(*p) for p in d["problems"]),
                   tuple(Ablation(n, tuple(r), sk, src, ln, tuple(cs), tuple(tuple(p) for p in pt), st)
                         for n, r, sk, src, ln, cs, st, pt in d.get("ablations", [])))


class EvalSetCache:
    def __init__(self, root: Path, hashes: HashCache):
        self.root = root
        self.hashes = hashes

    def _entry(self, path: Path, skill_root: Path, fmt: str | None) -> Path:
        return self.root / f"{key_of([str(path), str(skill_root), fmt])}.json"

    def _signature(self, path: Path, skip: set[str]) -> str:
        # Everything beside the eval-set file that a reader may have read, by content.
        items = []
        for dirpath, dirnames, filenames in os.walk(path.parent):
            dirnames.sort()
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                # A FIFO or device is never read by a reader, and hashing it would block.
                if full not in skip and special_kind(full) is None:
                    items.append([full, self.hashes.file(Path(full))])
        return key_of([CACHE_FORMAT, __version__, items])

    def get(self, path: Path, skill_root: Path, fmt: str | None) -> EvalSet | None:
        try:
            data = json.loads(self._entry(path, skill_root, fmt).read_text("utf-8"))
            skip = set(data["fixtures"])
            if data["signature"] != self._signature(path, skip):
                return None
            es = from_json(data["evalset"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        # A fixture deleted since: re-read, so the reader reports it properly.
        if any(not f.source.is_file() for c in es.cases for f in c.fixtures):
            return None
        return es

    def put(self, path: Path, skill_root: Path, fmt: str | None, es: EvalSet) -> None:
        if any(p.is_error for p in es.problems):
            return
        fixtures = sorted({str(f.source) for c in es.cases for f in c.fixtures})
        entry = self._entry(path, skill_root, fmt)
        try:
            write_atomic(entry, json.dumps({"signature": self._signature(path, set(fixtures)),
                                            "fixtures": fixtures, "evalset": to_json(es)},
                                           separators=(",", ":")))
        except (OSError, StorageError):
            pass  # a read-only store only costs speed


def schema_marker(raw: dict[str, Any], root: Path, rules: int) -> Path | None:
    """Where the store remembers this exact config passed the schema (a no-op run skips jsonschema)."""
    store = raw.get("store", ".skill-eval/store")
    if not isinstance(store, str) or not store:
        return None
    try:
        key = key_of([__version__, rules, str(root), raw])
    except (TypeError, ValueError):  # YAML values JSON cannot hold (dates): just validate
        return None
    folder = Path(store).expanduser()
    return (folder if folder.is_absolute() else (root / folder).resolve()) / "cache" / "valid-suites" / key


def marker_exists(marker: Path) -> bool:
    try:
        return marker.exists()
    except OSError:  # a store path the file system cannot hold: the problems say so
        return False


def remember_valid(marker: Path | None) -> None:
    if marker is None or marker_exists(marker):
        return
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass  # a read-only store only costs the schema check next time
