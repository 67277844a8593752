"""Two machines and one remote: after any sequence of edits, runs, pushes, pulls and `gc
--remote` on either machine, each machine's results equal a clean local run's of its inputs
(empty store, no remote), and nothing in the remote is ever overwritten (an object's bytes never
change; only `gc --remote --yes` removes one).

It tries 3 sequences of 15 steps by default (tests/budgets.py: `SKILL_EVAL_EXAMPLES_SCALE=4` in CI
tries 12, the count it had before); SKILL_EVAL_REMOTE_EQUIV_STEPS=N tries about N steps instead."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from budgets import examples
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from remotekit import needs_obstore, snapshot
from scratch import temp_root
from suitekit import Kit
from test_equivalence import _no_history, _zero_duration, results_files

import skill_eval.review.render.page.history as history_view
import skill_eval.run.runner as runner

pytestmark = [pytest.mark.slow, needs_obstore]

STEPS = int(os.environ.get("SKILL_EVAL_REMOTE_EQUIV_STEPS", "0") or 0)
SEQUENCES = 2 + max(1, STEPS // 15) if STEPS else examples(3)
PROMPTS = ("Task {c}: write it.", "Task {c}: write it twice.")
FIXTURES = ("fixture of {c}\n", "edited {c}\n")
INPUTS = ("suite.yaml", "adapter.py", "skills")
TALLY: dict[str, int] = {}  # what the steps did (printed with -s)


class TwoMachines(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="remote-equiv-", dir=temp_root()))
        self.patches = [mock.patch.object(runner, "run_process", _zero_duration(runner.run_process)),
                        mock.patch.object(history_view, "page_history", _no_history)]
        for p in self.patches:
            p.start()
        self.seen: dict[str, bytes] = {}  # every remote object ever seen, as first seen
        self.cleans: dict[tuple[str, str], dict[str, object]] = {}

    @initialize()
    def create(self) -> None:
        self.remote = self.tmp / "remote"
        self.remote.mkdir()
        extra = f"remote: file://{self.remote}\n"
        first = Kit.create(self.tmp / "a", iterations=1, extra=extra, skills={"alpha": ["a1", "a2"]})
        first.use_content_adapter()
        self.kits = [first, first.copy_to(self.tmp / "b" / "proj")]

    def teardown(self) -> None:
        for p in self.patches:
            p.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- edits (each machine has its own working copy) ------------------------------------
    @rule(m=st.sampled_from((0, 1)), c=st.sampled_from(("a1", "a2")), v=st.sampled_from((0, 1)))
    def edit_prompt(self, m: int, c: str, v: int) -> None:
        self.kits[m].edit_case("alpha", c, prompt=PROMPTS[v].format(c=c))

    @rule(m=st.sampled_from((0, 1)), c=st.sampled_from(("a1", "a2")), v=st.sampled_from((0, 1)))
    def edit_fixture(self, m: int, c: str, v: int) -> None:
        (self.kits[m].skill_dir("alpha") / "evals" / "files" / f"{c}.txt").write_text(FIXTURES[v].format(c=c))

    # ---- commands ---------------------------------------------------------------------------
    def _clean(self, kit: Kit) -> dict[str, object]:
        h = hashlib.sha256()
        for name in INPUTS:
            path = kit.root / name
            for p in sorted([path] if path.is_file() else path.rglob("*")):
                if p.is_file():
                    h.update(p.relative_to(kit.root).as_posix().encode() + b"\0" + p.read_bytes())
        previous = kit.results / ".previous.json"
        history = previous.read_bytes() if previous.is_file() else b""
        key = (h.hexdigest(), hashlib.sha256(history).hexdigest())
        if key not in self.cleans:
            root = self.tmp / f"clean-{len(self.cleans)}"
            root.mkdir()
            for name in INPUTS:
                src = kit.root / name
                (shutil.copytree if src.is_dir() else shutil.copy2)(src, root / name)
            if history:
                (root / "results").mkdir()
                (root / "results" / ".previous.json").write_bytes(history)
            code, out, err = Kit(root).run("--no-remote")
            assert code == 0, out + err
            self.cleans[key] = results_files(root / "results")
            shutil.rmtree(root)
        return self.cleans[key]

    @rule(m=st.sampled_from((0, 1)))
    def run(self, m: int) -> None:
        kit = self.kits[m]
        clean = self._clean(kit)
        code, out, err = kit.run()
        assert code == 0, out + err
        assert "warning" not in err, err
        assert results_files(kit.results) == clean
        TALLY["runs"] = TALLY.get("runs", 0) + 1
        TALLY["served"] = TALLY.get("served", 0) + ("served by" in out)

    @rule(m=st.sampled_from((0, 1)))
    def push(self, m: int) -> None:
        code, out, err = self.kits[m].cli("push", "suite.yaml")
        assert code == 0, out + err

    @rule(m=st.sampled_from((0, 1)))
    def pull(self, m: int) -> None:
        code, out, err = self.kits[m].cli("pull", "suite.yaml")
        assert code == 0, out + err

    @rule(m=st.sampled_from((0, 1)))
    def gc(self, m: int) -> None:
        before = snapshot(self.remote)
        code, out, err = self.kits[m].cli("gc", "suite.yaml", "--remote", "--yes")
        assert code == 0, out + err
        for path in set(before) - set(snapshot(self.remote)):
            self.seen.pop(path, None)  # removed on purpose: it may be written anew

    @invariant()
    def never_overwritten(self) -> None:
        if not hasattr(self, "remote"):
            return
        for path, data in snapshot(self.remote).items():
            assert self.seen.setdefault(path, data) == data, f"{path} was overwritten"


def test_two_machines_and_one_remote_equal_clean_local_runs() -> None:
    run_state_machine_as_test(TwoMachines, settings=settings(
        max_examples=SEQUENCES, stateful_step_count=15, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))
    print(TALLY)
