"""Acceptance: no secret reaches any file the tool writes, and a grade does not depend on when
it was computed.

The adapter prints every secret shape (and the values of the suite's env: allow-list) in its
output, its stderr, a kept workspace file outside outputs/, a file that is not UTF-8, a file
name, event fields and usage keys; a judge quotes them back. Every secret holds the word LEAK
and nothing else does, so "zero secrets" is: no byte sequence LEAK under the store, the
results folder or any report written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from skill_eval.cli.main import main

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIBLEAKPEMBODY0014\n-----END RSA PRIVATE KEY-----"
ENV = {"SKEV_E2E_TOKEN": "plainLEAKenv0015", "SKEV_E2E_OTHER": "another-LEAK-0016"}
SHAPES = [
    "sk-ant-api03-LEAKLEAKLEAK0001",
    "export OPENAI_API_KEY=sk-proj-LEAKLEAKLEAK00020000",
    "ghp_LEAKLEAKLEAKLEAKLEAK0003",
    "aws AKIALEAKLEAKLEAK0004 and ASIALEAKLEAKLEAK0005",
    "maps AIzaLEAKLEAKLEAKLEAKLEAKLEAKLEAK00006",
    "slack xoxb-LEAK-LEAK-0007",
    "Authorization: Bearer eyLEAK.LEAK.0008",
    "password=hunter2LEAK9",
    '{"api_key": "LEAK\\"ESCAPED0010"}',
    '{"password": "it\'sLEAK0011"}',
    "Cookie: session=LEAKCOOKIE0012; theme=dark",
    "git clone https://bob:LEAKURLPASS0013@example.com/repo.git",
    PEM,
    *ENV.values(),
]
TEXT = "\n".join(SHAPES)

ADAPTER = f'''
import json, os, sys
text = {TEXT!r}
env = " ".join(os.environ.get(n, "") for n in {sorted(ENV)!r})
text = text + "\\n" + env
os.makedirs("outputs", exist_ok=True)
open("report.md", "w").write("# Report\\n" + text)
open("outputs/blob.bin", "wb").write(b"\\xff\\xfe\\x00 " + text.encode() + b" \\x80")
open("outputs/sk-ant-api03-LEAKFILENAME01.txt", "w").write("named after a key")
json.dump({{"password": "LEAKJSONFILE0017", "env": env}}, open("outputs/data.json", "w"))
sys.stderr.write("stderr: " + text + "\\n")
json.dump({{"output": "Result:\\n" + text,
           "events": [{{"type": "tool_call sk-ant-api03-LEAKEVENTTYPE1", "name": "token=LEAKEVENTNAME"}},
                      {{"type": "note", "name": env}}],
           "usage": {{"input_tokens": 5, "sk-ant-api03-LEAKUSAGEKEY01": 1, {ENV["SKEV_E2E_TOKEN"]!r}: 2}}}},
          sys.stdout)
'''

JUDGE = '''
import json, sys
req = json.load(sys.stdin)
quoted = req["output"][:400] + " sk-ant-api03-LEAKJUDGE00018 Cookie: id=LEAKJUDGECOOKIE"
json.dump({"verdicts": [{"id": r["id"], "passed": True, "evidence": quoted} for r in req["rubric"]],
           "usage": {"input_tokens": 1, "ghp_LEAKLEAKLEAKLEAKLEAKJUDGE": 1}}, sys.stdout)
'''

CHECKS = [
    {"id": "context", "type": "contains", "value": "Cookie"},
    {"id": "match", "type": "regex", "pattern": "password\\\\S*"},
    {"id": "no-raw-key", "type": "not_regex", "pattern": "sk-ant-"},
    {"id": "leak-free", "type": "no_secrets", "required": False},
    {"id": "env-free", "type": "no_secrets", "kinds": ["env"], "required": False},
    {"id": "json-file", "type": "json_path_equals", "file": "outputs/data.json", "path": "password",
     "value": "x", "required": False},
    {"id": "report", "type": "file_exists", "path": "report.md"},
    {"id": "blob", "type": "file_exists", "path": "outputs/blob.bin"},
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    skill = tmp_path / "skills" / "tidy"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: Keeps secrets out.\n---\nDo not leak.\n")
    evals = {"skill_name": "tidy", "evals": [
        {"id": "leaky", "prompt": "Summarise the config.", "checks": CHECKS,
         "expectations": ["It summarises the config"]}]}
    (skill / "evals" / "evals.json").write_text(json.dumps(evals, indent=1))
    (tmp_path / "adapter.py").write_text(ADAPTER)
    (tmp_path / "judge.py").write_text(JUDGE)
    (tmp_path / "suite.yaml").write_text(
        "suite: leaks\nskills_dir: skills\niterations: 1\njobs: 1\n"
        f"adapter:\n  command: [{sys.executable}, adapter.py]\n  env: [{', '.join(sorted(ENV))}]\n"
        f"judge:\n  command: [{sys.executable}, judge.py]\n"
        "store: store\nresults: results\n")
    return tmp_path


def _cli(root: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    cwd = os.getcwd()
    os.chdir(root)
    try:
        code = main(list(args))
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    return code, out + err


def _leaks(*roots: Path) -> list[str]:
    found = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if "LEAK" in path.name:
                found.append(f"file name {path}")
            if path.is_file() and b"LEAK" in path.read_bytes():
                data = path.read_bytes()
                at = data.index(b"LEAK")
                found.append(f"{path}: ...{data[max(0, at - 60):at + 20]!r}")
    return found


def _grades(store: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted(store.glob("grades/*/*.json"))}


@pytest.mark.slow
def test_no_secret_in_any_byte_written_and_first_grade_equals_regrade(project: Path, capsys):
    code, printed = _cli(project, "run", "suite.yaml", capsys=capsys)
    assert code in (0, 1), printed
    assert "LEAK" not in printed
    reports = project / "reports"
    for fmt in ("md", "github", "junit", "json", "html"):
        code, printed = _cli(project, "report", "suite.yaml", "--format", fmt, "--out",
                             str(reports / f"report.{fmt}"), capsys=capsys)
        assert code in (0, 1) and "LEAK" not in printed, printed
    for fmt in ("skill-creator", "agentskills"):
        code, printed = _cli(project, "export", "suite.yaml", "--format", fmt, "--out",
                             str(reports / fmt), capsys=capsys)
        assert code == 0 and "LEAK" not in printed, printed
    assert _leaks(project / "store", project / "results", reports) == []

    first = _grades(project / "store")
    assert len(first) == 2  # with and without the skill
    for grade in first.values():
        by_id = {c["id"]: c for c in grade["checks"]}
        assert by_id["no-raw-key"]["passed"] is True  # graded on the redacted text, every time
        assert by_id["report"]["passed"] and by_id["blob"]["passed"]  # kept, workspace-relative
        assert by_id["leak-free"]["passed"] is False
        for kind in ("api-key", "aws-key", "bearer", "cookie", "password", "private-key",
                     "env:SKEV_E2E_TOKEN"):
            assert kind in by_id["leak-free"]["evidence"], by_id["leak-free"]["evidence"]
        assert by_id["env-free"]["passed"] is False and "env:SKEV_E2E_OTHER" in by_id["env-free"]["evidence"]
        assert "[REDACTED:password]" in by_id["json-file"]["evidence"]
        assert grade["rubric"][0]["status"] == "passed"

    # A forced regrade (grades dropped; runs and verdicts stay stored) gives the same grades.
    for path in (project / "store" / "grades").rglob("*.json"):
        path.unlink()
    code, printed = _cli(project, "run", "suite.yaml", capsys=capsys)
    assert code in (0, 1), printed
    again = _grades(project / "store")
    assert again.keys() == first.keys()
    for key, grade in first.items():
        diff = {k for k in grade.keys() | again[key].keys() if grade.get(k) != again[key].get(k)}
        # judge_cached says the verdict came from the store this time (no second judge call).
        assert diff <= {"judge_cached"}, (diff, [(grade.get(k), again[key].get(k)) for k in diff])
    assert _leaks(project / "store", project / "results") == []


@pytest.mark.slow
def test_a_file_outside_outputs_is_kept_with_the_run(project: Path, capsys):
    code, printed = _cli(project, "run", "suite.yaml", capsys=capsys)
    assert code in (0, 1), printed
    kept = sorted("files/" + p.as_posix().split("/files/", 1)[1]
                  for p in (project / "store" / "runs").glob("*/*/files/**/*") if p.is_file())
    assert kept.count("files/report.md") == 2
    assert kept.count("files/outputs/blob.bin") == 2
    assert kept.count("files/outputs/[REDACTED:api-key].txt") == 2
    blob = next((project / "store" / "runs").glob("*/*/files/outputs/blob.bin")).read_bytes()
    assert blob.startswith(b"\xff\xfe\x00 ") and blob.endswith(b" \x80")  # bytes kept, secrets not
    assert b"[REDACTED:env:SKEV_E2E_TOKEN]" in blob


# A session (as the claude-code adapter keeps it) whose Bash call assigns a secret in quotes:
# inside the JSON line the quotes are escaped, and redaction must not take them for the secret.
SESSION_ADAPTER = r'''import json, os, sys
req = json.loads(sys.stdin.read())
command = 'API_TOKEN="$(cat token.txt)" DB_PASSWORD="LEAKsession0019" ./deploy.sh'
lines = [{"type": "assistant", "message": {"content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}]}},
         {"type": "user", "message": {"content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": "deployed"}]}},
         {"type": "assistant", "message": {"content": [
             {"type": "text", "text": "Deployed with " + command}]}}]
os.makedirs(os.path.dirname(req["session"]), exist_ok=True)
compact = [json.dumps(line, separators=(",", ":")) for line in lines]
open(req["session"], "w").write("\n".join(compact))
call = {"type": "tool_call", "name": "Bash", "input_json": json.dumps({"command": command})}
json.dump({"output": "Deployed.", "events": [call], "usage": {}}, sys.stdout)
'''
SESSION_GRADERS = {
    "bash.md": "---\ntype: tool_used\ntool: Bash\ninput_match: deploy\n---\n",
    "said.md": "---\ntype: regex\ntarget: last_message\npattern: Deployed with API_TOKEN\n---\n",
    "traced.md": '---\ntype: regex\ntarget: trace\npattern: \'"name":"Bash"\'\n---\n',
}


def test_a_bash_call_with_a_quoted_secret_still_counts_as_a_bash_call(tmp_path: Path):
    from pluginkit import PluginKit

    kit = PluginKit.create(tmp_path, {"deploy": {"prompt.md": "Deploy.\n", **{
        f"graders/{name}": text for name, text in SESSION_GRADERS.items()}}})
    kit.write({"adapter.py": SESSION_ADAPTER, "evals/deploy/graders/g.md": SESSION_GRADERS["bash.md"]})
    code, _, err = kit.run()
    assert code == 0, err
    [session] = (tmp_path / ".store").glob("runs/*/*/session.jsonl")
    lines = [json.loads(line) for line in session.read_text().split("\n")]  # every line still JSON
    command = lines[0]["message"]["content"][0]["input"]["command"]
    assert command == 'API_TOKEN="[REDACTED:api-key]" DB_PASSWORD="[REDACTED:password]" ./deploy.sh'
    [grade] = [json.loads(p.read_text()) for p in (tmp_path / ".store").glob("grades/*/*.json")]
    assert {c["id"]: c["passed"] for c in grade["checks"]} == {
        "bash": True, "g": True, "said": True, "traced": True}, grade["checks"]
    assert _leaks(tmp_path / ".store", tmp_path / "results") == []
