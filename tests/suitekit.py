"""Build a throw-away suite in a temp folder and drive it: skills, eval sets, fixtures, and a
*counting adapter* (a protocol-v1 ``command`` adapter that appends one line per call to
``calls.log`` next to itself and answers deterministically).

The adapter reads ``control.json`` next to itself when present (not part of any key):
``{"fail": "<substring of a prompt>", "sleep": seconds, "cost": usd, "sleep_for": "<substring>"}``.

    kit = Kit.create(tmp_path)          # skills alpha (cases a1, a2) and beta (b1), 3 iterations
    code, out, err = kit.run()          # skill-eval run, in-process
    assert kit.calls() == 18            # adapter calls since the last kit.reset()
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scratch import kept

# The suite calls its test adapters thousands of times, so they start as little as Python can:
# under -S, and on the json module's C half (_json) instead of json itself, which imports re and
# would double each call's start-up (15 ms of CPU instead of 7). FAST_JSON defines loads() and
# dumps() (json.dumps's output, byte for byte) for an adapter script to begin with.
FAST_JSON = r'''import _json
class _Decoding:  # what _json's scanner reads: json.decoder's defaults
    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, float
    memo = {}
_scan = _json.make_scanner(_Decoding())
_encode = _json.make_encoder(None, None, _json.encode_basestring_ascii, None, ": ", ", ",
                             False, False, True)
def loads(text):
    text = text.strip()
    obj, end = _scan(text, 0)
    if end != len(text):
        raise ValueError("extra data after the JSON document")
    return obj
def dumps(obj):
    return "".join(_encode(obj, 0))
'''

# FAST_JSON standing in for the json module (loads, dumps, load, dump: json's defaults only), for
# a script written against json.* that is started for every run.
JSON_SHIM = FAST_JSON + r'''class json:
    loads, dumps = staticmethod(loads), staticmethod(dumps)
    @staticmethod
    def load(f):
        return loads(f.read())
    @staticmethod
    def dump(obj, f):
        f.write(dumps(obj))
'''

ADAPTER = "#!/usr/bin/env python3\n" + FAST_JSON + r'''import os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
req = loads(sys.stdin.read())
ctl = {}
try:
    with open(os.path.join(here, "control.json")) as f:
        ctl = loads(f.read())
except OSError:
    pass
line = "%s\t%s\n" % (req["mode"], req["prompt"])
fd = os.open(os.path.join(here, "calls.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, line.encode())
os.close(fd)
if ctl.get("pidfile"):
    fd = os.open(ctl["pidfile"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, ("%d\n" % os.getpid()).encode())
    os.close(fd)
if ctl.get("sleep") and ctl.get("sleep_for", "") in req["prompt"]:
    time.sleep(float(ctl["sleep"]))
if ctl.get("fail") and ctl["fail"] in req["prompt"]:
    sys.stderr.write("boom: cannot do " + req["prompt"] + "\n")
    sys.exit(3)
files = sorted(f["path"] for f in req["files"])
out = "%s says: %s [%s]" % (req["mode"], req["prompt"], ",".join(files))
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req["skill"] else []
answer = {"output": out, "events": events,
          "usage": {"input_tokens": 10, "output_tokens": 5, "cost_usd": float(ctl.get("cost", 0))}}
sys.stdout.write(dumps(answer))
'''

# The same adapter, answering from the fixtures' content too (their hashes, as the request gives
# them), and refusing a fixture that says REFUSE: its answer depends only on the request.
CONTENT_ADAPTER = ADAPTER.replace(
    'files = sorted(f["path"] for f in req["files"])',
    'files = sorted("%s:%s" % (f["path"], f["sha256"][:8]) for f in req["files"])\n'
    'for f in req["files"]:\n'
    '    with open(os.path.join(req["workspace"], f["path"]), "rb") as fh:\n'
    '        if b"REFUSE" in fh.read():\n'
    '            sys.stderr.write("refused: " + f["path"] + "\\n")\n'
    '            sys.exit(3)')

SUITE = """suite: kit
skills_dir: skills
skills: ["*"]
adapter:
  command: [python3, -S, adapter.py]
iterations: {iterations}
jobs: 2
timeout_seconds: 30
store: .skill-eval/store
results: results
{extra}"""


def case(cid: str, fixture: str | None = None, check_value: str = "with_skill") -> dict[str, Any]:
    c: dict[str, Any] = {"id": cid, "prompt": f"Task {cid}: write it.",
                         "checks": [{"id": "says", "type": "contains", "value": check_value}]}
    if fixture:
        c["files"] = [f"evals/files/{fixture}"]
    return c


@dataclass
class Kit:
    root: Path  # the project folder: suite.yaml, adapter.py, skills/, store and results inside

    # ---- building ---------------------------------------------------------------------------
    @classmethod
    def create(cls, tmp_path: Path, iterations: int = 3, extra: str = "",
               skills: dict[str, list[str]] | None = None, name: str = "proj") -> Kit:
        root = tmp_path / name
        root.mkdir(parents=True)
        kit = cls(root)
        kit.write_suite(iterations=iterations, extra=extra)
        adapter = root / "adapter.py"
        adapter.write_text(ADAPTER)
        adapter.chmod(adapter.stat().st_mode | stat.S_IXUSR)
        for skill, cases in (skills or {"alpha": ["a1", "a2"], "beta": ["b1"]}).items():
            kit.add_skill(skill, cases)
        return kit

    def use_content_adapter(self) -> None:
        """Answer from the fixtures' content (see CONTENT_ADAPTER)."""
        (self.root / "adapter.py").write_text(CONTENT_ADAPTER)

    def write_suite(self, iterations: int = 3, extra: str = "") -> None:
        (self.root / "suite.yaml").write_text(SUITE.format(iterations=iterations, extra=extra))

    def add_skill(self, skill: str, case_ids: list[str]) -> None:
        d = self.skill_dir(skill)
        (d / "evals" / "files").mkdir(parents=True)
        (d / "references").mkdir()
        (d / "SKILL.md").write_text(f"---\nname: {skill}\ndescription: The {skill} skill.\n---\nDo it.\n")
        (d / "references" / "guide.md").write_text(f"{skill} guide\n")
        cases = []
        for cid in case_ids:
            (d / "evals" / "files" / f"{cid}.txt").write_text(f"fixture of {cid}\n")
            cases.append(case(cid, f"{cid}.txt"))
        self.write_evals(skill, cases)

    def skill_dir(self, skill: str) -> Path:
        return self.root / "skills" / skill

    def evals(self, skill: str) -> dict[str, Any]:
        return json.loads((self.skill_dir(skill) / "evals" / "evals.json").read_text())

    def write_evals(self, skill: str, cases: list[dict[str, Any]]) -> None:
        (self.skill_dir(skill) / "evals" / "evals.json").write_text(
            json.dumps({"skill_name": skill, "evals": cases}, indent=2))

    def edit_case(self, skill: str, cid: str, **changes: Any) -> None:
        data = self.evals(skill)
        for c in data["evals"]:
            if c["id"] == cid:
                c.update(changes)
        self.write_evals(skill, data["evals"])

    def control(self, **ctl: Any) -> None:
        path = self.root / "control.json"
        if ctl:
            path.write_text(json.dumps(ctl))
        else:
            path.unlink(missing_ok=True)

    # ---- paths ------------------------------------------------------------------------------
    @property
    def suite(self) -> Path:
        return self.root / "suite.yaml"

    @property
    def store(self) -> Path:
        return self.root / ".skill-eval" / "store"

    @property
    def results(self) -> Path:
        return self.root / "results"

    def bench(self, skill: str) -> Path:
        return self.results / skill / "benchmark.json"

    def mtimes(self) -> dict[str, int]:
        """mtime_ns of every benchmark.json and summary file: equal before/after = not rewritten."""
        out = {}
        for p in sorted(self.results.rglob("*")):
            if p.is_file() and (p.name.startswith("benchmark") or p.name.startswith("summary")
                                or p.name == "junit.xml"):
                out[str(p.relative_to(self.root))] = p.stat().st_mtime_ns
        return out

    def stored_runs(self) -> list[str]:
        return sorted(p.parent.name for p in self.store.glob("runs/*/*/COMPLETE.json"))

    # ---- the counting adapter ---------------------------------------------------------------
    def call_lines(self) -> list[tuple[str, str]]:
        try:
            text = (self.root / "calls.log").read_text()
        except FileNotFoundError:
            return []
        return [tuple(line.split("\t", 1)) for line in text.splitlines()]  # type: ignore[misc]

    def calls(self) -> int:
        return len(self.call_lines())

    def calls_by(self) -> dict[str, int]:
        """'<mode> <case id>' → number of calls."""
        out: dict[str, int] = {}
        for mode, prompt in self.call_lines():
            cid = prompt.split(":", 1)[0].removeprefix("Task ")
            out[f"{mode} {cid}"] = out.get(f"{mode} {cid}", 0) + 1
        return out

    def reset(self) -> None:
        (self.root / "calls.log").unlink(missing_ok=True)

    # ---- driving ----------------------------------------------------------------------------
    def cli(self, *args: str) -> tuple[int, str, str]:
        """``skill-eval ARGS`` in-process, from the project folder; returns (code, stdout, stderr)."""
        return main_in(self.root, *args)

    def run(self, *args: str) -> tuple[int, str, str]:
        return self.cli("run", "suite.yaml", *args)

    def status(self, *args: str) -> tuple[int, str, str]:
        return self.cli("status", "suite.yaml", *args)

    def status_json(self, *args: str) -> dict[str, Any]:
        code, out, err = self.status("--json", *args)
        assert code == 0, err
        return json.loads(out)

    def subprocess(self, *args: str, **kw: Any) -> subprocess.Popen[str]:
        """``skill-eval ARGS`` as a child process (for signals and concurrency)."""
        return subprocess.Popen([sys.executable, "-m", "skill_eval.cli.main", *args], cwd=self.root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)

    def copy_to(self, dest: Path) -> Kit:
        shutil.copytree(self.root, dest, symlinks=True)
        return Kit(dest)

    @classmethod
    def warm(cls, tmp_path: Path) -> Kit:
        """``Kit.create(tmp_path)`` after its first run (18 calls), with ``calls.log`` reset.

        The first run is made once per test process, in a kept template; each test gets a copy,
        refreshed by a run that must call nothing (a copy has new inodes, mtimes and absolute
        paths, which the fast path's fingerprint notices, so the refresh also rewrites it). A
        fresh kit's first run costs ten times the copy; the matrix's tests begin from one."""
        kit = cls(kept("kit-warm", _first_run)).copy_to(tmp_path / "proj")
        code, out, err = kit.run()
        assert code == 0 and kit.calls() == 0, out + err
        return kit


def main_in(root: Path, *args: str) -> tuple[int, str, str]:
    """``skill-eval ARGS`` in-process, from ``root``; returns (code, stdout, stderr)."""
    from skill_eval.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def _first_run(folder: Path) -> Path:
    template = Kit.create(folder)
    code, out, err = template.run()
    assert code == 0 and template.calls() == 18, out + err
    template.reset()
    return template.root
