"""A suite's history: one record per completed run, per skill x model, in the store.

``<store>/history/<suite>.jsonl`` holds one small JSON record a line
(schemas/history.schema.json): the skill's content hash (the same tree digest the run keys use),
the git commit and dirty flag when there is one, the date, the pass rates, the lift with its p
and interval, the cost, and the digest of the record's detail. The detail, each case's
passed/graded counts per arm and the run and grade keys behind them
(schemas/history-detail.schema.json), is a content-addressed blob beside it
(``history_detail/``): a line stays a few hundred bytes however many cases the suite has, so
reading the history stays cheap as it grows, and a version's runs can still be found when it is
no longer the current one.

Kept in the store, so a CI cache that restores the store carries it; ``gc`` removes neither the
file nor the blobs. Append-only: a new record is added after the existing bytes, never in their
place, and the file is replaced by a rename, so a reader (or a kill) never sees half a line.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skill_eval.fs.atomic import write_atomic
from skill_eval.fs.hashing import key_of
from skill_eval.fs.safenames import path_component
from skill_eval.intake.schemas_io import quick_test, validator
from skill_eval.store.redact import redact
from skill_eval.store.store import Store

SCHEMA_VERSION = 1
FOLDER = "history"
DETAIL_KIND = "history_detail"
ARMS = ("with_skill", "without_skill")

Runs = Mapping[str, Mapping[str, Sequence[Sequence[Any]]]]  # case -> arm -> [[iteration, run key, grade key]]


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
    date: str  # ISO 8601, UTC ("" for a baseline's version)
    git: tuple[str, bool] | None  # (commit, dirty) when the suite is in a git work tree
    cases: Mapping[str, CaseCounts] | None = field(hash=False)  # None: not loaded (History.detailed)
    pass_rate: Mapping[str, float | None] = field(hash=False)
    lift: Mapping[str, Any] = field(hash=False)  # pass_rate, p_value, ci95
    cost_usd: Mapping[str, float | None] = field(hash=False)
    detail: str | None = None  # digest of the detail blob (DETAIL_KIND)
    n_cases: int = 0

    @property
    def pair(self) -> tuple[str, str]:
        return (self.skill, self.model)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION, "suite": self.suite, "skill": self.skill,
            "model": self.model, "skill_hash": self.skill_hash, "date": self.date,
            "git": None if self.git is None else {"commit": self.git[0], "dirty": self.git[1]},
            "cases": len(self.cases) if self.cases is not None else self.n_cases,
            "pass_rate": dict(self.pass_rate), "lift": dict(self.lift), "cost_usd": dict(self.cost_usd),
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HistoryRecord:
        git = d.get("git")
        return cls(suite=d["suite"], skill=d["skill"], model=d["model"], skill_hash=d["skill_hash"],
                   date=d["date"], git=None if git is None else (git["commit"], bool(git["dirty"])),
                   cases=None, pass_rate=dict(d["pass_rate"]), lift=dict(d["lift"]),
                   cost_usd=dict(d["cost_usd"]), detail=d.get("detail"), n_cases=int(d["cases"]))

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


def _line(record: HistoryRecord) -> str:
    return json.dumps(record.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


class History:
    """The history file of one suite in one store, and the detail blobs its records name."""

    def __init__(self, store: Store, suite: str):
        self.store = store
        self.path = store.root / FOLDER / f"{path_component(suite)}.jsonl"
        self.damaged = 0  # lines skipped by the last read (not valid records)
        self._details: dict[str, dict[str, Any] | None] = {}  # by digest: content-addressed, never stale

    def records(self) -> list[HistoryRecord]:
        """Every valid record, oldest first (without its detail); a line that is not one is
        skipped and counted."""
        self.damaged = 0
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return []
        check = quick_test("history") or validator("history").is_valid
        out = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
                self.damaged += 1
                continue
            if not check(data):
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
        write_atomic(self.path, existing + "".join(_line(r) for r in new).encode("utf-8"))
        return new

    # -- the detail of a record: per-case counts and the run keys behind them ---------------

    def put_detail(self, cases: Mapping[str, CaseCounts], runs: Runs) -> str:
        """Keep a record's detail; returns its digest. The keys are our own hex digests; the
        case ids are redacted here, as everywhere they are written."""
        blob = {"cases": {redact(cid): {
            "with_skill": list(c.with_skill), "without_skill": list(c.without_skill),
            "runs": {arm: [list(x) for x in runs.get(cid, {}).get(arm, [])] for arm in ARMS},
        } for cid, c in sorted(cases.items())}}
        digest = key_of(blob)
        if not self.store.has_json(DETAIL_KIND, digest):
            self.store.put_json(DETAIL_KIND, digest, blob, redacted=True)
        return digest

    def _detail(self, digest: str | None) -> dict[str, Any] | None:
        if not digest:
            return None
        if digest not in self._details:
            blob = self.store.get_json(DETAIL_KIND, digest)
            check = quick_test("history-detail") or validator("history-detail").is_valid
            self._details[digest] = blob["cases"] if blob is not None and check(blob) else None
        return self._details[digest]

    def detailed(self, record: HistoryRecord) -> HistoryRecord | None:
        """The record with its per-case counts; None when its detail is gone from the store."""
        if record.cases is not None:
            return record
        cases = self._detail(record.detail)
        if cases is None:
            return None
        counts = {cid: CaseCounts(tuple(c["with_skill"]), tuple(c["without_skill"]))  # type: ignore[arg-type]
                  for cid, c in cases.items()}
        return dataclasses.replace(record, cases=counts)

    def runs(self, record: HistoryRecord) -> dict[str, dict[str, list[list[Any]]]] | None:
        """{case: {arm: [[iteration, run key, grade key], ...]}} of a record, when kept."""
        cases = self._detail(record.detail)
        return None if cases is None else {cid: c["runs"] for cid, c in cases.items()}
