"""Start-up time of ``skill-eval --help`` (docs/incremental.md#performance-targets: ≤ 0.15 s).

Times, as separate processes, the median wall time of N runs (default 15, at least 7) of:

- ``skill-eval --help`` as found on PATH (what a user types; may be a version-manager shim),
- the console script itself, run by this interpreter (``<scripts>/skill-eval --help``),
- ``python -c pass`` (the interpreter's own floor: site, .pth files),
- ``python -c "import skill_eval.cli.main"`` (what the package adds to the floor),

then prints the modules that cost most at start-up, from ``python -X importtime``.

    python benchmarks/bench_startup.py [N]
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

TARGET = 0.15
HELP_CODE = ("import sys; from skill_eval.cli.main import main; sys.argv[0] = 'skill-eval'; "
             "sys.exit(main(['--help']))")


def _once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _medians(commands: list[list[str]], n: int) -> list[float]:
    """Median wall time of each command; runs are interleaved so machine noise hits all alike."""
    for argv in commands:
        _once(argv)  # warm the file cache
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(n):
        for i, argv in enumerate(commands):
            times[i].append(_once(argv))
    return [statistics.median(t) for t in times]


def _console_script() -> Path | None:
    """The ``skill-eval`` entry-point script installed for this interpreter."""
    path = Path(sysconfig.get_path("scripts")) / "skill-eval"
    return path if path.is_file() else None


def _importtime(code: str) -> list[tuple[int, int, int, str]]:
    """(self µs, cumulative µs, depth, module) for each import while running ``code``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          check=True)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative, name = (part.strip() if i == 2 else int(part)
                                     for i, part in enumerate(line[len("import time:"):].split("|")))
        raw = line.split("|")[2]
        depth = (len(raw) - len(raw.lstrip(" ")) - 1) // 2
        rows.append((self_us, cumulative, depth, name))
    return rows


def main(n: int = 15) -> int:
    n = max(n, 7)
    print(f"skill-eval start-up, median of {n} runs (target ≤ {TARGET:.2f} s for `skill-eval --help`)\n")
    named: list[tuple[str, list[str]]] = []
    on_path = shutil.which("skill-eval")
    if on_path:
        named.append((f"skill-eval --help  (PATH: {on_path})", [on_path, "--help"]))
    script = _console_script()
    if script is not None and str(script) != on_path:
        named.append((f"{Path(sys.executable).name} {script} --help  (console script, no shim)",
                      [sys.executable, str(script), "--help"]))
    elif script is None:
        named.append(("python -c 'main([\"--help\"])'  (no console script installed)",
                      [sys.executable, "-c", HELP_CODE]))
    named.append(("python -c pass  (interpreter floor)", [sys.executable, "-c", "pass"]))
    named.append(("python -c 'import skill_eval.cli.main'",
                  [sys.executable, "-c", "import skill_eval.cli.main"]))
    rows = list(zip([name for name, _ in named], _medians([argv for _, argv in named], n), strict=True))
    floor, package = rows[-2][1], rows[-1][1]
    width = max(len(name) for name, _ in rows)
    for name, seconds in rows:
        print(f"  {name:<{width}}  {seconds * 1000:7.1f} ms")
    headline = rows[0][1]
    print(f"\n  skill_eval.cli.main over the floor: {(package - floor) * 1000:+.1f} ms")
    verdict = "OK" if headline <= TARGET else "OVER TARGET"
    print(f"  median `skill-eval --help`: {headline:.3f} s  [{verdict}]\n")

    imports = _importtime(HELP_CODE)
    print("Top start-up imports by cumulative time (top-level imports, python -X importtime):")
    for self_us, cumulative, _depth, name in sorted((r for r in imports if r[2] == 0),
                                                    key=lambda r: -r[1])[:12]:
        print(f"  {cumulative / 1000:7.2f} ms cumulative  {self_us / 1000:6.2f} ms self  {name}")
    print("\nTop by self time (any depth):")
    for self_us, _cumulative, _depth, name in sorted(imports, key=lambda r: -r[0])[:8]:
        print(f"  {self_us / 1000:7.2f} ms  {name}")
    heavy = sorted({r[3].split(".")[0] for r in imports} & {"yaml", "jsonschema", "doit", "tabulate"})
    print(f"\nHeavy dependencies imported by --help: {', '.join(heavy) if heavy else 'none'}")
    return 0 if headline <= TARGET and not heavy else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 15))
