"""fs/confined.py: the one guard every reader of a user's input file goes through (no link out
of its folder, no FIFO or device, UTF-8 or named, a size cap)."""

from __future__ import annotations

import os
import time

import pytest

from skill_eval.fs.confined import Unreadable, confined_bytes, confined_text, refusal


def test_a_file_inside_is_read_with_line_ends_as_read_text_gives_them(tmp_path):
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbfone\r\ntwo\rthree\n")
    assert confined_text(tmp_path / "a.md", tmp_path) == "one\ntwo\nthree\n"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "link.md").symlink_to(tmp_path / "a.md")  # a link that stays inside
    assert refusal(tmp_path / "in" / "link.md", tmp_path) is None


def test_a_link_out_of_the_root_is_refused_naming_where_it_leads(tmp_path):
    (tmp_path / "secret").write_text("s")
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "f").symlink_to(tmp_path / "secret")
    with pytest.raises(Unreadable, match="is a link to .*secret, outside case/; copy the file in"):
        confined_bytes(tmp_path / "case" / "f", tmp_path / "case")
    assert confined_bytes(tmp_path / "case" / "f") == b"s"  # no root: links are the caller's call


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/null"])
def test_a_fifo_or_device_is_refused_without_waiting(tmp_path, kind):
    path = tmp_path / "g.md"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(kind)
    started = time.monotonic()
    with pytest.raises(Unreadable, match="not a file: reading it could block or never end"):
        confined_text(path)
    assert time.monotonic() - started < 5


def test_a_folder_text_that_is_not_utf8_and_a_file_over_the_limit_are_named(tmp_path):
    with pytest.raises(Unreadable, match="is a folder"):
        confined_text(tmp_path)
    (tmp_path / "b").write_bytes(b"ok \xff")
    with pytest.raises(Unreadable, match=r"is not UTF-8 text \(byte 0xff at offset 3\)"):
        confined_text(tmp_path / "b")
    (tmp_path / "big").write_bytes(b"x" * 2049)
    with pytest.raises(Unreadable, match="is over"):
        confined_bytes(tmp_path / "big", limit=2048)
    assert len(confined_bytes(tmp_path / "big", limit=2049)) == 2049
