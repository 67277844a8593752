"""The review page for a 6,000-run suite: its size, the time to build it, and in Chromium the
time to load it and to apply a filter and a search. Medians of several runs.

Synthetic data (1,000 cases × 2 arms × 3 iterations, ~600-character outputs) is written in the
per-run layout the results folder has, then goes through the same functions `run` uses
(review_data + review_page). The browser part needs /usr/bin/chromium and playwright.

    python benchmarks/bench_review_page.py [CASES] [REPEATS]
"""

from __future__ import annotations

import json
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from skill_eval.grade.grading import grade_run
from skill_eval.model.cases import Case, Check
from skill_eval.model.results import AdapterResponse, RunResult
from skill_eval.review.comparison.benchmark import RunRecord, build_benchmark
from skill_eval.review.render.page.cache import PageCache, run_rel
from skill_eval.review.render.page.run_data import review_data
from skill_eval.review.render.review import review_page

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
CHECKS = (Check("mentions", "contains", params={"value": "total"}),
          Check("shape", "regex", params={"pattern": r"^\w+"}))


def _write(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), "utf-8")


def build_suite(root: Path, n_cases: int, iterations: int = 3) -> tuple[dict, Path]:
    rng = random.Random(0)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(400)]
    cases = [Case(id=f"case-{i:04d}", prompt=f"Task {i}: " + " ".join(rng.choices(words, k=20)),
                  checks=CHECKS) for i in range(n_cases)]
    out = root / "sk"
    records = []
    for case in cases:
        for it in range(1, iterations + 1):
            folder = out / f"iteration-{it}" / f"eval-{case.id}"
            _write(folder / "case.json", {"id": case.id, "prompt": case.prompt, "expected_output": ""})
            for arm in ("with_skill", "without_skill"):
                passed = rng.random() < (0.8 if arm == "with_skill" else 0.5)
                text = " ".join(rng.choices(words, k=100)) + (" total" if passed else "")
                usage = {"input_tokens": 400, "output_tokens": 120, "cost_usd": 0.002}
                result = RunResult(f"{case.id}-{arm}-{it}", AdapterResponse(text, (), usage), 1.5)
                grade = grade_run(case, result, "sk", False)
                run_dir = folder / arm
                _write(run_dir / "output.txt", text)
                _write(run_dir / "grading.json", grade)
                _write(run_dir / "response.json", {"output": text, "events": [], "usage": usage})
                _write(run_dir / "timing.json", {"duration_s": 1.5})
                records.append(RunRecord.of(case.id, arm, it, result, grade))
    bench = build_benchmark("bench", "sk", "default", cases, records, 0.1)
    return bench, out


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:,.0f} ms"


def main() -> None:
    n_cases = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bench, out = build_suite(root, n_cases)
        runs = sum(c["with_skill"]["runs"] + c["without_skill"]["runs"] for c in bench["cases"])
        read, render = [], []
        page = ""
        for _ in range(repeats):
            t0 = time.perf_counter()
            data = review_data(root, [(bench, out)], [])
            t1 = time.perf_counter()
            page = review_page([bench], [], data)
            t2 = time.perf_counter()
            read.append(t1 - t0)
            render.append(t2 - t1)
        cold, warm = cache_timings(root, bench, out, repeats)
        path = root / "index.html"
        path.write_text(page, "utf-8")
        rows = [["runs", f"{runs:,}"], ["page size", f"{len(page.encode()) / 1e6:.2f} MB"],
                ["read run views, no cache (review_data)", median_ms(read)],
                ["read run views, empty cache (+ write .review/)", median_ms(cold)],
                ["read run views after one run changed (cache)", median_ms(warm)],
                ["render page (review_page)", median_ms(render)]]
        rows += browser_rows(path, repeats)
        print(tabulate(rows, headers=["review page", f"median of {repeats}"], tablefmt="github"))


def cache_timings(root: Path, bench: dict, out: Path, repeats: int) -> tuple[list[float], list[float]]:
    """The page data through PageCache as `run` uses it: built from nothing, then rebuilt after
    one run's view was rewritten (tables.build_skill drops that run's entry first)."""
    ids = {run_rel(it, c["id"], v): f"{c['id']}-{v}-{it}" for c in bench["cases"]
           for v in ("with_skill", "without_skill") for it in range(1, c["with_skill"]["runs"] + 1)}
    cold, warm = [], []
    for _ in range(repeats):
        PageCache.clear(out)
        t0 = time.perf_counter()
        cache = PageCache(out, ids)
        review_data(root, [(bench, out)], [], {out: cache})
        cache.save()
        cold.append(time.perf_counter() - t0)
    for i in range(repeats):
        changed = PageCache(out)
        changed.drop([run_rel(1, bench["cases"][i]["id"], "with_skill")])
        changed.save()
        t0 = time.perf_counter()
        cache = PageCache(out, ids)
        review_data(root, [(bench, out)], [], {out: cache})
        cache.save()
        warm.append(time.perf_counter() - t0)
        assert cache.reads == 1
    return cold, warm


def browser_rows(path: Path, repeats: int) -> list[list[str]]:
    if not Path(CHROMIUM).exists():
        return [["browser timings", f"n/a: no {CHROMIUM}"]]
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        return [["browser timings", "n/a: playwright not installed"]]
    load, filt, search, first = [], [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(repeats):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            t0 = time.perf_counter()
            page.goto(path.as_uri())  # waits for the load event, after the first draw
            t1 = time.perf_counter()
            shown = page.locator("#shown")
            before = shown.inner_text()
            t2 = time.perf_counter()
            page.check("input[data-filter=failing]")
            expect(shown).not_to_have_text(before)
            t3 = time.perf_counter()
            page.uncheck("input[data-filter=failing]")
            expect(shown).to_have_text(before)
            t4 = time.perf_counter()
            page.fill("#search", "case-0999")
            expect(shown).not_to_have_text(before)
            t5 = time.perf_counter()
            page.locator("tr.case").first.click()
            expect(page.locator(".case-detail")).to_have_count(1)
            t6 = time.perf_counter()
            load.append(t1 - t0)
            filt.append(t3 - t2)
            search.append(t5 - t4)
            first.append(t6 - t5)
            page.close()
        browser.close()
    return [["load in Chromium (to the load event)", median_ms(load)],
            ["filter 'failing' (click to redrawn)", median_ms(filt)],
            ["search over prompts and outputs (incl. 120 ms debounce)", median_ms(search)],
            ["open a case (click to detail drawn)", median_ms(first)]]


if __name__ == "__main__":
    main()
