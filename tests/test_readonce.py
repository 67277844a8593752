"""fs/readonce.py: a folder's input files read once each, what was wrong with one reported to
every caller (a plugin suite's mocks are shared by all its cases)."""

from __future__ import annotations

import hashlib

from skill_eval.fs.readonce import ReadOnce


def test_each_file_is_read_once_and_its_problems_reach_every_caller(tmp_path, monkeypatch):
    import skill_eval.fs.readonce as readonce

    (tmp_path / "ok.md").write_text("hi\r\n")
    (tmp_path / "bad.md").write_bytes(b"\xff")
    reads, calls = ReadOnce(tmp_path), []
    real = readonce.confined_bytes
    monkeypatch.setattr(readonce, "confined_bytes", lambda *a: (calls.append(a[0].name), real(*a))[1])
    for _ in range(3):
        said: list[str] = []
        assert reads.text(tmp_path / "ok.md", said.append) == "hi\n"
        assert reads.digest(tmp_path / "ok.md") == hashlib.sha256(b"hi\r\n").hexdigest()
        assert reads.text(tmp_path / "bad.md", said.append) is None
        assert said == ["bad.md: is not UTF-8 text (byte 0xff at offset 0); save it as UTF-8"]
    assert sorted(calls) == ["bad.md", "ok.md"]


def test_files_under_a_folder_leave_out_and_name_what_is_over_the_limit_or_links_out(tmp_path):
    root, outside = tmp_path / "evals", tmp_path / "secret"
    (root / "fx" / "sub").mkdir(parents=True)
    outside.write_text("s")
    (root / "fx" / "sub" / "a.json").write_text("{}")
    (root / "fx" / "big").write_bytes(b"x" * 11)
    (root / "fx" / "leak").symlink_to(outside)
    said: list[str] = []
    found = ReadOnce(root).files(root / "fx", 10, said.append)
    assert [(name, text) for name, text, _ in found] == [("sub/a.json", "{}")]
    assert [m.split(":")[0] for m in said] == ["fx/big", "fx/leak"]
