"""results/mock-recordings/ (review/mockrecordings.py): the agent-mock answers of the stored runs,
one file per call identity, an ADOPT.txt naming where each goes, and a server left out when two
runs answered one call differently."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from skill_eval.model.mockagent import recording_text
from skill_eval.review.folder.mockrecordings import ADOPT, write_recordings

NAME = "lookup-" + "a" * 64 + ".json"
OTHER = "find-" + "b" * 64 + ".json"


def _rec(server: str, name: str, output: str, when: str = "2026-01-01T00:00:00.000Z") -> dict[str, Any]:
    return {"server": server, "file": name, "adopt_dir": f"/e/mocks/.replay/{server}",
            "text": recording_text({"id": "7"}, output, "ok", when, None)}


def _engine(tmp_path: Path, metas: dict[str, list[dict[str, Any]]]) -> Any:
    # Runs of cases with mocks (a case without them is never asked for recordings).
    mocked = SimpleNamespace(settings=SimpleNamespace(mocks=object()))
    runs = [SimpleNamespace(skill_name="s", key=k, case=mocked) for k in metas]
    store = SimpleNamespace(get_meta=lambda key: {"mock_recordings": metas[key]},
                            discard_run=lambda key: metas.pop(key))
    return SimpleNamespace(suite=SimpleNamespace(results=tmp_path / "results"), skill_names=["s"],
                           plan=SimpleNamespace(runs=runs), store=store, damaged=[],
                           slot=lambda spec: f"s/{spec.key}")


def test_recordings_are_written_once_each_with_where_to_adopt_them(tmp_path):
    engine = _engine(tmp_path, {"k1": [_rec("notes", NAME, "NOTE 7")],
                                "k2": [_rec("notes", NAME, "NOTE 7", "2026-02-02T00:00:00.000Z"),
                                       _rec("web", OTHER, "PAGE")]})
    write_recordings(engine)
    out = tmp_path / "results" / "mock-recordings"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json")) == [
        f"notes/{NAME}", f"web/{OTHER}"]
    lines = (out / ADOPT).read_text().splitlines()
    assert lines[1] == "" and lines[2].startswith(f"{out / 'notes' / NAME}  sha256=")
    assert lines[3] == "    -> /e/mocks/.replay/notes/"


def test_a_server_answered_two_ways_for_one_call_is_left_out_and_old_files_go(tmp_path):
    engine = _engine(tmp_path, {"k1": [_rec("notes", NAME, "NOTE 7"), _rec("web", OTHER, "PAGE")],
                                "k2": [_rec("notes", NAME, "NOTE SEVEN")]})
    (tmp_path / "results" / "mock-recordings" / "old").mkdir(parents=True)
    write_recordings(engine)
    out = tmp_path / "results" / "mock-recordings"
    assert [p.name for p in out.rglob("*.json")] == [OTHER] and not (out / "old").exists()
    write_recordings(_engine(tmp_path, {"k1": []}))
    assert not out.exists()  # nothing to adopt: no folder


def test_a_run_of_a_case_without_mocks_is_not_read(tmp_path):
    engine = _engine(tmp_path, {"k1": [_rec("notes", NAME, "NOTE 7")]})
    engine.plan.runs[0].case = SimpleNamespace(settings=None)
    engine.store.get_meta = lambda key: (_ for _ in ()).throw(AssertionError(f"read {key}"))
    write_recordings(engine)
    assert not (tmp_path / "results" / "mock-recordings").exists()



def test_a_recording_that_is_not_json_marks_its_run_damaged_and_the_others_are_written(tmp_path):
    # As an older version's redaction left DB_PASSWORD="s3cret!": the quote taken for the secret.
    broken = dict(_rec("notes", NAME, "x"), text='{"output": "DB_PASSWORD=[REDACTED:password]"s3cret!\\""}')
    metas = {"k1": [broken], "k2": [_rec("web", OTHER, "PAGE")]}
    engine = _engine(tmp_path, metas)
    write_recordings(engine)
    assert engine.damaged == ["s/k1"] and "k1" not in metas  # removed: `run` makes it again
    out = tmp_path / "results" / "mock-recordings"
    assert [p.name for p in out.rglob("*.json")] == [OTHER]
