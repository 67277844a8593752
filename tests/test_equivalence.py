"""Incremental equals clean: after any sequence of user actions, `skill-eval run` (and `report`)
leaves a results folder equal to what a clean build (empty store, empty results) writes for the
same final inputs, with the same exit code, and calls the adapter exactly for the runs whose
keys are not in the store.

A hypothesis state machine edits a small suite (fixtures, SKILL.md, checks, prompts, cases,
two cases' prompts and inputs made equal (one shared run, a grade per case) and unequal again,
iterations, the adapter script, a file in adapter.depends, an edit that keeps size and mtime, a
fixture the adapter refuses) and runs it (whole, by --shard, by --only), reports, collects
garbage. The test adapter's answer depends only on the request; run durations are pinned to 0
(timing is the one thing a clean build cannot reproduce). The history-by-design parts are
made equal: the "moved since the previous benchmark" section and the page's flag by giving the
clean build the previous benchmark the incremental one compared with; the page's parts drawn
from the store's history of earlier skill versions (compare section, strips) are left out of
both.

SKILL_EVAL_EQUIV_STEPS (default 200) sets the number of steps, shared by SHARDS machines
(tests) under seeds of their own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from scratch import temp_root
from suitekit import FAST_JSON, Kit

import skill_eval.engine.engine
import skill_eval.engine.fastpath
import skill_eval.engine.reasons
import skill_eval.grade.grading
import skill_eval.plan.keys
import skill_eval.review.render.page.history as history_view
import skill_eval.run.runner as runner

GRADER_MODULES = (skill_eval.plan.keys, skill_eval.engine.engine, skill_eval.engine.fastpath,
                  skill_eval.engine.reasons, skill_eval.grade.grading)
GRADERS = (skill_eval.plan.keys.GRADER_VERSION, skill_eval.plan.keys.GRADER_VERSION + "-next")

# For a run in a child process (killed part-way): durations pinned to 0 there too.
SITECUSTOMIZE = """import dataclasses
import skill_eval.review.render.page.history as history_view
import skill_eval.run.runner as runner
_real = runner.run_process
runner.run_process = lambda *a, **k: dataclasses.replace(_real(*a, **k), duration_s=0.0)
history_view.page_history = lambda engine, benches, data: {"compare": [], "strips": [None for _ in benches]}
"""

pytestmark = pytest.mark.slow

STEPS = int(os.environ.get("SKILL_EVAL_EQUIV_STEPS", "200"))
STEPS_PER_EXAMPLE = 30
TALLY: dict[str, int] = {}  # what the steps did, over all examples (printed with -s)

# The adapter logs one line per call: a signature of everything the request and its inputs say
# (the test's own model of a run key), and whether it answered.
# Light to start (suitekit.FAST_JSON; _sha256 rather than hashlib): the machine calls it often.
ADAPTER = "#!/usr/bin/env python3\n" + FAST_JSON + r'''import _sha256, os, sys
VERSION = 0
here = os.path.dirname(os.path.abspath(__file__))
req = loads(sys.stdin.read())


def digest(path):
    with open(path, "rb") as f:
        return _sha256.sha256(f.read()).hexdigest()[:12]


skill = None
if req["skill"]:
    root = os.path.join(req["workspace"], req["skill"]["path"])
    skill = sorted([os.path.relpath(os.path.join(d, n), root), digest(os.path.join(d, n))]
                   for d, _dirs, names in os.walk(root) for n in names)
notes = digest(os.path.join(here, "notes.txt"))
files = sorted([f["path"], f["sha256"][:8]] for f in req["files"])
# The iteration, not the case: cases whose requests are equal share one run, and which of them
# asked first is scheduling, not content.
sig = _sha256.sha256(dumps([req["mode"], req["case"]["iteration"], req["model"], req["prompt"], files, skill,
                            digest(os.path.abspath(__file__)), notes]).encode()).hexdigest()[:16]
refuse = False
for f in req["files"]:
    with open(os.path.join(req["workspace"], f["path"]), "rb") as fh:
        refuse = refuse or b"REFUSE" in fh.read()
with open(os.path.join(here, "calls.log"), "a") as log:
    log.write("%s %s\n" % (sig, "refused" if refuse else "ok"))
if os.path.exists(os.path.join(here, "slow")):  # not an input: lets a test kill a run part-way
    import time
    time.sleep(0.15)
if refuse:
    sys.stderr.write("refused a fixture\n")
    sys.exit(3)
out = "%s says: %s %s v%d notes=%s" % (req["mode"], req["prompt"], dumps(files), VERSION, notes)
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req["skill"] else []
sys.stdout.write(dumps({"output": out, "events": events, "usage": {"input_tokens": 10, "output_tokens": 5}}))
'''

SUITE = """suite: kit
skills_dir: skills
skills: ["*"]
adapter:
  command: [python3, -S, adapter.py]
  depends: [notes.txt]
iterations: {iterations}
models: {models}
jobs: 2
timeout_seconds: 30
store: .skill-eval/store
results: results
"""

CASES = ("a1", "a2", "a3")
FIXTURES = ("fixture of {c}\n", "edited {c}\n", "REFUSE {c}\n", "FIXTURE OF {c}\n")  # 0 and 3: same size
CHECKS = ("says", "with_skill", "nowhere")
# The third names no case: two cases with it and the shared input make byte-identical requests.
PROMPTS = ("Task {c}: write it.", "Task {c}: write it twice.", "One task: write it.")
SHARED_INPUT = "evals/files/shared.txt"
SKILLS = ("Do it.\n", "Do it well.\n")
INPUTS = ("suite.yaml", "adapter.py", "notes.txt", "skills")


def _zero_duration(real):  # noqa: ANN001, ANN202
    def run_process(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        return dataclasses.replace(real(*args, **kwargs), duration_s=0.0)

    return run_process


def _no_history(engine, benches, data):  # noqa: ANN001, ANN202
    return {"compare": [], "strips": [None for _ in benches]}


def results_files(results: Path) -> dict[str, object]:
    """Every file under results/: bytes; our hidden caches as parsed JSON (their key order is
    the order entries were made in, which is history, not content); every folder, as None (an
    empty folder left behind is a difference a user sees)."""
    out: dict[str, object] = {}
    for p in sorted(results.rglob("*")):
        rel = p.relative_to(results).as_posix()
        if p.is_dir():
            out[rel + "/"] = None
            continue
        if not p.is_file():
            continue
        data = p.read_bytes()
        hidden = any(part.startswith(".") for part in rel.split("/")) and p.suffix == ".json"
        out[rel] = json.loads(data) if hidden else data
    return out


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for name in INPUTS:
        path = root / name
        for p in sorted([path] if path.is_file() else path.rglob("*")):
            if p.is_file():
                h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _log(root: Path) -> list[tuple[str, bool]]:
    try:
        text = (root / "calls.log").read_text()
    except FileNotFoundError:
        return []
    return [(sig, status == "ok") for sig, status in (line.split() for line in text.splitlines())]


def _running(needle: bytes) -> bool:
    """Whether a process whose command line contains ``needle`` is alive."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if needle in f.read():
                    return True
        except OSError:
            continue
    return False


@dataclasses.dataclass
class Clean:
    code: int
    files: dict[str, object]
    planned: set[str]
    refused: bool


class Equivalence(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="equiv-", dir=temp_root()))
        self.patch = mock.patch.object(runner, "run_process", _zero_duration(runner.run_process))
        self.patch.start()
        # The page's history parts (the compare section, the strips, the previous version's
        # outputs) are history by design, read from the store's history of earlier versions.
        self.no_history = mock.patch.object(history_view, "page_history", _no_history)
        self.no_history.start()
        self.cleans: dict[tuple[str, str], Clean] = {}
        self.stored: set[str] = set()  # signatures the store holds a result for (our model)
        self.history: bytes | None = None  # the .previous.json the current summary compared with
        self.synced = False  # a full run since the last input edit
        self.maybe: set[str] = set()  # answered by a run killed part-way: stored or not
        self.grader = 0
        self.n = 0

    def _count(self, what: str) -> None:
        TALLY[what] = TALLY.get(what, 0) + 1

    @initialize()
    def create(self) -> None:
        self.kit = Kit.create(self.tmp, iterations=1, skills={"alpha": ["a1", "a2"]}, name="inc")
        (self.kit.root / "adapter.py").write_text(ADAPTER)
        (self.kit.root / "notes.txt").write_text("notes 0\n")
        self.iterations, self.models = 1, 1
        self._write_suite()
        self.cases = {"a1": [0, 0, 0], "a2": [0, 0, 0]}  # fixture, check, prompt variant
        self.shared: set[str] = set()  # cases whose input is SHARED_INPUT instead of their own
        (self.kit.skill_dir("alpha") / SHARED_INPUT).write_text("one input for all\n")
        self._write_evals()

    def teardown(self) -> None:
        self._count("examples")
        self._set_grader(0)
        self.patch.stop()
        self.no_history.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- edits ------------------------------------------------------------------------------
    def _edited(self) -> None:
        self._count("edits")
        self.synced = False

    def _fixture(self, c: str) -> Path:
        return self.kit.skill_dir("alpha") / "evals" / "files" / f"{c}.txt"

    def _write_evals(self) -> None:
        cases = []
        for c, (_f, check, prompt) in sorted(self.cases.items()):
            files = [SHARED_INPUT if c in self.shared else f"evals/files/{c}.txt"]
            cases.append({"id": c, "prompt": PROMPTS[prompt].format(c=c), "files": files,
                          "checks": [{"id": "says", "type": "contains", "value": CHECKS[check]}]})
        self.kit.write_evals("alpha", cases)

    @rule(c=st.sampled_from(CASES), v=st.sampled_from((0, 1, 2)))
    def edit_fixture(self, c: str, v: int) -> None:
        if c in self.cases:
            self.cases[c][0] = v
            self._fixture(c).write_text(FIXTURES[v].format(c=c))
            self._edited()

    @rule(c=st.sampled_from(CASES))
    def edit_keeping_size_and_mtime(self, c: str) -> None:
        """cp -p, touch -r, rsync -a: other bytes, the same size and mtime."""
        if c in self.cases and self.cases[c][0] in (0, 3):
            path = self._fixture(c)
            before = path.stat()
            self.cases[c][0] = 3 - self.cases[c][0]
            path.write_text(FIXTURES[self.cases[c][0]].format(c=c))
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
            self._edited()

    def _edit_case(self, c: str, part: int, v: int) -> None:
        if c in self.cases:
            self.cases[c][part] = v
            self._write_evals()
            self._edited()

    @rule(c=st.sampled_from(CASES), v=st.sampled_from(range(len(CHECKS))))
    def edit_check(self, c: str, v: int) -> None:
        self._edit_case(c, 1, v)

    @rule(c=st.sampled_from(CASES), v=st.sampled_from(range(len(PROMPTS))))
    def edit_prompt(self, c: str, v: int) -> None:
        self._edit_case(c, 2, v)

    @rule(pair=st.sampled_from((("a1", "a2"), ("a2", "a1"), ("a1", "a3"), ("a3", "a2"))),
          equal=st.booleans())
    def share_request(self, pair: tuple[str, str], equal: bool) -> None:
        """Make two cases' requests byte-identical (the caseless prompt, the shared input) or
        unequal again; their checks stay their own."""
        a, b = pair
        if a not in self.cases or b not in self.cases:
            return
        if equal:
            self.cases[a][2] = self.cases[b][2] = 2
            self.shared |= {a, b}
            self._count("requests made equal")
        else:
            self.cases[b][2] = 0
            self.shared.discard(b)
        self._write_evals()
        self._edited()

    @rule(v=st.sampled_from(range(len(SKILLS))))
    def edit_skill(self, v: int) -> None:
        skill_md = self.kit.skill_dir("alpha") / "SKILL.md"
        skill_md.write_text("---\nname: alpha\ndescription: The alpha skill.\n---\n" + SKILLS[v])
        self._edited()

    @rule()
    def toggle_case(self) -> None:
        if "a3" in self.cases:
            del self.cases["a3"]
            self.shared.discard("a3")
            self._fixture("a3").unlink()
        else:
            self.cases["a3"] = [0, 0, 0]
            self._fixture("a3").write_text(FIXTURES[0].format(c="a3"))
        self._write_evals()
        self._edited()

    def _write_suite(self) -> None:
        models = ["default", "other"][:self.models]
        self.kit.suite.write_text(SUITE.format(iterations=self.iterations, models=json.dumps(models)))

    @rule(n=st.sampled_from((1, 2)))
    def set_iterations(self, n: int) -> None:
        self.iterations = n
        self._write_suite()
        self._edited()

    @rule(n=st.sampled_from((1, 2)))
    def set_models(self, n: int) -> None:
        """Variants up and down: a second model is a second arm of every run."""
        self.models = n
        self._write_suite()
        self._edited()

    @rule(v=st.sampled_from((0, 1)))
    def edit_adapter(self, v: int) -> None:
        (self.kit.root / "adapter.py").write_text(ADAPTER.replace("VERSION = 0", f"VERSION = {v}"))
        self._edited()

    @rule(v=st.sampled_from((0, 1)))
    def edit_depends(self, v: int) -> None:
        (self.kit.root / "notes.txt").write_text(f"notes {v}\n")
        self._edited()

    # ---- commands ---------------------------------------------------------------------------
    def _command(self, *args: str) -> tuple[int, list[tuple[str, bool]]]:
        """Run a command on the incremental project; returns its exit code and the calls made."""
        self._count(" ".join(a for a in args if a != "suite.yaml").split(" ")[0] + (
            " --shard" if "--shard" in args else " --only" if "--only" in args else ""))
        previous = self.kit.results / ".previous.json"
        before = previous.read_bytes() if previous.is_file() else None
        summary = self.kit.results / "summary.json"
        stamp = summary.stat().st_mtime_ns if summary.is_file() else None
        self.kit.reset()
        code, out, err = self.kit.cli(*args)
        assert code in (0, 1, 2), out + err
        if summary.is_file() and summary.stat().st_mtime_ns != stamp:
            self.history = before  # the summary was rewritten: it compared with that
        calls = _log(self.kit.root)
        self.stored |= {sig for sig, ok in calls if ok}
        return code, calls

    def clean(self) -> Clean:
        """A clean build of the current inputs (empty store and results, but the same history)."""
        key = (_digest(self.kit.root), hashlib.sha256(self.history or b"").hexdigest(), str(self.grader))
        if key not in self.cleans:
            self.n += 1
            root = self.tmp / f"clean-{self.n}"
            root.mkdir()
            for name in INPUTS:
                src = self.kit.root / name
                (shutil.copytree if src.is_dir() else shutil.copy2)(src, root / name)
            if self.history is not None:
                (root / "results").mkdir()
                (root / "results" / ".previous.json").write_bytes(self.history)
            code, out, err = Kit(root).run()
            calls = _log(root)
            self.cleans[key] = Clean(code, results_files(root / "results"), {s for s, _ok in calls},
                                     not all(ok for _s, ok in calls))
            shutil.rmtree(root)
            self._count("clean builds")
        return self.cleans[key]

    def _set_grader(self, v: int) -> None:
        self.grader = v
        for module in GRADER_MODULES:
            module.GRADER_VERSION = GRADERS[v]  # type: ignore[attr-defined]

    @rule(v=st.sampled_from((0, 1)))
    def change_grader(self, v: int) -> None:
        """A grader change (its version bumped): every grade is redone, no run is."""
        self._set_grader(v)
        self._edited()

    @rule()
    def run(self) -> None:
        stored, maybe = set(self.stored), set(self.maybe)
        code, calls = self._command("run", "suite.yaml")
        clean = self.clean()
        called = [sig for sig, _ok in calls]
        assert len(called) == len(set(called)), "a run was called twice"
        must, may = clean.planned - stored - maybe, clean.planned - stored
        assert must <= set(called) <= may, "adapter calls are not the minimum"
        self.stored |= (maybe & clean.planned) - set(called)  # not called: the killed run stored it
        self.maybe -= clean.planned
        assert code == clean.code
        self._same_as(clean)
        self.synced = True
        if not clean.refused:
            status = self.kit.status_json()
            assert status["run"] == [] and status["regrade"] == [], status

    # Runs are the steps that check: twice as likely as any one edit.
    run_again = rule()(lambda self: self.run())

    @rule(k=st.sampled_from((1, 2)))
    def run_shard(self, k: int) -> None:
        self._command("run", "suite.yaml", "--shard", f"{k}/2")
        self.synced = False

    @rule(only=st.sampled_from(("alpha/a1/*", "*/without_skill/*")))
    def run_only(self, only: str) -> None:
        self._command("run", "suite.yaml", "--only", only)
        self.synced = False

    @precondition(lambda self: self.grader == 0)  # the child process has the real grader
    @rule(after=st.sampled_from((1, 2, 4)))
    def run_killed(self, after: int) -> None:
        """`run` killed with SIGKILL after some adapter calls: what it stored is kept, the rest
        is run by the next `run`; nothing it left half-done shows."""
        self._count("run killed")
        site = self.tmp / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        self.kit.reset()
        (self.kit.root / "slow").write_text("")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
        proc = subprocess.Popen([sys.executable, "-m", "skill_eval.cli.main", "run", "suite.yaml"],
                                cwd=self.kit.root, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 30
        while proc.poll() is None and len(_log(self.kit.root)) < after and time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # skill-eval and its adapters, as an OOM kill would
        proc.wait()
        # The adapters it started are their own process groups: they finish on their own (the
        # next run removes what they leave). Wait for them, so their calls count as this run's.
        adapter = str(self.kit.root / "adapter.py").encode()
        while _running(adapter) and time.monotonic() < deadline:
            time.sleep(0.02)
        (self.kit.root / "slow").unlink()
        self.maybe |= {sig for sig, ok in _log(self.kit.root) if ok} - self.stored
        self.synced = False

    @precondition(lambda self: self.synced)
    @rule()
    def report(self) -> None:
        code, calls = self._command("report", "suite.yaml")
        assert code == 0 and calls == []
        self._same_as(self.clean())

    @precondition(lambda self: self.synced)
    @rule()
    def gc(self) -> None:
        code, out, err = self.kit.cli("gc", "suite.yaml")
        assert code == 0, out + err
        self.stored &= self.clean().planned
        self.maybe &= self.clean().planned

    def _same_as(self, clean: Clean) -> None:
        mine = results_files(self.kit.results)
        assert sorted(mine) == sorted(clean.files), "results folders hold different files"
        for rel, data in mine.items():
            assert data == clean.files[rel], f"results/{rel} differs from a clean build's"

    @invariant()
    def nothing_left_running(self) -> None:
        self._count("steps")
        assert not (self.kit.store / "tmp").exists() or not any((self.kit.store / "tmp").iterdir())


# Several machines, each under a seed of its own with a share of the examples, so that
# pytest-xdist spreads them over the cores (one machine of ~360 steps took a minute alone).
# About 28 steps an example: STEPS=200 makes ~13 examples, ~360 steps. Hypothesis starts each
# machine with two trivial examples (`run` only, then no step at all): every shard has those on
# top of its share of the others.
SHARDS = 4
TRIVIAL = 2
EXAMPLES = max(TRIVIAL + 1, STEPS // 15)


def shard_settings(k: int) -> settings:
    share, extra = divmod(EXAMPLES - TRIVIAL, SHARDS)
    return settings(
        max_examples=TRIVIAL + max(1, share + (k < extra)),
        stateful_step_count=STEPS_PER_EXAMPLE, derandomize=True, deadline=None, print_blob=True,
        # SKILL_EVAL_EQUIV_SHRINK=0: report a failure as found (long runs), not shrunk for minutes.
        phases=tuple(Phase) if os.environ.get("SKILL_EVAL_EQUIV_SHRINK", "1") != "0" else (
            Phase.explicit, Phase.generate),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("k", range(SHARDS))
def test_incremental_equals_clean(k: int) -> None:
    TALLY.clear()
    # A seed per shard (it overrides derandomize's, which would be the same for every shard).
    run_state_machine_as_test(seed(k)(type(f"Equivalence{k}", (Equivalence,), {})),
                              settings=shard_settings(k))
    print(f"\nequivalence {k + 1}/{SHARDS}: {STEPS} steps asked in all; did {dict(sorted(TALLY.items()))}")


def replay(*steps: str) -> None:
    """Run a sequence of the machine's steps ("name" or "name:arg:arg"), checking as it goes."""
    machine = Equivalence()
    try:
        machine.create()
        for step in steps:
            name, *args = step.split(":")
            getattr(machine, name)(*[int(a) if a.isdigit() else a for a in args])
            machine.nothing_left_running()
    finally:
        machine.teardown()


# What the machine found, kept as plain regression tests.

def test_found_a_removed_case_leaves_no_page_data_behind():
    """Adding a case, running, removing it, running: the review page's data shard of that case
    stayed behind (empty), which a clean build does not write."""
    replay("toggle_case", "run", "toggle_case", "run")


def test_found_one_model_then_two_then_one_leaves_one_layout():
    """Tables of a second model, then of one again: the other layout's files stayed behind."""
    replay("run", "set_models:2", "run", "set_models:1", "run")
