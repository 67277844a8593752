"""``python -m skill_eval.cli.action_info SUITE``: what the GitHub Action (action.yml) needs to
know of a suite before it runs, as ``name=value`` lines for ``$GITHUB_OUTPUT``.

``store`` and ``results`` are the suite's folders; ``key`` is a hash of the suite's inputs (the
suite file, every file under its skills folder, the adapter's script and ``depends`` files, and
skill-eval's version), so the cached store is found again exactly when nothing changed, and the
Action falls back to the newest store of any key otherwise (the store is content-addressed: a
stale one only means more runs). An invalid suite is its one-line problems and exit 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from skill_eval import __version__
from skill_eval.errors import InvalidInput
from skill_eval.fs.hashing import key_of, sha256_file
from skill_eval.model.config import Suite, depends_files, load_suite


def _files(suite: Suite) -> list[Path]:
    found = [suite.path]
    if suite.skills_dir.is_dir():
        found += [p for p in suite.skills_dir.rglob("*") if p.is_file()]
    found += [Path(a) for a in (suite.adapter.command or ()) if os.path.isfile(a)]
    found += [suite.root / a for a in (suite.adapter.command or ()) if (suite.root / a).is_file()]
    found += list(depends_files(suite))
    return sorted({p.resolve() for p in found})


def inputs_key(suite: Suite) -> str:
    root = suite.root.resolve()
    parts = {os.path.relpath(p, root): sha256_file(p) for p in _files(suite)}
    return key_of({"skill_eval": __version__, "files": parts})[:32]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m skill_eval.cli.action_info SUITE", file=sys.stderr)
        return 2
    try:
        suite = load_suite(argv[0])
    except InvalidInput as exc:
        for problem in exc.problems:
            print(problem.format(), file=sys.stderr)
        return 2
    print(f"store={suite.store}")
    print(f"results={suite.results}")
    print(f"key={inputs_key(suite)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
