"""Two versions of a skill set side by side: per case, the with-skill pass rate before and after;
overall, the paired change over the cases both versions ran, tested as lift is (sign-flip p over
the cases' differences, a bootstrap interval). Pure: it takes two history records."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skill_eval.stats import measures as stats
from skill_eval.store.history import HistoryRecord

ALPHA = 0.05  # as lift.significant
_EPS = 1e-12


@dataclass(frozen=True)
class CaseChange:
    id: str
    before: tuple[int, int] | None  # with-skill (passed, graded); None: the case was not there
    after: tuple[int, int] | None
    critical: bool = False

    @staticmethod
    def _rate(counts: tuple[int, int] | None) -> float | None:
        return counts[0] / counts[1] if counts and counts[1] else None

    @property
    def before_rate(self) -> float | None:
        return self._rate(self.before)

    @property
    def after_rate(self) -> float | None:
        return self._rate(self.after)

    @property
    def change(self) -> float | None:
        b, a = self.before_rate, self.after_rate
        return a - b if a is not None and b is not None else None

    @property
    def status(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        d = self.change
        if d is None:
            return "unknown"  # one side has no graded run (errors)
        return "regressed" if d < -_EPS else "improved" if d > _EPS else "same"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "critical": self.critical,
                "before": _arm_json(self.before), "after": _arm_json(self.after), "change": self.change}


def _arm_json(counts: tuple[int, int] | None) -> dict[str, Any] | None:
    if counts is None:
        return None
    rate = counts[0] / counts[1] if counts[1] else None
    return {"passed": counts[0], "graded": counts[1], "pass_rate": rate}


@dataclass(frozen=True)
class Comparison:
    """``after`` (the current version) against ``before`` (the version named by ``against``)."""

    against: str  # previous | baseline | a git revision
    before: HistoryRecord
    after: HistoryRecord
    cases: tuple[CaseChange, ...]

    @property
    def skill(self) -> str:
        return self.after.skill

    @property
    def model(self) -> str:
        return self.after.model

    def _paired(self) -> list[CaseChange]:
        return [c for c in self.cases if c.change is not None]

    @property
    def deltas(self) -> list[float]:
        return [c.change for c in self._paired()]  # type: ignore[misc]

    @property
    def change(self) -> float | None:
        d = self.deltas
        return sum(d) / len(d) if d else None

    @property
    def p_value(self) -> float | None:
        return stats.sign_flip_p(self.deltas) if self.deltas else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return stats.bootstrap_ci(self.deltas) if self.deltas else None

    def rate(self, side: str) -> float | None:
        """The with-skill pass rate over the paired cases, before or after."""
        rates = [c.before_rate if side == "before" else c.after_rate for c in self._paired()]
        return sum(rates) / len(rates) if rates else None  # type: ignore[arg-type]

    def with_status(self, status: str) -> list[CaseChange]:
        return [c for c in self.cases if c.status == status]

    def failures(self, alpha: float = ALPHA) -> list[str]:
        """Why this comparison fails a regression gate (empty: it passes)."""
        out = []
        change, p = self.change, self.p_value
        if change is not None and change < -_EPS and p is not None and p < alpha:
            out.append(f"{self.skill} ({self.model}): the with-skill pass rate dropped "
                       f"{change * 100:+.1f} pp over {len(self.deltas)} cases, p {p:.3g} < {alpha:g}")
        for c in self.with_status("regressed"):
            if c.critical:
                out.append(f"{self.skill} ({self.model}): critical case {c.id} regressed "
                           f"({_counts(c.before)} -> {_counts(c.after)} with the skill)")
        return out

    def to_json(self, alpha: float = ALPHA) -> dict[str, Any]:
        ci = self.ci95
        return {
            "skill": self.skill, "model": self.model, "against": self.against,
            "before": _version_json(self.before), "after": _version_json(self.after),
            "with_skill": {"before": self.rate("before"), "after": self.rate("after")},
            "change": self.change, "p_value": self.p_value, "ci95": None if ci is None else list(ci),
            "cases_paired": len(self.deltas),
            "regressed": [c.id for c in self.with_status("regressed")],
            "improved": [c.id for c in self.with_status("improved")],
            "cases": [c.to_json() for c in self.cases],
            "failures": self.failures(alpha),
        }


def _counts(counts: tuple[int, int] | None) -> str:
    return "n/a" if counts is None else f"{counts[0]}/{counts[1]}"


def _version_json(r: HistoryRecord) -> dict[str, Any]:
    return {"skill_hash": r.skill_hash, "date": r.date or None,
            "git": None if r.git is None else {"commit": r.git[0], "dirty": r.git[1]}, "label": r.label}


def compare(against: str, before: HistoryRecord, after: HistoryRecord,
            critical: Iterable[str] = ()) -> Comparison:
    """Cases in the current version's order, then those only the other version had."""
    crit = set(critical)
    if before.cases is None or after.cases is None:
        raise ValueError("compare needs both records with their cases (History.detailed)")
    ids = list(after.cases) + [c for c in before.cases if c not in after.cases]
    changes = tuple(CaseChange(cid, before.cases[cid].with_skill if cid in before.cases else None,
                               after.cases[cid].with_skill if cid in after.cases else None, cid in crit)
                    for cid in ids)
    return Comparison(against, before, after, changes)


def gate_held(comparisons: Sequence[Comparison], alpha: float = ALPHA) -> str:
    """Why the regression gate did not fire, in a line (only meaningful when it did not)."""
    regressed = sum(len(c.with_status("regressed")) for c in comparisons)
    if not regressed:
        return "no case regressed: not failing"
    cases = "1 case" if regressed == 1 else f"{regressed:,} cases"
    return f"{cases} regressed, none significant at alpha {alpha:g} and none critical: not failing"


def previous_of(records: Sequence[HistoryRecord], current_hash: str) -> HistoryRecord | None:
    """The last recorded version that differs from the current one."""
    return next((r for r in reversed(records) if r.skill_hash != current_hash), None)


def latest_with_hash(records: Sequence[HistoryRecord], skill_hash: str) -> HistoryRecord | None:
    return next((r for r in reversed(records) if r.skill_hash == skill_hash), None)


def by_pair(records: Iterable[HistoryRecord]) -> Mapping[tuple[str, str], list[HistoryRecord]]:
    out: dict[tuple[str, str], list[HistoryRecord]] = {}
    for r in records:
        out.setdefault(r.pair, []).append(r)
    return out
