"""A JavaScript engine to compare with: one long-lived ``node`` process that grades regexes the
way ``claude plugin eval``'s regex grader does, fed JSON lines over a pipe (fast enough for a
property test to ask it hundreds of times).

    with JsNode.start() as js:                       # None when no node is installed
        js.grade("a+", "i", ["AAa", "b"])            # [(test, count), ...] or a str error

For each text: what ``new RegExp(p, f).test(t)`` and ``(t.match(new RegExp(p, f with g)) ??
[]).length`` give by the spec, the grader's contains and count:N (see _SCRIPT for why the search
loop is spelled out rather than left to V8).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from types import TracebackType

_SCRIPT = r"""
// RegExpBuiltinExec's search loop, written out (ECMA-262 22.2.7.2): try a sticky match at each
// index, and after a failure move on one code point under u. V8's own loop moves on one code
// unit there (so /(?<!1)/gu finds a match inside the pair of "1\u{1F600}"); JavaScriptCore, the
// engine of claude plugin eval, follows the spec (settled with the real CLI, docs/dialects.md).
const advance = (t, i, uni) => {
  const c = t.charCodeAt(i), d = t.charCodeAt(i + 1);
  return uni && c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? i + 2 : i + 1;
};
const exec = (re, t, from, sticky, uni) => {
  for (let i = from; i <= t.length; i = advance(t, i, uni)) {
    re.lastIndex = i;
    const m = re.exec(t);
    if (m) return [i, i + m[0].length];
    if (sticky) return null;
  }
  return null;
};
const grade = (p, f, t) => {
  const re = new RegExp(p, f.replace("g", "").replace("y", "") + "y");
  const sticky = f.includes("y"), uni = f.includes("u");
  let count = 0;
  for (let i = 0, m; i <= t.length && (m = exec(re, t, i, sticky, uni)); count++) {
    i = m[1] === m[0] ? advance(t, m[1], uni) : m[1];
  }
  return [exec(re, t, 0, sticky, uni) !== null, count];
};
const rl = require("readline").createInterface({input: process.stdin});
rl.on("line", (line) => {
  const {p, f, texts} = JSON.parse(line);
  let out;
  try {
    new RegExp(p, f);  // the flags and pattern as given must be valid
    out = {results: texts.map((t) => grade(p, f, t))};
  } catch (e) {
    out = {error: String(e && e.message)};
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
"""


def node_binary() -> str | None:
    """``node`` on PATH, else the one beside the npm-installed CLIs (.ci/npm)."""
    found = shutil.which("node")
    if found:
        return found
    for candidate in sorted(Path(__file__).resolve().parents[1].glob(".ci/npm/*/node_modules/.bin/node")):
        return str(candidate)
    return None


class JsNode:
    def __init__(self, exe: str) -> None:
        self.proc = subprocess.Popen([exe, "-e", _SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8")
        self.version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()

    @classmethod
    def start(cls) -> JsNode | None:
        exe = node_binary()
        return cls(exe) if exe else None

    def grade(self, pattern: str, flags: str, texts: list[str]) -> list[tuple[bool, int]] | str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"p": pattern, "f": flags, "texts": texts}) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        return answer["error"] if "error" in answer else [tuple(r) for r in answer["results"]]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)

    def __enter__(self) -> JsNode:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()
