"""Results files: written atomically and redacted; a shared one only when its text changes."""

from __future__ import annotations

import os
import threading

from skill_eval.review.resultfiles import write_if_changed, write_text


def test_a_shared_file_is_written_once_and_redacted(tmp_path) -> None:
    path = tmp_path / "eval-a" / "case.json"
    text = '{"prompt": "use api_key=abcd1234efgh"}\n'
    write_if_changed(path, text)
    first = path.stat()
    assert "abcd1234efgh" not in path.read_text() and "[REDACTED:api-key]" in path.read_text()
    write_if_changed(path, text)  # the second variant's folder: same text, nothing written
    assert path.stat().st_ino == first.st_ino and path.stat().st_mtime_ns == first.st_mtime_ns


def test_a_shared_file_that_differs_is_replaced(tmp_path) -> None:
    path = tmp_path / "case.json"
    write_text(path, "hand-edited\n")
    write_if_changed(path, "the case\n")
    assert path.read_text() == "the case\n"
    path.write_bytes(b"\xff\xfe not text")
    write_if_changed(path, "the case\n")
    assert path.read_text() == "the case\n"


def test_a_fifo_in_a_shared_files_place_is_replaced_without_waiting(tmp_path) -> None:
    path = tmp_path / "case.json"
    os.mkfifo(path)
    writer = threading.Thread(target=write_if_changed, args=(path, "the case\n"), daemon=True)
    writer.start()
    writer.join(10)
    assert not writer.is_alive(), "waited on the FIFO"
    assert path.is_file() and path.read_text() == "the case\n"
