"""claude plugin eval's llm and baseline graders judged by three votes (grade/votes.py), with a
scripted command judge: 2 of 3 PASS passes, each vote cached on its own, votes in grading.json,
benchmark.json and the review page, the vote prompt and its PASS/FAIL reading."""

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from suitekit import JSON_SHIM

from skill_eval.cli.main import main
from skill_eval.grade import focus
from skill_eval.grade.judge import verdict_key
from skill_eval.grade.votes import tally, vote_key
from skill_eval.intake.schemas_io import validator
from skill_eval.model.cases import RubricItem
from skill_eval.run.adapters.shared.judge_prompt import build_vote_prompt, parse_vote

ADAPTER = JSON_SHIM + """\
import sys
req = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(req["mode"] + "\\n")
print(json.dumps({"output": "Total: 42", "events": [], "usage": {"input_tokens": 1, "output_tokens": 1}}))
"""

# Both scripts start once per call: under -S and on suitekit's json shim.
# A vote request's criterion carries its votes, e.g. "[PFP]": the n-th identical request gets the
# n-th letter. Every request is logged (one JSON line) to the file named by argv[1].
JUDGE = JSON_SHIM + """\
import sys
req = json.load(sys.stdin)
log = sys.argv[1]
try:
    seen = [json.loads(line) for line in open(log)]
except FileNotFoundError:
    seen = []
with open(log, "a") as f:
    f.write(json.dumps(req) + "\\n")
[item] = req["rubric"]
n = sum(1 for s in seen if s == req)
text = item["text"]
letters = next(w for w in (p.split("]")[0] for p in text.split("[")[1:]) if w and not w.strip("PF"))
passed = letters[n % len(letters)] == "P"
word = "PASS" if passed else "FAIL"
print(json.dumps({"verdicts": [{"id": item["id"], "passed": passed, "evidence": word}],
                  "usage": {"cost_usd": 0.001}}))
"""

GRADERS = {
    "split.md": "---\ntype: llm\n---\nStates the total [PFP].\n",
    "outvoted.md": "---\ntype: llm\n---\nShows working [FPF].\n",
    "like-ref.md": "---\ntype: baseline\nbaseline_file: ref.jsonl\n---\nAs complete [PPF].\n",
    "in-trace.md": "---\ntype: llm\nfocus: trace\n---\nThe session is short [PPP].\n",
}


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    files = {".claude-plugin/plugin.json": '{"name": "p"}',
             "skills/sk/SKILL.md": "---\nname: sk\ndescription: Sums.\n---\nSum.\n",
             "evals/c1/prompt.md": "---\nruns: 1\n---\nWhat is the total?\n",
             "evals/c1/ref.jsonl": "".join(json.dumps({"n": i}) + "\n" for i in range(30)),
             **{f"evals/c1/graders/{k}": v for k, v in GRADERS.items()}}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "adapter.py").write_text(ADAPTER)
    (tmp_path / "judge.py").write_text(JUDGE)
    (tmp_path / "suite.yaml").write_text(
        "suite: votes\nskills_dir: skills\nskills: ['*']\njobs: 1\nvariants: [with_skill]\n"
        f"adapter:\n  command: [{sys.executable}, -S, adapter.py, {tmp_path / 'agent.log'}]\n"
        # concurrency 1: the scripted judge answers the n-th identical vote with its n-th letter.
        f"judge:\n  command: [{sys.executable}, -S, judge.py, {tmp_path / 'judge.log'}]\n  concurrency: 1\n"
        "store: store\nresults: results\n")
    return tmp_path


def _run(root: Path) -> tuple[int, int, list[dict]]:
    """(exit code, agent calls, judge requests) of one `run`; the logs start afresh."""
    code = main(["run", str(root / "suite.yaml")])
    logs = []
    for name in ("agent.log", "judge.log"):
        path = root / name
        logs.append(path.read_text().splitlines() if path.exists() else [])
        path.unlink(missing_ok=True)
    return code, len(logs[0]), [json.loads(line) for line in logs[1]]


def _grade(root: Path) -> dict:
    [path] = list((root / "results").glob("sk/iteration-*/eval-c1/with_skill/grading.json"))
    return json.loads(path.read_text())


def _with_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session trace of 40 JSON lines for every run (through focus.session_trace, the judge's
    seam for it)."""
    def trace(ctx: object) -> str:
        return "".join(json.dumps({"line": i}) + "\n" for i in range(40))

    monkeypatch.setattr(focus, "session_trace", trace)


def test_three_votes_pass_on_two_and_each_vote_is_cached(plugin: Path, monkeypatch: pytest.MonkeyPatch):
    _with_trace(monkeypatch)
    code, agent, judged = _run(plugin)
    assert agent == 1
    assert len(judged) == 12  # four graders, three votes each
    grade = _grade(plugin)
    validator("grading").validate(grade)
    items = {r["id"]: r for r in grade["rubric"]}
    assert [v["passed"] for v in items["split"]["votes"]] == [True, False, True]
    assert items["split"]["status"] == "passed" and items["outvoted"]["status"] == "failed"
    assert items["like-ref"]["status"] == "passed"
    assert items["split"]["evidence"] == "Total: 42"  # what the judge saw
    assert items["in-trace"]["status"] == "passed"
    # The baseline's requests carry the reference, the trace focus the trace, each cut to 12 + 12 lines.
    [ref] = {r["vote"]["reference"] for r in judged if "reference" in r["vote"]}
    assert ref.count("\n") == 24 and "[…6 messages elided…]" in ref
    [trace] = {r["output"] for r in judged if r["vote"]["focus"] == "trace"}
    assert trace.count("\n") == 24 and "[…16 messages elided…]" in trace and '"line": 39' in trace
    assert items["in-trace"]["evidence"] == trace[:200] and items["like-ref"]["evidence"] == ""
    bench = json.loads((plugin / "results" / "sk" / "benchmark.json").read_text())
    votes = {v["id"]: v["votes"] for c in bench["cases"] for v in c["with_skill"]["judge_votes"]}
    assert votes["split"] == [True, False, True] and votes["in-trace"] == [True, True, True]
    assert code == 1  # "outvoted" fails the run, as it fails the first-party run
    [case_json] = list((plugin / "results").glob("sk/iteration-*/eval-c1/case.json"))
    [shown] = [r for r in json.loads(case_json.read_text())["rubric"] if r["id"] == "like-ref"]
    assert shown["reference_file"] == "ref.jsonl" and "reference" not in shown  # named, not copied

    # Unchanged: no agent call and no judge call.
    assert _run(plugin)[1:] == (0, [])
    # One criterion edited: only its three votes are asked again, and no agent call.
    (plugin / "evals/c1/graders/outvoted.md").write_text("---\ntype: llm\n---\nShows working [PPF].\n")
    _, agent, judged = _run(plugin)
    assert agent == 0 and len(judged) == 3 and {r["rubric"][0]["id"] for r in judged} == {"outvoted"}
    assert {r["id"]: r["status"] for r in _grade(plugin)["rubric"]}["outvoted"] == "passed"
    # The reference transcript is part of the baseline grader's key: an edit re-asks its votes only.
    (plugin / "evals/c1/ref.jsonl").write_text('{"n": "new"}\n')
    _, agent, judged = _run(plugin)
    assert agent == 0 and [r["vote"]["reference"] for r in judged] == ['{"n": "new"}'] * 3


def test_a_focus_the_run_has_no_data_for_fails_without_a_judge_call(plugin: Path):
    _, _, judged = _run(plugin)  # no session trace on this branch: trace and baseline not judged
    assert {r["rubric"][0]["id"] for r in judged} == {"split", "outvoted"} and len(judged) == 6
    items = {r["id"]: r for r in _grade(plugin)["rubric"]}
    for name in ("in-trace", "like-ref"):
        assert items[name]["status"] == "failed" and items[name]["votes"] == []
        assert items[name]["evidence"] == "not judged: this run's record keeps no session trace"


def test_the_review_page_shows_the_votes(plugin: Path):
    _run(plugin)
    main(["report", str(plugin / "suite.yaml")])
    page = "\n".join(p.read_text() for p in (plugin / "results").rglob("*.html"))
    assert "votes PASS FAIL PASS" in page


@pytest.mark.parametrize(("reply", "passed"), [
    # What `claude plugin eval` made of these replies (2.1.269 and 2.1.332, docs/judging.md).
    ("PASS", True), ("pass", True), ("PASS.", True), ("**PASS**", True), ("The answer is PASS", True),
    ("Verdict: pass", True), ("PASS\n\nIt states it.", True), (" PASS ", True),
    ("FAIL, not PASS", False), ("PASS, not FAIL", False), ("PASSED", False), ("yes", False),
    ("pass/fail", False), ("xPASS", False), ("PASS_", False), ("Bypass", False), ("", False),
    ("FAIL\nPASS", False)])
def test_a_vote_is_read_as_the_first_party_judge_reads_it(reply: str, passed: bool):
    assert parse_vote(reply) is passed


@given(st.lists(st.booleans(), min_size=3, max_size=3))
def test_three_votes_pass_exactly_on_two_or_more(votes: list[bool]):
    assert tally(votes, 3) is (sum(votes) >= 2)


@given(st.text(), st.text())
def test_the_judged_text_cannot_close_its_block(criterion: str, text: str):
    prompt = build_vote_prompt(criterion, "last_message", text)
    tag = re.search(r"<output-(\w+)>", prompt).group(1)
    assert tag not in text and prompt.endswith("PASS or FAIL.")


def test_vote_and_verdict_keys_name_the_run():
    # Golden: each run's votes and verdicts are its own draws, so their keys name the run (a
    # deliberate change: before, two runs with the same judged text shared them).
    ident = {"judge": {"builtin": "claude-code"}, "model": None}
    item = RubricItem(id="g", text="The answer is right.", votes=3, focus="last_message")
    vote = vote_key(ident, item, "last_message", "out", None, "P", 0, "2", "run-1")
    verdict = verdict_key(ident, "P", "out", [{"id": "a", "text": "t"}], "", "2", "run-1")
    assert vote == "b2389b9f060b965e2df493671a48c7f063f823b1530e754e112d94b54c38e77d"
    assert verdict == "8712ed35593c88a51e4af50bf1e7fd5e4b5dd9b7e87780b57e09ff5c1f0a93d8"
    assert vote != vote_key(ident, item, "last_message", "out", None, "P", 0, "2", "run-2")
    assert verdict != verdict_key(ident, "P", "out", [{"id": "a", "text": "t"}], "", "2", "run-2")
