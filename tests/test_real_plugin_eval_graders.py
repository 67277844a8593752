"""Every deterministic grader type, target and option of ``claude plugin eval``, run by the real
``claude`` CLI against the scripted model server, which makes real tool calls (Skill, Write,
Read, Glob, Agent with a subagent's Read; Bash where the CLI's sandbox can run): the real
``claude plugin eval --json`` and skill-eval give the same ``passed`` per grader, per arm, per
run. The agreement is printed as ``n/m``. Compared through tests/plugineval_oracle.py."""

from __future__ import annotations

import importlib.util
import json
import shutil

import pytest
from fakemodel import SUBAGENT_MARKER, Script
from plugineval_oracle import plugin_eval, skill_eval, write_plugin
from realcli import PLUGIN_EVAL_SETS, cli

pytestmark = pytest.mark.slow

# plugin eval refuses a Bash grant where its sandbox cannot run (Linux: bubblewrap and socat).
SANDBOX = shutil.which("bwrap") is not None and shutil.which("socat") is not None
MOCKS = importlib.util.find_spec("mcp") is not None  # skill-eval serves mocks with the MCP SDK


def _grader(**front: object) -> str:
    return "---\n" + "".join(f"{k}: {json.dumps(v)}\n" for k, v in front.items()) + "---\nprobe\n"


GRADERS = {
    # regex on the last message: JavaScript flags, contains / not_contains / count:N
    "r-contains": _grader(type="regex", pattern="Total sales: \\d+"),
    "r-flag-i": _grader(type="regex", pattern="total SALES", flags="i"),
    "r-explicit": _grader(type="regex", pattern="sales", match="contains"),
    "r-absent": _grader(type="regex", pattern="error", match="not_contains"),
    "r-count": _grader(type="regex", pattern="a", match="count:5"),
    "r-count-g": _grader(type="regex", pattern="a", flags="g", match="count:5"),
    "r-count-gi": _grader(type="regex", pattern="A", flags="gi", match="count:5"),
    "r-count-0": _grader(type="regex", pattern="zzz", match="count:0"),
    "r-count-empty": _grader(type="regex", pattern="x*", match="count:21"),
    "r-dollar": _grader(type="regex", pattern="aaa$"),
    "r-inline": _grader(type="regex", pattern="(?i)total"),  # not JavaScript: the grader throws
    # the trace: the session as JSON lines
    "t-assistant": _grader(type="regex", target="trace", pattern='"type":"assistant"'),
    "t-spaced": _grader(type="regex", target="trace", pattern='"type": "assistant"'),
    "t-escaped": _grader(type="regex", target="trace", pattern='say \\\\"quoted\\\\"'),
    "t-subagent": _grader(type="regex", target="trace", pattern="Subagent done"),
    # count:N on the trace. Not '"type":"result"': on a loaded machine the CLI may answer the
    # subagent's late task notification with a second turn (a second init and result), in
    # either tool, so that count is the CLI's timing, not a grader's meaning.
    "t-writes-four": _grader(type="regex", target="trace", pattern='"name":"Write"', match="count:4"),
    "t-no-edit": _grader(type="regex", target="trace", pattern='"name":"NotebookEdit"', match="not_contains"),
    # the files created during the run (not the scaffold's, not one only modified)
    "f-created": _grader(type="regex", target="files", pattern="^notes\\.txt$", flags="m"),
    "f-three": _grader(type="regex", target="files", pattern="^", flags="m", match="count:3"),
    "f-not-scaffold": _grader(type="regex", target="files", pattern="scaffolded", match="not_contains"),
    "f-not-modified": _grader(type="regex", target="files", pattern="pre\\.md", match="not_contains"),
    # one workspace file after the run
    "w-file": _grader(type="regex", target={"source": "file", "path": "notes.txt"}, pattern="^hello$",
                      flags="m"),
    "w-modified": _grader(type="regex", target={"source": "file", "path": "pre.md"}, pattern="modified"),
    "w-missing": _grader(type="regex", target={"source": "file", "path": "nope.md"}, pattern="x",
                         match="not_contains"),
    # tool_used: exact names, input_match on the JSON text, subagents' calls, min / max
    "u-fired": _grader(type="tool_used", tool="Skill",
                       input_match='"skill"\\s*:\\s*"(?:[\\w-]+:)?csv-summary"'),
    "u-never-skill": _grader(type="tool_used", tool="Skill", min=0, max=0, arm="both"),
    "u-writes": _grader(type="tool_used", tool="Write", min=4, max=4),
    "u-sub-read": _grader(type="tool_used", tool="Read", input_match="sub\\.txt"),
    "u-no-space": _grader(type="tool_used", tool="Read", input_match='"file_path":"[^"]*notes\\.txt"'),
    "u-spaced": _grader(type="tool_used", tool="Read", input_match='"file_path": "'),
    "u-agent": _grader(type="tool_used", tool="Agent", input_match="general-purpose"),
    "u-glob-name": _grader(type="tool_used", tool="Gl*"),
    "u-lower": _grader(type="tool_used", tool="read"),
    "u-no-edit": _grader(type="tool_used", tool="Edit", min=0, max=0),
    "u-max": _grader(type="tool_used", tool="Read", max=1),
    "u-unicode": _grader(type="tool_used", tool="Glob", input_match="é"),
    # tool_order: names and {tool, input_match}, first calls, both called
    "o-skill-write": _grader(type="tool_order", before="Skill", after="Write"),
    "o-write-read": _grader(type="tool_order", before="Write", after="Read"),
    "o-read-write": _grader(type="tool_order", before="Read", after="Write"),
    "o-glob-sub": _grader(type="tool_order", before="Glob", after={"tool": "Read", "input_match": "sub"}),
    "o-sub-glob": _grader(type="tool_order", before={"tool": "Read", "input_match": "sub"}, after="Glob"),
    "o-never": _grader(type="tool_order", before="Write", after="Grep"),
    # file_exists: the glob dialect, dotfiles, exists: false
    "e-plain": _grader(type="file_exists", path="notes.txt"),
    "e-deep": _grader(type="file_exists", path="**/*.md"),
    "e-star": _grader(type="file_exists", path="*.md"),  # pre.md is only modified
    "e-dot": _grader(type="file_exists", path="*/x.json"),
    "e-dot-dir": _grader(type="file_exists", path=".hidden/*"),
    "e-any-char": _grader(type="file_exists", path="notes?txt"),
    "e-scaffold": _grader(type="file_exists", path="scaffolded.txt"),
    "e-absent": _grader(type="file_exists", path="missing.txt", exists=False),
    "e-absent-fails": _grader(type="file_exists", path="*.txt", exists=False),
}
if SANDBOX:
    GRADERS["u-bash"] = _grader(type="tool_used", tool="Bash", input_match='"command":"echo hi"')

GRADERS["m-no-mocks"] = _grader(type="regex", target="mock_calls", pattern="x", match="not_contains")
# A case with its own mocked MCP server (not one the plugin declares: graded in both arms).
MOCKED = {
    "m-tool": _grader(type="regex", target="mock_calls", pattern='^\\{"tool":"mcp__clock__now"', flags="m"),
    "m-input": _grader(type="regex", target="mock_calls", pattern='"input":\\{"tz":"UTC"\\}'),
    "m-output": _grader(type="regex", target="mock_calls", pattern='"output":"12:00 UTC'),
    "m-verdict": _grader(type="regex", target="mock_calls", pattern='"verdict":"ok"'),
    "m-no-error": _grader(type="regex", target="mock_calls", pattern="isError", match="not_contains"),
    "m-once": _grader(type="regex", target="mock_calls", pattern="^", flags="m", match="count:1"),
    "m-used": _grader(type="tool_used", tool="mcp__clock__now", input_match='"tz":"UTC"', max=1),
    "m-glob": _grader(type="tool_used", tool="mcp__clock__*"),
    "m-answer": _grader(type="regex", pattern="Total|sales"),
}

TOOLS = "[Read, Glob, Agent, Skill, Write, Edit" + (", Bash]" if SANDBOX else "]")
CASES = {"every-grader": {
    "case.yaml": 'schema_version: "1.1"\nname: every-grader\nruns: 1\nexecution:\n  max_turns: 20\n'
                 f"  allowed_tools: {TOOLS}\ncontext:\n  scaffold_script: setup.sh\n",
    "prompt.md": "Sum inputs/sales.csv.\n",
    "setup.sh": "echo scaffolded > scaffolded.txt\necho before > pre.md\n",
    **{f"graders/{name}.md": text for name, text in GRADERS.items()}}}
if MOCKS:
    CASES["mocked"] = {"prompt.md": "---\nruns: 1\nallowed_tools: [Read, Glob, Skill]\n---\nThe time?\n",
               "mocks/clock/now.md": "12:00 {{input.tz}}\n",
               **{f"graders/{name}.md": text for name, text in MOCKED.items()}}

STEPS = (
    {"name": "Write", "input": {"file_path": "{cwd}/notes.txt", "content": 'hello\nsay "quoted"\n'}},
    {"name": "Write", "input": {"file_path": "{cwd}/.hidden/x.json", "content": "{}\n"}},
    {"name": "Write", "input": {"file_path": "{cwd}/a/b/c.md", "content": "# c\n"}},
    {"name": "Write", "input": {"file_path": "{cwd}/pre.md", "content": "modified\n"}},
    {"name": "Read", "input": {"file_path": "{cwd}/notes.txt"}},
    {"name": "Glob", "input": {"pattern": "**/é*.csv"}},
    {"name": "Agent", "input": {"description": "Sub task", "subagent_type": "general-purpose",
                                "prompt": f"{SUBAGENT_MARKER} Read sub.txt"}},
    *([{"name": "Bash", "input": {"command": "echo hi", "description": "Say hi"}}] if SANDBOX else []),
)
SCRIPT = Script(answer_with_skill="Total sales: 42. aaa", answer_without_skill="No sales. aaaa",
                steps=STEPS, subagent_steps=({"name": "Read", "input": {"file_path": "{cwd}/sub.txt"}},),
                mcp_tool="now", mcp_input={"tz": "UTC"})
GRANTS = ("--allow-tools", "Write", "Edit", *(["Bash"] if SANDBOX else []))


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def both(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"graders-{request.param}")
    plugin = write_plugin(root / "plug", CASES)
    theirs = plugin_eval(claude, plugin, SCRIPT, "--scaffold", *GRANTS)
    ours = skill_eval(claude, plugin, SCRIPT, root / "se", "--scaffold", *GRANTS,
                      arms=("with_skill", "without_skill"))
    return theirs, ours, request.param


def test_every_grader_passes_or_fails_as_under_plugin_eval(both, capsys):
    theirs, ours, which = both
    assert [c for c in theirs.causes() if c[2]] == [] and [c for c in ours.causes() if c[2]] == []
    mine = {v[:4]: v[4] for v in ours.verdicts}
    real = {v[:4]: v[4] for v in theirs.verdicts}
    assert set(mine) == set(real)  # the same graders in each arm (with-only ones left out alike)
    agree = sum(mine[k] == real[k] for k in real)
    with capsys.disabled():
        print(f"\n{which}: skill-eval agrees with claude plugin eval on {agree}/{len(real)} grader verdicts")
    assert {k: mine[k] for k in real if mine[k] != real[k]} == {}, "per grader: ours != plugin eval's"


def test_the_probes_really_probe(both):
    """Both verdicts are exercised: the suite has graders that pass and graders that fail."""
    theirs, _, _ = both
    verdicts = {(arm, g): p for _, arm, _, g, p in theirs.verdicts}
    assert verdicts[("with", "t-escaped")] and not verdicts[("with", "t-spaced")]
    assert verdicts[("with", "u-sub-read")] and not verdicts[("with", "u-glob-name")]
    assert not verdicts[("with", "e-star")] and not verdicts[("with", "e-scaffold")]
    assert not verdicts[("with", "r-inline")] and verdicts[("without", "u-never-skill")]
    mocked = {(arm, g): p for case, arm, _, g, p in theirs.verdicts if case == "mocked"}
    assert not MOCKS or (mocked[("with", "m-tool")] and mocked[("without", "m-output")]
                         and not mocked[("with", "m-glob")])
