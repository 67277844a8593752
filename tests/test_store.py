import json
import os
import subprocess
import sys

import pytest

from skill_eval.model.results import AdapterResponse, Event, RunError
from skill_eval.store.store import MANIFEST, Store

KEY = "ab" + "c" * 62
RESPONSE = AdapterResponse("out", (Event("skill_loaded", "s"),), {"input_tokens": 4})


def test_put_get_roundtrip_and_layout(tmp_path):
    store = Store(tmp_path)
    assert not store.has_run(KEY) and store.get_run(KEY) is None
    outputs = tmp_path / "ws-out"
    (outputs / "sub").mkdir(parents=True)
    (outputs / "sub" / "file.txt").write_text("api_key=abc123\n")
    (outputs / "image.bin").write_bytes(b"\xff\xfe\x00")
    os.symlink("/etc/passwd", outputs / "link")
    store.put_run(KEY, RESPONSE, 1.5, {"skill": "s"}, outputs=outputs, stderr="warn")
    entry = tmp_path / "runs" / "ab" / KEY
    assert store.has_run(KEY)
    assert sorted(p.name for p in entry.iterdir()) == sorted(
        [MANIFEST, "meta.json", "output.txt", "files", "response.json", "stderr.txt", "timing.json"])
    got = store.get_run(KEY)
    assert got.response == RESPONSE and got.duration_s == 1.5
    assert got.outputs_dir == entry / "files" / "outputs" and got.files_dir == entry / "files"
    assert (got.outputs_dir / "sub" / "file.txt").read_text() == "api_key=[REDACTED:api-key]\n"
    assert (got.outputs_dir / "image.bin").read_bytes() == b"\xff\xfe\x00"
    assert not (got.outputs_dir / "link").exists()
    manifest = json.loads((entry / MANIFEST).read_text())["files"]
    assert set(manifest) >= {"response.json", "files/outputs/sub/file.txt"}
    assert not any((tmp_path / "tmp").iterdir())


def test_workspace_files_are_kept_redacted_and_old_entries_stay_readable(tmp_path):
    store = Store(tmp_path)
    store.put_run(KEY, RESPONSE, 1.0, {}, files=[("report.md", b"password: hunter22\n"),
                                                ("outputs/x.bin", b"\xff token=s3cr3t-value \xfe")])
    got = store.get_run(KEY)
    assert (got.files_dir / "report.md").read_bytes() == b"password: [REDACTED:password]\n"
    # Not UTF-8: the patterns apply to the bytes, every other byte is kept.
    assert (got.outputs_dir / "x.bin").read_bytes() == b"\xff token=[REDACTED:token] \xfe"
    # An entry written before workspace files were kept: outputs/ only, still readable.
    old = "cd" + "e" * 62
    entry = tmp_path / "runs" / "cd" / old
    (entry / "outputs").mkdir(parents=True)
    (entry / "outputs" / "a.txt").write_text("a")
    for name, data in (("response.json", json.dumps(RESPONSE.to_json())), ("meta.json", "{}"),
                       ("timing.json", '{"duration_s": 1}'), ("output.txt", "out")):
        (entry / name).write_text(data)
    import hashlib
    files = {p.relative_to(entry).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in entry.rglob("*") if p.is_file()}
    (entry / MANIFEST).write_text(json.dumps({"key": old, "files": files}))
    legacy = store.get_run(old)
    assert legacy is not None and legacy.files_dir is None
    assert (legacy.outputs_dir / "a.txt").read_text() == "a"


def test_second_put_of_same_key_keeps_first(tmp_path):
    store = Store(tmp_path)
    store.put_run(KEY, RESPONSE, 1.0, {})
    store.put_run(KEY, AdapterResponse("other"), 2.0, {})
    assert store.get_run(KEY).output == "out"
    assert not any((tmp_path / "tmp").iterdir())


@pytest.mark.parametrize("damage", ["edit", "delete", "manifest"])
def test_corrupt_entry_reads_as_missing_and_is_removed(tmp_path, damage):
    store = Store(tmp_path)
    store.put_run(KEY, RESPONSE, 1.0, {})
    entry = store.run_dir(KEY)
    if damage == "edit":
        (entry / "output.txt").write_text("tampered")
    elif damage == "delete":
        (entry / "response.json").unlink()
    else:
        (entry / MANIFEST).write_text("{not json")
    assert store.get_run(KEY) is None
    assert not entry.exists() and not store.has_run(KEY)
    store.put_run(KEY, RESPONSE, 1.0, {})  # the run can simply be stored again
    assert store.get_run(KEY).output == "out"


def test_partial_entry_without_manifest_is_not_a_run(tmp_path):
    store = Store(tmp_path)
    entry = store.run_dir(KEY)
    entry.mkdir(parents=True)
    (entry / "response.json").write_text('{"output": "half"}')
    assert not store.has_run(KEY) and store.get_run(KEY) is None
    store.put_run(KEY, RESPONSE, 1.0, {})  # a damaged leftover is replaced
    assert store.get_run(KEY).output == "out"


def test_error_is_never_a_result(tmp_path):
    store = Store(tmp_path)
    store.put_error(KEY, RunError(KEY, "exit", "boom token=s3cr3t!", 0.2))
    assert not store.has_run(KEY) and store.get_run(KEY) is None
    err = store.get_error(KEY)
    assert err.kind == "exit" and "s3cr3t" not in err.message
    store.clear_error(KEY)
    assert store.get_error(KEY) is None
    store.clear_error(KEY)  # idempotent


def test_json_blobs(tmp_path):
    store = Store(tmp_path)
    assert store.get_json("grades", KEY) is None
    store.put_json("grades", KEY, {"b": 1, "a": [1, 2]})
    path = tmp_path / "grades" / "ab" / f"{KEY}.json"
    text = path.read_text()
    assert text.index('"a"') < text.index('"b"')
    assert store.get_json("grades", KEY) == {"a": [1, 2], "b": 1} and store.has_json("grades", KEY)
    path.write_text("{trunc")
    assert store.get_json("grades", KEY) is None and not path.exists()
    with pytest.raises(ValueError):
        store.put_json("runs", KEY, {})


@pytest.mark.slow
def test_lock_refuses_a_second_process(tmp_path):
    store = Store(tmp_path)
    code = ("import sys; from pathlib import Path; from skill_eval.store.store import Store\n"
            "from skill_eval.errors import StoreError\n"
            "try:\n    with Store(Path(sys.argv[1])).lock():\n        pass\nexcept StoreError as e:\n"
            "    print(e); sys.exit(3)\n")
    with store.lock():
        r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
        assert r.returncode == 3, r.stderr
        assert f"in use by another skill-eval process (pid {os.getpid()} since 20" in r.stdout
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    with store.lock(wait=True):
        pass


# --- agent-chosen names never lose a run (issue 20) ---------------------------------------------

def test_names_that_are_not_utf8_are_kept_under_escaped_names(tmp_path):
    store = Store(tmp_path)
    raw = os.fsdecode(b"caf\xe9-report.md")  # as os.walk hands a name that is not UTF-8
    got = store.put_run(KEY, RESPONSE, 1.0, {"files_not_kept": {os.fsdecode(b"big\xff"): "too big"}},
                        files=[(raw, b"x"), ("back\\slash", b"y"), ("ctl\x1b[31m", b"z")])
    names = sorted(p.name for p in got.files_dir.iterdir())
    assert names == ["back\\\\slash", "caf\\xe9-report.md", "ctl\\x1b[31m"]
    assert got.not_kept == {"big\\xff": "too big"}
    meta = store.get_meta(KEY)
    assert meta["files_not_kept"] == {"big\\xff": "too big"}
    assert store.get_run(KEY) is not None  # the manifest verifies


def test_names_equal_after_redaction_get_distinct_suffixes(tmp_path):
    store = Store(tmp_path)
    one, two = "sk-" + "a" * 20, "sk-" + "b" * 20
    got = store.put_run(KEY, RESPONSE, 1.0, {}, files=[
        (f"out/{one}.txt", b"1"), (f"out/{two}.txt", b"2"),  # two secrets, one marker
        (f"dir/{one}", b"file"), (f"dir/{two}/inner.txt", b"in a folder"),  # a file and a folder
        ("token=abc/def/x.txt", b"slash"),  # redaction must not swallow the '/'
    ])
    files = {p.relative_to(got.files_dir).as_posix(): p.read_bytes()
             for p in got.files_dir.rglob("*") if p.is_file()}
    assert files == {
        "out/[REDACTED:api-key].txt": b"1", "out/[REDACTED:api-key]~2.txt": b"2",
        "dir/[REDACTED:api-key]": b"file", "dir/[REDACTED:api-key]~2/inner.txt": b"in a folder",
        "token=[REDACTED:token]/def/x.txt": b"slash"}
    assert one not in json.dumps(files, default=str) and two not in str(files)
    assert store.get_run(KEY) is not None


def test_a_name_too_long_once_escaped_is_listed_not_kept(tmp_path):
    store = Store(tmp_path)
    raw = os.fsdecode(b"\xff" * 200)  # 200 bytes on disk, 800 once escaped
    got = store.put_run(KEY, RESPONSE, 1.0, {}, files=[(raw, b"x"), ("ok.txt", b"y")])
    assert [p.name for p in got.files_dir.iterdir()] == ["ok.txt"]
    assert list(got.not_kept.values()) == ["name too long to keep (over 255 bytes once escaped)"]
    assert store.get_meta(KEY)["files_not_kept"] == got.not_kept


def test_damaged_kept_files_fail_verification(tmp_path):
    store = Store(tmp_path)
    got = store.put_run(KEY, RESPONSE, 1.0, {}, files=[("outputs/r.md", b"right")])
    (got.files_dir / "outputs" / "r.md").write_bytes(b"wrong")
    assert store.get_run(KEY) is None and not store.has_run(KEY)
