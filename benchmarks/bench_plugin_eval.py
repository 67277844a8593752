"""Wall time of one small ``claude plugin eval`` suite, run by the real CLI and by skill-eval.

The same plugin (tests/plugineval_oracle.write_plugin: skill csv-summary, CASES cases of RUNS
runs per arm, one ``regex`` grader on the last message, and LLM ``llm`` graders, judged by three
votes each), the same scripted model server (tests/fakemodel.py, a fresh one per timing) and the
same concurrency, three ways:

- ``claude plugin eval <plugin> --trust-plugin -j N --json`` (both arms);
- ``skill-eval run suite.yaml -j N`` cold (empty store and results; the claude-code adapter, the
  suite tests/plugineval_oracle.write_suite writes, both arms; with llm graders, the claude-code
  judge on the same server);
- the same ``skill-eval run`` again, unchanged (the incremental no-op).

Each is a fresh process, timed REPEAT times, interleaved; prints the medians and the ratios.
Needs the real ``claude`` (.ci/npm/newest, as tests/realcli.py finds it; or --claude PATH).

    python benchmarks/bench_plugin_eval.py [--repeat 3] [-j 2] [--cases 3] [--runs 2] [--llm 0]

Issue 59's figure (llm graders): ``--repeat 5 -j 2 --cases 3 --runs 3 --llm 2``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from fakemodel import FakeModel, Script  # noqa: E402
from plugineval_oracle import write_plugin, write_suite  # noqa: E402

GRADER = '---\ntype: regex\npattern: "Total"\n---\n'
LLM = "---\ntype: llm\n---\nThe answer states the total of sales ({k}).\n"


def find_claude() -> Path:
    for base in (REPO / ".ci" / "npm" / "newest", REPO / ".ci" / "npm"):
        exe = base / "node_modules" / ".bin" / "claude"
        if exe.exists():
            return exe
    raise SystemExit("no claude CLI under .ci/npm/newest (run .ci/run, or pass --claude PATH)")


def plugin(root: Path, cases: int, runs: int, llm: int = 0) -> Path:
    prompt = "---\nruns: {runs}\n---\nSummarise the sales, case {i}.\n"
    cases_ = {f"c{i}": {"prompt.md": prompt.format(runs=runs, i=i), "graders/total.md": GRADER,
                        **{f"graders/judged{k}.md": LLM.format(k=k) for k in range(llm)}}
              for i in range(cases)}
    return write_plugin(root, cases_)


def judge_block(claude: Path, url: str) -> str:
    return (f"judge:\n  builtin: claude-code\n  options: {{claude_bin: {json.dumps(str(claude))}, "
            f"base_url: {json.dumps(url)}}}\n  env: [ANTHROPIC_API_KEY]\n")


def env(url: str, home: Path) -> dict[str, str]:
    """The caller's environment without its own Claude settings, aimed at the fake server."""
    out = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "CLAUDE", "EVAL_"))}
    home.mkdir(parents=True, exist_ok=True)
    out.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-fake", HOME=str(home),
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", PYTHONPATH=str(REPO))
    return out


def model_calls(requests: list[dict[str, object]]) -> int:
    """POSTs to the messages API (the CLI's HEAD /api/hello probes are no model call)."""
    return sum(1 for r in requests
               if r["method"] == "POST" and str(r["path"]).split("?")[0].endswith("/messages"))


def timed(argv: list[str], url: str, home: Path, cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env(url, home), cwd=cwd, capture_output=True, text=True,
                          timeout=1800, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start, done


def plugin_eval_once(claude: Path, plug: Path, jobs: int, work: Path) -> tuple[float, int, int]:
    shutil.rmtree(work / "pe-home", ignore_errors=True)  # cold: no settings or caches of a previous round
    with FakeModel(Script()) as fm:
        argv = [str(claude), "plugin", "eval", str(plug), "--trust-plugin", "-j", str(jobs), "--json"]
        wall, done = timed(argv, fm.url, work / "pe-home", work)
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        raise SystemExit(f"plugin eval printed no JSON (exit {done.returncode}): "
                         f"{done.stderr[-2000:]}") from None
    runs = sum(len(c["arms"].get(arm) or []) for c in doc["cases"] for arm in ("with", "without"))
    return wall, runs, model_calls(fm.requests)


def skill_eval_twice(claude: Path, plug: Path, jobs: int, work: Path, judged: bool
                     ) -> tuple[float, float, str]:
    """(cold wall, unchanged re-run wall, the cold run's 'Done' line)."""
    shutil.rmtree(work, ignore_errors=True)
    exe = str(Path(sys.executable).parent / "skill-eval")
    with FakeModel(Script()) as fm:
        suite = write_suite(work, claude, plug, fm.url, ("with_skill", "without_skill"),
                            judge_block(claude, fm.url) if judged else "")
        cold, done = timed([exe, "run", str(suite), "-j", str(jobs)], fm.url, work / "se-home", work)
        if done.returncode not in (0, 1):
            raise SystemExit(f"skill-eval run exited {done.returncode}: {done.stderr[-2000:]}")
        again, redo = timed([exe, "run", str(suite), "-j", str(jobs)], fm.url, work / "se-home", work)
        calls = model_calls(fm.requests)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("Done")), "")
    if "Up to date" not in redo.stdout:
        raise SystemExit(f"the unchanged re-run was not a no-op: {redo.stdout[-1000:]}")
    return cold, again, f"{line} ({calls} model requests in both runs)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--cases", type=int, default=3)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--llm", type=int, default=0, help="llm graders per case (three judge votes each)")
    ap.add_argument("--claude", type=Path)
    args = ap.parse_args()
    claude = args.claude or find_claude()
    version = subprocess.run([str(claude), "--version"], capture_output=True, text=True).stdout.strip()
    pe, cold, again = [], [], []
    with tempfile.TemporaryDirectory(prefix="bench-plugin-eval-") as tmp:
        root = Path(tmp)
        plug = plugin(root / "plug", args.cases, args.runs, args.llm)
        for i in range(args.repeat):  # interleaved: machine load hits both alike
            wall, runs, requests = plugin_eval_once(claude, plug, args.jobs, root)
            pe.append(wall)
            c, a, done = skill_eval_twice(claude, plug, args.jobs, root / "se", args.llm > 0)
            cold.append(c)
            again.append(a)
            print(f"  round {i + 1}: plugin eval {wall:.2f} s ({runs} runs, {requests} model requests); "
                  f"skill-eval cold {c:.2f} s, "
                  f"unchanged {a:.3f} s; {done}", file=sys.stderr)
    m_pe, m_cold, m_again = (statistics.median(x) for x in (pe, cold, again))
    graders = "one regex grader" + (f" and {args.llm} llm graders" if args.llm else "")
    print(f"claude {version}; {args.cases} cases x {args.runs} runs x 2 arms, {graders} a case, "
          f"-j {args.jobs}, medians of {args.repeat}")
    print(f"{'':34}{'median s':>10}{'min s':>9}{'max s':>9}{'vs plugin eval':>16}")
    rows = (("claude plugin eval -j N --json", pe, m_pe), ("skill-eval run -j N (cold)", cold, m_cold),
            ("skill-eval run (unchanged)", again, m_again))
    for name, xs, m in rows:
        print(f"{name:34}{m:10.3f}{min(xs):9.3f}{max(xs):9.3f}{m / m_pe:15.3f}x")
    print(f"cold / plugin eval: {m_cold / m_pe:.2f}x; unchanged re-run / cold: {m_again / m_cold:.4f}")


if __name__ == "__main__":
    main()
