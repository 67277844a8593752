"""The review page's per-run data is kept beside each skill's table: a rebuild after one changed
run reads that run's view only, and what the page shows is always what the store holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from suitekit import Kit

import skill_eval.review.render.page.run_data as review_data_mod
from skill_eval.review.render.page.cache import FOLDER, PageCache, run_rel


@pytest.fixture
def reads(monkeypatch):
    seen: list[str] = []
    real = review_data_mod.run_entry

    def counting(results, run_dir, *args):
        seen.append(str(run_dir))
        return real(results, run_dir, *args)

    monkeypatch.setattr(review_data_mod, "run_entry", counting)
    return seen


def page_runs(kit: Kit) -> dict[tuple[str, str, str, int], dict]:
    text = (kit.results / "index.html").read_text()
    data = json.loads(re.search(r'<script type="application/json" id="review-data">(.*?)</script>',
                                text, re.S).group(1))
    return {(s["skill"], c["id"], r["arm"], r["it"]): r
            for s in data["skills"] for c in s["cases"] + s["triggers"] for r in c["runs"]}


def test_a_rerun_under_the_same_key_reads_only_that_run_and_shows_it(tmp_path, reads):
    kit = Kit.create(tmp_path)
    assert kit.run()[0] == 0
    assert len(reads) == 18 and (kit.results / "alpha" / FOLDER).is_dir()
    assert page_runs(kit)[("alpha", "a1", "with_skill", 1)]["cost"] == 0
    reads.clear()
    kit.control(cost=0.25)  # same run key, a different answer
    code, out, err = kit.run("--force", "--only", "alpha/a1/with_skill/default/1")
    assert code == 0, err
    assert len(reads) == 1 and reads[0].endswith("with_skill")
    runs = page_runs(kit)
    assert runs[("alpha", "a1", "with_skill", 1)]["cost"] == 0.25
    assert runs[("alpha", "a1", "with_skill", 2)]["cost"] == 0 and len(runs) == 18


def test_a_regraded_case_is_read_again_and_the_rest_is_not(tmp_path, reads):
    kit = Kit.warm(tmp_path)
    reads.clear()
    kit.edit_case("beta", "b1", checks=[{"id": "renamed", "type": "contains", "value": "says"}])
    assert kit.run()[0] == 0
    assert sorted({Path(r).parts[-2] for r in reads}) == ["eval-b1"] and len(reads) == 6
    assert {c[0] for r in page_runs(kit).values() if r["checks"] for c in r["checks"]} >= {"renamed"}


def test_a_crash_after_the_views_were_rewritten_cannot_leave_old_page_data(tmp_path):
    kit = Kit.warm(tmp_path)
    out = kit.results / "alpha"
    rel = run_rel(1, "a1", "with_skill")
    # build_skill drops the entries of the views it rewrites before writing them.
    cache = PageCache(out)
    assert rel in cache.runs
    cache.drop([rel])
    cache.save()
    assert rel not in PageCache(out).runs and "eval-a1" not in PageCache(out).cases


def test_entries_are_kept_by_grade_key_and_version(tmp_path):
    folder = tmp_path / "sk"
    cache = PageCache(folder, {"iteration-1/eval-x/with_skill": "g1"})
    assert cache.run("iteration-1/eval-x/with_skill", lambda: {"out": "one"}) == {"out": "one"}
    cache.save()
    again = PageCache(folder, {"iteration-1/eval-x/with_skill": "g1"})
    assert again.run("iteration-1/eval-x/with_skill", lambda: {"out": "two"}) == {"out": "one"}
    assert again.reads == 0
    changed = PageCache(folder, {"iteration-1/eval-x/with_skill": "g2"})
    assert changed.run("iteration-1/eval-x/with_skill", lambda: {"out": "two"}) == {"out": "two"}
    [shard] = (folder / FOLDER).iterdir()
    data = json.loads(shard.read_text())
    data["version"] = [0, "old"]
    shard.write_text(json.dumps(data))
    assert PageCache(folder).runs == {}
    shard.write_text("{not json")
    assert PageCache(folder).runs == {}


def test_one_changed_run_rewrites_one_shard(tmp_path):
    folder = tmp_path / "sk"
    cache = PageCache(folder)
    for i in range(200):
        cache.run(run_rel(1, f"c{i}", "with_skill"), lambda i=i: {"out": i})
    cache.save()
    before = {p.name: p.stat().st_mtime_ns for p in (folder / FOLDER).iterdir()}
    assert len(before) > 10
    again = PageCache(folder)
    again.drop([run_rel(1, "c7", "with_skill")])
    assert again.run(run_rel(1, "c7", "with_skill"), lambda: {"out": "new"}) == {"out": "new"}
    again.save()
    after = {p.name: p.stat().st_mtime_ns for p in (folder / FOLDER).iterdir()}
    assert len([n for n in after if after[n] != before[n]]) == 1
    assert PageCache(folder).runs[run_rel(1, "c7", "with_skill")][1] == {"out": "new"}
    assert len(PageCache(folder).runs) == 200


def test_an_unchanged_skills_share_of_the_page_is_reused_whole(tmp_path, monkeypatch):
    from skill_eval.review.folder import tables

    kit = Kit.warm(tmp_path)
    full = page_runs(kit)
    assembled: list[str] = []
    assert "bench_entry" not in tables.__dict__  # imported inside page_part: count at the source
    real = review_data_mod.bench_entry
    monkeypatch.setattr(review_data_mod, "bench_entry",
                        lambda results, out, bench, *a: assembled.append(bench["skill"])
                        or real(results, out, bench, *a))
    kit.edit_case("beta", "b1", checks=[{"id": "renamed", "type": "contains", "value": "says"}])
    assert kit.run()[0] == 0
    assert assembled == ["beta"]  # alpha's part came from .review/page.json
    after = page_runs(kit)
    assert {k: v for k, v in after.items() if k[0] == "alpha"} == {k: v for k, v in full.items()
                                                                 if k[0] == "alpha"}
    # ... and the page data is exactly what reading every view afresh makes.
    text = (kit.results / "index.html").read_text()
    data = json.loads(re.search(r'<script type="application/json" id="review-data">(.*?)</script>',
                                text, re.S).group(1))
    benches = [json.loads((kit.results / s / "benchmark.json").read_text()) for s in ("alpha", "beta")]
    moved = json.loads((kit.results / "summary.json").read_text()).get("moved", [])
    fresh = review_data_mod.review_data(kit.results, [(b, kit.results / b["skill"]) for b in benches], moved)
    assert data == json.loads(json.dumps(fresh))


def test_a_rerun_of_a_skills_run_drops_its_kept_share(tmp_path):
    kit = Kit.warm(tmp_path)
    kit.control(cost=0.5)  # same run key, a different answer
    assert kit.run("--force", "--only", "alpha/a1/with_skill/default/2")[0] == 0
    assert page_runs(kit)[("alpha", "a1", "with_skill", 2)]["cost"] == 0.5
