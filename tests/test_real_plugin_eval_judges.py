"""llm and baseline graders judged by skill-eval as ``claude plugin eval`` judges them: the real
``claude`` CLI runs both tools against the scripted model server (tests/fakemodel.py), whose
judge side answers each grader's votes as scripted (the n-th vote on one prompt gets the n-th
reply), and every grader of every run gets the same ``passed`` and the same number of PASS votes.
The test prints the agreement as ``n/m``.

Graders whose focus needs the session trace (``trace``, and ``baseline``, which compares the
trace with the reference) are judged here only once the run keeps its trace (branch
``graders``); until then they are reported as skipped, never counted as agreeing.
"""

from __future__ import annotations

import json

import pytest
from fakemodel import FakeModel, Script
from plugineval_oracle import grader_verdicts, plugin_eval, skill_eval, write_plugin
from realcli import PLUGIN_EVAL_SETS, cli

pytestmark = pytest.mark.slow

REPLIES = {
    "VOTE-PFP": ("PASS", "FAIL", "PASS"),
    "VOTE-FFP": ("FAIL", "FAIL", "PASS"),
    "VOTE-ODD": ("**PASS**", "PASS, not FAIL", "Verdict: pass"),  # read as PASS, FAIL, PASS
    "VOTE-NEVER": ("FAIL", "PASSED", "yes"),
    "VOTE-TRACE": ("PASS", "PASS", "FAIL"),
    "VOTE-BASE": ("FAIL", "PASS", "PASS"),
    "VOTE-FILE": ("PASS", "PASS", "PASS"),
}
REFERENCE = "".join(json.dumps({"type": "user" if i % 2 else "assistant", "n": i}) + "\n" for i in range(30))


def _llm(marker: str, focus: str = "") -> str:
    return f"---\ntype: llm\n{focus}---\nThe answer is right ({marker}).\n"


CASES = {
    "judged": {
        "prompt.md": "---\nruns: 1\nallowed_tools: [Write]\n---\nWhat is the total of sales?\n",
        "graders/split.md": _llm("VOTE-PFP"),
        "graders/outvoted.md": _llm("VOTE-FFP"),
        "graders/odd-replies.md": _llm("VOTE-ODD"),
        "graders/never.md": _llm("VOTE-NEVER"),
        "graders/in-file.md": _llm("VOTE-FILE", "focus:\n  source: file\n  path: sub/made.txt\n"),
        "graders/no-file.md": _llm("VOTE-FILE", "focus:\n  source: file\n  path: nothere.txt\n"),
        "graders/mocks.md": _llm("VOTE-FILE", "focus: mock_calls\n"),
        "graders/in-trace.md": _llm("VOTE-TRACE", "focus: trace\n"),
        "graders/like-ref.md":
            "---\ntype: baseline\nbaseline_file: ref.jsonl\n---\nAs complete (VOTE-BASE).\n",
        "ref.jsonl": REFERENCE,
    },
}
NEEDS_TRACE = {"in-trace", "like-ref"}


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def both(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"pj-{request.param}")
    plugin = write_plugin(root / "plug", CASES)
    script = Script(votes=REPLIES, write_first=("sub/made.txt", "hello file 42\n"))
    theirs = plugin_eval(claude, plugin, script, "--allow-tools", "Write")
    ours = skill_eval(claude, plugin, script, root / "se", "--allow-tools", "Write",
                      variants=("with_skill", "without_skill"), judge=True)
    return theirs, grader_verdicts(root / "se" / "results"), ours


def _theirs(document: dict) -> dict[tuple[str, str, str], dict]:
    return {(case["name"], arm, g["name"]): g for case in document["cases"]
            for arm in ("with", "without") for run in case["arms"].get(arm) or [] for g in run["graders"]}


def test_every_llm_and_baseline_grader_gets_the_same_verdict_and_votes(both):  # noqa: ANN001
    theirs, ours, _ = both
    first = _theirs(theirs.document)
    assert set(first) == set(ours), "the same graders of the same runs"
    agree, compared, waiting, differ = 0, 0, [], []
    for key, their in sorted(first.items()):
        mine = ours[key]
        if key[2] in NEEDS_TRACE and not mine.get("votes"):
            waiting.append(key)  # no session trace on this branch: not judged here yet
            continue
        compared += 1
        same = (their["passed"], sum(their.get("judgeVotes") or [])) == (
            mine["status"] == "passed", sum(v["passed"] for v in mine.get("votes") or []))
        agree += same
        if not same:
            differ.append((key, their.get("judgeVotes"), their.get("explanation"), mine))
    print(f"llm/baseline grader agreement with claude plugin eval: {agree}/{compared}"
          + (f" ({len(waiting)} trace-focused verdicts not judged on this branch)" if waiting else ""))
    assert not differ, differ
    assert compared >= 14  # seven graders in each of two arms


def test_the_votes_split_as_scripted(both):  # noqa: ANN001
    _, ours, _ = both
    votes = {k[2]: [v["passed"] for v in item["votes"]] for k, item in ours.items() if k[1] == "with"}
    assert votes["split"] == [True, False, True] and votes["odd-replies"] == [True, False, True]
    assert votes["outvoted"] == [False, False, True] and votes["never"] == [False, False, False]
    assert votes["in-file"] == [True, True, True] and votes["no-file"] == [] and votes["mocks"] == []


def test_three_judge_calls_per_judged_grader_and_judged_text(both):  # noqa: ANN001
    # Votes are cached by what is judged (like native verdicts): two runs whose focus text is the
    # same (here the file both arms wrote) share their three votes; plugin eval asks again.
    _, ours, capture = both
    asked = [r for r in capture.requests if r["method"] == "POST" and FakeModel.vote_prompt(r["body"])]
    # A baseline's evidence is empty: its judged text is the run's own trace, never shared.
    judged = {(k[2], item["evidence"] or k[1]) for k, item in ours.items() if item.get("votes")}
    assert len(asked) == 3 * len(judged)
