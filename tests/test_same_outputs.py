"""The page's memory of which compared runs left the same output (review/versions/same_outputs.py)."""

from __future__ import annotations

from pathlib import Path

from skill_eval.model.results import AdapterResponse
from skill_eval.review.versions.same_outputs import SameOutputs
from skill_eval.store.store import Store


def test_an_answer_is_kept_until_either_entry_is_stored_again(tmp_path: Path):
    store = Store(tmp_path / "store")
    a, b = "a" * 64, "b" * 64
    for key in (a, b):
        store.put_run(key, AdapterResponse("same text"), 0.1, {})
    path = tmp_path / "store" / "history" / "s.same-outputs.json"
    asked: list[str] = []

    def compare() -> bool:
        asked.append("x")
        return True

    first = SameOutputs(path, store)
    assert first.same(a, b, compare) is True and first.compared == 1
    first.save()
    again = SameOutputs(path, store)
    assert again.same(a, b, compare) is True and again.compared == 0 and len(asked) == 1
    again.save()
    store.discard_run(b)
    store.put_run(b, AdapterResponse("other text"), 0.1, {})  # --force: same key, a new entry
    third = SameOutputs(path, store)
    assert third.same(a, b, lambda: False) is False and third.compared == 1
    path.write_text("{damaged")
    assert SameOutputs(path, store).same(a, b, lambda: False) is False  # advisory: compared again
