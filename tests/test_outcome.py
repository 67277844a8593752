"""`run`'s exit code decided from the engine's outcome (engine/outcome.py), by one rule:
2 when anything of this invocation could not run or was not kept, whatever the verdicts; then
the verdicts' (2 errored or not run, 1 fail or undecided, 0 pass); under --only/--shard only a
failed verdict counts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skill_eval.engine.outcome import Incidents, RunOutcome, exit_code, until_decided_exit_code


def bench(verdict: str, decided_by: str = "lift") -> dict[str, Any]:
    return {"skill": "s", "model": "m", "verdict": verdict, "decided_by": decided_by}


PASS, FAIL, UNDECIDED = bench("pass"), bench("fail"), bench("undecided")
ERROR, NOT_RUN = bench("error", "errors"), bench("undecided", "not_run")

# Each thing that could not run or was not kept, on its own.
INCIDENTS: dict[str, dict[str, Any]] = {
    "internal failure": {"internal_failures": (("bench:s", "KeyError: 'x'"),)},
    "adapter error": {"errored": 1, "adapter_errors": (("agent:s/c/with_skill/1", "timed out"),)},
    "errored count alone": {"errored": 1},
    "judge error": {"judge_errors": (("s/c/with_skill/1", "judge timed out"),)},
    "judge stopped early": {"judge_errors": (("s/c", "no key"),), "judge_fatal": "no key",
                            "judge_stopped": 4},
    "files not kept": {"not_kept": (("s/c/with_skill/1", {"big.bin": "too big"}),)},
    "budget spent": {"budget_stopped": 3, "budget": 1.0, "cost_usd": 1.2},
    "stopped early": {"errored": 2, "fatal": "no API key", "fatal_stopped": 9},
    "unscorable early stop": {"errored": 2, "fatal": "every run so far hit the turn limit",
                              "fatal_stopped": 1},
}


@pytest.mark.parametrize(("benches", "partial", "code"), [
    ((), False, 0),
    ((PASS,), False, 0),
    ((PASS, PASS), False, 0),
    ((PASS, FAIL), False, 1),
    ((UNDECIDED,), False, 1),  # undecided by the sequential decision, or gate: decided
    ((PASS, ERROR), False, 2),  # a stored error in the tables
    ((PASS, NOT_RUN), False, 2),  # a run with neither result nor error
    ((FAIL, ERROR), False, 2),  # 2 over 1
    ((FAIL, NOT_RUN), False, 2),
    # --only / --shard: runs outside the selection read as not run; not this invocation's.
    ((PASS, NOT_RUN), True, 0),
    ((PASS, ERROR), True, 0),
    ((UNDECIDED,), True, 0),
    ((FAIL, NOT_RUN), True, 1),
    ((FAIL,), True, 1),
])
def test_the_verdicts_decide_when_everything_ran(benches, partial, code):
    outcome = RunOutcome(benches=benches, partial=partial, executed=4)
    assert exit_code(outcome) == outcome.exit_code == code


@pytest.mark.parametrize("incident", sorted(INCIDENTS))
@pytest.mark.parametrize("benches", [(), (PASS,), (FAIL,), (UNDECIDED,), (ERROR,)], ids=str)
@pytest.mark.parametrize("partial", [False, True])
def test_anything_that_could_not_run_is_2_whatever_the_verdicts(incident, benches, partial):
    outcome = RunOutcome(benches=benches, partial=partial, **INCIDENTS[incident])
    assert outcome.had_trouble
    assert outcome.exit_code == 2


@pytest.mark.parametrize("note", [{"damaged": ("s/c/with_skill/1",)}, {"doit_db_replaced": True},
                                  {"shared": 3, "executed": 6}, {"cost_usd": 9.5, "budget": 10.0}])
@pytest.mark.parametrize(("benches", "code"), [((PASS,), 0), ((FAIL,), 1)])
def test_notes_change_no_exit_code(note, benches, code):
    """A damaged stored run (removed and run again), a replaced doit database, shared requests,
    money spent within the budget: said, but the verdicts still decide."""
    assert RunOutcome(benches=benches, **note).exit_code == code


def test_files_not_kept_exit_2_but_the_run_is_complete():
    """The run is stored (its checks cannot see those files): the suite counts as complete, so
    the fast path replays the 2 on the next identical run instead of hiding the problem."""
    outcome = RunOutcome(benches=(PASS,), **INCIDENTS["files not kept"])
    assert outcome.complete and outcome.exit_code == 2


@pytest.mark.parametrize("incident", sorted(set(INCIDENTS) - {"files not kept"}))
def test_a_run_that_left_work_undone_is_not_complete(incident):
    assert not RunOutcome(benches=(PASS,), **INCIDENTS[incident]).complete


def test_a_partial_run_is_never_complete():
    assert RunOutcome(benches=(PASS,)).complete
    assert not RunOutcome(benches=(PASS,), partial=True).complete


def test_the_outcome_is_a_snapshot_of_the_engines_tally():
    incidents = Incidents()
    incidents.adapter_errors.append(("agent:a", "boom"))
    outcome = incidents.freeze([PASS], partial=False, internal_failures=[], executed=1, shared=0,
                               errored=1, cost_usd=0.0, budget=None, damaged=[])
    incidents.adapter_errors.append(("agent:b", "late"))
    incidents.fatal = "late"
    assert outcome.adapter_errors == (("agent:a", "boom"),) and outcome.fatal is None
    assert outcome.exit_code == 2


_verdicts = st.sampled_from([PASS, FAIL, UNDECIDED, ERROR, NOT_RUN])
_incidents = st.lists(st.sampled_from(sorted(INCIDENTS)), unique=True)


def _with(outcome: RunOutcome, names: list[str]) -> RunOutcome:
    for name in names:
        outcome = replace(outcome, **INCIDENTS[name])
    return outcome


@given(st.lists(_verdicts, max_size=6), st.booleans(), _incidents)
def test_for_any_combination_the_rule_holds(benches, partial, incidents):
    outcome = _with(RunOutcome(benches=tuple(benches), partial=partial), incidents)
    verdicts = {b["verdict"] for b in benches}
    not_whole = any(b["verdict"] == "error" or b["decided_by"] == "not_run" for b in benches)
    if incidents:
        expected = 2
    elif partial:
        expected = 1 if "fail" in verdicts else 0
    elif not_whole:
        expected = 2
    else:
        expected = 1 if verdicts & {"fail", "undecided"} else 0
    assert outcome.exit_code == expected


@given(st.lists(_verdicts, max_size=6), st.booleans(), _incidents, _incidents)
def test_more_trouble_never_lowers_the_exit_code(benches, partial, some, more):
    base = _with(RunOutcome(benches=tuple(benches), partial=partial), some)
    assert _with(base, more).exit_code >= base.exit_code


@pytest.mark.parametrize(("benches", "last_code", "code"), [
    ((PASS, PASS), 0, 0),
    ((PASS, FAIL), 1, 1),  # a failed required check fails a sequential pass
    ((PASS, UNDECIDED), 1, 1),  # max_iterations reached without a decision
    ((), 0, 1),  # nothing to decide is not a pass
    ((PASS,), 2, 2),  # a round errored, the budget was spent or the store failed
    ((FAIL,), 2, 2),  # 2 over 1
    ((), 2, 2),
])
def test_until_decided_ends_with_the_verdicts_unless_a_round_exited_2(benches, last_code, code):
    assert until_decided_exit_code(benches, last_code) == code
