"""A suite's history: one record per completed run, per skill x model, in the store.

``<store>/history/<suite>.jsonl`` holds one JSON record a line (schemas/history.schema.json):
the skill's content hash (the same tree digest the run keys use), the git commit and dirty flag
when there is one, the date, each case's passed/graded counts per arm, the lift with its p and
interval, and the cost. Kept in the store, so a CI cache that restores the store carries it;
``gc`` never removes it. Append-only: a new record is added after the existing bytes, never in
their place, and the whole file is replaced by a rename, so a reader (or a kill) never sees
half a line. The run and grade keys of a record live apart, as a content-addressed blob
(``history_runs``), so the file stays small and the review page can still find the runs of a
version that is not the current one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skill_eval.fs.hashing import key_of
from skill_eval.fs.safenames import path_component
from skill_eval.intake.schemas_io import validator
from skill_eval.store.store import Store, _write_atomic

SCHEMA_VERSION = 1
FOLDER = "history"
RUNS_KIND = "history_runs"
ARMS = ("with_skill", "without_skill")


@dataclass(frozen=True)
class CaseCounts:
    """One case's graded runs and passes per arm, as (passed, graded)."""

    with_skill: tuple[int, int]
    without_skill: tuple[int, int]

    def arm(self, name: str) -> tuple[int, int]:
        return self.with_skill if name == "with_skill" else self.without_skill

    def rate(self, name: str) -> float | None:
        passed, graded = self.arm(name)
        return passed / graded if graded else None


@dataclass(frozen=True)
class HistoryRecord:
    suite: str
    skill: str
    model: str
    skill_hash: str
    date: str  # ISO 8601, UTC
    git: tuple[str, bool] | None  # (commit, dirty) when the suite is in a git work tree
    cases: Mapping[str, CaseCounts] = field(hash=False)
    pass_rate: Mapping[str, float | None] = field(hash=False)
    lift: Mapping[str, Any] = field(hash=False)  # pass_rate, p_value, ci95
    cost_usd: Mapping[str, float | None] = field(hash=False)
    runs: str | None = None  # digest of the record's run keys blob (RUNS_KIND)

    @property
    def pair(self) -> tuple[str, str]:
        return (self.skill, self.model)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION, "suite": self.suite, "skill": self.skill,
            "model": self.model, "skill_hash": self.skill_hash, "date": self.date,
            "git": None if self.git is None else {"commit": self.git[0], "dirty": self.git[1]},
            "cases": {cid: {"with_skill": list(c.with_skill), "without_skill": list(c.without_skill)}
                      for cid, c in sorted(self.cases.items())},
            "pass_rate": dict(self.pass_rate), "lift": dict(self.lift), "cost_usd": dict(self.cost_usd),
            "runs": self.runs,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HistoryRecord:
        git = d.get("git")
        return cls(
            suite=d["suite"], skill=d["skill"], model=d["model"], skill_hash=d["skill_hash"],
            date=d["date"], git=None if git is None else (git["commit"], bool(git["dirty"])),
            cases={cid: CaseCounts(tuple(c["with_skill"]), tuple(c["without_skill"]))  # type: ignore[arg-type]
                   for cid, c in d["cases"].items()},
            pass_rate=dict(d["pass_rate"]), lift=dict(d["lift"]), cost_usd=dict(d["cost_usd"]),
            runs=d.get("runs"))

    def same_results(self, other: HistoryRecord) -> bool:
        """Equal but for when and where it was recorded: a repeat adds nothing to the history."""
        mine, theirs = self.to_json(), other.to_json()
        for d in (mine, theirs):
            d.pop("date")
            d.pop("git")
        return mine == theirs

    @property
    def label(self) -> str:
        """How a version is named to a person: its hash, and its commit when known."""
        text = self.skill_hash[:8]
        if self.git is not None:
            text += f" @ {self.git[0][:8]}{'+dirty' if self.git[1] else ''}"
        return text


class History:
    """The history file of one suite in one store."""

    def __init__(self, store: Store, suite: str):
        self.store = store
        self.path = store.root / FOLDER / f"{path_component(suite)}.jsonl"
        self.damaged = 0  # lines skipped by the last read (not valid records)

    def records(self) -> list[HistoryRecord]:
        """Every valid record, oldest first; a line that is not one is skipped and counted."""
        self.damaged = 0
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return []
        check = validator("history")
        out = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
                self.damaged += 1
                continue
            if not check.is_valid(data):
                self.damaged += 1
                continue
            out.append(HistoryRecord.from_json(data))
        return out

    def of(self, skill: str, model: str) -> list[HistoryRecord]:
        return [r for r in self.records() if r.pair == (skill, model)]

    def append(self, records: Iterable[HistoryRecord]) -> list[HistoryRecord]:
        """Add the records that say something new (not a repeat of their pair's last record);
        returns those added. Call it holding the store's lock."""
        last: dict[tuple[str, str], HistoryRecord] = {}
        for r in self.records():
            last[r.pair] = r
        new = []
        for r in records:
            if r.pair in last and last[r.pair].same_results(r):
                continue
            new.append(r)
            last[r.pair] = r
        if not new:
            return []
        try:
            existing = self.path.read_bytes()
        except FileNotFoundError:
            existing = b""
        if existing and not existing.endswith(b"\n"):
            existing += b"\n"
        lines = "".join(json.dumps(r.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                        + "\n" for r in new)
        _write_atomic(self.path, existing + lines.encode("utf-8"))
        return new

    # -- the run keys of a record -----------------------------------------------------------

    def put_runs(self, runs: Mapping[str, Mapping[str, Sequence[Sequence[Any]]]]) -> str:
        """Keep {case: {arm: [[iteration, run key, grade key], ...]}}; returns its digest."""
        blob = {"cases": {cid: {arm: [list(x) for x in runs[cid].get(arm, [])] for arm in ARMS}
                          for cid in sorted(runs)}}
        digest = key_of(blob)
        if not self.store.has_json(RUNS_KIND, digest):
            self.store.put_json(RUNS_KIND, digest, blob)
        return digest

    def get_runs(self, digest: str | None) -> dict[str, dict[str, list[list[Any]]]] | None:
        if not digest:
            return None
        blob = self.store.get_json(RUNS_KIND, digest)
        if not isinstance(blob, dict) or not isinstance(blob.get("cases"), dict):
            return None
        return blob["cases"]
