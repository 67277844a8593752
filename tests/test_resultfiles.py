"""Results files: written atomically and redacted; a shared one only when its text changes."""

from __future__ import annotations

import os
import threading

from skill_eval.review.folder.files import write_if_changed, write_text


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


def test_holds_is_exactly_these_bytes_in_a_plain_file(tmp_path) -> None:
    from skill_eval.review.folder.files import holds

    f = tmp_path / "f"
    f.write_bytes(b"abc")
    assert holds(f, b"abc")
    assert not holds(f, b"ab") and not holds(f, b"abcd") and not holds(f, b"abd")
    link = tmp_path / "link"
    link.symlink_to(f)
    assert not holds(link, b"abc")  # the right bytes through a link: not a file of ours
    assert not holds(tmp_path, b"") and not holds(tmp_path / "missing", b"")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert not holds(fifo, b"")  # and no wait for a writer


def test_same_tree_is_what_copytree_would_make(tmp_path) -> None:
    import shutil

    from skill_eval.review.folder.files import same_tree

    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("a")
    (src / "sub" / "b.bin").write_bytes(b"\0b")
    (src / "empty").mkdir()
    copy = tmp_path / "copy"
    shutil.copytree(src, copy)
    assert same_tree(src, copy)
    for change in (lambda: (copy / "a.txt").write_text("A"),
                   lambda: (copy / "sub" / "extra").write_text(""),
                   lambda: (copy / "sub" / "b.bin").unlink(),
                   lambda: (copy / "empty").rmdir(),
                   lambda: (copy / "a.txt").chmod(0o600),
                   lambda: ((copy / "a.txt").unlink(), (copy / "a.txt").symlink_to(src / "a.txt"))):
        change()
        assert not same_tree(src, copy)
        shutil.rmtree(copy)
        shutil.copytree(src, copy)
        assert same_tree(src, copy)
    assert not same_tree(src, tmp_path / "missing")
    (src / "link").symlink_to(src / "a.txt")  # copied as a file: never taken as equal
    shutil.rmtree(copy)
    shutil.copytree(src, copy)
    assert not same_tree(src, copy)
